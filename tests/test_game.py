"""The game loop: seeded replay, the turn record, results in batches, lockstep random games.

The rules themselves (opening roll, scoring) are pinned in test_rules.py; this file checks
the API around them.
"""

import numpy as np
import pytest

from bgzero.agents.random import RandomAgent
from bgzero.engine.board import START, borne_off, swap_sides, validate
from bgzero.engine.game import (
    Game,
    GameResult,
    Outcome,
    game_result,
    game_results,
    is_game_over,
    play_game,
    play_random_games,
    random_positions,
)
from bgzero.engine.movegen import generate
from bgzero.errors import IllegalMoveError, InvalidPositionError


def finished_boards(n: int, seed: int) -> np.ndarray:
    """Final boards of random games (loser on roll), and their mirror images."""
    finals = np.stack([play_game(RandomAgent(s), s).final_board for s in range(seed, seed + n)])
    return np.concatenate([finals, swap_sides(finals)])


# --------------------------------------------------------------------------- results


def reference_result(board: np.ndarray, backgammon_counts_as_gammon: bool) -> int:
    """Rule 22 read off one board, one case at a time."""
    off = borne_off(board)
    if off[0] == 15:
        sign, loser = 1, board[1]
    elif off[1] == 15:
        sign, loser = -1, board[0]
    else:
        return 0
    if loser.sum() < 15:
        return sign
    if loser[18:].any():  # the winner's home board or the bar
        return sign * (2 if backgammon_counts_as_gammon else 3)
    return sign * 2


def test_batched_results_match_rule_22_board_by_board():
    boards = np.concatenate([finished_boards(30, 0), random_positions(30, 0)[0]])
    for option in (False, True):
        batched = game_results(boards, backgammon_counts_as_gammon=option)
        assert batched.tolist() == [reference_result(b, option) for b in boards]
        assert [game_result(b, backgammon_counts_as_gammon=option) for b in boards] == batched.tolist()
    assert set(game_results(boards).tolist()) == {-3, -2, -1, 0, 1, 2, 3}
    assert game_results(boards.reshape(3, 30, 2, 25)).shape == (3, 30)
    assert (is_game_over(boards) == (game_results(boards) != 0)).all()


def test_results_reject_wrong_shapes_and_impossible_boards():
    with pytest.raises(InvalidPositionError, match="shape"):
        game_results(np.zeros((3, 25), np.int8))
    with pytest.raises(InvalidPositionError, match="shape"):
        is_game_over(np.zeros((2, 24), np.int8))
    with pytest.raises(InvalidPositionError, match="both sides with all checkers borne off"):
        game_result(np.zeros((2, 25), np.int8))


# --------------------------------------------------------------------------- one game


def test_a_game_replays_exactly_from_its_seed():
    first = play_game(RandomAgent(1), 42)
    again = play_game(RandomAgent(1), 42)
    assert first.result == again.result
    assert len(first.turns) == len(again.turns)
    for a, b in zip(first.turns, again.turns):
        assert (a.player, a.dice, a.steps) == (b.player, b.dice, b.steps)
        assert np.array_equal(a.board, b.board)


def test_dice_depend_only_on_the_game_seed():
    a = play_game(RandomAgent(1), 7).turns
    b = play_game(RandomAgent(2), 7).turns
    assert [t.steps for t in a] != [t.steps for t in b]
    n = min(len(a), len(b))
    assert [t.dice for t in a[:n]] == [t.dice for t in b[:n]]


def test_the_record_chains_each_board_to_the_next():
    record = play_game(RandomAgent(3), 3)
    boards = [t.board for t in record.turns] + [record.final_board]
    for turn, after in zip(record.turns, boards[1:]):
        batch = generate(turn.board[None], np.array([turn.dice]))
        assert any(np.array_equal(r, after) for r in batch.results)
        assert not turn.board.flags.writeable
        validate(turn.board)
    assert np.array_equal(record.turns[0].board, START)
    assert record.result.points == -game_result(record.final_board)
    assert borne_off(record.final_board)[1] == 15


def test_each_side_is_asked_only_on_its_own_turns_and_only_with_a_choice():
    asked = {0: [], 1: []}

    class Asked(RandomAgent):
        def __init__(self, player):
            super().__init__(player)
            self.player = player

        def choose(self, boards, dice, moves):
            asked[self.player].append(len(moves.results))
            return super().choose(boards, dice, moves)

    def agent(player):
        return Asked(player)

    record = play_game((agent(0), agent(1)), 11)
    for player in (0, 1):
        with_choice = [t for t in record.turns if t.player == player]
        assert 0 < len(asked[player]) <= len(with_choice)
        assert min(asked[player]) > 1


def test_backgammon_can_score_as_a_gammon():
    seed = next(s for s in range(200) if play_game(RandomAgent(s), s).result.kind is Outcome.BACKGAMMON)
    plain = play_game(RandomAgent(seed), seed).result
    as_gammon = play_game(RandomAgent(seed), seed, backgammon_counts_as_gammon=True).result
    assert plain == GameResult(plain.winner, 3, Outcome.BACKGAMMON)
    assert as_gammon == GameResult(plain.winner, 2, Outcome.BACKGAMMON)


def test_game_steps_one_ply_at_a_time_and_refuses_bad_indices():
    game = Game(5)
    assert game.dice is not None and game.dice[0] != game.dice[1]
    moves = game.moves()
    with pytest.raises(IllegalMoveError, match="outside"):
        game.play(len(moves.results))
    game.play(0)
    assert game.dice is None and len(game.turns) == 1
    assert game.roll() == game.roll()
    while game.result is None:
        game.play(0)
    with pytest.raises(IllegalMoveError, match="over"):
        game.moves()
    with pytest.raises(IllegalMoveError, match="over"):
        game.play(0, moves)


# --------------------------------------------------------------------------- many games


def test_random_games_in_lockstep_are_seeded_and_finish():
    games = play_random_games(300, 9)
    again = play_random_games(300, 9)
    assert np.array_equal(games.points, again.points) and np.array_equal(games.plies, again.plies)
    assert set(np.abs(games.points).tolist()) == {1, 2, 3}
    assert (games.points > 0).any() and (games.points < 0).any()
    assert games.plies.min() >= 14  # 15 checkers need at least seven rolls each to bear off
    threaded = play_random_games(300, 9, threads=2)
    assert np.array_equal(games.points, threaded.points)


def test_random_positions_are_legal_unfinished_and_seeded():
    boards, dice = random_positions(5000, 4, games=64)
    assert boards.shape == (5000, 2, 25) and dice.shape == (5000, 2)
    assert not is_game_over(boards).any()
    assert ((dice >= 1) & (dice <= 6)).all()
    for board in boards[::97]:
        validate(board)
    assert np.array_equal(random_positions(5000, 4, games=64)[0], boards)


def test_random_positions_cover_whole_games_not_only_openings():
    boards = random_positions(2000, 8, games=256)[0]
    assert (boards[:, 0, 24] > 0).mean() > 0.1
    assert (borne_off(boards)[:, 0] > 0).mean() > 0.02
    fresh, dice = random_positions(256, 8, games=256, burn_in=0)
    assert np.array_equal(fresh, np.broadcast_to(START, (256, 2, 25)))
    assert (dice[:, 0] != dice[:, 1]).all()
