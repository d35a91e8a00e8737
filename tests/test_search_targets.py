"""Search-target fine-tuning: candidates come in whole turns, the targets are the search's
values, and training makes the net's comparisons within a turn follow them."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bgzero.agents.search import evaluate_ply
from bgzero.engine.classify import CONTACT
from bgzero.engine.game import random_positions
from bgzero.errors import ConfigError
from bgzero.learn.search_targets import candidate_turns, ply_targets, rank_fine_tune, turn_centred
from bgzero.value.checkpoint import load_checkpoint, load_evaluator, save_checkpoint
from bgzero.value.probs import equity


def test_candidates_are_whole_turns_of_contact_positions(tiny_checkpoint):
    evaluator = load_evaluator(tiny_checkpoint)
    boards, turns = candidate_turns(evaluator, 300, seed=1, top=3, games=16)
    assert len(boards) >= 300 and len(boards) == len(turns)
    assert (evaluator.route(boards) == CONTACT).all()
    assert (np.diff(turns) >= 0).all()                      # grouped by turn ...
    assert np.bincount(turns).max() <= 3                    # ... at most top per turn
    first = boards[turns < 16]                              # ... and shuffled: the file's first turns
    pips_on_roll = (first[:, 0] * np.arange(1, 26)).sum(axis=1)  # are not play's first turns (openings,
    assert (pips_on_roll != 167).mean() > 0.5                    # where the side on roll has not moved)
    again, _ = candidate_turns(evaluator, 300, seed=1, top=3, games=16)
    np.testing.assert_array_equal(boards, again)            # seeded


def test_worker_targets_are_the_search_values(tiny_checkpoint):
    boards, _ = random_positions(30, seed=9)
    got = ply_targets(str(tiny_checkpoint), boards, ply=1, processes=1, chunk=7)
    np.testing.assert_allclose(got, evaluate_ply(load_evaluator(tiny_checkpoint), boards, 1), atol=1e-6)


def test_a_spent_budget_returns_a_prefix(tiny_checkpoint):
    boards, _ = random_positions(40, seed=11)
    got = ply_targets(str(tiny_checkpoint), boards, ply=1, processes=1, chunk=5, seconds=0)
    assert len(got) == 5                                     # the first chunk, then the deadline
    np.testing.assert_allclose(got, evaluate_ply(load_evaluator(tiny_checkpoint), boards[:5], 1), atol=1e-6)


def test_turn_centring_removes_each_turns_mean():
    values = torch.tensor([1.0, 3.0, 10.0, 20.0, 30.0])
    got = turn_centred(values, torch.tensor([0, 0, 1, 1, 1]), 2)
    np.testing.assert_allclose(got.numpy(), [-1, 1, -10, 0, 10])


def test_fine_tuning_makes_the_nets_comparisons_follow_the_targets(tiny_checkpoint, capsys):
    evaluator = load_evaluator(tiny_checkpoint, frozen=False)  # a net to train
    boards, turns = candidate_turns(evaluator, 400, seed=2, top=4, games=32)
    pips = (boards * np.arange(1, 26)).sum(axis=2)
    targets = np.full((len(boards), 5), 0.05, np.float32)  # a learnable rule the net does not know:
    targets[:, 0] = 1 / (1 + np.exp((pips[:, 0] - pips[:, 1]) / 10))  # the shorter race wins

    def centred_error():
        idx = torch.from_numpy(np.unique(turns, return_inverse=True)[1])
        mine = turn_centred(torch.from_numpy(equity(evaluator.probs(boards))), idx, int(idx.max()) + 1)
        want = turn_centred(torch.from_numpy(equity(targets)), idx, int(idx.max()) + 1)
        return float(((mine - want) ** 2).mean())

    before = centred_error()
    history = rank_fine_tune(evaluator.net, evaluator.encoder, boards, turns, targets, epochs=8, lr=3e-3,
                             anchor=0.0, turns_per_batch=8, progress="fine-tune contact")
    assert centred_error() < 0.8 * before
    assert history[-1] < history[0]
    bar = capsys.readouterr().err  # the bar counts every batch of every epoch
    batches = -(-(np.unique(turns, return_counts=True)[1] >= 2).sum() // 8)
    assert "fine-tune contact" in bar and f"{8 * batches}/{8 * batches}" in bar


def test_the_anchor_keeps_the_absolute_values(tiny_checkpoint):
    boards, turns = candidate_turns(load_evaluator(tiny_checkpoint), 300, seed=3, top=4, games=32)
    targets = np.full((len(boards), 5), 0.3, np.float32)

    def drift(anchor):
        evaluator = load_evaluator(tiny_checkpoint, frozen=False)
        start = evaluator.probs(boards)
        targets_shifted = targets.copy()
        targets_shifted[::2, 0] = 0.9  # pull every other candidate up, so that the net has to move
        rank_fine_tune(evaluator.net, evaluator.encoder, boards, turns, targets_shifted, epochs=4, lr=3e-3,
                       anchor=anchor, turns_per_batch=8)
        return float(np.abs(equity(evaluator.probs(boards)).mean() - equity(start).mean()))

    assert drift(anchor=10.0) < drift(anchor=0.0)


def test_calibrate_brings_the_absolute_values_to_the_labels(tiny_checkpoint):
    """The centred loss cannot see a level shared by a turn's candidates; ``calibrate`` can."""
    boards, turns = candidate_turns(load_evaluator(tiny_checkpoint), 300, seed=3, top=4, games=32)
    start = load_evaluator(tiny_checkpoint).probs(boards)
    targets = np.clip(start + np.array([0.25, 0.1, 0.0, 0.0, 0.0], np.float32), 0, 1)  # every candidate better
    targets[:, 1] = np.minimum(targets[:, 1], targets[:, 0])

    def gap(calibrate):
        evaluator = load_evaluator(tiny_checkpoint, frozen=False)
        rank_fine_tune(evaluator.net, evaluator.encoder, boards, turns, targets, epochs=4, lr=3e-3,
                       anchor=0.0, calibrate=calibrate, turns_per_batch=8)
        return float(np.abs(equity(evaluator.probs(boards)) - equity(targets)).mean())

    assert gap(calibrate=1.0) < 0.5 * gap(calibrate=0.0)


