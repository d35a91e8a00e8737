"""Position classes, the one home for "what kind of position is this".

Evaluation routes by class (finished games scored exactly, bear-offs from the databases,
races to the race net, contact to the contact net) and the cube's life depends on it.
``CRASHED`` is gnubg's class for a contact position with few checkers left; bgzero's
classifier does not return it, but the cube-life table keeps gnubg's entry for it.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from bgzero.engine import rowbits


class PositionClass(IntEnum):
    """A position's class; the values index arrays, so they stay small and fixed."""

    CONTACT = 0
    RACE = 1
    BEAROFF = 2
    OVER = 3
    CRASHED = 4

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, format_spec: str) -> str:
        return object.__format__(self, format_spec)  # f-strings print the name, as str() does


CONTACT, RACE, BEAROFF, OVER, CRASHED = PositionClass


def classify(boards: np.ndarray, race: int = RACE, bearoff: int = BEAROFF) -> np.ndarray:
    """Position class per board, as int8: CONTACT, RACE, BEAROFF or OVER.

    OVER: a side has borne off every checker; BEAROFF: both sides have all their checkers
    on their points 1-6; RACE: no contact (:func:`is_race`); else CONTACT. One pass per
    board (search classifies every candidate it meets). ``race`` and ``bearoff``: the class
    to report for those instead (an evaluator without a race net sends races to its contact net).
    """
    return _classes(np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25), int(race), int(bearoff))


def is_race(boards: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: True where no contact remains in ``(B, 2, 25)`` boards.

    No contact means every checker of the side on roll has passed every checker of the
    other side (a checker on the bar is behind everything). A side with no checkers left
    counts as a race, as in gnubg's classification. Pass the position BEFORE the move.
    """
    b = np.asarray(boards)
    cols = np.arange(25)
    me_back = np.where(b[:, 0] > 0, cols, -1).max(axis=1)
    opp_back = np.where(b[:, 1] > 0, cols, -1).max(axis=1)
    # my column i is the other side's column 23 - i: contact while i + j >= 24.
    return me_back + opp_back < 24


@njit(cache=True)
def _classes(boards, race, bearoff):
    out = np.empty(boards.shape[0], np.int8)
    for k in range(boards.shape[0]):
        mine, theirs = rowbits.above(boards[k, 0], 0), rowbits.above(boards[k, 1], 0)  # the occupied cells
        if mine == 0 or theirs == 0:
            out[k] = 3  # OVER (numba sees plain ints)
            continue
        my_back, opp_back = rowbits.highest(mine), rowbits.highest(theirs)  # the rearmost checkers' columns
        if my_back + opp_back >= 24:  # my column i faces their column 23 - i
            out[k] = 0  # CONTACT
        elif my_back < 6 and opp_back < 6:
            out[k] = bearoff
        else:
            out[k] = race
    return out
