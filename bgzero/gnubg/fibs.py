"""The FIBS ``board:`` line (CLIP "board state"), both ways: text to fields to a bgzero position.

GNU Backgammon's external player protocol sends this line each time the external player
must act. The 52 colon-separated fields after ``board:`` are, in order: the two names,
match length, the two scores, 26 board fields, turn, the player's and the opponent's dice,
cube value, may-double flags (player, opponent), was-doubled flag, colour, direction, home
and bar indices, checkers borne off (player, opponent), checkers on the bar (player,
opponent), can-move count, forced-move flag, and two Crawford flags. The CLIP spec calls
the last two "did Crawford" and "redoubles"; gnubg reads them, and bgzero with it, as
"non-Crawford" and "post-Crawford": in a match with a side 1-away, the game is the
Crawford game exactly when both are 0.

The board fields are signed by colour: a checker of the player's ``colour`` counts with
that sign. ``direction`` is the way the player's checkers travel through the field indices:
``-1`` from 24 down to its home at 0 (its own point ``p`` is field ``p`` and its bar field
25), ``+1`` up to its home at 25 (its own point ``p`` is field ``25 - p``, bar field 0).
The opponent moves the other way. ``turn`` is the colour on roll.

:func:`parse_line` reads the text into a :class:`FibsBoard` (every field, as sent) and
:func:`format_line` writes it back; :func:`situation` turns one into what bgzero must decide:
the acting side's board in the :mod:`bgzero.engine.board` convention, its dice, and the
:class:`~bgzero.cube.state.MatchState` with the actor as player 0. :func:`fibs_board` is the
inverse, for any colour and direction.

What gnubg 1.07 sends (``FIBSBoard`` in ``drawboard.c``; checked by logging its lines): always
colour 1, direction -1, home 0, bar 25, gnubg's player 1 being the positive colour whichever
player is external; both dice pairs equal to the roll; the may-double flags from the cube
owner alone (both set in the Crawford game); the was-doubled flag while a double is pending,
when the actor is the colour *not* on turn; 0 in the on-bar, can-move and forced-move
fields; non-Crawford 1 only in post-Crawford games, post-Crawford 0 only in the Crawford
game. Its names and scores are gnubg's player 0 first while no double is pending and player
1 first while one is, so they follow neither the colour nor the actor: :func:`situation`
reads the scores by colour, as the protocol defines them, unless told ``gnubg_scores``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from bgzero.cube import CENTRED, CubeState, MatchState, MatchStateError
from bgzero.engine.board import BAR, NUM_CHECKERS, validate
from bgzero.errors import BgzeroError, InvalidPositionError

PREFIX = "board:"
NUM_FIELDS = 52  # after "board:"
UNLIMITED = 9999  # FIBS's match length for an unlimited (money) session

# What the actor must decide.
MOVE = "move"  # dice rolled: play them
CUBE = "cube"  # before rolling: "roll" or "double"
RESPOND = "respond"  # doubled: "take", "drop" or "beaver"


class FibsBoardError(BgzeroError, ValueError):
    """A FIBS board line that is malformed, truncated, or describes no decision."""


@dataclass(frozen=True)
class FibsBoard:
    """Every field of one board line, named as in the CLIP spec, values as sent."""

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    points: tuple[int, ...]  # 26 fields, index 0 and 25 the bars
    turn: int
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: int
    opponent_may_double: int
    was_doubled: int
    colour: int
    direction: int
    home: int
    bar: int
    player_home: int
    opponent_home: int
    player_bar: int
    opponent_bar: int
    can_move: int
    forced_move: int
    non_crawford: int
    post_crawford: int


@dataclass(frozen=True)
class Situation:
    """A decision for the acting side: ``action``, its ``board`` (actor in row 0), ``dice``
    (``None`` unless ``action`` is :data:`MOVE`) and ``state``, with the actor as player 0.

    For :data:`RESPOND` the opponent (player 1) has doubled and ``state`` is before the double.
    """

    action: str
    board: np.ndarray
    dice: tuple[int, int] | None
    state: MatchState


# --------------------------------------------------------------------------- text


def parse_line(text: str) -> FibsBoard:
    """The fields of one ``board:`` line; :class:`FibsBoardError` names what is wrong.

    Leading NUL bytes and surrounding white space (gnubg ends each line with ``\\n\\0``) are
    ignored. Names may hold anything but ``:``; every other field must be an integer.
    """
    line = text.strip().strip("\0").strip()
    if not line.startswith(PREFIX):
        raise FibsBoardError(f"not a board line (it must start with {PREFIX!r}): {_show(line)}")
    parts = line[len(PREFIX):].split(":")
    if len(parts) != NUM_FIELDS:
        raise FibsBoardError(f"board line has {len(parts)} field{'s' * (len(parts) != 1)} after {PREFIX!r}, "
                             f"expected {NUM_FIELDS}: {_show(line)}")
    names, numbers = parts[:2], parts[2:]
    try:
        values = [int(v) for v in numbers]
    except ValueError:
        bad = next(i for i, v in enumerate(numbers) if not _is_int(v))
        raise FibsBoardError(f"board line field {bad + 3} is {numbers[bad]!r}, not an integer: {_show(line)}") from None
    v = values
    return FibsBoard(*names, *v[0:3], tuple(v[3:29]), v[29], tuple(v[30:32]), tuple(v[32:34]), *v[34:])


def format_line(fb: FibsBoard) -> str:
    """The board line for ``fb`` (no terminator): :func:`parse_line`'s inverse."""
    values = []
    for f in fields(FibsBoard):
        value = getattr(fb, f.name)
        values.extend(value if isinstance(value, tuple) else [value])
    return PREFIX + ":".join(str(v) for v in values)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _show(line: str, limit: int = 120) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "...")


