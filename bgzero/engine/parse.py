"""What a person types for the engine's values, read and checked: dice, Position IDs, Match IDs and XGIDs.

Each reader names the text it refuses and says what it expects, in one line: the commands,
the web API and the terminal game all read a user's input here. A position to analyse must
be legal and still in play, and a Match ID must record a game in progress.
"""

from __future__ import annotations

import re

import numpy as np

from bgzero.engine.board import validate
from bgzero.engine.game import game_results
from bgzero.engine.ids import GameState, MatchInfo, match_info_from_id
from bgzero.engine.notation import check_dice
from bgzero.engine.xgid import read_position_text
from bgzero.errors import InvalidDiceError, InvalidMatchIdError, InvalidPositionError, shown

_DICE_TEXT = re.compile(r"\[?\s*([1-6])\s*[-,/ ]?\s*([1-6])\s*\]?")


def parse_dice(value) -> tuple[int, int]:
    """Dice written as ``31``, ``3-1``, ``3,1`` or ``[3, 1]``, larger first.

    Hydra turns ``dice=31`` into an int and ``dice=[3,1]`` into a list, so all three arrive here.
    """
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        match = _DICE_TEXT.fullmatch(str(value).strip())
        if match:
            return check_dice((int(match[1]), int(match[2])))
    elif value is not None and not isinstance(value, (bool, float)):
        try:
            return check_dice(tuple(value))
        except (InvalidDiceError, TypeError):
            pass
    raise InvalidDiceError(f"dice {shown(value)} are not two dice 1-6; write them as 31, 3-1 or [3,1]")


def read_position(text) -> np.ndarray:
    """The board of a Position ID (or XGID, or ``PositionID:MatchID``), refused with it named if
    it is malformed or a finished game."""
    return read_position_and_match(text)[0]


def read_position_and_match(text) -> tuple[np.ndarray, MatchInfo | None]:
    """The board and, for an XGID or ``PositionID:MatchID``, the match state a position text gives."""
    try:
        board, info = read_position_text(text)
    except (InvalidPositionError, InvalidMatchIdError) as e:
        what = "XGID" if str(text).strip().upper().startswith("XGID=") else "Position ID"
        raise InvalidPositionError(
            f"malformed {what} {shown(text)} ({e}); give gnubg's 14-character ID, like 4HPwATDgc/ABMA,"
            " PositionID:MatchID, or an XGID"
        ) from None
    try:
        return check_position(board), info if info is None else _in_play(info, text)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"Position ID {shown(text)}: {e}") from None


def read_match_id(text) -> MatchInfo:
    """The match state of a Match ID, refused with the ID named if it is malformed or records no game in play."""
    try:
        info = match_info_from_id(text)
    except InvalidMatchIdError as e:
        raise InvalidMatchIdError(
            f"malformed Match ID {shown(text)} ({e}); give gnubg's 12-character ID, like cAkAAAAAAAAA"
        ) from None
    return _in_play(info, text)


_NOT_IN_PLAY: dict[int, str] = {
    GameState.NONE: "no game in progress", GameState.OVER: "a game that is over",
    GameState.RESIGNED: "a game ended by resignation", GameState.DROPPED: "a game ended by a passed double"}


def _in_play(info: MatchInfo, text) -> MatchInfo:
    """``info`` if it records a game in play with no resignation offered: there is nothing else to analyse."""
    if info.game_state in _NOT_IN_PLAY:
        raise InvalidMatchIdError(f"{shown(text)} records {_NOT_IN_PLAY[info.game_state]}; nothing to analyse")
    if info.resignation:
        raise InvalidMatchIdError(f"{shown(text)} records a resignation offered; answer it in the game, "
                                  "or analyse the position without it")
    return info


def check_position(board) -> np.ndarray:
    """``board`` validated, and still in play: a finished game has no moves or cube to analyse."""
    board = validate(board)
    if game_results(board):
        raise InvalidPositionError("the game is over (a side has borne off every checker); nothing to analyse")
    return board
