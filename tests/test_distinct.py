"""Distinct rows: each repeated board (or board with a roll) found once, in the order met."""

import numpy as np
import pytest

from bgzero.engine.distinct import distinct_rows
from bgzero.engine.game import random_positions


def test_rows_are_rebuilt_from_their_first_occurrences():
    boards, _ = random_positions(300, seed=6)
    rng = np.random.default_rng(1)
    rows = boards[rng.integers(0, len(boards), 2000)]  # many repeats, in no order
    first, inverse = distinct_rows(rows)
    np.testing.assert_array_equal(rows[first][inverse], rows)
    flat = rows.reshape(len(rows), -1)
    assert len(first) == len(np.unique(flat, axis=0))  # each distinct row once
    assert (np.diff(first) > 0).all()  # in the order they first occur
    assert (first == np.array([np.flatnonzero((flat == r).all(axis=1))[0] for r in flat[first]])).all()


def test_rows_differing_in_one_byte_stay_apart():
    rows = np.zeros((51, 51), np.int8)
    rows[np.arange(1, 51), np.arange(50)] = 1  # the zero row, and each single byte set
    rows = np.concatenate([rows, rows[::-1]])
    first, inverse = distinct_rows(rows)
    assert len(first) == 51 and (inverse[:51] == np.arange(51)).all() and (inverse[51:] == np.arange(51)[::-1]).all()


def test_no_rows_and_too_wide_rows():
    first, inverse = distinct_rows(np.zeros((0, 2, 25), np.int8))
    assert len(first) == 0 and len(inverse) == 0
    with pytest.raises(ValueError, match="at most"):
        distinct_rows(np.zeros((3, 65), np.int8))