def test_bad_settings_are_named(tiny_checkpoint):
    evaluator = load_evaluator(tiny_checkpoint, frozen=False)
    one = np.zeros((1, 2, 25), np.int8)
    with pytest.raises(ConfigError, match="epochs"):
        rank_fine_tune(evaluator.net, evaluator.encoder, one, np.zeros(1), np.zeros((1, 5)), epochs=0)
    with pytest.raises(ConfigError, match="calibrate"):
        rank_fine_tune(evaluator.net, evaluator.encoder, one, np.zeros(1), np.zeros((1, 5)), calibrate=-1)
    with pytest.raises(ConfigError, match="frozen=False"):  # a loaded checkpoint's frozen net cannot be trained
        rank_fine_tune(load_evaluator(tiny_checkpoint).net, evaluator.encoder, one, np.zeros(1), np.zeros((1, 5)))
    with pytest.raises(ValueError, match="sorted by turn"):
        rank_fine_tune(evaluator.net, evaluator.encoder, np.zeros((2, 2, 25), np.int8), np.array([1, 0]),
                       np.zeros((2, 5)))
    with pytest.raises(ConfigError, match="processes"):
        ply_targets(str(tiny_checkpoint), one, ply=1, processes=0)
    with pytest.raises(ConfigError, match="top"):
        candidate_turns(evaluator, 10, seed=0, top=1)


def run_script(name: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(Path(__file__).parents[1] / "scripts" / name), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_label_then_fine_tune_end_to_end(tiny_checkpoint, tmp_path):
    candidates, targets, out = tmp_path / "c.npz", tmp_path / "t.npz", tmp_path / "tuned.pt"
    trained = save_checkpoint(tmp_path / "trained.pt", {**load_checkpoint(tiny_checkpoint),
                                                        "config": {"net": {"hidden": [8], "activation": "relu"}}})
    made = run_script("make_search_targets.py", trained, "--candidates", candidates, "--positions", 200,
                      "--top", 3, "--ply", 1, "--processes", 1, "--out", targets)
    assert made.returncode == 0, made.stderr
    assert len(np.load(targets)["targets"]) == len(np.load(candidates)["boards"])
    tuned = run_script("search_finetune.py", trained, "--out", out, "--data", f"{candidates}:{targets}",
                       "--widen", 4, "--epochs", 1, "--prune-positions", 1000)
    assert tuned.returncode == 0, tuned.stderr
    state = load_checkpoint(out)
    assert state["net_config"]["hidden"] == [12] and "optimizer" not in state
    assert state["config"]["net"]["hidden"] == [12]  # so train.resume with net.hidden=[12] accepts it
    assert load_evaluator(out).probs(np.load(candidates)["boards"][:5]).shape == (5, 5)


def test_targets_from_other_candidates_are_refused(tiny_checkpoint, tmp_path):
    made = [run_script("make_search_targets.py", tiny_checkpoint, "--candidates", tmp_path / f"c{k}.npz",
                       "--positions", 50, "--seed", k, "--ply", 0, "--processes", 1, "--out", tmp_path / f"t{k}.npz")
            for k in (0, 1)]
    assert all(m.returncode == 0 for m in made)
    tuned = run_script("search_finetune.py", tiny_checkpoint, "--out", tmp_path / "x.pt",
                       "--data", f"{tmp_path / 'c0.npz'}:{tmp_path / 't1.npz'}")
    assert tuned.returncode != 0 and "checksums differ" in tuned.stderr
    assert not (tmp_path / "x.pt").exists()
