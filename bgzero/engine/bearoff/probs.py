"""Cubeless probabilities of bear-off positions, from whichever database knows them best.

The exact two-sided table answers where both sides have at most 6 checkers; the one-sided
distributions everywhere else. This is the only module that sees both databases.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.engine.bearoff import one_sided
from bgzero.engine.bearoff.one_sided import BearoffDatabase
from bgzero.engine.bearoff.two_sided import TwoSidedDatabase, get_database
from bgzero.errors import InvalidPositionError


def bearoff_probs(boards: np.ndarray, db: BearoffDatabase | None = None,
                  two_sided: TwoSidedDatabase | None = None) -> np.ndarray:
    """Cubeless ``(..., 5)`` float32 probabilities for bear-off boards ``(..., 2, 25)``.

    Where both sides have at most 6 checkers: P(win) from the exact two-sided table
    ``two_sided`` (default: the process-wide one), no gammons. Elsewhere
    :func:`~bgzero.engine.bearoff.one_sided.one_sided_probs` with ``db``. One pass per board:
    search and rollouts ask for thousands at a time.
    """
    b = np.asarray(boards)
    if b.shape[-2:] != (2, 25):
        raise InvalidPositionError(f"boards must have shape (..., 2, 25), got {b.shape}")
    flat = b.reshape(-1, 2, 25)
    if flat.dtype != np.int8:
        flat = np.clip(flat, -1, 16).astype(np.int8)  # out-of-range counts stay out of range
    db = one_sided.get_database() if db is None else db
    two_sided = get_database() if two_sided is None else two_sided
    out = np.zeros((len(flat), 5), np.float32)
    bad = _probs_kernel(np.ascontiguousarray(flat), db.off, db.first_off, two_sided.win, out)
    if bad >= 0:
        where = tuple(int(i) for i in np.unravel_index(bad, b.shape[:-2]))
        raise InvalidPositionError(f"board {where} is not a bear-off position (checkers outside points 1-6)")
    return out.reshape(b.shape[:-2] + (5,))


@njit(cache=True)
def _probs_kernel(boards, off, first_off, win, out):
    """``out[k]`` for each board; the index of the first board that is not a bear-off, else -1."""
    for k in range(boards.shape[0]):
        a, full_me, valid_me = one_sided.side_index(boards[k, 0])
        b, full_opp, valid_opp = one_sided.side_index(boards[k, 1])
        if not (valid_me and valid_opp):
            return k
        one_sided.one_sided_row(off, first_off, a, b, full_me, full_opp, out, k)
        if a < win.shape[0] and b < win.shape[0]:
            out[k, 0] = win[a, b]  # gammons are already 0: neither side has 15
    return -1
