"""Each command's --help lists its own options, each with its default and what it does."""

import subprocess
import sys
from pathlib import Path

import pytest

from bgzero.cli.hydra_configs import OPTIONS, config_groups, config_help
from bgzero.cli.options import help_text, spelled
from bgzero.cli.schemas import COMMANDS
from bgzero.schema import fields

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(COMMANDS) + sorted(OPTIONS))
def test_help_lists_every_option_with_its_default_and_doc(name):
    prog, schema = COMMANDS[name] if name in COMMANDS else (f"bgzero-{name}", OPTIONS[name])
    text = help_text(schema, prog) if name in COMMANDS else config_help(name, prog)
    assert text.startswith(f"{prog}: ")
    about, listed = text.split("\noptions, as key=value")
    for f in fields(schema):
        assert f.doc, f"{name}: {f.key} says nothing of what it does"
        line = next(line for line in listed.splitlines() if line.strip().startswith(f"{f.key}="))
        assert line.strip().startswith(f"{f.key}={spelled(f.default)}")


def test_training_help_names_each_config_group_with_its_choices():
    text = config_help("train", "bgzero-train")
    assert "\n  experiment=reference|strong|tiny\n" in text and "\n  net=mlp80\n" in text
    assert "recipe=strong|tiny" in config_help("iterate", "bgzero-iterate")
    assert "hydra:" not in text and "Config groups" not in text


@pytest.mark.parametrize("config_name", sorted(OPTIONS))
def test_a_config_group_sets_only_options_the_command_declares(config_name):
    """A config file is merged onto the declared options before Hydra closes the config: a key the
    declaration lacks (a typo in a recipe) would slip through as a value no code reads."""
    from omegaconf import OmegaConf

    from bgzero.cli.hydra_configs import hydra_compose
    from bgzero.schema import dotted_keys

    declared = {f.key for f in fields(OPTIONS[config_name])}
    nullable = {key.rpartition(".")[0] for key in declared}
    groups = config_groups(config_name)
    assert groups, "the config file offers no config group"
    for group, choices in groups.items():
        for choice in choices:
            cfg = OmegaConf.to_container(hydra_compose(config_name, [f"{group}={choice}"]), resolve=False)
            assert set(dotted_keys(cfg)) <= declared | nullable, f"{group}={choice}"


def test_the_command_prints_its_own_help():
    proc = subprocess.run([sys.executable, "-m", "bgzero.cli.match", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert any(line.split()[:2] == ["show=false", "print"] for line in proc.stdout.splitlines())  # option, default, doc
    assert "Config groups" not in proc.stdout and "selfplay" not in proc.stdout


@pytest.mark.parametrize("args,first", [
    (["--help"], "usage: bgzero-bench SUBCOMMAND"), (["errors", "--help"], "bgzero-bench errors: move errors"),
    (["cube", "-h"], "bgzero-bench cube: the neural agent's cube")])
def test_bench_answers_help_for_itself_and_each_subcommand_without_the_library(args, first):
    code = (f"import sys\nsys.argv = ['bgzero-bench', *{args!r}]\nfrom bgzero.cli.launch import bench\nbench()\n"
            "heavy = [m for m in ('numba', 'torch', 'hydra') if m in sys.modules]\nassert not heavy, heavy")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(first)
