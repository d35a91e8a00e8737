"""One test (or more) per numbered rule 1-22 of docs/rules.md, plus properties of random positions.

Hand-built positions are written with :func:`pos` in each side's own numbering (the rest
of a side's 15 checkers are borne off) and the exact set of legal results is compared,
described from the mover's view so that a failure reads like a board.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgzero.agents.random import RandomAgent
from bgzero.cube import MatchState
from bgzero.engine.board import START, borne_off, pip_counts, start_board, swap_sides, validate
from bgzero.engine.game import game_result, game_results, is_game_over, opening_roll
from bgzero.engine.movegen import generate
from bgzero.match.game import Game, play_game, walk
from tests.boards import board as pos


def describe(board: np.ndarray) -> str:
    """``"13:1 bar:1 | 24:2"``: the side on roll's checkers, then the other side's."""
    sides = []
    for row in board:
        cells = [f"{col + 1}:{row[col]}" for col in range(23, -1, -1) if row[col]]
        cells += [f"bar:{row[24]}"] if row[24] else []
        sides.append(" ".join(cells) or "-")
    return " | ".join(sides)


def plays(board: np.ndarray, dice) -> set[str]:
    """The distinct results of a roll, seen from the mover again; checks they are distinct."""
    batch = generate(board[None], np.array([dice]))
    found = [describe(swap_sides(r)) for r in batch.results]
    assert len(found) == len(set(found)), f"repeated results: {found}"
    return set(found)


def expect(*boards: np.ndarray) -> set[str]:
    return {describe(b) for b in boards}


def assert_turn_lost(board: np.ndarray, dice) -> None:
    batch = generate(board[None], np.array([dice]))
    assert len(batch.results) == 1
    assert np.array_equal(batch.results[0], swap_sides(board))
    assert (batch.steps[0] == -1).all()


# --------------------------------------------------------------------------- 1. board


def test_rule_01_a_sides_point_n_is_the_others_point_25_minus_n():
    # The mover's 9-point is the other side's 16-point: 13/11/9*/7/5 hits the blot there.
    board = pos({13: 1}, {16: 1, 6: 14})
    assert plays(board, (2, 2)) == expect(pos({5: 1}, {"bar": 1, 6: 14}))
    assert borne_off(board).tolist() == [14, 0]


def test_rule_02_home_board_is_points_1_to_6():
    opp = {1: 15}
    assert plays(pos({6: 1, 5: 1}, opp), (6, 5)) == expect(pos({}, opp), pos({1: 1}, opp))  # or 6/1 5/off
    # From the 7-point neither die may bear off until that checker is home.
    assert plays(pos({7: 1, 5: 1}, opp), (6, 5)) == expect(pos({1: 1}, opp), pos({2: 1}, opp))


def test_rule_03_start_position():
    expected = pos({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert np.array_equal(start_board(), expected)
    assert borne_off(START).tolist() == [0, 0]
    assert np.array_equal(Game(MatchState(0)).board, START)


def test_rule_04_no_checker_moves_backwards():
    # Behind a full prime on the mover's 7-12 the 13-point checker has nowhere to go.
    board = pos({13: 1}, {13: 2, 14: 2, 15: 2, 16: 2, 17: 2, 18: 2, 1: 3})
    for dice in [(6, 6), (1, 1), (6, 1)]:
        assert_turn_lost(board, dice)


# --------------------------------------------------------------------------- 2. starting


class ScriptedDice:
    """Stands in for a Generator: hands out the given pairs of dice in order."""

    def __init__(self, *pairs):
        self.pairs = list(pairs)

    def integers(self, low, high, size):
        return np.array(self.pairs.pop(0))


def test_rule_05_opening_roll_ties_reroll_and_the_higher_die_starts():
    assert opening_roll(ScriptedDice((3, 3), (2, 5))) == (1, (5, 2))
    assert opening_roll(ScriptedDice((6, 1))) == (0, (6, 1))


def test_rule_05_opening_roll_is_never_a_double():
    rng = np.random.default_rng(5)
    rolls = [opening_roll(rng) for _ in range(2000)]
    assert all(high > low for _, (high, low) in rolls)
    assert {first for first, _ in rolls} == {0, 1}
    openings = [play_game(RandomAgent(seed), seed).actions[0] for seed in range(20)]
    assert all(a.dice[0] != a.dice[1] for a in openings)


def test_rule_06_sides_alternate_and_later_rolls_may_be_doubles():
    turns = play_game(RandomAgent(6), 6).actions
    assert [t.player for t in turns] == [(turns[0].player + k) % 2 for k in range(len(turns))]
    assert any(t.dice[0] == t.dice[1] for t in turns[1:])


# --------------------------------------------------------------------------- 3. moving


def test_rule_07_intermediate_landing_must_be_legal():
    # 4-2 from the 10-point with the 8- and 6-points blocked: no jump to the 4-point.
    assert_turn_lost(pos({10: 1}, {17: 2, 19: 2, 1: 11}), (4, 2))
    opp = {17: 2, 1: 13}
    assert plays(pos({10: 1}, opp), (4, 2)) == expect(pos({4: 1}, opp))


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_rule_08_may_land_on_empty_own_or_blot_but_not_two_or_more(count):
    # 5-5 from the 24-point lands on the mover's 19-point (the other side's 6-point).
    board = pos({24: 1}, {6: count, 24: 15 - count})
    if count >= 2:
        assert_turn_lost(board, (5, 5))
    else:
        assert plays(board, (5, 5)) == expect(pos({4: 1}, {"bar": count, 24: 15 - count}))


def test_rule_08_may_land_on_its_own_checkers():
    # Without 24/19 onto its own checker the 24 could not move and 19/4 would be all.
    opp = {24: 15}
    assert plays(pos({24: 1, 19: 1}, opp), (5, 5)) == expect(pos({19: 1, 4: 1}, opp), pos({14: 1, 9: 1}, opp))


def test_rule_08_may_pass_over_blocked_points():
    opp = {2: 2, 3: 2, 4: 2, 5: 2, 24: 7}
    assert plays(pos({24: 1}, opp), (5, 5)) == expect(pos({4: 1}, opp))


def test_rule_09_one_checker_hits_two_blots():
    board = pos({13: 1}, {13: 1, 17: 1, 24: 13})
    assert plays(board, (4, 1)) == expect(
        pos({8: 1}, {"bar": 2, 24: 13}),  # 13/12*/8*
        pos({8: 1}, {13: 1, "bar": 1, 24: 13}),  # 13/9/8*
    )


def test_rule_09_a_double_hits_four_blots():
    board = pos({24: 1}, {2: 1, 3: 1, 4: 1, 5: 1, 24: 11})
    assert plays(board, (1, 1)) == expect(pos({20: 1}, {"bar": 4, 24: 11}))


def test_rule_10_a_double_is_four_moves_in_any_combination():
    board = pos({24: 2}, {6: 15})
    opp = {6: 15}
    assert plays(board, (2, 2)) == expect(pos({24: 1, 16: 1}, opp), pos({22: 1, 18: 1}, opp), pos({20: 2}, opp))
    batch = generate(board[None], np.array([(2, 2)]))
    assert ((batch.steps[:, :, 0] >= 0).sum(axis=1) == 4).all()


def test_rule_11_both_dice_must_be_played_when_possible():
    # 13/7 alone leaves the 1 unplayable (7/6 and 9/8 blocked), so it is not allowed.
    opp = {17: 2, 19: 2, 24: 11}
    assert plays(pos({13: 1, 9: 1}, opp), (6, 1)) == expect(pos({12: 1, 3: 1}, opp), pos({13: 1, 2: 1}, opp))


def test_rule_11_larger_die_when_only_one_can_be_played():
    opp = {24: 2, 1: 13}
    assert plays(pos({12: 1}, opp), (6, 5)) == expect(pos({6: 1}, opp))


def test_rule_11_smaller_die_when_the_larger_cannot_be_played():
    opp = {24: 2, 19: 2, 1: 11}
    assert plays(pos({12: 1}, opp), (6, 5)) == expect(pos({7: 1}, opp))


def test_rule_11_a_double_plays_as_many_moves_as_possible():
    opp = {22: 2, 1: 13}
    batch = generate(pos({12: 1}, opp)[None], np.array([(3, 3)]))
    assert {describe(swap_sides(r)) for r in batch.results} == expect(pos({6: 1}, opp))
    assert (batch.steps[0, :, 0] >= 0).sum() == 2


def test_rule_11_turn_is_lost_when_nothing_can_be_played():
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    for dice in [(6, 1), (3, 3)]:
        assert_turn_lost(pos({"bar": 1, 13: 14}, closed), dice)


def test_rule_12_plays_ending_in_the_same_position_are_one_play():
    # Six orders of moves (10/8/7 and 10/9/7, 5/3/2 and 5/4/2, 10/8 5/4, 10/9 5/3), four positions.
    opp = {1: 15}
    assert plays(pos({10: 1, 5: 1}, opp), (2, 1)) == expect(
        pos({7: 1, 5: 1}, opp), pos({10: 1, 2: 1}, opp), pos({8: 1, 4: 1}, opp), pos({9: 1, 3: 1}, opp)
    )


# --------------------------------------------------------------------------- 4. the bar


def test_rule_13_bar_checkers_enter_before_any_other_moves():
    opp = {1: 15}
    assert plays(pos({"bar": 2, 13: 13}, opp), (6, 5)) == expect(pos({20: 1, 19: 1, 13: 13}, opp))


@pytest.mark.parametrize("dice", [(a, b) for a in range(1, 7) for b in range(1, a + 1)])
def test_rule_14_a_die_of_n_enters_on_point_25_minus_n(dice):
    batch = generate(pos({"bar": 1, 13: 14}, {24: 15})[None], np.array([dice]))
    assert {tuple(s) for s in batch.steps[:, 0]} == {(25, 25 - d) for d in dice}


def test_rule_14_entry_may_hit_a_blot():
    board = pos({"bar": 1, 13: 14}, {3: 1, 24: 14})
    assert plays(board, (3, 1)) == expect(
        pos({21: 1, 13: 14}, {"bar": 1, 24: 14}),  # bar/22*/21
        pos({22: 1, 12: 1, 13: 13}, {"bar": 1, 24: 14}),  # bar/22* 13/12
        pos({21: 1, 13: 14}, {3: 1, 24: 14}),  # bar/24/21
        pos({24: 1, 10: 1, 13: 13}, {3: 1, 24: 14}),  # bar/24 13/10
    )


def test_rule_15_after_entering_any_checker_may_play_the_other_die():
    # docs/rules.md rule 15's example: 3-5 with the own 22-point blocked; the 5 enters, the 3 is free.
    opp = {3: 2, 24: 13}
    assert plays(pos({"bar": 1, 13: 2, 6: 3}, opp), (3, 5)) == expect(
        pos({17: 1, 13: 2, 6: 3}, opp), pos({20: 1, 13: 1, 10: 1, 6: 3}, opp), pos({20: 1, 13: 2, 6: 2, 3: 1}, opp)
    )


def test_rule_15_a_die_that_cannot_enter_is_lost_while_checkers_remain_on_the_bar():
    opp = {3: 2, 24: 13}
    assert plays(pos({"bar": 2, 13: 2, 6: 3}, opp), (3, 5)) == expect(pos({"bar": 1, 20: 1, 13: 2, 6: 3}, opp))


# --------------------------------------------------------------------------- 5. bearing off


def test_rule_16_no_bearing_off_while_a_checker_is_outside_home():
    opp = {1: 15}
    assert plays(pos({10: 1, 2: 1}, opp), (2, 1)) == expect(pos({7: 1, 2: 1}, opp), pos({8: 1, 1: 1}, opp))


def test_rule_16_a_hit_checker_must_come_home_before_bearing_off_resumes():
    opp = {6: 2, 24: 13}
    assert plays(pos({"bar": 1, 4: 2}, opp), (6, 4)) == expect(pos({15: 1, 4: 2}, opp))


def test_rule_17_a_die_of_n_bears_off_from_point_n():
    opp = {1: 15}
    assert plays(pos({6: 1, 4: 1, 2: 1}, opp), (4, 2)) == expect(
        pos({6: 1}, opp), pos({4: 1, 2: 1}, opp), pos({2: 3}, opp)
    )


def test_rule_18_an_empty_point_with_higher_checkers_means_moving_inside():
    # The 4 may not bear off the 2-point checker while the 5-point is occupied.
    opp = {1: 15}
    assert plays(pos({5: 1, 2: 1}, opp), (4, 1)) == expect(pos({1: 2}, opp), pos({2: 1}, opp))


def test_rule_19_a_larger_die_bears_off_from_the_highest_point():
    opp = {1: 15}
    assert plays(pos({3: 2, 1: 1}, opp), (6, 4)) == expect(pos({1: 1}, opp))
    assert plays(pos({2: 1, 1: 2}, opp), (6, 6)) == expect(pos({}, opp))


OPP_HOME = {1: 5, 2: 5, 3: 5}


@pytest.mark.parametrize(
    "me, dice, results",
    [
        ({6: 1, 5: 1, 2: 1, 1: 1}, (4, 3), [{2: 3, 1: 1}, {3: 1, 2: 1, 1: 2}]),  # 6/2 5/2, 6/3 5/1
        # 6/off 1/off, 6/off 2/1, 6/off 5/4, 6/5 5/off
        ({6: 1, 5: 1, 2: 1, 1: 1}, (6, 1), [{5: 1, 2: 1}, {5: 1, 1: 2}, {4: 1, 2: 1, 1: 1}, {5: 1, 2: 1, 1: 1}]),
        ({5: 1, 3: 1}, (6, 3), [{}, {2: 1}]),  # 5/off 3/off, 5/2 3/off
        ({4: 1, 1: 1}, (6, 3), [{}, {1: 1}]),  # 4/off 1/off, 4/1 1/off
    ],
)
def test_rule_20_bearing_off_is_not_compulsory_examples(me, dice, results):
    assert plays(pos(me, OPP_HOME), dice) == expect(*(pos(r, OPP_HOME) for r in results))


# --------------------------------------------------------------------------- 6. scoring


def test_rule_21_the_first_side_to_bear_off_all_15_wins():
    winner_on_roll = pos({}, {6: 5})
    loser_on_roll = swap_sides(winner_on_roll)
    assert is_game_over(np.stack([winner_on_roll, loser_on_roll, START])).tolist() == [True, True, False]
    assert game_result(winner_on_roll) > 0 > game_result(loser_on_roll)
    assert game_result(START) == 0
    game = play_game(RandomAgent(21), 21)
    *_, (last, _, after) = walk(game)
    assert game.winner == last.player
    assert borne_off(after.board).tolist()[1] == 15


SINGLE, GAMMON, BACKGAMMON = 1, 2, 3  # a win's points at a cube of 1


@pytest.mark.parametrize(
    "loser, kind",
    [
        ({6: 14}, SINGLE),
        ({"bar": 1, 20: 13}, SINGLE),  # borne off one: never gammoned, even on the bar
        ({24: 2, 6: 12}, SINGLE),
        ({6: 15}, GAMMON),
        ({18: 1, 6: 14}, GAMMON),  # the winner's 7-point is not its home board
        ({19: 1, 6: 14}, BACKGAMMON),
        ({24: 1, 6: 14}, BACKGAMMON),
        ({"bar": 1, 6: 14}, BACKGAMMON),
    ],
)
def test_rule_22_single_gammon_backgammon(loser, kind):
    loser_on_roll = pos(loser, {})
    assert game_result(loser_on_roll) == -kind
    assert game_result(swap_sides(loser_on_roll)) == kind
    as_gammon = min(kind, GAMMON)
    assert game_result(loser_on_roll, backgammon_counts_as_gammon=True) == -as_gammon
    batch = np.stack([loser_on_roll, swap_sides(loser_on_roll)])
    assert game_results(batch, backgammon_counts_as_gammon=True).tolist() == [-as_gammon, as_gammon]


# --------------------------------------------------------------------------- properties


@lru_cache(maxsize=None)
def random_game_boards(seed: int) -> tuple[np.ndarray, ...]:
    """Every position of a seeded random game, each with the side to move on roll."""
    return tuple(before.board for _, before, _ in walk(play_game(RandomAgent(seed), seed)))


@st.composite
def positions(draw) -> np.ndarray:
    """A position met in random play (seeds are few so that games are reused)."""
    boards = random_game_boards(draw(st.integers(0, 199)))
    return boards[draw(st.integers(0, len(boards) - 1))]


dice_pairs = st.tuples(st.integers(1, 6), st.integers(1, 6))


def apply_steps(board: np.ndarray, steps) -> tuple[np.ndarray, int]:
    """Play ``(from, to)`` steps one checker at a time; returns (board, pips the hits cost)."""
    me, opp = board[0].astype(int), board[1].astype(int)
    hit_pips = 0
    for src, dst in steps:
        me[src - 1] -= 1
        if dst > 0:
            me[dst - 1] += 1
            if opp[24 - dst] == 1:
                opp[24 - dst], opp[24] = 0, opp[24] + 1
                hit_pips += dst
    return np.array([me, opp], np.int8), hit_pips


def die_fits(die: int, src: int, dst: int) -> bool:
    """A step uses ``die`` exactly, or less when it bears off from below (rules 17, 19)."""
    return src - dst == die or (dst == 0 and src - dst < die)


@settings(max_examples=300, deadline=None)
@given(positions(), dice_pairs)
def test_results_are_legal_distinct_and_consistent_with_their_steps(board, dice):
    """Conservation, pips, hits, distinctness and dice use, from the steps of each result.

    A lost turn is covered too: no steps, so the only result is the position swapped.
    """
    batch = generate(board[None], np.array([dice]))
    results = batch.results
    assert len({r.tobytes() for r in results}) == len(results)
    pips = pip_counts(board)
    used = (batch.steps[:, :, 0] >= 0).sum(axis=1)
    assert len(set(used.tolist())) == 1, "every play uses as much of the roll as the best one (rule 11)"
    for result, raw in zip(results, batch.steps):
        validate(result)  # no point held by both sides, counts in range
        assert np.array_equal(swap_sides(swap_sides(result)), result)
        steps = [tuple(int(v) for v in s) for s in raw if s[0] >= 0]
        after, hit_pips = apply_steps(board, steps)
        assert np.array_equal(swap_sides(after), result)
        assert all(dst < src for src, dst in steps), "checkers never move backwards (rule 4)"
        assert result.sum(axis=1)[0] == board[1].sum(), "the other side loses no checker"
        assert borne_off(result)[1] - borne_off(board)[0] == sum(dst == 0 for _, dst in steps)
        assert pips[0] - pip_counts(result)[1] == sum(src - dst for src, dst in steps)
        assert pip_counts(result)[0] - pips[1] == hit_pips
        if board[0, 24] > len(steps):
            assert all(src == 25 for src, _ in steps), "bar checkers enter first (rule 13)"
        if dice[0] == dice[1]:
            assert all(die_fits(dice[0], *s) for s in steps)
        elif len(steps) == 2:
            assert any(all(die_fits(d, *s) for d, s in zip(order, steps)) for order in permutations(dice))
        else:
            assert len(steps) <= 1

