"""eXtreme Gammon's XGID, and one reader for every way a player writes a position.

An XGID is ``XGID=`` then ten colon-separated fields::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10
         position                   cube  owner turn dice score0 score1 crawford/jacoby length maxcube

* **position**, 26 characters: character 0 is the top player's bar, 1-24 the points numbered
  from the bottom player's side, 25 the bottom player's bar; ``-`` is empty, ``A``-``O`` 1-15
  of the bottom player's checkers, ``a``-``o`` the top player's. The bottom player is
  player 0 here and the top player 1 (gnubg 1.07's ``set xgid`` instead makes whoever is on
  roll its player 1: the same state, the players' labels swapped when the bottom one rolls).
* **cube** its log2; **owner** 0 centred, 1 the bottom player, -1 the top; **turn** 1 the
  bottom player, -1 the top; **dice** ``00`` before the roll, ``D`` doubled (the player in
  ``turn`` doubled; the other must answer), or the two dice rolled.
* **score** bottom then top; **crawford/jacoby** the Crawford flag in a match, the Jacoby
  rule (bit 1) in money; **length** 0 for money; **maxcube** its log2 (kept, not used).

:func:`read_position_text` accepts a gnubg Position ID, ``PositionID:MatchID`` (as gnubg's
``show gnubgid`` writes it) or an XGID, so every command that takes a position takes all three.
"""

from __future__ import annotations

import numpy as np

from bgzero.engine.board import validate
from bgzero.engine.ids import (
    MATCH_ID_LENGTH,
    POSITION_ID_LENGTH,
    GameState,
    MatchInfo,
    board_from_position_id,
    match_info_from_id,
)
from bgzero.errors import InvalidMatchIdError, InvalidPositionError

PREFIX = "XGID="
_FIELDS = 10
_EMPTY = "-"


def parse_xgid(text: str) -> tuple[np.ndarray, MatchInfo]:
    """The board (side on roll first, our convention) and match state of an XGID."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"XGID must be a str, got {type(text).__name__}: {text!r}")
    body = text.strip()
    body = body[len(PREFIX):] if body.upper().startswith(PREFIX) else body
    fields = body.split(":")
    if len(fields) != _FIELDS:
        raise InvalidPositionError(f"XGID {text!r} has {len(fields)} fields, not {_FIELDS} "
                                   "(position:cube:owner:turn:dice:score:score:crawford:length:maxcube)")
    try:
        cube, owner, turn, score0, score1, flag, length, _ = (int(fields[k]) for k in (1, 2, 3, 5, 6, 7, 8, 9))
    except ValueError:
        raise InvalidPositionError(f"XGID {text!r}: fields 2-4 and 6-10 must be integers") from None
    rows = _rows(fields[0], text)  # [bottom, top], each in its own numbering
    if turn not in (1, -1) or owner not in (1, 0, -1):
        raise InvalidPositionError(f"XGID {text!r}: turn must be 1 or -1 and the cube owner 1, 0 or -1")
    player = 0 if turn == 1 else 1
    doubled, dice = _dice(fields[4], text)
    try:
        board = validate(rows if player == 0 else rows[::-1])
    except InvalidPositionError as e:
        raise InvalidPositionError(f"XGID {text!r}: {e}") from None
    if not 0 <= cube <= 15:
        raise InvalidPositionError(f"XGID {text!r}: cube field {cube} is not a log2 cube value 0-15")
    try:
        info = MatchInfo(cube_value=1 << cube, cube_owner={0: -1, 1: 0, -1: 1}[owner], dice_owner=player,
                         crawford=bool(flag & 1) if length else False, turn=1 - player if doubled else player,
                         double_offered=doubled, dice=dice, match_length=length, score=(score0, score1),
                         jacoby=bool(flag & 1) if not length else False, game_state=GameState.PLAYING)
    except InvalidMatchIdError as e:
        raise InvalidPositionError(f"XGID {text!r}: {e}") from None
    return board, info


def format_xgid(board, info: MatchInfo, max_cube_log2: int = 10) -> str:
    """The XGID of ``board`` (side on roll first; that side is ``info.dice_owner``) in ``info``."""
    board = validate(board)
    rows = board if info.dice_owner == 0 else board[::-1]  # [bottom = player 0, top = player 1]
    chars = [_EMPTY] * 26
    for point in range(24):
        if rows[0, point]:
            chars[point + 1] = chr(ord("A") + rows[0, point] - 1)
        if rows[1, point]:
            chars[24 - point] = chr(ord("a") + rows[1, point] - 1)
    if rows[1, 24]:
        chars[0] = chr(ord("a") + rows[1, 24] - 1)
    if rows[0, 24]:
        chars[25] = chr(ord("A") + rows[0, 24] - 1)
    owner = {-1: 0, 0: 1, 1: -1}[info.cube_owner]
    turn = 1 if info.dice_owner == 0 else -1
    dice = "D" if info.double_offered else f"{info.dice[0]}{info.dice[1]}"
    flag = int(info.crawford) if info.match_length else int(info.jacoby)
    fields = ["".join(chars), info.cube_value.bit_length() - 1, owner, turn, dice, info.score[0], info.score[1],
              flag, info.match_length, max_cube_log2]
    return PREFIX + ":".join(map(str, fields))


def read_position_text(text: str) -> tuple[np.ndarray, MatchInfo | None]:
    """A position as a player writes it: Position ID, ``PositionID:MatchID``, or XGID.

    Returns the board (side on roll first) and the match state, ``None`` for a bare Position ID.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position must be text, got {type(text).__name__}: {text!r}")
    text = text.strip()
    if text.upper().startswith(PREFIX) or text.count(":") == _FIELDS - 1:
        return parse_xgid(text)
    if ":" in text:
        pid, _, mid = text.partition(":")
        if len(pid) != POSITION_ID_LENGTH or len(mid) != MATCH_ID_LENGTH:
            raise InvalidPositionError(f"{text!r} is not PositionID:MatchID (14 and 12 characters)")
        return board_from_position_id(pid), match_info_from_id(mid)
    return board_from_position_id(text), None


def _rows(position: str, text: str) -> np.ndarray:
    """``[bottom, top]`` checker counts, each row in that player's own numbering (bar last)."""
    if len(position) != 26:
        raise InvalidPositionError(f"XGID {text!r}: the position field must be 26 characters, got {len(position)}")
    rows = np.zeros((2, 25), np.int16)
    for k, ch in enumerate(position):
        if ch == _EMPTY:
            continue
        if "A" <= ch <= "O":
            rows[0, 24 if k == 25 else k - 1] = ord(ch) - ord("A") + 1
            bad = k == 0
        elif "a" <= ch <= "o":
            rows[1, 24 if k == 0 else 24 - k] = ord(ch) - ord("a") + 1
            bad = k == 25
        else:
            bad = True
        if bad:
            raise InvalidPositionError(f"XGID {text!r}: character {k} of the position is {ch!r}; use '-', "
                                       "A-O for the bottom player or a-o for the top (not on the other's bar)")
    return rows


def _dice(field: str, text: str) -> tuple[bool, tuple[int, int]]:
    """(double offered, dice) of the dice field."""
    if field.upper() == "D":
        return True, (0, 0)
    if len(field) == 2 and field.isascii() and field.isdigit():  # "²³" is no roll
        dice = (int(field[0]), int(field[1]))
        if dice == (0, 0) or (0 not in dice and max(dice) <= 6):
            return False, dice
    raise InvalidPositionError(f"XGID {text!r}: dice field {field!r} must be 00 (to roll), D (doubled) or two dice 1-6")
