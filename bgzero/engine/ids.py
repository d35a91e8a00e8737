"""GNU Backgammon's Position ID and Match ID, bit for bit as gnubg writes them.

Both IDs are plain base64 (``A-Z a-z 0-9 + /``, no ``=`` padding) of a little-endian bit
string: bit ``k`` is worth ``2 ** (k % 8)`` in byte ``k // 8``.

* **Position ID** (14 characters, 10 bytes). Side by side in gnubg's order -- first the side
  *not* on roll, then the side on roll -- and slot by slot (that side's points 1-24, then its
  bar): one 1 bit per checker, then a 0 bit. That makes 50 zeros and at most 30 ones; the
  bits left over at the end are 0. The start position is ``4HPwATDgc/ABMA``.
* **Match ID** (12 characters, 9 bytes, 67 bits used). The cube, who rolled, the game state,
  flags, dice, match length and score, at the bit offsets in ``_MATCH_LAYOUT`` (the layout
  of gnubg's ``matchid.c``; the manual documents all but the last, "no Jacoby", bit).

Decoding rejects impossible states and bit patterns gnubg never writes (stray 1 bits, a cube
owner of ``10``); it accepts the dice in either order.
"""

from __future__ import annotations

import base64
import enum
from dataclasses import dataclass

import numpy as np

from bgzero.engine.board import validate
from bgzero.errors import InvalidMatchIdError, InvalidPositionError, integer, shown

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
MAX_CUBE = 64  # a sanity cap; the 4-bit field could hold up to 2**15
MAX_MATCH_LENGTH = 64  # gnubg's MAXSCORE: it refuses longer matches
MAX_SCORE = 2**15 - 1  # 15 bits; money sessions keep a running score in the same fields

_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BASE64_VALUE = {ch: i for i, ch in enumerate(_BASE64)}
_POSITION_BYTES = 10
_MATCH_BYTES = 9
_POINT_SEPARATORS = 50