# --------------------------------------------------------------------------- meaning


def situation(fb: FibsBoard, *, gnubg_scores: bool = False) -> Situation:
    """What the acting side must decide, from its own point of view.

    The actor is the colour on ``turn``, except while a double is pending: then it is the
    other colour, which must answer it. A double is pending when ``was_doubled`` is set or,
    as FIBS marks it, both may-double flags are 0. ``gnubg_scores`` reads the scores as
    gnubg 1.07 writes them (see the module docstring) instead of by colour.
    """
    for name in ("turn", "colour", "direction"):
        if getattr(fb, name) not in (-1, 1):
            hint = " (0: the game is over)" if name == "turn" and fb.turn == 0 else ""
            raise FibsBoardError(f"{name} is {getattr(fb, name)}, expected 1 or -1{hint}")
    doubled = bool(fb.was_doubled) or not (fb.player_may_double or fb.opponent_may_double)
    actor = -fb.turn if doubled else fb.turn
    board = _board(fb, actor)
    dice = fb.player_dice if any(fb.player_dice) else fb.opponent_dice
    if doubled:
        action, dice = RESPOND, None
    elif any(dice):
        action = MOVE
        if not all(1 <= d <= 6 for d in dice):
            raise FibsBoardError(f"dice {dice[0]}-{dice[1]} are not two numbers from 1 to 6")
        dice = (int(dice[0]), int(dice[1]))
    else:
        action, dice = CUBE, None
    return Situation(action, board, dice, _state(fb, actor, doubled, gnubg_scores))


def _board(fb: FibsBoard, actor: int) -> np.ndarray:
    """The actor's (2, 25) board: the actor's own points in row 0, the other side's in row 1."""
    board = np.zeros((2, 25), np.int64)  # wide: a wild count must reach validate, not overflow
    for row, colour in enumerate((actor, -actor)):
        direction = fb.direction if colour == fb.colour else -fb.direction
        for point in range(1, 25):
            count = colour * fb.points[point if direction < 0 else 25 - point]
            board[row, point - 1] = max(count, 0)
        board[row, BAR] = abs(fb.points[25 if direction < 0 else 0])
    try:
        board = validate(board)
    except InvalidPositionError as e:
        raise FibsBoardError(f"board fields {list(fb.points)} are no position: {e}") from None
    for row, colour in enumerate((actor, -actor)):
        off = fb.player_home if colour == fb.colour else fb.opponent_home
        if int(board[row].sum()) + off != NUM_CHECKERS:
            raise FibsBoardError(f"colour {colour} has {int(board[row].sum())} checkers on the board and {off} "
                                 f"borne off, not {NUM_CHECKERS}")
    return board


def _state(fb: FibsBoard, actor: int, doubled: bool, gnubg_scores: bool) -> MatchState:
    """Match length, score, Crawford flag and cube, the actor as player 0."""
    scores = {fb.colour: fb.player_score, -fb.colour: fb.opponent_score}
    if gnubg_scores and not doubled:
        scores = {fb.colour: fb.opponent_score, -fb.colour: fb.player_score}
    n = 0 if fb.match_length == UNLIMITED else fb.match_length
    score = (scores[actor], scores[-actor])
    may = {fb.colour: bool(fb.player_may_double), -fb.colour: bool(fb.opponent_may_double)}
    if fb.cube == 1:
        owner = CENTRED
    elif doubled:  # only the owner redoubles; FIBS clears both flags while a double is pending
        owner = 1
    elif may[actor] != may[-actor]:
        owner = 0 if may[actor] else 1
    else:
        raise FibsBoardError(f"cube at {fb.cube} but may-double flags {int(may[actor])}, {int(may[-actor])} "
                             f"name no owner")
    crawford = not (fb.non_crawford or fb.post_crawford) and n > 0 and max(score) == n - 1 > min(score)
    try:
        return MatchState(n, score, crawford, cube=CubeState(fb.cube, owner))
    except MatchStateError as e:
        raise FibsBoardError(f"match fields: {e}") from None


def fibs_board(sit: Situation, *, colour: int = 1, direction: int = -1, player: str = "you",
               opponent: str = "opponent") -> FibsBoard:
    """The board line for ``sit`` as the FIBS spec lays it out, the actor being the ``player``
    of the given ``colour`` and ``direction``: scores by colour, both dice pairs the roll,
    Crawford flags as gnubg 1.07 writes them. :func:`situation` reads it back."""
    if colour not in (-1, 1) or direction not in (-1, 1):
        raise FibsBoardError(f"colour {colour} and direction {direction} must each be 1 or -1")
    board, state = validate(sit.board), sit.state
    points = [0] * 26
    for row, sign in ((0, colour), (1, -colour)):
        row_direction = direction if row == 0 else -direction
        for point in range(1, 25):
            if board[row, point - 1]:
                points[point if row_direction < 0 else 25 - point] = sign * int(board[row, point - 1])
        points[25 if row_direction < 0 else 0] = sign * int(board[row, BAR])
    doubled = sit.action == RESPOND
    dice = sit.dice if sit.action == MOVE else (0, 0)
    owner = state.cube.owner
    may_double = (int(owner in (CENTRED, 0)), int(owner in (CENTRED, 1)))
    off = NUM_CHECKERS - board.sum(axis=1)
    home, bar = (0, 25) if direction < 0 else (25, 0)
    return FibsBoard(
        player, opponent, state.match_length, state.score[0], state.score[1], tuple(points),
        -colour if doubled else colour, tuple(dice), tuple(dice), state.cube.value, *may_double,
        int(doubled), colour, direction, home, bar, int(off[0]), int(off[1]), int(board[0, BAR]),
        int(board[1, BAR]), 0, 0, 0, int(not state.crawford),
    )
