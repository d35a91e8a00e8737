"""FIBS board lines: every field read and written back, positions from any colour and
direction, gnubg 1.07's recorded lines, and a specific error for each kind of bad line."""

from __future__ import annotations

import itertools

import pytest

from bgzero.cube import CENTRED, CubeState, MatchState
from bgzero.engine.board import START
from bgzero.gnubg.fibs import (
    CUBE,
    MOVE,
    RESPOND,
    FibsBoardError,
    Situation,
    fibs_board,
    format_line,
    parse_line,
    situation,
)
from tests.boards import board

# Lines gnubg 1.07 sent to its external player (bgzero as player 1, the positive colour,
# except START_AS_PLAYER_0), with what gnubg's own output said about the moment.
START_ON_ROLL = ("board:gnubg:root:3:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:0:0:-1:-3:0:-5:0:0:0:0:2:0:"
                 "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
START_AS_PLAYER_0 = ("board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
                     "-1:2:1:2:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
# 7-point match, bgzero 2 gnubg 0: before the roll, then doubled by gnubg
CUBE_AT_2_0 = ("board:gnubg:bgzero:7:0:2:0:-2:0:0:0:0:5:0:4:0:0:0:-4:4:0:0:0:-2:-2:-5:1:0:0:0:1:0:"
               "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
DOUBLED_AT_2_0 = ("board:bgzero:gnubg:7:2:0:0:-1:0:2:0:-1:4:0:2:0:0:1:-3:3:0:0:0:-2:-3:-4:-1:0:1:1:1:0:"
                  "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
# 7-point match, bgzero 2 gnubg 4, gnubg owns the cube at 2 and redoubles
REDOUBLED_AT_2_4 = ("board:bgzero:gnubg:7:2:4:-1:6:4:2:0:-1:-1:0:0:0:1:-3:0:0:0:0:0:0:1:-2:-3:-2:-2:1:0:"
                    "0:-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
# bgzero 4 gnubg 3, one checker on the bar, to play 4-3
BAR_AT_2_4 = ("board:gnubg:bgzero:7:4:2:0:-1:0:0:0:0:5:0:4:0:0:0:-5:4:0:-1:0:-3:0:-4:-1:0:0:0:1:1:"
              "1:4:3:4:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
# 5-point match, bgzero 2 gnubg 4: the Crawford game; 3-point match at 2-2: post-Crawford
CRAWFORD = ("board:gnubg:bgzero:5:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-2:0:-4:0:-2:0:0:2:0:"
            "1:6:6:6:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0")
POST_CRAWFORD = ("board:gnubg:bgzero:3:2:2:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-2:0:-4:0:-2:0:0:2:0:"
                 "1:5:4:5:4:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1")
RECORDED = [START_ON_ROLL, START_AS_PLAYER_0, CUBE_AT_2_0, DOUBLED_AT_2_0, REDOUBLED_AT_2_4, BAR_AT_2_4,
            CRAWFORD, POST_CRAWFORD]


@pytest.mark.parametrize("line", RECORDED)
def test_recorded_lines_round_trip(line):
    fb = parse_line(line)
    assert format_line(fb) == line
    assert parse_line("\0" + line + "\n") == fb  # gnubg's framing: "\n" then NUL


def test_every_field_is_read():
    fb = parse_line(DOUBLED_AT_2_0)
    assert (fb.player, fb.opponent, fb.match_length, fb.player_score, fb.opponent_score) == ("bgzero", "gnubg", 7, 2, 0)
    assert len(fb.points) == 26 and fb.points[:4] == (0, -1, 0, 2)
    assert (fb.turn, fb.player_dice, fb.opponent_dice, fb.cube) == (-1, (0, 0), (0, 0), 1)
    assert (fb.player_may_double, fb.opponent_may_double, fb.was_doubled) == (1, 1, 1)
    assert (fb.colour, fb.direction, fb.home, fb.bar) == (1, -1, 0, 25)
    assert (fb.player_home, fb.opponent_home, fb.player_bar, fb.opponent_bar) == (0, 0, 0, 0)
    assert (fb.can_move, fb.forced_move, fb.non_crawford, fb.post_crawford) == (0, 0, 0, 1)


def test_gnubg_start_position_as_either_player():
    as_1 = situation(parse_line(START_ON_ROLL), gnubg_scores=True)
    assert as_1.action == CUBE and as_1.dice is None
    # gnubg opened 13/9 24/23 (4-1 hit nothing): its checkers on its 24, 23, 13, 9, 8, 6
    assert (as_1.board == board({6: 5, 8: 3, 13: 5, 24: 2}, {24: 1, 23: 1, 13: 4, 9: 1, 8: 3, 6: 5})).all()
    as_0 = situation(parse_line(START_AS_PLAYER_0), gnubg_scores=True)
    assert as_0.action == MOVE and as_0.dice == (2, 1)
    assert (as_0.board == START).all()  # the negative colour, moving up the field numbers
    assert as_0.state == MatchState(3)


def test_gnubg_scores_follow_player_0_until_doubled():
    before = situation(parse_line(CUBE_AT_2_0), gnubg_scores=True)
    doubled = situation(parse_line(DOUBLED_AT_2_0), gnubg_scores=True)
    assert before.state.score == doubled.state.score == (2, 0)  # bgzero 2, gnubg 0
    assert situation(parse_line(CUBE_AT_2_0)).state.score == (0, 2)  # read by colour, as FIBS means it


def test_doubled_lines_are_answered_by_the_side_not_on_turn():
    sit = situation(parse_line(DOUBLED_AT_2_0), gnubg_scores=True)
    assert sit.action == RESPOND and sit.dice is None
    assert sit.state.cube == CubeState(1, CENTRED)
    mine = {3: 2, 6: 4, 8: 2, 11: 1, 13: 3, 22: 1, 23: 1, 24: 1}  # the positive fields, as they are
    theirs = {24: 1, 20: 1, 13: 3, 8: 2, 7: 3, 6: 4, 5: 1}  # negative field p is their point 25 - p
    assert (sit.board == board(mine, theirs)).all()
    redouble = situation(parse_line(REDOUBLED_AT_2_4), gnubg_scores=True)
    assert redouble.action == RESPOND
    assert redouble.state == MatchState(7, (2, 4), cube=CubeState(2, 1))  # the doubler owns it


def test_bar_and_dice():
    sit = situation(parse_line(BAR_AT_2_4), gnubg_scores=True)
    assert sit.action == MOVE and sit.dice == (4, 3) and sit.board[0, 24] == 1
    assert sit.state.score == (2, 4)


def test_crawford_and_post_crawford():
    crawford = situation(parse_line(CRAWFORD), gnubg_scores=True).state
    assert crawford == MatchState(5, (2, 4), crawford=True)
    post = situation(parse_line(POST_CRAWFORD), gnubg_scores=True).state
    assert post == MatchState(3, (2, 2)) and not post.crawford


RACE = board({6: 5, 8: 5, 10: 5}, {5: 5, 9: 5, 11: 5})
BEAROFF = board({1: 3, 2: 3, 6: 2}, {3: 4, 5: 4})
BAR = board({25: 2, 13: 5, 8: 3, 6: 3, 24: 1}, {25: 1, 24: 1, 13: 5, 8: 3, 6: 4, 2: 1})
STATES = [MatchState(), MatchState(7, (2, 5), cube=CubeState(4, 0)), MatchState(5, (4, 1), crawford=True),
          MatchState(9, (8, 8)), MatchState(0, (3, 0), cube=CubeState(2, 1))]


@pytest.mark.parametrize("colour,direction", list(itertools.product((1, -1), (1, -1))))
@pytest.mark.parametrize("board", [START, RACE, BEAROFF, BAR], ids=["start", "race", "bearoff", "bar"])
def test_positions_round_trip_in_every_colour_and_direction(board, colour, direction):
    for state, (action, dice) in zip(STATES, itertools.cycle([(MOVE, (6, 1)), (CUBE, None), (MOVE, (3, 3))])):
        sit = Situation(action, board, dice, state)
        fb = fibs_board(sit, colour=colour, direction=direction)
        assert (fb.home, fb.bar) == ((0, 25) if direction < 0 else (25, 0))
        back = situation(parse_line(format_line(fb)))
        assert back.action == action and back.dice == dice and back.state == state
        assert (back.board == board).all()


@pytest.mark.parametrize("colour,direction", list(itertools.product((1, -1), (1, -1))))
@pytest.mark.parametrize("state", [MatchState(7, (3, 1)), MatchState(7, (3, 1), cube=CubeState(2, 1))],
                         ids=["centred", "redouble"])
def test_a_double_round_trips(state, colour, direction):
    fb = fibs_board(Situation(RESPOND, BAR, None, state), colour=colour, direction=direction)
    assert fb.turn == -colour and fb.was_doubled == 1  # the doubler is on turn
    back = situation(fb)
    assert back.action == RESPOND and back.state == state and (back.board == BAR).all()


def _with(line: str, **changes: str) -> str:
    """``line`` with fields replaced, named ``f<index>`` (``f0`` = the first after "board:")."""
    fields = line.split(":")
    for name, value in changes.items():
        fields[int(name[1:]) + 1] = value
    return ":".join(fields)


@pytest.mark.parametrize("line,message", [
    ("", "not a board line"),
    ("hello", "not a board line"),
    ("Board:a:b:1", "not a board line"),
    (START_ON_ROLL[:60], "fields after 'board:', expected 52"),  # truncated
    (START_ON_ROLL + ":0", "53 fields"),
    (START_ON_ROLL.rsplit(":", 1)[0], "51 fields"),
    (_with(START_ON_ROLL, f10="x"), "field 11 is 'x', not an integer"),
    (_with(START_ON_ROLL, f2=""), "field 3 is '', not an integer"),
])
def test_malformed_lines(line, message):
    with pytest.raises(FibsBoardError, match=message):
        parse_line(line)


@pytest.mark.parametrize("changes,message", [
    ({"f31": "0"}, r"turn is 0, expected 1 or -1 \(0: the game is over\)"),
    ({"f40": "0"}, "colour is 0, expected 1 or -1"),
    ({"f41": "2"}, "direction is 2, expected 1 or -1"),
    ({"f32": "7"}, "dice 7-0 are not two numbers from 1 to 6"),
    ({"f11": "9"}, "side 0 has 19 checkers on the board; at most 15"),
    ({"f11": "1000"}, "side 0 has 1010 checkers"),  # wider than the board's int8
    ({"f44": "3"}, "colour 1 has 15 checkers on the board and 3 borne off, not 15"),
    ({"f36": "2"}, "cube at 2 but may-double flags 1, 1 name no owner"),
    ({"f36": "3", "f38": "0"}, "cube value 3 is not a power of two"),
    ({"f3": "5"}, r"score \(5, 0\) is impossible in a 3-point match"),
])
def test_lines_that_describe_no_decision(changes, message):
    with pytest.raises(FibsBoardError, match=message):
        situation(parse_line(_with(START_ON_ROLL, **changes)))


def test_unlimited_match_length_is_money():
    fb = parse_line(_with(START_ON_ROLL, f2="9999", f3="12"))
    assert situation(fb).state == MatchState(0, (12, 0))