# (raw field, first bit, width), from gnubg's matchid.c.
_MATCH_LAYOUT = (
    ("cube_log2", 0, 4),
    ("cube_owner", 4, 2),
    ("dice_owner", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("double_offered", 12, 1),
    ("resignation", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("no_jacoby", 66, 1),
)
_MATCH_BITS_USED = 67
_CUBE_OWNER_BITS = {0: 0, 1: 1, 3: -1}  # gnubg writes a centred cube (-1) as -1 & 3


class GameState(enum.IntEnum):
    """gnubg's ``gamestate`` codes, as stored in bits 9-11 of the Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


@dataclass(frozen=True)
class MatchInfo:
    """The match state a Match ID records; players 0 and 1 are gnubg's.

    Construction validates and normalises (flags to ``bool``, ``game_state`` to
    :class:`GameState`, the larger die first, as gnubg stores them), so every ``MatchInfo``
    has a Match ID and decoding that ID gives back an equal one. Bad values raise
    :class:`~bgzero.errors.InvalidMatchIdError`, a ``ValueError``.
    """

    cube_value: int = 1
    cube_owner: int = -1  # -1 centred, else the player who owns it
    dice_owner: int = 0  # the player on roll, or who rolled ``dice``
    crawford: bool = False
    game_state: int = GameState.PLAYING
    turn: int = 0  # the player who must act now (differs from dice_owner after a double)
    double_offered: bool = False
    resignation: int = 0  # 0 none, 1 single, 2 gammon, 3 backgammon
    dice: tuple[int, int] = (0, 0)  # (0, 0) before the roll
    match_length: int = 0  # 0 = money
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        for name in ("cube_value", "cube_owner", "dice_owner", "turn", "resignation", "match_length"):
            object.__setattr__(self, name, integer(name, getattr(self, name), InvalidMatchIdError))
        for name in ("crawford", "double_offered", "jacoby"):
            flag = integer(name, getattr(self, name), InvalidMatchIdError)
            if flag not in (0, 1):
                raise InvalidMatchIdError(f"{name} must be a bool, got {flag}")
            object.__setattr__(self, name, bool(flag))
        state = integer("game_state", self.game_state, InvalidMatchIdError)
        try:
            object.__setattr__(self, "game_state", GameState(state))
        except ValueError:
            raise InvalidMatchIdError(f"game_state {state} is not one of gnubg's codes 0-4") from None
        object.__setattr__(self, "dice", tuple(sorted(_pair("dice", self.dice), reverse=True)))
        object.__setattr__(self, "score", _pair("score", self.score))
        problem = _problem(self)
        if problem:
            raise InvalidMatchIdError(problem)


def _pair(name: str, value) -> tuple[int, int]:
    """``value`` as a pair of ints."""
    try:
        first, second = value
    except (TypeError, ValueError):
        raise InvalidMatchIdError(f"{name} must be a pair of integers, got {value!r}") from None
    return integer(name, first, InvalidMatchIdError), integer(name, second, InvalidMatchIdError)


def _problem(info: MatchInfo) -> str | None:
    """What makes ``info`` an impossible state, or ``None``."""
    cube = info.cube_value
    if cube < 1 or cube > MAX_CUBE or cube & (cube - 1):
        return f"cube_value {cube} is not a power of two from 1 to {MAX_CUBE}"
    if info.cube_owner not in (-1, 0, 1):
        return f"cube_owner {info.cube_owner} is not -1 (centred), 0 or 1"
    for name in ("dice_owner", "turn"):
        if getattr(info, name) not in (0, 1):
            return f"{name} {getattr(info, name)} is not player 0 or 1"
    if not 0 <= info.resignation <= 3:
        return f"resignation {info.resignation} is not 0-3"
    high, low = info.dice
    if not 0 <= low <= high <= 6 or (low == 0) != (high == 0):
        return f"dice {info.dice} must both be 1-6, or (0, 0) before the roll"
    if not 0 <= info.match_length <= MAX_MATCH_LENGTH:
        return f"match_length {info.match_length} is not 0 (money) to {MAX_MATCH_LENGTH}"
    if not all(0 <= s <= MAX_SCORE for s in info.score):
        return f"score {info.score} is outside 0-{MAX_SCORE}"
    if info.match_length == 0:
        return "crawford is set in a money game" if info.crawford else None
    top = max(info.score)
    if top > info.match_length:
        return f"score {info.score} is beyond match_length {info.match_length}"
    if top == info.match_length and info.game_state == GameState.PLAYING:
        return f"score {info.score} has reached match_length {info.match_length}, yet a game is being played"
    return None


def position_id(board) -> str:
    """The 14-character gnubg Position ID of ``board`` (our convention, side on roll first)."""
    board = validate(board)
    bits = pos = 0
    for row in (board[1], board[0]):  # gnubg writes the side not on roll first
        for count in row.tolist():
            bits |= ((1 << count) - 1) << pos
            pos += count + 1
    return _to_base64(bits, _POSITION_BYTES, POSITION_ID_LENGTH)


def board_from_position_id(pid: str) -> np.ndarray:
    """Our ``(2, 25)`` board for a Position ID; :class:`InvalidPositionError` if malformed."""
    bits = _from_base64(pid, POSITION_ID_LENGTH, _POSITION_BYTES, "Position ID", InvalidPositionError)
    # Bit k of the key is character k of this string; a 0 ends each slot's run of 1s.
    runs = format(bits, f"0{8 * _POSITION_BYTES}b")[::-1].split("0", _POINT_SEPARATORS)
    if len(runs) <= _POINT_SEPARATORS:
        raise InvalidPositionError(
            f"Position ID {pid!r} holds more than 30 checkers (fewer than 50 point separators)"
        )
    if "1" in runs[-1]:
        raise InvalidPositionError(f"Position ID {pid!r} has stray 1 bits after the last point")
    counts = np.array([len(run) for run in runs[:-1]], dtype=np.int16).reshape(2, 25)
    try:
        return validate(counts[::-1])
    except InvalidPositionError as exc:
        raise InvalidPositionError(f"Position ID {pid!r}: {exc}") from None


def match_id(info: MatchInfo) -> str:
    """The 12-character gnubg Match ID of ``info``."""
    raw = {
        "cube_log2": info.cube_value.bit_length() - 1,
        "cube_owner": info.cube_owner & 3,
        "dice_owner": info.dice_owner,
        "crawford": int(info.crawford),
        "game_state": int(info.game_state),
        "turn": info.turn,
        "double_offered": int(info.double_offered),
        "resignation": info.resignation,
        "die1": info.dice[0],
        "die2": info.dice[1],
        "match_length": info.match_length,
        "score0": info.score[0],
        "score1": info.score[1],
        "no_jacoby": int(not info.jacoby),
    }
    bits = 0
    for name, start, _ in _MATCH_LAYOUT:
        bits |= raw[name] << start
    return _to_base64(bits, _MATCH_BYTES, MATCH_ID_LENGTH)


def match_info_from_id(mid: str) -> MatchInfo:
    """The :class:`MatchInfo` a Match ID encodes; :class:`InvalidMatchIdError` if malformed."""
    bits = _from_base64(mid, MATCH_ID_LENGTH, _MATCH_BYTES, "Match ID", InvalidMatchIdError)
    if bits >> _MATCH_BITS_USED:
        raise InvalidMatchIdError(f"Match ID {mid!r} has stray 1 bits after bit {_MATCH_BITS_USED}")
    raw = {name: (bits >> start) & ((1 << width) - 1) for name, start, width in _MATCH_LAYOUT}
    if raw["cube_owner"] not in _CUBE_OWNER_BITS:
        raise InvalidMatchIdError(f"Match ID {mid!r} has cube owner bits 10 (only 00, 01, 11 exist)")
    try:
        return MatchInfo(
            cube_value=1 << raw["cube_log2"],
            cube_owner=_CUBE_OWNER_BITS[raw["cube_owner"]],
            dice_owner=raw["dice_owner"],
            crawford=bool(raw["crawford"]),
            game_state=raw["game_state"],
            turn=raw["turn"],
            double_offered=bool(raw["double_offered"]),
            resignation=raw["resignation"],
            dice=(raw["die1"], raw["die2"]),
            match_length=raw["match_length"],
            score=(raw["score0"], raw["score1"]),
            jacoby=not raw["no_jacoby"],
        )
    except InvalidMatchIdError as exc:
        raise InvalidMatchIdError(f"Match ID {mid!r}: {exc}") from None


def _to_base64(bits: int, nbytes: int, length: int) -> str:
    """Base64 of ``bits`` as ``nbytes`` little-endian bytes, without the ``=`` padding."""
    return base64.b64encode(bits.to_bytes(nbytes, "little")).decode("ascii")[:length]


def _from_base64(text, length: int, nbytes: int, kind: str, error: type[Exception]) -> int:
    """The key behind an ID, after checking its type, length, alphabet and padding bits."""
    if not isinstance(text, str):
        raise error(f"{kind} must be a str, got {type(text).__name__}: {shown(text)}")
    if len(text) != length:
        raise error(f"{kind} must be {length} characters, got {len(text)}: {shown(text)}")
    bad = next((ch for ch in text if ch not in _BASE64_VALUE), None)
    if bad is not None:
        raise error(f"{kind} {shown(text)} contains {bad!r}, which is not a base64 character")
    value = 0
    for ch in text:
        value = (value << 6) | _BASE64_VALUE[ch]
    spare = 6 * length - 8 * nbytes  # low bits of the last character, always 0 from gnubg
    if value & ((1 << spare) - 1):
        raise error(f"{kind} {shown(text)} has stray 1 bits in its last character's padding")
    return int.from_bytes((value >> spare).to_bytes(nbytes, "big"), "little")
