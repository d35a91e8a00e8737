"""bgzero.judge.rollout_judge: the rollout judge's sample, its resumable build, and the table it gives ``bgzero-bench errors``."""

import numpy as np
import pytest

from bgzero.agents.specs import make_agent
from bgzero.errors import ConfigError
from bgzero.judge import move_errors, rollout_judge
from bgzero.judge.rollout_judge import CHUNK, JudgeSettings, assemble, build, candidates
from tests.boards import board as pos

pytest.importorskip("gnubg_nn")
SMALL = JudgeSettings(decisions=CHUNK + 5, seed=3, trials=36)


def test_candidates_are_the_best_five_within_the_window():
    filtered = np.array([0.30, 0.05, 0.29, 0.25, 0.21, 0.28, 0.27, 0.26])
    picked = candidates(filtered)
    assert picked.tolist() == [0, 2, 5, 6, 7]  # 0.25 and 0.21 are within 0.10 but beyond the best five
    assert candidates(np.array([0.5, 0.3, 0.1])).tolist() == [0]  # nothing else within 0.10


def test_the_sample_meets_every_class_quota():
    boards, dice, classes, counts = rollout_judge.sample_decisions(40, seed=1)
    assert len(boards) == len(dice) == 40
    assert counts["contact"] == 16 and counts["crashed"] == 8 and counts["race"] == 10 and counts["bearoff"] == 6
    assert np.bincount(classes, minlength=3).tolist() == [16, 8, 16]  # bear-offs count as race
    assert (dice >= 1).all() and (dice <= 6).all()


def test_build_resumes_and_the_judge_scores_agents(tmp_path):
    folder = tmp_path / "judge"
    assert build(folder, SMALL, processes=1, deadline=0.0) == 0  # past its deadline: samples, rolls nothing
    with pytest.raises(ConfigError, match="2 of 2 chunks not built"):
        assemble(folder, SMALL)
    assert build(folder, SMALL, processes=1) == 2
    first = (folder / "chunk-00000.npz").stat().st_mtime_ns
    assert build(folder, SMALL, processes=1) == 2  # nothing left: the saved chunks are kept as they are
    assert (folder / "chunk-00000.npz").stat().st_mtime_ns == first
    with pytest.raises(ConfigError, match="other settings"):
        build(folder, JudgeSettings(decisions=CHUNK + 5, seed=3, trials=72), processes=1)

    judge = assemble(folder, SMALL)
    path = tmp_path / "judge.npz"
    judge.save(path)
    judge = move_errors.Reference.load(path)
    assert len(judge.boards) == SMALL.decisions
    for p in range(len(judge.boards)):
        lo, hi = judge.offsets[p], judge.offsets[p + 1]
        rolled = judge.rolled[lo:hi]
        assert 1 <= rolled.sum() <= rollout_judge.TOP
        assert np.isfinite(judge.equity[lo:hi]).all()
        assert (judge.equity_se[lo:hi][rolled] >= 0).all() and np.isnan(judge.equity_se[lo:hi][~rolled]).all()
        best = judge.equity[lo:hi].max()
        assert judge.equity[lo:hi][rolled].max() == best  # a play not rolled out never beats the rolled-out best

    loss = move_errors.agent_losses(make_agent("gnubg@0"), judge)
    assert loss.shape == (SMALL.decisions,) and (loss >= 0).all()
    best = np.maximum.reduceat(judge.equity, judge.offsets[:-1])
    assert np.allclose(move_errors.losses(judge, judge.offsets[:-1] + np.array(
        [np.argmax(judge.equity[lo:hi]) for lo, hi in zip(judge.offsets[:-1], judge.offsets[1:])])), 0.0)


def test_a_play_that_wins_is_valued_exactly(tmp_path, monkeypatch):
    """Bearing off the last checker ends the game: its value is the points won, not a rollout
    (which failed on the finished board before)."""
    # the mover's last checker on its ace point; the opponent has borne off none, one checker in the mover's home
    board = pos({1: 1}, {6: 14, 21: 1})
    monkeypatch.setattr(rollout_judge, "sample_decisions", lambda n, seed: (
        board[None], np.array([[2, 1]], np.int8), np.array([2], np.int8), {"contact": 0, "crashed": 0, "race": 0,
                                                                             "bearoff": 1, "games": 0}))
    settings = JudgeSettings(decisions=1, seed=0, trials=36)
    assert build(tmp_path, settings, processes=1) == 1
    judge = assemble(tmp_path, settings)
    assert judge.equity.max() == 3.0 and judge.equity_se[np.argmax(judge.equity)] == 0.0  # a backgammon
