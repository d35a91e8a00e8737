"""Position and Match IDs: known values, round trips, malformed input, and gnubg itself."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgzero.engine.board import START, from_gnubg, to_gnubg
from bgzero.engine.ids import (
    MAX_MATCH_LENGTH,
    MAX_SCORE,
    GameState,
    MatchInfo,
    board_from_position_id,
    match_id,
    match_info_from_id,
    position_id,
)
from bgzero.errors import InvalidMatchIdError, InvalidPositionError, shown
from tests.boards import board as make_board

BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
START_ID = "4HPwATDgc/ABMA"
# From gnubg.matchid: 2-cube owned by player 0, player 1 rolled 53, 7-point match at 3-4.
KNOWN_MATCH = MatchInfo(
    cube_value=2, cube_owner=0, dice_owner=1, turn=1, dice=(5, 3), match_length=7, score=(3, 4)
)
KNOWN_MATCH_ID = "QYnuADAAIAAE"


@pytest.fixture(scope="module")
def gnubg():
    """The reference engine, imported only by the tests that compare against it."""
    return pytest.importorskip("gnubg", reason="GNU Backgammon's Python module is the reference for both IDs")


# --- generators -------------------------------------------------------------------------


@st.composite
def boards(draw) -> np.ndarray:
    """Legal boards: 0-15 checkers a side on its own points or bar, no point shared."""
    owner = draw(st.lists(st.integers(0, 2), min_size=24, max_size=24))  # by side 0's point
    board = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        columns = [i if side == 0 else 23 - i for i in range(24) if owner[i] == side + 1] + [24]
        for col in draw(st.lists(st.sampled_from(columns), max_size=15)):
            board[side, col] += 1
    return board


def random_board(rng: np.random.Generator) -> np.ndarray:
    """A legal board with a spread of checker counts, full sides twice as often as others."""
    owner = rng.integers(0, 3, size=24)
    board = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        columns = [i if side == 0 else 23 - i for i in range(24) if owner[i] == side + 1] + [24]
        count = min(int(rng.integers(0, 17)), 15)
        np.add.at(board[side], rng.choice(columns, size=count), 1)
    return board


@st.composite
def match_infos(draw, *, for_gnubg: bool = False) -> MatchInfo:
    """Valid match states; ``for_gnubg`` keeps to what gnubg.cubeinfo accepts (it zeroes
    money scores and refuses a match score that has reached the length)."""
    length = draw(st.integers(0, MAX_MATCH_LENGTH))
    state = draw(st.sampled_from(GameState))
    if length:
        top = length - 1 if state == GameState.PLAYING or for_gnubg else length
        score = draw(st.tuples(st.integers(0, top), st.integers(0, top)))
        crawford = draw(st.booleans())
    else:
        top = 0 if for_gnubg else MAX_SCORE
        score = draw(st.tuples(st.integers(0, top), st.integers(0, top)))
        crawford = False
    dice = draw(st.just((0, 0)) | st.tuples(st.integers(1, 6), st.integers(1, 6)))
    return MatchInfo(
        cube_value=2 ** draw(st.integers(0, 6)),
        cube_owner=draw(st.sampled_from((-1, 0, 1))),
        dice_owner=draw(st.integers(0, 1)),
        crawford=crawford,
        game_state=state,
        turn=draw(st.integers(0, 1)),
        double_offered=draw(st.booleans()),
        resignation=draw(st.integers(0, 3)),
        dice=dice,
        match_length=length,
        score=score,
        jacoby=draw(st.booleans()),
    )


def pid_from_bits(bits: str) -> str:
    """A Position ID for a key given as '0'/'1' characters, bit 0 first."""
    key = int(bits[::-1], 2) if bits else 0
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


def counts_bits(first: list[int], second: list[int]) -> str:
    """The key bits for 25 slot counts of gnubg's first side (not on roll), then the second."""
    return "".join("1" * n + "0" for n in first + second)


def mid_with(field_start: int, width: int, value: int, base: str = KNOWN_MATCH_ID) -> str:
    """``base`` with the ``width`` bits at ``field_start`` replaced by ``value``."""
    key = int.from_bytes(base64.b64decode(base), "little")
    key = key & ~(((1 << width) - 1) << field_start) | (value << field_start)
    return base64.b64encode(key.to_bytes(9, "little")).decode()


# --- Position ID ------------------------------------------------------------------------


def test_start_position_id():
    assert position_id(START) == START_ID
    assert np.array_equal(board_from_position_id(START_ID), START)


