"""The one replay behind the match files: each rule a transcript can break is refused, by name."""

import pytest

from bgzero.cube import MatchState
from bgzero.match.game import Game, RuleBroken
from bgzero.match.record import PASSED

OPENING = ((3, 1), ((8, 5), (6, 5)))  # player 0's opening 31, making the 5-point


def _opened(state: MatchState = MatchState(5)) -> Game:
    replay = Game(state)
    replay.move(0, *OPENING)
    return replay


def test_players_take_turns_from_the_opening_roll():
    replay = _opened()
    with pytest.raises(RuleBroken, match="player 0 plays, but player 1 is on roll"):
        replay.move(0, (6, 5), ((24, 18), (18, 13)))
    replay.move(1, (6, 5), ((24, 18), (18, 13)))
    assert replay.on_roll == 0 and replay.end is None


def test_a_double_comes_after_the_opening_roll_and_is_answered_by_the_other_player():
    with pytest.raises(RuleBroken, match="before the opening roll"):
        Game(MatchState(5)).double(0)
    replay = _opened()
    assert replay.double(1) == 2
    with pytest.raises(RuleBroken, match="taken or dropped first"):
        replay.move(1, (6, 5), ((24, 18), (18, 13)))
    with pytest.raises(RuleBroken, match="answers their own double"):
        replay.answer(1, take=True)
    replay.answer(0, take=True)
    assert replay.state.cube.value == 2 and replay.state.cube.owner == 0 and replay.on_roll == 1


def test_a_dropped_double_ends_the_game_for_the_cube_and_nothing_follows():
    replay = _opened()
    replay.double(1)
    replay.answer(0, take=False)
    game = replay.record()
    assert (game.winner, game.kind, game.points) == (1, PASSED, 1)
    with pytest.raises(RuleBroken, match="after the game is over"):
        replay.move(0, (2, 1), ((13, 11), (6, 5)))


def test_an_illegal_play_or_double_names_the_rule():
    with pytest.raises(RuleBroken, match="'8/5 6/3' needs more moves than 3-1 allows"):
        Game(MatchState(5)).move(0, (3, 1), ((8, 5), (6, 3)))
    crawford = _opened(MatchState(5, (4, 0), crawford=True))
    with pytest.raises(RuleBroken, match="may not double"):
        crawford.double(1)


def test_a_resignation_is_one_two_or_three_times_the_cube():
    replay = _opened()
    with pytest.raises(RuleBroken, match="no resignation at cube 1"):
        replay.resign_written(0, 4)
    replay.resign_written(0, 2)
    game = replay.record()
    assert (game.winner, game.kind, game.points, game.resigned) == (0, 2, 2, True)
