"""Cubeless probabilities of bear-off positions, from whichever database knows them best.

The exact two-sided table answers where both sides have at most 6 checkers; the one-sided
distributions everywhere else. This is the only module that sees both databases.
"""

from __future__ import annotations

import numpy as np

from bgzero.engine.bearoff import one_sided
from bgzero.engine.bearoff.one_sided import BearoffDatabase
from bgzero.engine.bearoff.two_sided import NUM_POSITIONS, TwoSidedDatabase, get_database


def bearoff_probs(boards: np.ndarray, db: BearoffDatabase | None = None,
                  two_sided: TwoSidedDatabase | None = None) -> np.ndarray:
    """Cubeless ``(..., 5)`` float32 probabilities for bear-off boards ``(..., 2, 25)``.

    Where both sides have at most 6 checkers: P(win) from the exact two-sided table
    ``two_sided`` (default: the process-wide one), no gammons. Elsewhere
    :func:`one_sided_probs` with ``db``.
    """
    home = one_sided.home_counts(boards)
    me, opp = one_sided.position_index(home[..., 0, :]), one_sided.position_index(home[..., 1, :])
    out = one_sided.probs_from_counts(home, me, opp, db)
    short = (me < NUM_POSITIONS) & (opp < NUM_POSITIONS)
    if short.any():
        two_sided = get_database() if two_sided is None else two_sided
        out[short, 0] = two_sided.win[me[short], opp[short]]  # gammons are already 0: neither side has 15
    return out
