"""The cube and the match score (docs/rules.md sections 7-8), Janowski's money cube, and gnubg's verdicts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgzero.cube import (
    BEAVER,
    CENTRED,
    CENTRED_CUBE,
    DOUBLE_BEAVER,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    GNUBG_SHALLOW,
    NO_DOUBLE,
    OWNED_CUBE,
    PASS,
    TAKE,
    TOO_GOOD,
    UNAVAILABLE_CUBE,
    CubeEquities,
    CubeState,
    IllegalCubeActionError,
    InvalidProbabilitiesError,
    MatchState,
    MatchStateError,
    after_beaver,
    after_take,
    average_win_loss,
    award,
    check_probs,
    cube_decision,
    cube_efficiency,
    cubeful_equity,
    dead_equity,
    decide,
    drop_points,
    from_match_info,
    janowski_points,
    live_equity,
    match_winner,
    may_beaver,
    may_double,
    money_cube_decision,
    money_cube_equities,
    money_equity,
    money_take_point,
    points_for,
    take_decision,
    to_match_info,
)
from bgzero.engine.classify import BEAROFF, CONTACT, CRASHED, OVER, RACE
from bgzero.engine.ids import MAX_MATCH_LENGTH, MAX_SCORE, GameState, MatchInfo, match_id, match_info_from_id

MONEY = MatchState()
ACCESSES = (CENTRED_CUBE, OWNED_CUBE, UNAVAILABLE_CUBE)


def gammonless(win: float) -> tuple[float, float, float, float, float]:
    return (win, 0.0, 0.0, 0.0, 0.0)


def with_rates(win: float, gammon_win: float, bg_win: float, gammon_loss: float, bg_loss: float):
    """Cumulative probabilities with these shares of wins and losses being gammons / backgammons."""
    lose = 1 - win
    return (win, win * (gammon_win + bg_win), win * bg_win, lose * (gammon_loss + bg_loss), lose * bg_loss)


rate = st.floats(0, 0.5)
x_values = st.floats(0, 1)


# --------------------------------------------------------------------------- rules 24-28


def test_rule_24_cube_starts_centred_at_1_and_either_side_may_double():
    assert MONEY.cube == CubeState(1, CENTRED)
    assert may_double(MONEY, 0) and may_double(MONEY, 1)
    match = MatchState(match_length=7)
    assert match.cube == CubeState() and may_double(match, 0) and may_double(match, 1)


def test_rule_25_only_a_centred_cube_or_its_owner_may_double():
    """Rule 25 at this level: the caller asks for the side on roll before it rolls; ownership is checked here."""
    owned_by_1 = MatchState(cube=CubeState(2, 1))
    assert may_double(owned_by_1, 1) and not may_double(owned_by_1, 0)
    with pytest.raises(IllegalCubeActionError):
        after_take(owned_by_1, 0)
    with pytest.raises(IllegalCubeActionError):
        money_cube_decision(gammonless(0.9), owned_by_1, 0)


def test_rule_26_take_doubles_the_cube_and_the_taker_owns_it():
    state = after_take(MONEY, 0)
    assert state.cube == CubeState(2, 1)
    state = after_take(state, 1)  # only the owner redoubles
    assert state.cube == CubeState(4, 0)
    assert state.score == MONEY.score


@pytest.mark.parametrize("cube", [CubeState(), CubeState(2, 0), CubeState(16, 1)])
def test_rule_26_drop_scores_the_pre_double_value(cube):
    doubler = 1 if cube.owner == CENTRED else cube.owner
    state = MatchState(cube=cube)
    assert drop_points(state) == cube.value
    assert award(state, doubler, drop_points(state)).score[doubler] == cube.value


def test_rule_27_cube_is_capped_at_64():
    at_32 = MatchState(cube=CubeState(32, 0))
    assert after_take(at_32, 0).cube == CubeState(64, 1)
    at_64 = MatchState(cube=CubeState(64, 1))
    assert not may_double(at_64, 1)
    with pytest.raises(IllegalCubeActionError):
        after_take(at_64, 1)
    with pytest.raises(MatchStateError):
        CubeState(128, 0)
    assert not may_beaver(MatchState(beavers=True, cube=CubeState(32, 0)), 0)  # a beaver would make 128


def test_rule_28_jacoby_counts_gammons_single_while_the_cube_is_centred():
    jacoby = MatchState(jacoby=True)
    assert jacoby.jacoby_active and not MONEY.jacoby_active
    assert points_for(2, 1, jacoby=jacoby.jacoby_active) == 1
    assert points_for(3, 1, jacoby=jacoby.jacoby_active) == 1
    taken = after_take(jacoby, 0)
    assert not taken.jacoby_active
    assert points_for(2, taken.cube.value, jacoby=taken.jacoby_active) == 4
    assert not MatchState(match_length=5, jacoby=True).jacoby_active  # a money option only


def test_rule_28_jacoby_dead_cube_equity_counts_gammons_single():
    probs = with_rates(0.6, 0.3, 0.05, 0.2, 0.01)
    jacoby = MatchState(jacoby=True)
    assert dead_equity(probs, jacoby=True) == pytest.approx(2 * 0.6 - 1)
    assert money_equity(probs, jacoby, 0, 0.0) == pytest.approx(2 * 0.6 - 1)
    assert money_equity(probs, MONEY, 0, 0.0) == pytest.approx(dead_equity(probs))
    # After the take the cube is owned, so Jacoby no longer applies to double/take.
    assert money_cube_equities(probs, jacoby, 0, 0.0).double_take == pytest.approx(2 * dead_equity(probs))


def test_rule_28_beavers_are_an_option_off_by_default():
    assert not may_beaver(MONEY, 0)
    assert not may_beaver(MatchState(match_length=5, beavers=True), 0)  # money only
    beavers = MatchState(beavers=True)
    assert may_beaver(beavers, 0)
    assert after_beaver(beavers, 0).cube == CubeState(4, 1)  # the beaverer keeps the cube
    with pytest.raises(IllegalCubeActionError):
        after_beaver(MONEY, 0)
    # A taker who is the favourite beavers; without the option it just takes.
    assert take_decision(gammonless(0.4), beavers, 0) == BEAVER
    assert take_decision(gammonless(0.4), MONEY, 0) == TAKE


# --------------------------------------------------------------------------- rules 29-32


def test_rule_29_points_beyond_n_do_not_matter():
    state = award(MatchState(match_length=5, score=(3, 0)), 0, points_for(3, 4))
    assert state.score == (5, 0) and state.over and match_winner(state) == 0
    with pytest.raises(IllegalCubeActionError):
        award(state, 1, 1)


def test_rule_30_no_double_in_the_crawford_game():
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True)
    assert not may_double(crawford, 0) and not may_double(crawford, 1)
    with pytest.raises(IllegalCubeActionError):
        cube_decision(gammonless(0.9), crawford, 1)


def test_rule_30_doubling_is_allowed_post_crawford():
    post = MatchState(match_length=5, score=(4, 3))
    assert post.post_crawford and not post.crawford
    assert may_double(post, 1)  # the trailer
    assert not may_double(post, 0)  # the leader's cube is dead (rule 31)


@pytest.mark.parametrize(
    ("score", "cube", "player", "allowed"),
    [
        ((5, 0), CubeState(2, 0), 0, False),  # 5 + 2 >= 7
        ((4, 0), CubeState(2, 0), 0, True),
        ((3, 0), CubeState(4, 0), 0, False),
        ((2, 0), CubeState(4, 0), 0, True),
        ((6, 0), CubeState(), 0, False),  # post-Crawford leader
        ((6, 0), CubeState(), 1, True),
        ((0, 5), CubeState(2, 1), 1, False),
    ],
)
def test_rule_31_dead_cube_refuses_the_double(score, cube, player, allowed):
    state = MatchState(match_length=7, score=score, cube=cube)
    assert may_double(state, player) is allowed


def test_rule_31_money_cube_is_never_dead():
    assert may_double(MatchState(score=(1000, 0), cube=CubeState(32, 0)), 0)


def test_rule_32_drop_in_a_match_scores_like_a_game():
    state = MatchState(match_length=5, score=(3, 2), cube=CubeState(2, 1))
    assert may_double(state, 1)
    after = award(state, 1, drop_points(state))  # player 0 passes the redouble to 4
    assert after.score == (3, 4) and after.crawford and after.cube == CubeState()


# --------------------------------------------------------------------------- the seed's match


def test_seed_002_five_point_match():
    """A worked 5-point match (rules 29-31): 1:0, 1:2, 3:2, 4:2 (then the Crawford game), 4:3, 5:3."""
    state = MatchState(match_length=5)
    flags = []

    state = award(state, 0, points_for(1, state.cube.value))  # game 1: A single at 1
    flags.append(state.crawford)
    state = award(state, 1, points_for(2, state.cube.value))  # game 2: B gammon at 1
    flags.append(state.crawford)
    state = after_take(state, 1)  # game 3: the cube goes to 2, A single
    state = award(state, 0, points_for(1, state.cube.value))
    flags.append(state.crawford)
    assert state.score == (3, 2)
    state = award(state, 0, points_for(1, state.cube.value))  # game 4: A single at 1
    flags.append(state.crawford)
    assert state.score == (4, 2) and state.crawford
    assert not may_double(state, 0) and not may_double(state, 1)  # the Crawford game
    state = award(state, 1, points_for(1, state.cube.value))  # game 5: B single
    flags.append(state.crawford)
    assert state.score == (4, 3) and state.post_crawford
    assert not may_double(state, 0)  # A at 4 may not double 1 to 2 (dead cube, rule 31)
    assert may_double(state, 1)
    state = award(state, 0, points_for(1, state.cube.value))  # game 6: A single at 1
    flags.append(state.crawford)

    assert flags == [False, False, False, True, False, False]
    assert state.score == (5, 3) and state.over and match_winner(state) == 0
    assert not state.post_crawford and not may_double(state, 1)


def test_crawford_comes_once_when_the_other_side_reaches_n_minus_1_later():
    state = award(MatchState(match_length=5, score=(4, 2), crawford=True), 1, 2)
    assert state.score == (4, 4) and not state.crawford and state.post_crawford


def test_crawford_follows_the_first_arrival_at_n_minus_1_only():
    assert award(MatchState(match_length=5, score=(2, 0)), 0, 2).crawford
    assert not award(MatchState(match_length=5, score=(2, 0)), 0, 1).crawford
    assert not award(MatchState(match_length=5, score=(2, 0)), 0, 4).crawford  # won outright
    assert not award(MatchState(match_length=1), 0, 1).crawford
    assert not award(MatchState(score=(3, 3)), 0, 1).crawford  # money has none


@pytest.mark.parametrize("kind", [1, 2, 3])
@pytest.mark.parametrize("cube", [1, 2, 4, 64])
def test_points_are_result_times_cube(kind, cube):
    assert points_for(kind, cube) == kind * cube
    assert points_for(kind, cube, jacoby=True) == cube


@pytest.mark.parametrize(("kind", "cube"), [(0, 1), (4, 1), (1, 3), (1, 128), (1.0, 1)])
def test_points_reject_bad_input(kind, cube):
    with pytest.raises(MatchStateError):
        points_for(kind, cube)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"crawford": True},  # money
        {"match_length": 5, "score": (3, 2), "crawford": True},  # nobody at 4
        {"match_length": 5, "score": (4, 4), "crawford": True},  # both at 4: after the Crawford game
        {"match_length": 5, "score": (6, 0)},
        {"match_length": 5, "score": (5, 5)},
        {"match_length": 65},
        {"score": (-1, 0)},
        {"score": (1.5, 0)},
        {"crawford": 2},
        {"cube": 2},
    ],
)
def test_impossible_match_states_are_rejected(kwargs):
    with pytest.raises(MatchStateError):
        MatchState(**kwargs)


@pytest.mark.parametrize(("value", "owner"), [(1, 0), (2, CENTRED), (3, 0), (0, CENTRED), (2, 2)])
def test_impossible_cubes_are_rejected(value, owner):
    with pytest.raises(MatchStateError):
        CubeState(value, owner)


def test_award_rejects_bad_input():
    with pytest.raises(IllegalCubeActionError):
        award(MONEY, 0, 0)
    with pytest.raises(MatchStateError):
        award(MONEY, 2, 1)


# --------------------------------------------------------------------------- Match IDs


@st.composite
def match_states(draw) -> MatchState:
    length = draw(st.sampled_from([0, 1, 2, 3, 5, 7, 25, MAX_MATCH_LENGTH]))
    value = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    cube = CubeState(value, CENTRED if value == 1 else draw(st.sampled_from([0, 1])))
    if length == 0:
        score = (draw(st.integers(0, MAX_SCORE)), draw(st.integers(0, MAX_SCORE)))
        return MatchState(0, score, jacoby=draw(st.booleans()), cube=cube)
    score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
    if draw(st.booleans()):  # a finished match
        winner = draw(st.sampled_from([0, 1]))
        score = (length, score[1]) if winner == 0 else (score[0], length)
    crawford = max(score) == length - 1 > min(score) and draw(st.booleans())
    return MatchState(length, score, crawford, jacoby=draw(st.booleans()), cube=cube)


@settings(max_examples=200, deadline=None)
@given(match_states(), st.sampled_from([0, 1]))
def test_match_id_round_trip(state, on_roll):
    info = to_match_info(state, on_roll=on_roll)
    decoded = match_info_from_id(match_id(info))
    assert decoded == info and decoded.dice_owner == on_roll
    assert from_match_info(decoded) == state


def test_match_info_from_a_gnubg_match_id():
    # gnubg.matchid: 2-cube owned by player 0, player 1 rolled 53, 7-point match at 3-4.
    state = from_match_info(match_info_from_id("QYnuADAAIAAE"))
    assert state == MatchState(match_length=7, score=(3, 4), cube=CubeState(2, 0))
    info = to_match_info(state, on_roll=1, dice=(5, 3))
    assert match_id(info) == "QYnuADAAIAAE"


def test_match_info_defaults():
    info = to_match_info(MatchState(match_length=3, score=(3, 1)), on_roll=0)
    assert info.game_state == GameState.OVER and info.turn == 0 and info.dice == (0, 0)
    assert isinstance(to_match_info(MONEY, on_roll=1, turn=0, double_offered=True), MatchInfo)


# --------------------------------------------------------------------------- Janowski


@st.composite
def probabilities(draw):
    win = draw(st.floats(0, 1))
    return with_rates(win, *(draw(rate) for _ in range(4)))


def test_cube_efficiency_defaults():
    assert cube_efficiency(CONTACT) == 0.68
    assert cube_efficiency(CRASHED) == 0.68
    assert cube_efficiency(BEAROFF) == 0.6
    assert cube_efficiency(OVER) == 0.0
    assert cube_efficiency(RACE, 0) == 0.6  # clamped up
    assert cube_efficiency(RACE, 100) == pytest.approx(0.675)
    assert cube_efficiency(RACE, 200) == 0.7  # clamped down
    assert cube_efficiency(RACE, 100, GNUBG_SHALLOW) == 0.8  # 0.6 + 0.25, clamped
    assert cube_efficiency(CONTACT, params=GNUBG_SHALLOW) == 0.76
    with pytest.raises(MatchStateError):
        cube_efficiency(RACE)
    with pytest.raises(MatchStateError):
        cube_efficiency("hypergammon")


@pytest.mark.parametrize(
    "probs",
    [
        (0.5, 0.1, 0.0, 0.1),  # four numbers
        (0.5, 0.1, 0.0, 0.1, 0.0, 0.05),  # gnubg.evaluate's six, equity included
        (0.5, 0.6, 0.0, 0.1, 0.0),  # more gammons than wins
        (0.5, 0.1, 0.2, 0.1, 0.0),  # more backgammons than gammons
        (0.7, 0.1, 0.0, 0.4, 0.0),  # more gammon losses than losses
        (float("nan"), 0, 0, 0, 0),
        "abcde",
    ],
)
def test_bad_probabilities_are_rejected(probs):
    with pytest.raises(InvalidProbabilitiesError):
        check_probs(probs)


def test_average_win_and_loss():
    big_win, big_loss = average_win_loss((0.6, 0.3, 0.06, 0.1, 0.02))
    assert big_win == pytest.approx(1 + 0.36 / 0.6)  # a backgammon counts through wg and wbg
    assert big_loss == pytest.approx(1 + 0.12 / 0.4)
    assert average_win_loss(gammonless(1.0)) == (1.0, 1.0)


def test_gammonless_janowski_points_are_20_and_80_percent():
    take, cash = janowski_points(gammonless(0.5))
    assert take == pytest.approx(0.2) and cash == pytest.approx(0.8)


@pytest.mark.parametrize(("x", "expected"), [(0.0, 0.25), (1.0, 0.2), (0.68, 0.5 / 2.34)])
def test_gammonless_money_take_point(x, expected):
    """Dead cube 25%; fully live 20%; at x = 0.68 the taker needs (1/2)/(2 + x/2) = 21.37%."""
    assert money_take_point(1.0, 1.0, x) == pytest.approx(expected)
    # At exactly that point double/take is worth the pass, +1, to the doubler.
    edge = gammonless(1 - expected)
    assert money_cube_equities(edge, MONEY, 0, x).double_take == pytest.approx(1.0)
    assert take_decision(gammonless(1 - expected + 1e-6), MONEY, 0, x) == PASS
    assert take_decision(gammonless(1 - expected - 1e-6), MONEY, 0, x) == TAKE


@settings(max_examples=60, deadline=None)
@given(rate, rate, rate, rate, x_values)
def test_money_take_point_is_where_the_take_equals_the_pass(gw, gbw, gl, gbl, x):
    probs = with_rates(0.5, gw, gbw, gl, gbl)
    big_win, big_loss = average_win_loss(probs)
    doubler_win = 1 - money_take_point(big_win, big_loss, x)
    edge = with_rates(doubler_win, gw, gbw, gl, gbl)
    assert 2 * cubeful_equity(edge, UNAVAILABLE_CUBE, x) == pytest.approx(1.0, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(probabilities(), st.sampled_from(ACCESSES), st.booleans())
def test_dead_cube_at_x_0_is_the_cubeless_equity(probs, access, jacoby):
    jacoby = jacoby and access == CENTRED_CUBE
    assert cubeful_equity(probs, access, 0.0, jacoby=jacoby) == pytest.approx(dead_equity(probs, jacoby=jacoby))


@settings(max_examples=100, deadline=None)
@given(probabilities(), st.sampled_from(ACCESSES), x_values)
def test_cubeful_equity_mixes_dead_and_live(probs, access, x):
    win = probs[0]
    live = live_equity(probs, access) if 1e-7 < win < 1 - 1e-7 else dead_equity(probs)
    assert cubeful_equity(probs, access, x) == pytest.approx((1 - x) * dead_equity(probs) + x * live)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.001, 0.999), st.floats(0.001, 0.999), rate, rate, rate, rate, x_values, st.sampled_from(ACCESSES))
def test_cubeful_equity_rises_with_the_win_chance(p1, p2, gw, gbw, gl, gbl, x, access):
    low, high = sorted((p1, p2))
    assert cubeful_equity(with_rates(low, gw, gbw, gl, gbl), access, x) <= cubeful_equity(
        with_rates(high, gw, gbw, gl, gbl), access, x
    ) + 1e-12


@settings(max_examples=100, deadline=None)
@given(probabilities(), x_values)
def test_owning_the_cube_is_worth_most_and_an_unavailable_cube_least(probs, x):
    centred, owned, unavailable = (cubeful_equity(probs, access, x) for access in ACCESSES)
    assert owned + 1e-12 >= centred >= unavailable - 1e-12


def test_live_equity_meets_the_janowski_points():
    probs = with_rates(0.5, 0.2, 0.02, 0.15, 0.01)
    big_win, big_loss = average_win_loss(probs)
    take, cash = janowski_points(probs)
    at = lambda win: with_rates(win, 0.2, 0.02, 0.15, 0.01)  # noqa: E731 - same rates, another win chance
    assert live_equity(at(take), CENTRED_CUBE) == pytest.approx(-1)
    assert live_equity(at(cash), CENTRED_CUBE) == pytest.approx(1)
    assert live_equity(at(cash), OWNED_CUBE) == pytest.approx(1)
    assert live_equity(at(take), UNAVAILABLE_CUBE) == pytest.approx(-1)
    assert live_equity(at(0.0), CENTRED_CUBE) == pytest.approx(-big_loss)
    assert live_equity(at(1.0), UNAVAILABLE_CUBE) == pytest.approx(big_win)
    assert live_equity(at(0.05), CENTRED_CUBE, jacoby=True) == -1.0
    assert live_equity(at(0.95), CENTRED_CUBE, jacoby=True) == 1.0
    with pytest.raises(MatchStateError):
        live_equity(probs, "shared")
    with pytest.raises(MatchStateError):
        cubeful_equity(probs, CENTRED_CUBE, 1.5)


@pytest.mark.parametrize(
    ("win", "action", "response"),
    [(0.5, NO_DOUBLE, TAKE), (0.72, DOUBLE_TAKE, TAKE), (0.9, DOUBLE_PASS, PASS), (1.0, DOUBLE_PASS, PASS)],
)
def test_gammonless_money_decisions(win, action, response):
    decision = money_cube_decision(gammonless(win), MONEY, 0, 0.68)
    assert (decision.action, decision.response) == (action, response)
    assert decision.equities.double_pass == 1.0
    assert decision.equity == max(decision.equities.no_double, min(decision.equities.double_take, 1.0))


def test_too_good_to_double_when_gammons_are_likely():
    decision = money_cube_decision(with_rates(0.9, 0.6, 0.05, 0.05, 0.0), MONEY, 0, 0.68)
    assert decision.action == TOO_GOOD and decision.response == PASS
    assert decision.equity == decision.equities.no_double > 1.0


@pytest.mark.parametrize(
    ("equities", "gammons", "beaver", "expected"),
    [
        ((0.2, -0.1, 1.0), False, False, (NO_DOUBLE, TAKE, 0.2)),
        ((0.2, 0.5, 1.0), False, False, (DOUBLE_TAKE, TAKE, 0.5)),
        ((0.8, 1.5, 1.0), False, False, (DOUBLE_PASS, PASS, 1.0)),
        ((1.2, 1.5, 1.0), True, False, (TOO_GOOD, PASS, 1.2)),  # gnubg case 3
        ((1.2, 1.5, 1.0), False, False, (DOUBLE_PASS, PASS, 1.2)),  # no gammons: gnubg's sanity check
        ((1.2, 1.1, 1.0), True, False, (TOO_GOOD, PASS, 1.2)),  # case 1
        ((1.2, 0.9, 1.0), True, False, (TOO_GOOD, TAKE, 1.2)),  # case 2
        ((1.2, 0.9, 1.0), False, False, (NO_DOUBLE, TAKE, 1.2)),
        ((-0.3, -0.1, 1.0), False, True, (DOUBLE_BEAVER, BEAVER, -0.2)),  # beaver worth less than no double
        ((0.0, -0.1, 1.0), False, True, (NO_DOUBLE, BEAVER, 0.0)),
        ((0.5, 1.0, 1.0), False, False, (DOUBLE_TAKE, TAKE, 1.0)),  # a tie takes
    ],
)
def test_decide_follows_gnubg_find_best_cube_decision(equities, gammons, beaver, expected):
    decision = decide(CubeEquities(*equities), wins_gammons=gammons, beaver_allowed=beaver)
    assert (decision.action, decision.response, decision.equity) == pytest.approx(expected)


def test_money_functions_need_a_money_game():
    with pytest.raises(MatchStateError):
        money_equity(gammonless(0.5), MatchState(match_length=5), 0)


# --------------------------------------------------------------------------- gnubg


# Runs in a child process: gnubg is global state and prints its analysis on the C stdout.
_GNUBG_HINT = r"""
import json, os, re, sys, tempfile
import gnubg

