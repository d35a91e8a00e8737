"""Results in batches and lockstep random games.

The rules themselves (opening roll, scoring) are pinned in test_rules.py; this file checks
the API around them.
"""

import numpy as np
import pytest

from bgzero.agents.random import RandomAgent
from bgzero.engine.board import START, borne_off, swap_sides, validate
from bgzero.engine.game import game_result, game_results, is_game_over, play_random_games, random_positions
from bgzero.errors import InvalidPositionError
from bgzero.match.game import play_game, walk


def finished_boards(n: int, seed: int) -> np.ndarray:
    """Final boards of random games (loser on roll), and their mirror images."""
    finals = np.stack([list(walk(play_game(RandomAgent(s), s)))[-1][2].board for s in range(seed, seed + n)])
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
