"""Board pictures with matplotlib, for notebooks and the README.

:func:`draw_board` draws a position as a real board: points as triangles, checkers as
circles (a count on the top checker of a stack above five), the bar, the borne-off trays,
the point numbers of the player at the bottom, pip counts, the cube (centred, or on its
owner's side) and the dice. Like :func:`bgzero.ui.render.render_board`, ``board`` row 0 is
player 0, drawn at the bottom with its home board bottom right, whoever is on roll.

``python -m bgzero.ui.draw docs/board.png`` draws :data:`EXAMPLE`, the README's picture.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from bgzero.cube import CENTRED, CubeState, MatchState
from bgzero.engine.board import borne_off, pip_counts, validate
from bgzero.ui.render import describe_score

FRAME, FELT, BAR = "#4a2f1b", "#efe3c8", "#5d3b22"
POINTS = ("#a23b2c", "#2f4d63")  # alternating triangles
CHECKERS = (("#f7f3ea", "#3b3b3b", "#222222"), ("#2b2b2b", "#000000", "#f2f2f2"))  # face, edge, text per player
_HALF = 5.0  # a half board holds five checkers along a point
_GAP = 1.0  # the band between the halves, where the dice lie
_TOP = 2 * _HALF + _GAP
_RADIUS = 0.46
FIGSIZE = (10, 7.4)


def _point_x(point: int) -> float:
    """Centre x of player 0's ``point`` (1-24): 13-24 along the top left to right, 12-1 along the bottom."""
    col = point - 13 if point >= 13 else 12 - point
    return col + 0.5 + (1.0 if col >= 6 else 0.0)  # the bar is one unit wide, after six points


