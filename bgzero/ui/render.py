"""Terminal boards: the picture of a position with the score, the cube and the dice beside it.

Boards are drawn from player 0's side whoever is on roll: its home board bottom right,
its points numbered 1-24 as it moves. :func:`render_board` draws with Unicode box lines
and ``●``/``○`` checkers, optionally in ANSI colour, or in plain ASCII (``X``/``O``) for
terminals and logs that need it. Play, replay and the board drawings share it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgzero.cube import CENTRED, MatchState
from bgzero.engine.board import borne_off, pip_counts, swap_sides


@dataclass(frozen=True)
class BoardStyle:
    """Glyphs and frame characters of a terminal board; :data:`UNICODE` or :data:`ASCII`."""

    checkers: tuple[str, str]
    horizontal: str
    vertical: str
    corners: str  # top-left, top-join, top-right, bottom-left, bottom-join, bottom-right


UNICODE = BoardStyle(("●", "○"), "─", "│", "┌┬┐└┴┘")
ASCII = BoardStyle(("X", "O"), "-", "|", "++++++")
_COLOURS = ("\x1b[1;31m", "\x1b[1;36m")  # player 0 bold red, player 1 bold cyan
_RESET = "\x1b[0m"


def render_board(board, names=("you", "bot"), *, state: MatchState | None = None, on_roll: int | None = None,
                 dice=None, style: BoardStyle = UNICODE, colour: bool = False) -> str:
    """The board with player 0 at the bottom (``board`` row 0 is player 0, whoever is on roll).

    Beside it: each side's name, pip count and checkers off, the score and the cube, and
    an arrow at the side ``on_roll`` with its ``dice``. Player 0's bar checkers wait in
    the upper half (they enter into player 1's home, top right), player 1's in the lower.
    """
    board = np.asarray(board)
    me, opp = board[0].tolist(), board[1].tolist()
    h, v, c = style.horizontal, style.vertical, style.corners

    def glyph(player: int, text: str) -> str:
        return f"{_COLOURS[player]}{text}{_RESET}" if colour else text

    def stack(player: int, count: int, k: int) -> str:
        """Row ``k`` (0 at the rim) of a stack: a checker, the count on a tall stack's fifth row, or blank."""
        if count > 5 and k == 4:
            return glyph(player, f"{count:^3d}")
        return f" {glyph(player, style.checkers[player])} " if count > k else "   "

    def point(p: int, k: int) -> str:
        mine, theirs = me[p - 1], opp[24 - p]
        return stack(0, mine, k) if mine else stack(1, theirs, k)

    off = borne_off(board).tolist()
    cube_row = {CENTRED: 5, 1: 1, 0: 9}[state.cube.owner] if state else -1  # rows 0 and 10 hold the trays
    rows = []
    for r in range(11):
        top, k = r < 5, (r if r < 5 else 10 - r)
        if r == 5:
            left, bar, right = " " * 18, "BAR", " " * 18
        else:
            pts = range(13, 25) if top else range(12, 0, -1)
            cells = [point(p, k) for p in pts]
            left, right = "".join(cells[:6]), "".join(cells[6:])
            bar = stack(0, me[24], 4 - k) if top else stack(1, opp[24], 4 - k)
        tray = "   "
        if state is not None and r == cube_row:
            value = state.cube.value if state.cube.owner != CENTRED else 64  # a centred cube shows 64, as on a real board
            tray = f"[{value}]" if value < 10 else f"{value:^3d}"
        elif r in (0, 10) and off[1 if top else 0]:
            tray = glyph(1 if top else 0, f"{off[1 if top else 0]:>2d}{style.checkers[1 if top else 0]}")
        rows.append(f" {v}{left}{v}{bar}{v}{right}{v}{tray}{v}")

    pips = pip_counts(board).tolist()

    def side(player: int) -> str:
        arrow = ""
        if on_roll == player:
            arrow = "  <- on roll" + (f", rolled {dice[0]}-{dice[1]}" if dice else "")
        return (f"   {glyph(player, style.checkers[player])} {names[player]}: pips {pips[player]}, "
                f"off {off[player]}{arrow}")

    info = {0: side(1), 10: side(0)}
    if state is not None:
        info[4] = "   " + describe_score(state, names)
        info[6] = "   " + describe_cube(state, names)
    numbers = lambda pts: "  " + "".join(f"{p:^3d}" for p in pts[:6]) + "     " + "".join(f"{p:^3d}" for p in pts[6:])
    frame = lambda a, j, b: f" {a}{h * 18}{j}{h * 3}{j}{h * 18}{j}{h * 3}{b}"
    lines = [numbers(list(range(13, 25))), frame(c[0], c[1], c[2])]
    lines += [row + info.get(r, "") for r, row in enumerate(rows)]
    lines += [frame(c[3], c[4], c[5]), numbers(list(range(12, 0, -1)))]
    return "\n".join(line.rstrip() for line in lines)


def describe_score(state: MatchState, names) -> str:
    """``7-point match: you 2, bot 4 (Crawford game)`` or the money totals."""
    s0, s1 = state.score
    if state.is_money:
        return f"money session: {names[0]} {s0}, {names[1]} {s1}" + (" (Jacoby)" if state.jacoby else "")
    post = state.post_crawford and state.match_length > 1  # a 1-point match has no Crawford game
    extra = " (Crawford game)" if state.crawford else " (post-Crawford)" if post else ""
    return f"{state.match_length}-point match: {names[0]} {s0}, {names[1]} {s1}{extra}"


def describe_cube(state: MatchState, names) -> str:
    owner = "centred" if state.cube.owner == CENTRED else f"owned by {names[state.cube.owner]}"
    return f"cube {state.cube.value}, {owner}"


def player_view(board: np.ndarray, on_roll: int) -> np.ndarray:
    """``board`` (side on roll in row 0) with player 0 in row 0."""
    return board if on_roll == 0 else swap_sides(board)