def test_side_order_is_gnubgs():
    """gnubg writes the side not on roll first (both IDs below are gnubg's)."""
    assert position_id(make_board({"bar": 1})) == "AAAAAAAAAgAAAA"  # the roller on the bar
    assert position_id(make_board({}, {1: 1})) == "AQAAAAAAAAAAAA"  # the other side on its ace
    assert board_from_position_id("AAAAAAAAAAAAAA").sum() == 0


def test_decoded_board_is_int8_shape_2_25():
    board = board_from_position_id(START_ID)
    assert board.dtype == np.int8 and board.shape == (2, 25)


def test_position_id_rejects_illegal_board():
    board = START.copy()
    board[0, 0] = 1  # 16 checkers
    with pytest.raises(InvalidPositionError):
        position_id(board)


@given(boards())
def test_position_id_round_trip(board):
    pid = position_id(board)
    assert len(pid) == 14 and set(pid) <= set(BASE64)
    assert np.array_equal(board_from_position_id(pid), board)


@pytest.mark.parametrize(
    "pid, problem",
    [
        ("", "14 characters"),
        (START_ID[:-1], "14 characters"),
        (START_ID + "A", "14 characters"),
        ("4HPwATDgc/ABM=", "'='"),
        ("4HPwATDgc ABMA", "' '"),
        ("4HPwATDgc/ABMé", "'é'"),
        (pid_from_bits("1" * 80), "more than 30 checkers"),
        (pid_from_bits("1" * 31 + "0" * 49), "more than 30 checkers"),
        (pid_from_bits(counts_bits([16] + [0] * 24, [0] * 25)), "side 1 has 16 checkers"),
        (pid_from_bits(counts_bits([0] * 25, [0] * 24 + [16])), "side 0 has 16 checkers"),
        (pid_from_bits(counts_bits([1] + [0] * 24, [0] * 23 + [1, 0])), "held by both sides"),
        (pid_from_bits("0" * 79 + "1"), "stray 1 bits after the last point"),
        (pid_from_bits(counts_bits([15] + [0] * 24, [0] * 25) + "01"), "stray 1 bits after the last point"),
        ("4HPwATDgc/ABMB", "padding"),
    ],
)
def test_malformed_position_id(pid, problem):
    with pytest.raises(InvalidPositionError) as err:
        board_from_position_id(pid)
    message = str(err.value)
    assert problem in message and repr(pid) in message and "\n" not in message


@pytest.mark.parametrize("not_a_string", [None, 42, b"4HPwATDgc/ABMA"])
def test_position_id_must_be_a_string(not_a_string):
    with pytest.raises(InvalidPositionError, match="must be a str"):
        board_from_position_id(not_a_string)


def _decodes_canonically_or_fails_cleanly(pid: str) -> None:
    try:
        board = board_from_position_id(pid)
    except InvalidPositionError as err:
        assert shown(pid) in str(err) and "\n" not in str(err)
    else:
        assert position_id(board) == pid


@given(st.text())
def test_arbitrary_text_as_position_id(text):
    _decodes_canonically_or_fails_cleanly(text)


@given(st.text(alphabet=BASE64, min_size=14, max_size=14))
def test_random_base64_as_position_id(text):
    _decodes_canonically_or_fails_cleanly(text)


@given(boards(), st.integers(0, 13), st.sampled_from(BASE64))
def test_one_character_changed_position_id(board, index, char):
    pid = position_id(board)
    _decodes_canonically_or_fails_cleanly(pid[:index] + char + pid[index + 1 :])


@pytest.mark.gnubg
def test_position_id_matches_gnubg(gnubg):
    rng = np.random.default_rng(20240611)
    for _ in range(2000):
        board = random_board(rng)
        pid = position_id(board)
        assert pid == gnubg.positionid(to_gnubg(board)), board
        assert np.array_equal(from_gnubg(gnubg.positionfromid(pid)), board), pid
        assert np.array_equal(board_from_position_id(pid), board), pid


# --- Match ID ---------------------------------------------------------------------------


def test_known_match_ids():
    assert match_id(KNOWN_MATCH) == KNOWN_MATCH_ID
    assert match_info_from_id(KNOWN_MATCH_ID) == KNOWN_MATCH
    # gnubg's fresh money session: no game yet, centred 1-cube, Jacoby on.
    assert match_id(MatchInfo(game_state=GameState.NONE, jacoby=True)) == "MAAAAAAAAAAA"


def test_match_info_normalises():
    info = MatchInfo(dice=(2, 5), crawford=0, double_offered=1, game_state=3, match_length=5, score=(1, 2))
    assert info.dice == (5, 2)
    assert info.crawford is False and info.double_offered is True
    assert info.game_state is GameState.RESIGNED


def test_decoding_accepts_smaller_die_first():
    mid = mid_with(15, 6, 2 | 5 << 3)  # die1 = 2, die2 = 5
    assert match_info_from_id(mid).dice == (5, 2)


