"""The one game state: a game played by pushing actions, each rule a transcript can break refused by
name, a seeded game replayed exactly, and the walk through a recorded game."""

import numpy as np
import pytest

from bgzero.agents.random import RandomAgent
from bgzero.cube import MatchState
from bgzero.engine.board import START, borne_off, validate
from bgzero.engine.game import game_result
from bgzero.engine.movegen import generate
from bgzero.match.game import Game, RuleBroken, play_game, walk
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


# --------------------------------------------------------------------------- a whole game


def test_a_game_replays_exactly_from_its_seed_and_its_dice_depend_only_on_the_seed():
    first, again, other = play_game(RandomAgent(1), 42), play_game(RandomAgent(1), 42), play_game(RandomAgent(2), 42)
    assert first == again and first.winner is not None
    assert [a.steps for a in first.actions] != [a.steps for a in other.actions]
    n = min(len(first.actions), len(other.actions))
    assert [a.dice for a in first.actions[:n]] == [a.dice for a in other.actions[:n]]


def test_the_walk_chains_each_board_to_the_next_and_ends_borne_off():
    game = play_game(RandomAgent(3), 3)
    steps = list(walk(game))
    assert np.array_equal(steps[0][1].board, START) and len(steps) == len(game.actions)
    for action, before, after in steps:
        batch = generate(before.board[None], np.array([action.dice]))
        assert any(np.array_equal(r, after.board) for r in batch.results)
        validate(before.board)
    final = steps[-1][2].board
    assert game.end.points == -game_result(final) and borne_off(final)[1] == 15


def test_each_side_is_asked_only_on_its_own_turns_and_only_with_a_choice():
    asked = {0: [], 1: []}

    class Asked(RandomAgent):
        def __init__(self, player):
            super().__init__(player)
            self.player = player

        def choose(self, boards, dice, moves):
            asked[self.player].append(len(moves.results))
            return super().choose(boards, dice, moves)

    game = play_game((Asked(0), Asked(1)), 11)
    for player in (0, 1):
        assert 0 < len(asked[player]) <= sum(a.player == player for a in game.actions)
        assert min(asked[player]) > 1


def test_no_action_after_the_game_is_over():
    game = play_game(RandomAgent(5), 5)
    replayed = Game(MatchState(0))
    for action in game.actions:
        replayed.push(action)
    assert replayed.record() == game
    with pytest.raises(RuleBroken, match="over"):
        replayed.move(replayed.on_roll, (2, 1), ())
