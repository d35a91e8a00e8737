"""The distinct rows of a batch (boards, or boards with a roll), found by hashing.

Rollouts and search meet the same board many times: every trial of a position stands on
it at the first roll, and the 21 rolls of one position often reach the same result (6-1,
5-2 and 4-3 moving one checker seven pips). Evaluating each distinct board once pays when
finding them costs less than an evaluation: a hash table does it in one pass, where
sorting the rows (``np.unique``) costs more than the evaluations it saves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MULTIPLIERS = np.random.default_rng(20261202).integers(1, 2**63, size=64, dtype=np.int64) | 1
"""Odd 64-bit multipliers, one per byte of a row: the hash is a dot product, without a chain
of dependent steps, and equal hashes are checked byte by byte."""


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` for ``(N, ...)`` int8 rows: the index of each distinct row's first
    occurrence, in the order they first occur, and for each row which distinct one it is
    (``rows[first][inverse]`` equals ``rows``)."""
    rows = np.ascontiguousarray(rows, np.int8)
    flat = rows.reshape(len(rows), int(np.prod(rows.shape[1:])))
    if flat.shape[1] > len(_MULTIPLIERS):
        raise ValueError(f"rows of {flat.shape[1]} bytes: distinct_rows hashes at most {len(_MULTIPLIERS)}")
    return _distinct(flat, _MULTIPLIERS)


@njit(cache=True, nogil=True)
def _distinct(rows, multipliers):
    n, width = rows.shape
    size = 16
    while size < 2 * n:
        size *= 2
    slots = np.full(size, -1, np.int64)
    first = np.empty(n, np.int64)
    keys = np.empty(n, np.int64)
    inverse = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        key = np.int64(0)
        for c in range(width):
            key += (rows[i, c] + 1) * multipliers[c]
        slot = (key ^ (key >> 29)) & (size - 1)
        while True:
            j = slots[slot]
            if j < 0:
                slots[slot] = m
                first[m] = i
                keys[m] = key
                inverse[i] = m
                m += 1
                break
            if keys[j] == key and _same(rows, first[j], i):
                inverse[i] = j
                break
            slot = (slot + 1) & (size - 1)
    return first[:m].copy(), inverse


@njit(cache=True, inline="always")
def _same(rows, a, b):
    for c in range(rows.shape[1]):
        if rows[a, c] != rows[b, c]:
            return False
    return True
