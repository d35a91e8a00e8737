"""The board builder the tests share: a position from ``{point: checkers}`` per side."""

import numpy as np

from bgzero.engine.board import validate


def board(mine: dict, theirs: dict | None = None) -> np.ndarray:
    """A checked ``(2, 25)`` board, the side on roll first, each side in its own numbering:
    points 1-24, and 25 or ``"bar"`` for the bar."""
    out = np.zeros((2, 25), np.int8)
    for row, side in enumerate((mine, theirs or {})):
        for point, count in side.items():
            out[row, 24 if point in (25, "bar") else point - 1] = count
    return validate(out)
