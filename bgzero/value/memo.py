"""An evaluator that remembers: each distinct board's probabilities computed once, however often asked.

Analysing a match meets the same boards again and again: the luck of a roll scores every
play of the 21 rolls, the actual roll's among them, which the checker play's judgement
scores too; a 2-ply cube decision expands the position that the previous checker play's
2-ply judgement expanded; a search's leaf is the reply its parent already scored to choose
it. :class:`MemoEvaluator` wraps an :class:`~bgzero.value.evaluator.Evaluator` and keeps
every answer in a hash table (numba, keyed by the board's bytes, equal hashes checked byte
by byte), so each distinct board goes to a network once. The networks answer each board
on its own (the frozen net's kernels run row by row), so a remembered answer is the one a
fresh call would give, to the bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.engine.classify import CONTACT
from bgzero.engine.distinct import _MULTIPLIERS

WIDTH = 50  # bytes of a board: 2 x 25 int8
LIMIT = 1 << 22  # boards remembered before the table starts afresh (4M: about 0.4 GB)


class MemoEvaluator:
    """``inner`` with :meth:`probs` and :meth:`contact_probs` remembered; everything else is ``inner``'s."""

    def __init__(self, inner, limit: int = LIMIT):
        self.inner = inner
        self.limit = limit
        self.asked = 0  # boards asked for
        self.computed = 0  # boards sent to the networks
        self._clear(1 << 16)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def _clear(self, capacity: int) -> None:
        self._slots = np.full((2 * capacity, 2), -1, np.int64)  # (hash, entry) pairs: one cache line a probe
        self._boards = np.empty((capacity, WIDTH), np.int8)
        self._probs = np.empty((capacity, 5), np.float32)
        self._count = 0

    def _grow(self, n: int) -> None:
        """Room for ``n`` more boards: the table doubled as needed, or started afresh past the limit."""
        if self._count + n > self.limit:
            self._clear(len(self._boards))
        capacity, need = len(self._boards), self._count + n
        if need <= capacity:
            return
        while capacity < need:
            capacity *= 2
        m = self._count
        slots, boards, probs = self._slots, self._boards, self._probs
        self._clear(capacity)
        self._boards[:m], self._probs[:m] = boards[:m], probs[:m]
        _rehash(slots, self._slots)
        self._count = m

    def _remembered(self, boards: np.ndarray, compute) -> np.ndarray:
        rows = np.ascontiguousarray(boards, np.int8).reshape(-1, WIDTH)
        self.asked += len(rows)
        if len(rows) > self.limit:
            self.computed += len(rows)
            return compute(boards)
        self._grow(self._count + len(rows))
        start = self._count
        index, count = _find_or_add(rows, _MULTIPLIERS, self._slots, self._boards, start)
        if count > start:
            self._probs[start:count] = compute(self._boards[start:count].reshape(-1, 2, 25))
            self.computed += count - start
        self._count = count
        return self._probs[index]

    def probs(self, boards: np.ndarray, classes: np.ndarray | None = None) -> np.ndarray:
        """``inner.probs``, each distinct board computed once."""
        return self._remembered(boards, self.inner.probs)

    def contact_probs(self, boards: np.ndarray) -> np.ndarray:
        """``inner.contact_probs``; boards the contact net answers in :meth:`probs` too share their answers."""
        boards = np.asarray(boards)
        contact = self.inner.route(boards) == CONTACT
        if contact.all():
            return self._remembered(boards, self.inner.contact_probs)
        out = np.empty((len(boards), 5), np.float32)
        if contact.any():
            out[contact] = self._remembered(boards[contact], self.inner.contact_probs)
        out[~contact] = self.inner.contact_probs(boards[~contact])
        return out


@njit(cache=True, nogil=True)
def _hash(rows, i, multipliers):
    key = np.int64(0)
    for c in range(rows.shape[1]):
        key += (rows[i, c] + 1) * multipliers[c]
    return key


@njit(cache=True, nogil=True)
def _rehash(old, slots):
    mask = len(slots) - 1
    for k in range(len(old)):
        if old[k, 1] >= 0:
            key = old[k, 0]
            slot = (key ^ (key >> 29)) & mask
            while slots[slot, 1] >= 0:
                slot = (slot + 1) & mask
            slots[slot, 0] = key
            slots[slot, 1] = old[k, 1]


@njit(cache=True, nogil=True)
def _find_or_add(rows, multipliers, slots, boards, m):
    """Each row's entry in the table, a new one (from ``m`` on) for a board not in it; and the new count."""
    mask = len(slots) - 1
    index = np.empty(rows.shape[0], np.int64)
    for i in range(rows.shape[0]):
        key = _hash(rows, i, multipliers)
        slot = (key ^ (key >> 29)) & mask
        while True:
            j = slots[slot, 1]
            if j < 0:
                slots[slot, 0] = key
                slots[slot, 1] = m
                boards[m] = rows[i]
                index[i] = m
                m += 1
                break
            if slots[slot, 0] == key:
                same = True
                for c in range(rows.shape[1]):
                    if boards[j, c] != rows[i, c]:
                        same = False
                        break
                if same:
                    index[i] = j
                    break
            slot = (slot + 1) & mask
    return index, m
