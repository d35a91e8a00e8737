"""Each CLI's --help lists its own options with their comments, not training's config groups."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bgzero.cli import CONFIGS, config_help

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["analyze", "bench_cube", "bench_errors", "evaluate", "hint", "league", "match", "play",
                                  "prune", "rollout", "serve", "train", "web"])
def test_help_lists_every_option_of_the_config(name):
    text = config_help(name, f"bgzero-{name}")
    options = [k for k in yaml.safe_load((Path(CONFIGS) / f"{name}.yaml").read_text()) if k not in ("hydra", "defaults")]
    assert all(f"\n{k}:" in text for k in options) and "hydra:" not in text


def test_the_command_prints_its_own_help():
    proc = subprocess.run([sys.executable, "-m", "bgzero.cli.match", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "show: false" in proc.stdout and "# print every move" in proc.stdout  # the option and its comment
    assert "Config groups" not in proc.stdout and "selfplay" not in proc.stdout


@pytest.mark.parametrize("args,first", [
    (["--help"], "usage: bgzero-bench SUBCOMMAND"), (["errors", "--help"], "bgzero-bench errors: options are"),
    (["cube", "-h"], "bgzero-bench cube: options are")])
def test_bench_answers_help_for_itself_and_each_subcommand_without_the_library(args, first):
    code = (f"import sys\nsys.argv = ['bgzero-bench', *{args!r}]\nfrom bgzero.cli.launch import bench\nbench()\n"
            "heavy = [m for m in ('numba', 'torch', 'hydra') if m in sys.modules]\nassert not heavy, heavy")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(first)
