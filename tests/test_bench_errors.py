"""bgzero.judge.move_errors and ``bgzero-bench errors`` (bgzero.judge.errors_bench): the loss arithmetic and result
matching on a hand-made set, the table, the command on a cached reference, and a live run against gnubg on a few
positions."""

import sys

import numpy as np
import pytest

from bgzero.agents.base import Agent
from bgzero.cli import launch
from bgzero.engine.board import START
from bgzero.engine.ids import position_id
from bgzero.engine.movegen import generate
from bgzero.judge import errors_bench as bench
from bgzero.judge import move_errors
from bgzero.judge.move_errors import Reference


def bgzero_bench(monkeypatch, *args):
    """The console script ``bgzero-bench`` run on ``args``, as a user types them."""
    monkeypatch.setattr(sys, "argv", ["bgzero-bench", *args])
    launch.bench()


class Fixed(Agent):
    """Plays the k-th generated result of every position."""

    def __init__(self, k):
        self.k = k

    def choose(self, boards, dice, moves):
        return moves.offsets[:-1] + self.k


def hand_made():
    """Two opening positions; the reference lists each one's results in reverse order of
    bgzero's, with equity -0.001 * (bgzero's index) (so bgzero's first result is best)."""
    boards = np.stack([START, START])
    dice = np.array([[3, 1], [6, 5]], np.int8)
    moves = generate(boards, dice)
    results, equity = [], []
    for b in range(2):
        lo, hi = moves.offsets[b], moves.offsets[b + 1]
        results.append(moves.results[lo:hi][::-1])
        equity.append(-0.001 * np.arange(hi - lo)[::-1])
    ref = move_errors.Reference(boards, dice, np.array([0, 2], np.int8), moves.offsets.copy(), np.concatenate(results),
                          np.concatenate(equity), {"plies": 2})
    return ref, moves


def test_matching_follows_the_board_not_the_order():
    ref, moves = hand_made()
    index = move_errors.match_results(ref, 0, 2, moves)
    assert (ref.results[index] == moves.results).all()
    n0 = moves.offsets[1]
    assert index[0] == n0 - 1 and index[n0] == len(ref.results) - 1


def test_mismatched_result_sets_raise():
    ref, moves = hand_made()
    ref.results[0, 0, 0] += 1  # one reference result is now a different board
    with pytest.raises(ValueError, match="position 0"):
        move_errors.match_results(ref, 0, 2, moves)


def test_losses_are_best_minus_chosen():
    ref, moves = hand_made()
    assert move_errors.agent_losses(Fixed(0), ref) == pytest.approx([0.0, 0.0])
    assert move_errors.agent_losses(Fixed(2), ref) == pytest.approx([0.002, 0.002])
    assert move_errors.losses(ref, np.array([0, ref.offsets[1] + 1])) == pytest.approx(
        [0.001 * (moves.counts()[0] - 1), 0.001 * (moves.counts()[1] - 2)])


def test_cells_table_and_cache_round_trip(tmp_path):
    assert bench.cell(np.array([0.001, 0.003])) == f"2.00 ± {1960 * np.std([0.001, 0.003], ddof=1) / np.sqrt(2):.2f}"
    assert bench.cell(np.array([])) == "—"
    ref, _ = hand_made()
    out = bench.table([("fixed", np.array([0.0, 0.004]), 0.1), ("gnubg@0", None, 0.0)], ref.classes)
    assert "| fixed | 2.00 ± " in out and "| 0.00 | — | 4.00 | 50.0% | 0.1 |" in out
    assert "| gnubg@0 | — |" in out
    ref.save(tmp_path / "r.npz")
    back = Reference.load(tmp_path / "r.npz")
    assert (back.results == ref.results).all() and (back.equity == ref.equity).all() and back.meta == ref.meta


def test_worst_positions_share_of_the_loss():
    ref, _ = hand_made()
    line = bench.worst("fixed", np.array([0.001, 0.003]), ref, 1)
    assert line.startswith("fixed: the worst 1 positions carry 75% of the loss; worst: ")
    pid = position_id(START)
    assert line.endswith(f"worst: {pid} 65 (3), {pid} 31 (1)")  # worst first, with its roll and loss x1000


def test_the_command_runs_on_a_cached_reference(tmp_path, monkeypatch, capsys):
    """``bgzero-bench errors`` end to end without building a reference: a hand-made one in the cache folder."""
    ref, _ = hand_made()
    ref.meta = {"plies": 0, "games": 1, "seed": 5, "ms_per_evaluation": 0.01}
    ref.save(tmp_path / move_errors.file_name(5, 2, 0))
    bgzero_bench(monkeypatch, "errors", "positions=2", "seed=5", "ref_plies=0", f"cache={tmp_path}", "agent=random",
                 "worst=1")
    out = capsys.readouterr().out
    assert out.startswith("2 positions from 1 gnubg 0-ply self-play games (seed 5): 1 contact (50%), 0 crashed (0%), "
                          "1 race (50%)\n")
    assert f"loaded from {tmp_path / 'errors_5_2_0ply.npz'}" in out
    assert "| agent | all (2) | contact (1) | crashed (0) | race (1) | best move | s |" in out
    for row in ("| gnubg@0 |", "| gnubg@1 |", "| pubeval |", "| random |", "random: the worst 1 positions carry"):
        assert row in out


def test_an_agent_named_beside_the_yardsticks_is_measured_once(tmp_path, monkeypatch, capsys):
    ref, _ = hand_made()
    ref.meta = {"plies": 0, "games": 1, "seed": 5, "ms_per_evaluation": 0.01}
    ref.save(tmp_path / move_errors.file_name(5, 2, 0))
    bgzero_bench(monkeypatch, "errors", "positions=2", "seed=5", "ref_plies=0", f"cache={tmp_path}",
                 "agent=[pubeval,random,random]")
    rows = [line.split("|")[1].strip() for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert rows[1:] == ["gnubg@0", "gnubg@1", "pubeval", "random"]


def test_the_command_refuses_a_bad_option_in_one_line(monkeypatch):
    with pytest.raises(SystemExit, match=r"^bgzero-bench errors: judge='gnubgg' is not allowed: one of gnubg, rollout$"):
        bgzero_bench(monkeypatch, "errors", "judge=gnubgg")
    with pytest.raises(SystemExit, match="usage: bgzero-bench SUBCOMMAND"):
        bgzero_bench(monkeypatch, "error")


@pytest.mark.gnubg
def test_live_run_on_five_positions(tmp_path, monkeypatch, capsys):
    pytest.importorskip("gnubg")
    pytest.importorskip("gnubg_nn")
    bgzero_bench(monkeypatch, "errors", "positions=5", "seed=3", "ref_plies=0", "workers=1", f"cache={tmp_path}",
                 "agent=[random]", "worst=2")
    out = capsys.readouterr().out
    assert (tmp_path / "errors_3_5_0ply.npz").exists()
    ref = Reference.load(tmp_path / "errors_3_5_0ply.npz")
    assert len(ref.boards) == 5 and (np.diff(ref.offsets) > 1).all()
    # gnubg_nn's 0-ply net is the one the 0-ply reference judges with: it never loses equity
    assert "| gnubg@0 | 0.00 ± 0.00 |" in out
    for row in ("| gnubg@1 |", "| pubeval |", "| random |", "random: the worst 2 positions carry"):
        assert row in out
