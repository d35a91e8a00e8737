"""The examples/ scripts run end to end at a tiny size (their full runs are in docs/env.md)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

EXAMPLES = Path(__file__).parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checkpoint_plays_inside_the_env_and_counts_each_game_once():
    example = load("checkpoint_in_env")
    points = example.play("pubeval", "random", 6, seed=2)
    assert points.shape == (6,) and set(np.abs(points)) <= {1.0, 2.0, 3.0}
    assert np.array_equal(points, example.play("pubeval", "random", 6, seed=2))  # seeded


@pytest.mark.slow
def test_ppo_example_trains_and_evaluates(tmp_path, capsys):
    example = load("ppo_masked")
    curve = tmp_path / "curve.csv"
    assert example.main(["--minutes", "0.05", "--num-envs", "8", "--steps", "16", "--eval-games", "4",
                         "--curve", str(curve), "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "PPO (greedy) vs random" in out and "paired" in out
    assert curve.read_text().startswith("steps,mean_points,games")
