"""Each command's --help lists its own options, each with its default and what it does."""

import subprocess
import sys
from pathlib import Path

import pytest

from bgzero.cli.hydra_configs import config_help
from bgzero.cli.options import fields, help_text, spelled
from bgzero.cli.schemas import COMMANDS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_lists_every_option_with_its_default_and_doc(name):
    prog, schema = COMMANDS[name]
    text = help_text(schema, prog)
    assert text.startswith(f"{prog}: ")
    about, listed = text.split("\noptions, as key=value")
    for f in fields(schema):
        assert f.doc, f"{name}: {f.key} says nothing of what it does"
        line = next(line for line in listed.splitlines() if line.strip().startswith(f"{f.key}="))
        assert line.strip().startswith(f"{f.key}={spelled(f.default)}")


def test_training_help_is_its_config_file_with_comments_not_hydras_groups():
    text = config_help("train", "bgzero-train")
    assert "\ntrain:" in text and "# self-play games to train for" in text
    assert "hydra:" not in text and "Config groups" not in text


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