def draw_board(board, names=("player 0", "player 1"), *, state: MatchState | None = None, on_roll: int | None = None,
               dice=None, title: str | None = None, ax=None):
    """Draw ``board`` (row 0 = player 0, at the bottom) on ``ax`` (a new figure if None); returns the axes.

    ``state`` adds the score and puts the cube by its owner (centred: 64 in the middle);
    ``dice`` are drawn in the half of the side ``on_roll``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch, Polygon, Rectangle

    board = validate(board)
    if ax is None:
        _, ax = plt.subplots(figsize=FIGSIZE)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_xlim(-2.0, 15.2)
    ax.set_ylim(-2.6, _TOP + 1.6)

    ax.add_patch(Rectangle((-0.35, -0.35), 13.7, _TOP + 0.7, color=FRAME, zorder=0))
    for x0 in (0.0, 7.0):
        ax.add_patch(Rectangle((x0, 0), 6, _TOP, color=FELT, zorder=1))
    ax.add_patch(Rectangle((6.0, 0), 1.0, _TOP, color=BAR, zorder=1))
    ax.add_patch(Rectangle((13.75, -0.35), 1.3, _TOP + 0.7, color=FRAME, zorder=0))
    for y0 in (0.0, _HALF + _GAP):
        ax.add_patch(Rectangle((13.9, y0), 1.0, _HALF, color=BAR, zorder=1))

    for point in range(1, 25):
        x, top = _point_x(point), point >= 13
        rim, tip = (_TOP, _TOP - 0.92 * _HALF) if top else (0.0, 0.92 * _HALF)
        ax.add_patch(Polygon([(x - 0.5, rim), (x + 0.5, rim), (x, tip)], color=POINTS[point % 2], zorder=2))
        ax.text(x, _TOP + 0.55 if top else -0.6, str(point), ha="center", va="center", fontsize=10,
                color="#333333")

    def checker(x: float, y: float, player: int, label: str = "") -> None:
        face, edge, ink = CHECKERS[player]
        ax.add_patch(Circle((x, y), _RADIUS, facecolor=face, edgecolor=edge, lw=1.3, zorder=4))
        ax.add_patch(Circle((x, y), _RADIUS * 0.62, facecolor="none", edgecolor=edge, lw=0.6, alpha=0.5, zorder=5))
        if label:
            ax.text(x, y, label, ha="center", va="center", fontsize=11, fontweight="bold", color=ink, zorder=6)

    def stack(x: float, start: float, step: float, count: int, player: int) -> None:
        """Up to five checkers from ``start`` in steps of ``step``; the fifth carries the count above five."""
        for k in range(min(count, 5)):
            checker(x, start + step * k, player, str(count) if count > 5 and k == 4 else "")

    for point in range(1, 25):
        x, top = _point_x(point), point >= 13
        mine, theirs = int(board[0, point - 1]), int(board[1, 24 - point])
        start, step = (_TOP - 0.5, -1.0) if top else (0.5, 1.0)
        if mine or theirs:
            stack(x, start, step, mine or theirs, 0 if mine else 1)
    # bar checkers wait next to the middle, on the side of the home board they must enter
    stack(6.5, _HALF + _GAP + 0.5, 1.0, int(board[0, 24]), 0)
    stack(6.5, _HALF - 0.5, -1.0, int(board[1, 24]), 1)

    off = borne_off(board).tolist()
    for player, (rim, step) in enumerate(((0.15, 0.33), (_TOP - 0.45, -0.33))):
        face, edge, _ = CHECKERS[player]
        for k in range(off[player]):
            ax.add_patch(FancyBboxPatch((14.0, rim + step * k), 0.8, 0.24, boxstyle="round,pad=0,rounding_size=0.08",
                                        facecolor=face, edgecolor=edge, lw=0.8, zorder=4))
        if off[player]:
            ax.text(14.4, -0.75 if player == 0 else _TOP + 0.7, f"{off[player]} off", ha="center", va="center",
                    fontsize=9, color="#333333")

    if state is not None:
        owner = state.cube.owner
        y = {CENTRED: _TOP / 2, 0: 0.9, 1: _TOP - 0.9}[owner]
        value = 64 if owner == CENTRED else state.cube.value
        ax.add_patch(FancyBboxPatch((-1.55, y - 0.45), 0.9, 0.9, boxstyle="round,pad=0,rounding_size=0.12",
                                    facecolor="white", edgecolor="#222222", lw=1.5, zorder=4))
        ax.text(-1.1, y, str(value), ha="center", va="center", fontsize=13, fontweight="bold", zorder=5)

    if dice is not None and on_roll is not None:
        for k, d in enumerate(dice):
            _die(ax, (9.0 if on_roll == 0 else 2.0) + 1.2 * k, _HALF + _GAP / 2 - 0.4, d, on_roll)

    pips = pip_counts(board).tolist()
    for player, y in ((0, -1.55), (1, -2.25)):
        face, edge, _ = CHECKERS[player]
        ax.add_patch(Circle((0.0, y), 0.25, facecolor=face, edgecolor=edge, lw=1.2, zorder=4))
        turn = "  (on roll)" if on_roll == player else ""
        ax.text(0.45, y, f"{names[player]}: pips {pips[player]}, off {off[player]}{turn}", va="center", fontsize=11)
    if state is not None:
        ax.text(13.4, -1.9, describe_score(state, names), ha="right", va="center", fontsize=11)
    if title:
        ax.set_title(title, fontsize=13)
    return ax


def _die(ax, x: float, y: float, value: int, player: int) -> None:
    """A die of side 0.8 with its lower-left corner at (x, y), in the roller's colours."""
    from matplotlib.patches import Circle, FancyBboxPatch

    face, edge, ink = CHECKERS[player]
    ax.add_patch(FancyBboxPatch((x, y), 0.8, 0.8, boxstyle="round,pad=0,rounding_size=0.12", facecolor=face,
                                edgecolor=edge, lw=1.2, zorder=4))
    spots = {1: [(1, 1)], 2: [(0, 2), (2, 0)], 3: [(0, 2), (1, 1), (2, 0)], 4: [(0, 0), (0, 2), (2, 0), (2, 2)],
             5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)]}
    for i, j in spots[value]:
        ax.add_patch(Circle((x + 0.16 + 0.24 * i, y + 0.64 - 0.24 * j), 0.07, color=ink, zorder=5))


def save_board(path, board, dpi: int = 150, **kwargs) -> Path:
    """:func:`draw_board` into a PNG (or any format matplotlib writes) at ``path``.

    The figure is made without pyplot, so saving leaves the caller's backend and figures alone.
    """
    from matplotlib.figure import Figure

    ax = draw_board(board, ax=Figure(figsize=FIGSIZE).add_subplot(), **kwargs)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ax.figure.savefig(path, dpi=dpi, bbox_inches="tight", facecolor="white")
    return path


def _example_board() -> np.ndarray:
    """Late in a 7-point match: white, just hit, must enter against black's bear-off; white owns the cube at 2."""
    board = np.zeros((2, 25), np.int8)
    board[0, [24, 12, 7, 5, 4, 3]] = [1, 2, 2, 6, 2, 2]  # white: the bar, its 13, 8, 6 (a stack of six), 5, 4
    board[1, [5, 4, 3, 2, 0]] = [4, 2, 2, 2, 1]  # black: all home, a blot on its ace point, four off
    return board


EXAMPLE: dict[str, Any] = dict(board=_example_board(), names=("white", "black"), on_roll=0, dice=(5, 1),
                               state=MatchState(7, (3, 4), cube=CubeState(2, 0)))


def main(argv: list[str] | None = None) -> None:
    """``python -m bgzero.ui.draw OUT.png``: the README's board picture."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m bgzero.ui.draw OUT.png")
    print(save_board(args[0], **EXAMPLE))


if __name__ == "__main__":
    main()