def capture(commands):
    with tempfile.TemporaryFile(mode="w+") as out:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            for command in commands:
                gnubg.command(command)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        return out.read()

number = r"\s+([-+]?\d+\.\d+)%?"
capture(["set threads 1", "set output digits 6", "set output mwc on",
         "set evaluation cubedecision evaluation plies 0", "set evaluation cubedecision evaluation prune off"])
results = []
for pid, mid in json.loads(sys.argv[1]):
    text = capture([f"set gnubgid {pid}:{mid}", "hint"])
    if "Cubeful equities" not in text:
        sys.exit(f"no cube analysis for {pid}:{mid}:\n{text}")
    text = text[text.index("Cubeful equities"):]
    labels = {"nd": "No (?:re)?double", "dt": "(?:Re)?[Dd]ouble, take", "dp": "(?:Re)?[Dd]ouble, pass"}
    found = {key: float(re.search(r"\d\. " + label + number, text).group(1)) for key, label in labels.items()}
    found["action"] = re.search(r"Proper cube action: (.*)", text).group(1).split(" (")[0]
    board = gnubg.positionfromid(pid)
    cubeless = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0)
    found["probs"] = list(gnubg.evaluate(board, cubeless, gnubg.evalcontext(0, 0, 1, 0, 0.0))[:5])
    found["class"] = gnubg.classify(board)
    found["pips"] = sum(n * (i + 1) for i, n in enumerate(board[1]))
    results.append(found)
