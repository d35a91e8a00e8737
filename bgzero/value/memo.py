"""An evaluator that remembers: each distinct board's probabilities computed once, however often asked.

Analysing a match meets the same boards again and again: the luck of a roll scores every
play of the 21 rolls, the actual roll's among them, which the checker play's judgement
scores too; a 2-ply cube decision expands the position that the previous checker play's
2-ply judgement expanded; a search's leaf is the reply its parent already scored to choose
it. :class:`MemoEvaluator` wraps an :class:`~bgzero.value.evaluator.Evaluator` and keeps
every answer in a hash table (numba), so each distinct board goes to a network once. The
networks answer each board on its own (the frozen net's kernels run row by row), so a
remembered answer is the one a fresh call would give, to the bit.

A board is known by two independent 64-bit hashes of its bytes (dot products with odd
multipliers), 96 bits of them kept: two different boards would have to agree on both for
one to get the other's answer, a chance of about 2^-96 a probe. The table keeps neither
the boards (a probe reads one 16-byte slot, not a board elsewhere in memory as well) nor
more than the answers; its arrays are allocated untouched (``np.zeros``, ``np.empty``), so
memory is only used as the table fills.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.engine.classify import CONTACT
from bgzero.engine.distinct import _MULTIPLIERS

WIDTH = 50  # bytes of a board: 2 x 25 int8
LIMIT = 1 << 22  # boards remembered before the table starts afresh (4M: 80 MB of answers, 128 MB of slots)
_SECOND = np.random.default_rng(20261204).integers(1, 2**63, size=WIDTH, dtype=np.int64) | 1
"""The second hash's multipliers, independent of the first's."""


class MemoEvaluator:
    """``inner`` with :meth:`probs` and :meth:`contact_probs` remembered; everything else is ``inner``'s."""

    def __init__(self, inner, limit: int = LIMIT, expected: int = 1 << 20):
        """``expected``: about how many distinct boards will come, so the slots need not grow on the way."""
        if not 0 < limit < 2**31:
            raise ValueError(f"limit must be from 1 to 2**31 - 1 boards, got {limit}")
        self.inner = inner
        self.limit = limit
        self.asked = 0  # boards asked for
        self.computed = 0  # boards sent to the networks
        self.nodes: dict = {}  # a cubeful search's top nodes by (board, cube states and side on roll, ply): its values
        mover = getattr(inner, "mover", None)  # the role split's nets for 0-ply checker play remember their own
        self.mover = MemoEvaluator(mover, limit, expected) if mover is not None else None
        self._probs = np.empty((limit, 5), np.float32)  # pages are only taken as entries are written
        self._clear(1 << (max(1 << 16, min(int(expected), limit)) - 1).bit_length())

    def __getattr__(self, name):
        if name.startswith("__") or name == "inner":  # copy and pickle look for these before ``inner`` is set
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _clear(self, capacity: int) -> None:
        # (first hash, second hash's top 32 bits << 32 | entry + 1); all zero is an empty slot
        self._slots = np.zeros((2 * capacity, 2), np.int64)
        self._count = 0

    def _grow(self, n: int) -> None:
        """Room for ``n`` more boards: the slots doubled as needed, or the table started afresh past the limit."""
        if self._count + n > self.limit:
            self._clear(len(self._slots) // 2)
        capacity, need = len(self._slots) // 2, self._count + n
        if need <= capacity:
            return
        while capacity < need:
            capacity *= 2
        slots = np.zeros((2 * capacity, 2), np.int64)
        _rehash(self._slots, slots)
        self._slots = slots

    def _remembered(self, boards: np.ndarray, compute) -> np.ndarray:
        rows = np.ascontiguousarray(boards, np.int8).reshape(-1, WIDTH)
        self.asked += len(rows)
        if len(rows) > self.limit:
            self.computed += len(rows)
            return compute(boards)
        self._grow(len(rows))
        start = self._count
        index, fresh = _find_or_add(rows, _MULTIPLIERS, _SECOND, self._slots, start)
        if len(fresh):
            self._probs[start:start + len(fresh)] = compute(rows[fresh].reshape(-1, 2, 25))
            self.computed += len(fresh)
        self._count = start + len(fresh)
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


@njit(cache=True, nogil=True, inline="always")
def _slot_of(key, mask):
    return (key ^ (key >> 29)) & mask


@njit(cache=True, nogil=True)
def _rehash(old, slots):
    mask = len(slots) - 1
    for k in range(len(old)):
        if old[k, 1] != 0:
            slot = _slot_of(old[k, 0], mask)
            while slots[slot, 1] != 0:
                slot = (slot + 1) & mask
            slots[slot, 0] = old[k, 0]
            slots[slot, 1] = old[k, 1]


@njit(cache=True, nogil=True)
def _find_or_add(rows, first, second, slots, m):
    """Each row's entry in the table, boards not in it added from entry ``m`` on; and the rows
    that were added (the first of each new board), in entry order."""
    mask = len(slots) - 1
    n = rows.shape[0]
    index = np.empty(n, np.int64)
    fresh = np.empty(n, np.int64)
    keys = np.empty(n, np.int64)
    checks = np.empty(n, np.int64)
    for i in range(n):  # the hashes first: the probes below then wait on memory only, several at a time
        key, check = np.int64(0), np.int64(0)
        for c in range(rows.shape[1]):
            v = np.int64(rows[i, c]) + 1
            key += v * first[c]
            check += v * second[c]
        keys[i] = key
        checks[i] = check & np.int64(-4294967296)  # the second hash's top 32 bits, beside a 32-bit entry
    added = 0
    for i in range(n):
        key, check = keys[i], checks[i]
        slot = _slot_of(key, mask)
        while True:
            held = slots[slot, 1]
            if held == 0:
                slots[slot, 0] = key
                slots[slot, 1] = check | (m + added + 1)
                index[i] = m + added
                fresh[added] = i
                added += 1
                break
            if slots[slot, 0] == key and (held & np.int64(-4294967296)) == check:
                index[i] = (held & np.int64(4294967295)) - 1
                break
            slot = (slot + 1) & mask
    return index, fresh[:added].copy()
