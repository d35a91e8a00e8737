"""Random race positions to start self-play games from (``selfplay.start=race``).

Games from the opening reach races only as contact ends, and seldom lopsided ones: a side
with checkers still in the outfield while the other is bearing off, where saving (or
winning) the gammon decides the move. Starting games from positions drawn here gives the
race network all of them to learn from by the same self-play.
"""

from __future__ import annotations

import numpy as np

from bgzero.board import NUM_CHECKERS


def random_races(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` race boards (no contact; the side on roll or the other has a checker outside its
    home board), side on roll in row 0. Each side's farthest-back checker is drawn first,
    so that the two never pass each other; its other checkers spread between that point
    and its home, bunched forward or back at random; a fifth of the sides have already
    borne some checkers off."""
    boards = np.zeros((n, 2, 25), np.int8)
    for k in range(n):
        back = int(rng.integers(6, 23))  # a column outside the home board (0-based, 5 is the six point)
        other = int(rng.integers(0, 23 - back))  # no contact: back + other <= 22
        backs = (back, other) if rng.random() < 0.5 else (other, back)
        for side, last in enumerate(backs):
            off = int(rng.integers(1, 10)) if rng.random() < 0.2 else 0
            left = NUM_CHECKERS - off
            boards[k, side, last] = 1
            cols = np.floor((last + 1) * rng.random(left - 1) ** rng.uniform(0.5, 2.0)).astype(np.int64)
            np.add.at(boards[k, side], np.minimum(cols, last), 1)
    return boards
