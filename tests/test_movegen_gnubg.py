"""bgzero's move generator returns exactly GNU Backgammon's set of distinct results.

The peer is ``gnubg_nn.moves``: its keys decode to ``(opp, me)`` of the mover, not
swapped, which is our swapped result row for row; ``()`` means the turn is lost, which we
return as the unchanged position swapped. scripts/crosscheck_gnubg.py runs the same
comparison on a million pairs.
"""

import numpy as np
import pytest

from bgzero.engine.board import START, borne_off, swap_sides, to_gnubg
from bgzero.engine.game import random_positions
from bgzero.engine.ids import position_id
from bgzero.engine.movegen import generate

gnubg_nn = pytest.importorskip(
    "gnubg_nn", reason="gnubg_nn (pip install gnubg-nn) is the reference move generator for these tests"
)
pytestmark = pytest.mark.gnubg

POSITIONS = 12_000  # each with the roll played there and with a fresh one: 24,000 pairs


def gnubg_results(board: np.ndarray, d1: int, d2: int) -> set[bytes]:
    keys = gnubg_nn.moves(to_gnubg(board), d1, d2)
    if not keys:
        return {swap_sides(board).tobytes()}
    return {bytes(opp + me) for opp, me in map(gnubg_nn.board_from_position_key, keys)}


def mismatches(boards: np.ndarray, dice: np.ndarray) -> list[str]:
    """Position ID and roll of every pair whose result sets differ or repeat a result."""
    batch = generate(boards, dice)
    found = []
    for b in range(len(boards)):
        ours = [r.tobytes() for r in batch.results[batch.offsets[b]:batch.offsets[b + 1]]]
        if set(ours) != gnubg_results(boards[b], int(dice[b, 0]), int(dice[b, 1])) or len(set(ours)) != len(ours):
            found.append(f"{position_id(boards[b])} {dice[b].tolist()}")
    return found


def test_all_21_rolls_from_the_start():
    dice = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)])
    assert mismatches(np.broadcast_to(START, (21, 2, 25)), dice) == []


def test_random_play_positions_match_gnubg():
    boards, played = random_positions(POSITIONS, 2024, games=256)
    fresh = np.random.default_rng(2024).integers(1, 7, size=(POSITIONS, 2))
    boards = np.concatenate([boards, boards])
    dice = np.concatenate([played, fresh])
    # The sample must reach the cases that matter, or agreement would prove little.
    batch = generate(boards, dice)
    assert (boards[:, 0, 24] > 0).mean() > 0.05, "checkers on the bar"
    assert (borne_off(boards)[:, 0] > 0).mean() > 0.05, "bear-offs under way"
    assert (dice[:, 0] == dice[:, 1]).mean() > 0.1, "doubles"
    assert ((batch.counts() == 1) & (batch.steps[batch.offsets[:-1], 0, 0] < 0)).sum() > 100, "lost turns"
    bad = mismatches(boards, dice)
    assert bad == [], f"{len(bad)} of {len(boards)} pairs differ from gnubg, first: {bad[:5]}"
