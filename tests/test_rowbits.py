"""Row bitmasks: each intrinsic answers what a loop over the 25 counts answers."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from bgzero.engine import rowbits


@njit
def _ask(boards, k):
    out = np.empty((boards.shape[0], 2, 6), np.int64)
    for b in range(boards.shape[0]):
        for side in range(2):
            row = boards[b, side]
            occupied = rowbits.above(row, 0)
            out[b, side] = (occupied, rowbits.above(row, k), rowbits.equal(row, k), rowbits.above_mirrored(row, k),
                            rowbits.total(row), rowbits.highest(occupied))
    return out


def _bits(mask):
    return (mask.astype(np.int64) << np.arange(25)).sum(axis=-1)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_each_mask_and_sum_is_the_loop_over_the_counts(k):
    rng = np.random.default_rng(k)
    boards = rng.integers(0, 16, (500, 2, 25)).astype(np.int8)
    boards[::5] = 0  # empty rows: no bits, and no rearmost cell
    boards[1::5, :, :24] = 0  # the bar alone
    got = _ask(boards, k)
    np.testing.assert_array_equal(got[..., 0], _bits(boards > 0))
    np.testing.assert_array_equal(got[..., 1], _bits(boards > k))
    np.testing.assert_array_equal(got[..., 2], _bits(boards == k))
    np.testing.assert_array_equal(got[..., 3], _bits(boards[..., ::-1] > k))  # cell c at bit 24 - c
    np.testing.assert_array_equal(got[..., 4], boards.sum(axis=-1))
    rearmost = np.where((boards > 0).any(axis=-1), 24 - np.argmax(boards[..., ::-1] > 0, axis=-1), -1)
    np.testing.assert_array_equal(got[..., 5], rearmost)


def test_nothing_past_the_row_is_read():
    counts = np.full(64, 9, np.int8)  # the bytes after each row hold checkers too
    got = _ask(counts[:50].reshape(1, 2, 25), 0)[0]
    np.testing.assert_array_equal(got[:, 4], [225, 225])
    np.testing.assert_array_equal(got[:, 0], [2**25 - 1] * 2)


def test_only_int8_rows_are_read():
    @njit
    def read(row):
        return rowbits.total(row)

    with pytest.raises(TypingError):
        read(np.zeros(25, np.int64))


def test_a_walk_lowest_bit_first_visits_each_occupied_cell_once():
    @njit
    def walk(row):
        seen = []
        cells = rowbits.above(row, 0)
        while cells:
            seen.append(rowbits.lowest(cells))
            cells &= cells - 1
        return seen

    row = np.zeros(25, np.int8)
    row[[0, 5, 23, 24]] = [1, 3, 2, 4]  # the ace point, the bar and between
    assert list(walk(row)) == [0, 5, 23, 24]