print(json.dumps(results))
"""

# Contact, crashed and race positions (no bear-off database classes) from 0.2 to 0.98 to win.
POSITIONS = (
    "97YHAAD3xTMAAA",
    "3z6QBAA/+hQAQA",
    "4HPwATDgc/ABMA",
    "7/OAAEB3nQEIDA",
    "79cwAAC/vYQAAA",
    "3wMRUAb/PgACQA",
    "v8EABB5zH5BRAA",
    "fyIIJDjuNyAIYA",
    "vw+BgALf5yAIAA",
    "7yEMkBE/3wEAAA",
)
_KINDS = {8: RACE, 9: CRASHED, 10: CONTACT}
GNUBG_ACTIONS = {
    "No double, take": (NO_DOUBLE, TAKE),
    "No double, beaver": (NO_DOUBLE, BEAVER),
    "Double, take": (DOUBLE_TAKE, TAKE),
    "Double, pass": (DOUBLE_PASS, PASS),
    "Double, beaver": (DOUBLE_BEAVER, BEAVER),
    "Too good to double, take": (TOO_GOOD, TAKE),
    "Too good to double, pass": (TOO_GOOD, PASS),
}


def gnubg_cube_hints(cases: list[tuple[str, MatchState]]) -> list[dict]:
    """gnubg's 0-ply cube analysis of each (Position ID, state) with player 1 on roll.

    Each result has ``nd``, ``dt``, ``dp`` (equities for money, MWC in percent for a
    match), gnubg's ``action`` mapped to ours, its 0-ply ``probs``, and the cube life
    ``x`` its 0-ply evaluation uses for that position.
    """
    pytest.importorskip("gnubg", reason="GNU Backgammon is the reference for cube decisions")
    ids = [(pid, match_id(to_match_info(state, on_roll=1))) for pid, state in cases]
    run = subprocess.run(
        [sys.executable, "-c", _GNUBG_HINT, json.dumps(ids)], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout.strip().splitlines()[-1])
    for found in results:
        label = found["action"].replace("redouble", "double").replace("Redouble", "Double")
        found["action"] = GNUBG_ACTIONS[label]
        found["x"] = cube_efficiency(_KINDS[found["class"]], found["pips"], GNUBG_SHALLOW)
    return results


MONEY_STATES = (
    MatchState(beavers=True),
    MatchState(jacoby=True, beavers=True),
    MatchState(beavers=True, cube=CubeState(2, 1)),
)


@pytest.mark.gnubg
def test_money_cube_decisions_agree_with_gnubg():
    """gnubg's 0-ply `hint` on money cubes: Janowski with its 0-1 ply cube lives (gnubg keeps beavers on)."""
    cases = [(pid, state) for state in MONEY_STATES for pid in POSITIONS]
    for (pid, state), found in zip(cases, gnubg_cube_hints(cases)):
        decision = money_cube_decision(found["probs"], state, 1, found["x"])
        mine = decision.equities
        where = f"{pid} {state}"
        assert mine.no_double == pytest.approx(found["nd"], abs=2e-6), where
        assert mine.double_take == pytest.approx(found["dt"], abs=2e-6), where
        assert mine.double_pass == found["dp"] == 1.0
        assert (decision.action, decision.response) == found["action"], where
