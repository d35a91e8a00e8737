"""The board array convention, the starting position, validation and ASCII rendering.

A board is an ``int8`` array of shape ``(2, 25)``: row 0 is the side on roll, row 1 the
other side. Column ``i`` (0-23) is that row's *own* point ``i + 1`` (each side counts from
its own bear-off end); column 24 is that row's bar. Borne-off checkers are
``15 - row.sum()``. The same physical point is ``board[0, i]`` and ``board[1, 23 - i]``.
A batch is ``(B, 2, 25)``. Swapping the side on roll is swapping the rows.

GNU Backgammon stores ``[other side, side on roll]``; convert with :func:`to_gnubg` /
:func:`from_gnubg` only at that boundary.
"""

from __future__ import annotations

import numpy as np

from bgzero.errors import InvalidPositionError

NUM_CHECKERS = 15
BAR = 24
NUM_POINTS = 24

START_ROW = np.zeros(25, dtype=np.int8)
START_ROW[[23, 12, 7, 5]] = [2, 5, 3, 5]
START = np.stack([START_ROW, START_ROW])
START.setflags(write=False)


def start_board() -> np.ndarray:
    """A fresh, writable copy of the standard starting position."""
    return START.copy()


def swap_sides(board: np.ndarray) -> np.ndarray:
    """The same position with the other side on roll (works on a batch too)."""
    return board[..., ::-1, :].copy()


def borne_off(board: np.ndarray) -> np.ndarray:
    """Checkers borne off per side, shape ``board.shape[:-1]``."""
    return NUM_CHECKERS - board.sum(axis=-1, dtype=np.int32)


def pip_counts(board: np.ndarray) -> np.ndarray:
    """Pip count per side (a bar checker counts 25), shape ``board.shape[:-1]``."""
    return board.astype(np.int32) @ np.arange(1, 26, dtype=np.int32)


def board_problem(board) -> str | None:
    """What makes ``board`` an impossible position, in words; ``None`` for a valid board.

    Checks the shape, that no count is negative, that neither side has more than 15
    checkers on the board, that no point is held by both sides, and that someone can move:
    both sides on the bar against closed boards would pass for ever (a rollout of it never
    ends). The one definition of
    a valid board: :func:`validate` raises with it, the move generator reports it.
    """
    arr = np.asarray(board)
    if arr.shape != (2, 25):
        return f"board must have shape (2, 25), got {arr.shape}"
    if not np.issubdtype(arr.dtype, np.integer):
        return f"board must hold integers, got dtype {arr.dtype}"
    if (arr < 0).any():
        side, col = map(int, np.argwhere(arr < 0)[0])
        return f"negative checker count {int(arr[side, col])} at side {side} column {col}"
    totals = arr.sum(axis=1)
    for side in (0, 1):
        if totals[side] > NUM_CHECKERS:
            return f"side {side} has {int(totals[side])} checkers on the board; at most 15"
    both = (arr[0, :24] > 0) & (arr[1, 23::-1] > 0)
    if both.any():
        return f"point {int(np.argmax(both)) + 1} (side on roll's numbering) is held by both sides"
    if all(arr[side, BAR] > 0 and (arr[1 - side, :6] >= 2).all() for side in (0, 1)):
        return "both sides are on the bar against closed boards: no one can ever move"
    return None


def validate(board) -> np.ndarray:
    """Return ``board`` as an int8 ``(2, 25)`` array or raise :class:`InvalidPositionError`."""
    problem = board_problem(board)
    if problem:
        raise InvalidPositionError(problem)
    return np.asarray(board).astype(np.int8)


def to_gnubg(board: np.ndarray) -> list[list[int]]:
    """gnubg's ``[opponent, side on roll]`` nested lists."""
    return [board[1].tolist(), board[0].tolist()]


def from_gnubg(gboard) -> np.ndarray:
    """Our ``(2, 25)`` array from gnubg's ``[opponent, side on roll]``."""
    return np.array([gboard[1], gboard[0]], dtype=np.int8)


def render_ascii(board: np.ndarray, *, on_roll: str = "X", other: str = "O") -> str:
    """A plain-ASCII picture of the board from the side on roll's view.

    The side on roll (``X``) moves from the top-left (its 13-24) round to the bottom-right
    (its 1-6 home board), as gnubg draws it.
    """
    board = validate(board)
    me, opp = board[0], board[1]

    def cell(point: int, height: int) -> str:
        mine, theirs = int(me[point - 1]), int(opp[24 - point])
        count, sym = (mine, on_roll) if mine else (theirs, other)
        if count <= height:
            return "   "
        if height == 4 and count > 5:
            return f"{count:^3d}"  # a tall stack shows its count on top
        return f" {sym} "

    def half(points: list[int], rows: range) -> list[str]:
        lines = []
        for h in rows:
            left = "".join(cell(p, h) for p in points[:6])
            right = "".join(cell(p, h) for p in points[6:])
            lines.append(f"|{left}|   |{right}|")
        return lines

    top_pts = list(range(13, 25))
    bot_pts = list(range(12, 0, -1))
    num = lambda pts: " " + "".join(f"{p:^3d}" for p in pts[:6]) + "     " + "".join(f"{p:^3d}" for p in pts[6:])
    lines = [num(top_pts), "+" + "-" * 18 + "+---+" + "-" * 18 + "+"]
    lines += half(top_pts, range(5))
    lines.append("|" + " " * 18 + "|BAR|" + " " * 18 + "|")
    lines += list(reversed(half(bot_pts, range(5))))
    lines += ["+" + "-" * 18 + "+---+" + "-" * 18 + "+", num(bot_pts)]
    off = borne_off(board)
    pips = pip_counts(board)
    lines.append(f"{on_roll} (on roll): pips {pips[0]}, bar {int(me[24])}, off {off[0]}")
    lines.append(f"{other}: pips {pips[1]}, bar {int(opp[24])}, off {off[1]}")
    return "\n".join(lines)