@given(match_infos())
def test_match_id_round_trip(info):
    mid = match_id(info)
    assert len(mid) == 12 and set(mid) <= set(BASE64)
    assert match_info_from_id(mid) == info


@pytest.mark.parametrize(
    "fields, problem",
    [
        ({"cube_value": 3}, "power of two"),
        ({"cube_value": 0}, "power of two"),
        ({"cube_value": 128}, "power of two"),
        ({"cube_owner": 2}, "cube_owner 2"),
        ({"dice_owner": 2}, "dice_owner 2"),
        ({"turn": -1}, "turn -1"),
        ({"game_state": 5}, "game_state 5"),
        ({"resignation": 4}, "resignation 4"),
        ({"dice": (7, 1)}, "dice"),
        ({"dice": (0, 3)}, "dice"),
        ({"dice": (1, 2, 3)}, "pair"),
        ({"match_length": MAX_MATCH_LENGTH + 1}, "match_length"),
        ({"match_length": -1}, "match_length"),
        ({"match_length": 7, "score": (7, 0)}, "reached match_length"),
        ({"match_length": 7, "score": (8, 0), "game_state": GameState.OVER}, "beyond match_length"),
        ({"score": (MAX_SCORE + 1, 0)}, "score"),
        ({"crawford": True}, "money game"),
        ({"crawford": 2}, "bool"),
        ({"cube_value": 2.0}, "integer"),
        ({"score": "37"}, "integer"),
    ],
)
def test_invalid_match_info(fields, problem):
    with pytest.raises(InvalidMatchIdError, match=problem) as err:
        MatchInfo(**fields)
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)


def test_finished_match_may_show_the_winning_score():
    info = MatchInfo(match_length=7, score=(7, 3), game_state=GameState.OVER)
    assert match_info_from_id(match_id(info)) == info


MONEY_ID = match_id(MatchInfo())


@pytest.mark.parametrize(
    "mid, problem",
    [
        ("", "12 characters"),
        (KNOWN_MATCH_ID + "A", "12 characters"),
        ("QYnuADAAIAA=", "'='"),
        ("QYnuAD-AIAAE", "'-'"),
        (mid_with(67, 5, 1), "stray 1 bits"),
        (mid_with(71, 1, 1), "stray 1 bits"),
        (mid_with(0, 4, 7), "cube_value 128"),
        (mid_with(4, 2, 2), "cube owner bits 10"),
        (mid_with(8, 3, 5), "game_state 5"),
        (mid_with(15, 3, 7), "dice"),
        (mid_with(18, 3, 0), "dice"),
        (mid_with(21, 15, MAX_MATCH_LENGTH + 1), "match_length"),
        (mid_with(36, 15, 8), "beyond match_length"),
        (mid_with(36, 15, 7), "reached match_length"),
        (mid_with(7, 1, 1, base=MONEY_ID), "money game"),
    ],
)
def test_malformed_match_id(mid, problem):
    with pytest.raises(InvalidMatchIdError, match=problem) as err:
        match_info_from_id(mid)
    assert repr(mid) in str(err.value) and "\n" not in str(err.value)


def _decodes_to_valid_or_fails_cleanly(mid: str) -> None:
    try:
        info = match_info_from_id(mid)
    except InvalidMatchIdError as err:
        assert shown(mid) in str(err) and "\n" not in str(err)
    else:
        assert match_info_from_id(match_id(info)) == info


@given(st.text())
def test_arbitrary_text_as_match_id(text):
    _decodes_to_valid_or_fails_cleanly(text)


@given(st.text(alphabet=BASE64, min_size=12, max_size=12))
def test_random_base64_as_match_id(text):
    _decodes_to_valid_or_fails_cleanly(text)


@given(match_infos(), st.integers(0, 11), st.sampled_from(BASE64))
def test_one_character_changed_match_id(info, index, char):
    mid = match_id(info)
    _decodes_to_valid_or_fails_cleanly(mid[:index] + char + mid[index + 1 :])


@pytest.mark.gnubg
@settings(max_examples=500, deadline=None)
@given(info=match_infos(for_gnubg=True))
def test_match_id_matches_gnubg(gnubg, info):
    # Six cubeinfo arguments only: gnubg.cubeinfo crashes the process with 8 or more.
    cube = gnubg.cubeinfo(
        info.cube_value, info.cube_owner, info.dice_owner, info.match_length, info.score, int(info.crawford)
    )
    cube["jacoby"] = int(info.jacoby)
    pos = gnubg.posinfo(info.turn, info.resignation, int(info.double_offered), int(info.game_state), info.dice)
    assert match_id(info) == gnubg.matchid(cube, pos)
