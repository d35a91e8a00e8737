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
