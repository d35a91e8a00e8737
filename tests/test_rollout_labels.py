"""Rollout labels for the close turns (``labelling.rollout``): which turns, how they replace the
search labels, and a generation that rolls out, stops and resumes to the same labels."""

import json
from pathlib import Path

import numpy as np
import pytest

from bgzero.engine.board import start_board
from bgzero.errors import ConfigError
from bgzero.learn import rollout_labels
from bgzero.learn.iterate import iterate
from bgzero.learn.rollout_labels import RolloutLabelling, chosen_turns, with_rollouts
from bgzero.learn.search_targets import file_sha256
from bgzero.value.probs import equity
from tests.boards import board
from tests.conftest import compose_config

ROLL = ("recipe=tiny", "progress=false", "candidates.positions=150", "candidates.parallel_games=8", "gate.games=20",
        "gate.chunk=10", "labelling.rollout.turns=null", "labelling.rollout.close=0.05", "labelling.rollout.trials=8",
        "labelling.rollout.truncate=3")


def cfg(out: Path, *more: str):
    return compose_config("iterate", *ROLL, f"out_dir={out}", *more)


def targets_of(mover_equities) -> np.ndarray:
    """Labels (side on roll after the play) whose mover's equity is the given one: only wins, no gammons."""
    opponent = -np.asarray(mover_equities, np.float32)
    return np.stack([(opponent + 1) / 2] + [np.zeros_like(opponent)] * 4, axis=1)


def test_close_turns_of_the_chosen_classes_are_picked_best_first():
    contact, race = start_board(), board({8: 8, 4: 7}, {9: 8, 3: 7})  # past each other
    boards = np.array([contact] * 6 + [race] * 3)
    turns = np.repeat([0, 1, 2], [3, 3, 3])
    targets = targets_of([0.10, 0.30, 0.29,   0.5, 0.1, 0.0,   -0.2, -0.1, -0.6])
    how = RolloutLabelling(player="p", top=2, close=0.02)
    assert [rows.tolist() for rows in chosen_turns(boards, turns, targets, how)] == [[1, 2]]
    everyone = RolloutLabelling(player="p", top=2, close=None, classes=("race",))
    assert [rows.tolist() for rows in chosen_turns(boards, turns, targets, everyone)] == [[7, 6]]


def test_rollouts_reorder_the_best_candidates_and_keep_their_mean(tmp_path):
    targets = targets_of([0.30, 0.29, 0.10])
    rolled = targets_of([0.20, 0.26])[:, :]  # the rollouts prefer the second play
    np.savez(rollout_labels.chunk_path(tmp_path, 0), rows=np.array([0, 1]), turn_sizes=np.array([2]), probs=rolled)
    replaced, count = with_rollouts(targets, tmp_path, 1)
    mover = -equity(replaced)
    assert count == 1 and mover[1] > mover[0]
    assert mover[:2].mean() == pytest.approx(0.295, abs=1e-6)  # the labels' mean, so the third play keeps its place
    assert mover[2] == pytest.approx(0.10, abs=1e-6)


def test_a_generation_rolls_out_its_close_turns_and_resumes_after_a_stop(tmp_path, monkeypatch):
    monkeypatch.setattr(rollout_labels, "TURNS_PER_CHUNK", 4)
    monkeypatch.setattr("bgzero.learn.iterate.TURNS_PER_CHUNK", 4)
    straight = iterate(cfg(tmp_path / "straight"))
    [g] = straight["generations"]
    folder = tmp_path / "straight" / "gen-001" / "rollouts"
    chunks = sorted(folder.glob("rollouts-*.npz"))
    assert g["rolled_out"] > 4 and len(chunks) == -(-g["rolled_out"] // 4)
    with np.load(chunks[0]) as f:
        assert f["probs"].shape == (len(f["rows"]), 5) and f["turn_sizes"].sum() == len(f["rows"])

    real, calls = rollout_labels.rollout_positions, []

    def killed_on_the_second_chunk(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(rollout_labels, "rollout_positions", killed_on_the_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        iterate(cfg(tmp_path / "resumed"))
    assert len(list((tmp_path / "resumed" / "gen-001" / "rollouts").glob("rollouts-*.npz"))) == 1
    monkeypatch.setattr(rollout_labels, "rollout_positions", real)
    resumed = iterate(cfg(tmp_path / "resumed"))
    for chunk in chunks:
        again = tmp_path / "resumed" / "gen-001" / "rollouts" / chunk.name
        with np.load(chunk) as a, np.load(again) as b:
            np.testing.assert_array_equal(a["probs"], b["probs"])
    student = json.loads((tmp_path / "resumed" / "gen-001" / "finetune.json").read_text())
    assert student == json.loads((tmp_path / "straight" / "gen-001" / "finetune.json").read_text()) | {
        "seconds": student["seconds"]}
    assert resumed["generations"][0]["rolled_out"] == g["rolled_out"]

    other = RolloutLabelling(player="checkpoints/reference.pt", trials=16, truncate=3, close=0.05)
    with pytest.raises(ConfigError, match="rolled out with other settings"):
        rollout_labels.finished_chunks(folder, other, file_sha256(tmp_path / "straight" / "gen-001" / "candidates.npz"))


@pytest.mark.parametrize("override, message", [
    ("labelling.rollout.top=1", "labelling.rollout.top=1 is not allowed"),
    ("labelling.rollout.classes=[bearoff]", "labelling.rollout.classes"),
    ("labelling.rollout.player=nowhere.pt", "labelling.rollout.player=nowhere.pt: no such checkpoint"),
])
def test_bad_rollout_options_are_refused_before_any_work(tmp_path, override, message):
    with pytest.raises(ConfigError, match=message):
        iterate(cfg(tmp_path / "run", override))
    assert not (tmp_path / "run" / "gen-001").exists()
