"""MemoEvaluator: the inner evaluator's answers, each distinct board computed once."""

import numpy as np

from bgzero.analysis.position import evaluator_from_spec
from bgzero.engine.board import START
from bgzero.engine.game import ROLLS
from bgzero.engine.movegen import generate
from bgzero.value.memo import MemoEvaluator


def _boards(steps: int = 30) -> np.ndarray:
    rng = np.random.default_rng(5)
    boards, seen = np.stack([START] * len(ROLLS)), []
    for _ in range(steps):
        moves = generate(boards, ROLLS)
        seen.append(moves.results)
        boards = moves.results[[rng.integers(moves.offsets[i], moves.offsets[i + 1]) for i in range(len(boards))]]
    return np.concatenate(seen)


def test_remembered_answers_are_the_inner_ones(tiny_checkpoint):
    inner, _ = evaluator_from_spec(f"checkpoint:{tiny_checkpoint}")
    memo = MemoEvaluator(inner, limit=3000)  # small: the table grows and starts afresh on the way
    boards = _boards()
    want, want_contact = inner.probs(boards), inner.contact_probs(boards)
    rng = np.random.default_rng(0)
    for _ in range(12):
        pick = rng.integers(0, len(boards), rng.integers(1, 2500))
        np.testing.assert_array_equal(memo.probs(boards[pick]), want[pick])
        np.testing.assert_array_equal(memo.contact_probs(boards[pick]), want_contact[pick])
    assert memo.computed < memo.asked
    big = memo.probs(np.concatenate([boards, boards])[:4000])  # more than the limit at once
    np.testing.assert_array_equal(big, np.concatenate([want, want])[:4000])
    assert memo.route is not None and memo.pruner is inner.pruner  # the rest is the inner evaluator's


def test_a_search_through_the_memo_scores_as_one_without_it(tiny_checkpoint):
    """score_moves and cube_values_at at 2 ply: the same numbers with a plain evaluator, through a
    MemoEvaluator, and through it again (every board and top node then remembered)."""
    from bgzero.agents.cubeful import cube_values_at, score_moves
    from bgzero.cube import CubeState, MatchState

    inner, _ = evaluator_from_spec(f"checkpoint:{tiny_checkpoint}")
    boards = _boards(8)[::97][:6]
    states = [MatchState(5, (1, 3)), MatchState(5, (4, 2), crawford=True), MatchState(5, (4, 2)),
              MatchState(7, (2, 2), cube=CubeState(2, 1)), MatchState(), MatchState(0, cube=CubeState(4, 0))]
    dice = np.array([[3, 1], [6, 6], [5, 2], [4, 3], [2, 1], [6, 5]], np.int8)
    moves = generate(boards, dice)
    memo = MemoEvaluator(inner)
    plain = score_moves(inner, moves, states, [0] * 6, 2)
    for evaluator in (memo, memo):
        got = score_moves(evaluator, moves, states, [0] * 6, 2)
        np.testing.assert_array_equal(got.value, plain.value)
        np.testing.assert_array_equal(got.levels, plain.levels)
        np.testing.assert_array_equal(got.probs, plain.probs)
    assert memo.nodes and memo.computed < memo.asked
    results = moves.results[moves.offsets[:-1]][:5]  # the opponent on roll, who may double in each of these
    doubling = [MatchState(5, (1, 3)), MatchState(5, (4, 2)), MatchState(7, (2, 2), cube=CubeState(2, 1)),
                MatchState(), MatchState(0, cube=CubeState(4, 1))]
    players = [1] * 5
    want = cube_values_at(inner, results, doubling, players, 2)
    for _ in range(2):
        got = cube_values_at(memo, results, doubling, players, 2)
        assert got[0] == want[0]
        np.testing.assert_array_equal(got[1], want[1])
