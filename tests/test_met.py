"""The Kazaross-XG2 match equity table, match-winning chances, and match cube decisions."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgzero.cube import (
    DOUBLE_TAKE,
    NO_DOUBLE,
    PASS,
    TAKE,
    CubeState,
    IllegalCubeActionError,
    MatchState,
    MatchStateError,
    cube_decision,
    take_decision,
)
from bgzero.cube.met import (
    MET_LENGTH,
    MetError,
    cash_points,
    emg_to_mwc,
    match_cube_decision,
    match_cube_equities,
    match_cubeful_mwc,
    match_equity,
    mwc,
    mwc_to_emg,
    take_point,
)
from tests.test_cube import POSITIONS, gammonless, gnubg_cube_hints, with_rates

TABLE = json.loads(files("bgzero").joinpath("data/met_kazaross_xg2.json").read_text())
PRE, POST = TABLE["pre_crawford"], TABLE["post_crawford"]
aways = st.integers(1, MET_LENGTH)


@st.composite
def probabilities(draw):
    win = draw(st.floats(0, 1))
    return with_rates(win, *(draw(st.floats(0, 0.5)) for _ in range(4)))


# --------------------------------------------------------------------------- the table


def test_known_values():
    assert mwc(2, 2) == 0.5
    assert mwc(1, 1, crawford=True) == mwc(1, 1, crawford=False) == 0.5
    assert mwc(1, 2, crawford=True) == pytest.approx(0.67736)  # Crawford game, leader
    assert mwc(2, 1, crawford=False) == pytest.approx(0.48803)  # post-Crawford trailer, free drop included
    assert mwc(1, 2, crawford=False) == pytest.approx(1 - 0.48803)
    assert mwc(1, 3, crawford=False) == pytest.approx(1 - 0.32264)
    assert mwc(3, 4) == pytest.approx(0.5715)
    assert mwc(7, 5) == PRE[6][4]
    assert mwc(4, 4, crawford=True) == mwc(4, 4)  # no side 1-away: the flag does not matter


def test_crawford_flag_is_required_at_one_away():
    with pytest.raises(MetError, match="crawford"):
        mwc(1, 3)


@pytest.mark.parametrize("away", [0, MET_LENGTH + 1, True, 2.0, "3"])
def test_scores_outside_the_table_are_rejected(away):
    with pytest.raises(MetError):
        mwc(away, 3)
    with pytest.raises(MetError):
        mwc(3, away)


@given(aways, aways)
def test_table_is_antisymmetric(a, b):
    assert mwc(a, b, crawford=True) + mwc(b, a, crawford=True) == pytest.approx(1, abs=1e-12)
    assert mwc(a, b, crawford=False) + mwc(b, a, crawford=False) == pytest.approx(1, abs=1e-12)


def test_needing_more_points_never_helps():
    for crawford in (True, False):
        for a in range(1, MET_LENGTH + 1):
            for b in range(1, MET_LENGTH):
                assert mwc(a, b + 1, crawford=crawford) >= mwc(a, b, crawford=crawford)
                assert mwc(b + 1, a, crawford=crawford) <= mwc(b, a, crawford=crawford)


@pytest.mark.gnubg
def test_table_is_gnubgs_default():
    """gnubg ships Kazaross-XG2 as its default MET; it re-extends the last post-Crawford entry (25-away)."""
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon's MET is the reference")
    pre, post, _ = gnubg.met(MET_LENGTH)
    for i in range(MET_LENGTH):
        for j in range(MET_LENGTH):
            assert mwc(i + 1, j + 1, crawford=True) == pytest.approx(pre[i][j], abs=1e-7)
    for j in range(1, MET_LENGTH - 1):
        assert mwc(j + 1, 1, crawford=False) == pytest.approx(post[j], abs=1e-7)


# --------------------------------------------------------------------------- cubeless MWC


@pytest.mark.parametrize(
    ("state", "probs", "expected"),
    [
        (MatchState(7), (1, 0, 0, 0, 0), PRE[5][6]),  # a single win: 6-away vs 7-away
        (MatchState(7), (1, 1, 0, 0, 0), PRE[4][6]),  # gammon: 2 points
        (MatchState(7), (1, 1, 1, 0, 0), PRE[3][6]),  # backgammon: 3 points
        (MatchState(7, cube=CubeState(2, 0)), (1, 1, 0, 0, 0), PRE[2][6]),  # gammon x cube 2
        (MatchState(7), (0, 0, 0, 1, 0), PRE[6][4]),  # gammon lost
        (MatchState(5, (3, 0), cube=CubeState(2, 0)), (1, 1, 1, 0, 0), 1.0),  # 6 points, capped at the end
        (MatchState(5, (0, 3), cube=CubeState(2, 0)), (0, 0, 0, 0, 0), 0.0),
        (MatchState(5, (2, 2)), (1, 1, 0, 0, 0), PRE[0][2]),  # to 4:2, then the Crawford game
        (MatchState(5, (4, 2), crawford=True), (0, 0, 0, 0, 0), 1 - POST[1]),  # to 4:3, post-Crawford
        (MatchState(5, (4, 3)), (0, 0, 0, 0, 0), 0.5),  # to 4:4, post-Crawford
    ],
)
def test_match_equity_of_certain_results(state, probs, expected):
    assert match_equity(probs, state, 0) == pytest.approx(expected)


@settings(max_examples=60, deadline=None)
@given(probabilities(), st.sampled_from([MatchState(7, (2, 4)), MatchState(5, (4, 1)), MatchState(9, (1, 3))]))
def test_match_equity_weighs_each_result_by_the_table(probs, state):
    win, wg, wbg, lg, lbg = probs
    outcomes = [
        (win - wg, (1, 0, 0, 0, 0)),
        (wg - wbg, (1, 1, 0, 0, 0)),
        (wbg, (1, 1, 1, 0, 0)),
        (1 - win - lg, (0, 0, 0, 0, 0)),
        (lg - lbg, (0, 0, 0, 1, 0)),
        (lbg, (0, 0, 0, 1, 1)),
    ]
    expected = sum(weight * match_equity(certain, state, 1) for weight, certain in outcomes)
    assert match_equity(probs, state, 1) == pytest.approx(expected)
    flipped = (1 - win, lg, lbg, wg, wbg)  # the same game seen by the other side
    assert match_equity(flipped, state, 0) == pytest.approx(1 - match_equity(probs, state, 1))


@settings(max_examples=60, deadline=None)
@given(st.floats(-3, 3), st.sampled_from([MatchState(7, (2, 4)), MatchState(5, (4, 1), cube=CubeState(2, 0))]))
def test_emg_round_trip(equity, state):
    assert mwc_to_emg(emg_to_mwc(equity, state, 0), state, 0) == pytest.approx(equity)


def test_emg_is_plus_and_minus_one_for_a_single_game_at_the_cube():
    state = MatchState(9, (3, 5), cube=CubeState(2, 1))
    assert mwc_to_emg(match_equity((1, 0, 0, 0, 0), state, 1), state, 1) == pytest.approx(1)
    assert mwc_to_emg(match_equity((0, 0, 0, 0, 0), state, 1), state, 1) == pytest.approx(-1)


@pytest.mark.gnubg
def test_cubeless_equity_agrees_with_gnubg_gammon_prices():
    """gnubg's match ``Utility`` (gammon prices from the same MET) is our MWC as EMG."""
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon is the reference")
    states = [MatchState(7, (2, 4)), MatchState(5, (4, 2), crawford=True), MatchState(5, (4, 3)), MatchState(3)]
    states.append(MatchState(11, (6, 3), cube=CubeState(4, 0)))
    for pid in POSITIONS:
        board = gnubg.positionfromid(pid)
        for state in states:
            info = gnubg.cubeinfo(
                state.cube.value, state.cube.owner, 1, state.match_length, state.score, int(state.crawford)
            )
            *probs, equity = gnubg.evaluate(board, info, gnubg.evalcontext(0, 0, 1, 0, 0.0))
            assert mwc_to_emg(match_equity(probs, state, 1), state, 1) == pytest.approx(equity, abs=2e-6)


def test_match_functions_need_a_match_in_progress():
    with pytest.raises(MetError):
        match_equity(gammonless(0.5), MatchState(), 0)
    with pytest.raises(MetError):
        match_equity(gammonless(0.5), MatchState(5, (5, 2)), 0)
    with pytest.raises(MetError):
        match_equity(gammonless(0.5), MatchState(31), 0)  # beyond the table


# --------------------------------------------------------------------------- take points


def test_trailer_4_away_doubling_leader_2_away():
    """Cube 2 is dead for the leader: it takes iff p(win) >= 1 - MWC(3-away, 2-away) / MWC(2, 2)."""
    state = MatchState(5, (1, 3))
    assert take_point(state, 0) == pytest.approx(1 - PRE[2][1] / 0.5)  # 19.9%


def test_leader_2_away_doubling_trailer_4_away_meets_an_automatic_redouble():
    """The taker redoubles to 4 at once, a game for the match: it needs only MWC(4-away, Crawford 1-away)."""
    state = MatchState(5, (3, 1))
    assert take_point(state, 0) == pytest.approx(1 - PRE[0][3])  # 18.6%


def test_post_crawford_leader_takes_with_half():
    assert take_point(MatchState(5, (3, 4)), 0) == pytest.approx(0.5)  # passing leaves 1-away/1-away


def test_take_points_with_gammons_are_higher_for_the_taker():
    state = MatchState(7, (2, 2))
    assert take_point(state, 0, with_rates(0.6, 0.3, 0.02, 0.1, 0.0)) > take_point(state, 0)


def test_cash_points_of_both_sides():
    state = MatchState(7, (2, 4))
    mine, theirs = cash_points(gammonless(0.6), state, 1)
    assert 0.5 < mine < 1 and 0.5 < theirs < 1
    assert cash_points(gammonless(0.6), state, 0) == pytest.approx((theirs, mine))


# --------------------------------------------------------------------------- cubeful MWC and decisions


@settings(max_examples=60, deadline=None)
@given(probabilities(), st.sampled_from([MatchState(7, (2, 4)), MatchState(9, (2, 2), cube=CubeState(2, 1))]))
def test_dead_cube_at_x_0(probs, state):
    assert match_cubeful_mwc(probs, state, 1, 0.0) == pytest.approx(match_equity(probs, state, 1))


@pytest.mark.parametrize(
    "state",
    [
        MatchState(5, (4, 2), crawford=True),  # the Crawford game
        MatchState(5, (3, 3)),  # 2-away/2-away (gnubg's fDoCubeful)
        MatchState(5, (3, 2), cube=CubeState(2, 0)),  # dead for both sides
    ],
)
def test_cube_is_dead(state):
    probs = with_rates(0.6, 0.3, 0.02, 0.1, 0.0)
    assert match_cubeful_mwc(probs, state, 1, 1.0) == match_equity(probs, state, 1)


def test_two_away_two_away_take_point():
    """At 2-away/2-away the doubled cube is dead: the taker needs 1 - MWC(Crawford 1-away, 2-away)."""
    state = MatchState(3, (1, 1))
    limit = PRE[0][1]
    assert take_decision(gammonless(limit - 1e-6), state, 0) == TAKE
    assert take_decision(gammonless(limit + 1e-6), state, 0) == PASS
    assert cube_decision(gammonless(0.6), state, 0).action == DOUBLE_TAKE
    assert cube_decision(gammonless(0.3), state, 0).action == NO_DOUBLE


def test_decision_equities_are_emg():
    state = MatchState(7, (2, 4))
    probs = with_rates(0.6, 0.3, 0.02, 0.1, 0.0)
    decision = match_cube_decision(probs, state, 1)
    mwcs = match_cube_equities(probs, state, 1)
    assert decision.equities.double_pass == 1.0
    assert decision.equities.no_double == pytest.approx(mwc_to_emg(mwcs.no_double, state, 1))
    assert emg_to_mwc(decision.equities.double_take, state, 1) == pytest.approx(mwcs.double_take)


def test_match_decision_needs_a_legal_double():
    with pytest.raises(IllegalCubeActionError):
        match_cube_decision(gammonless(0.7), MatchState(5, (4, 3)), 0)  # the post-Crawford leader


MATCH_STATES = (
    MatchState(7, (2, 4)),
    MatchState(5, (3, 1)),  # player 1 4-away against 2-away
    MatchState(5, (1, 3)),  # player 1 2-away against 4-away
    MatchState(3),
    MatchState(5, (4, 2)),  # post-Crawford, player 1 trails
    MatchState(9, (2, 2), cube=CubeState(2, 1)),
    MatchState(11, (3, 5), cube=CubeState(2, 1)),
    MatchState(25),
)


@pytest.mark.gnubg
def test_match_cube_decisions_agree_with_gnubg():
    """gnubg's 0-ply `hint` in matches (MWC to 5 decimals of a percent): its Cl2CfMatch, with its 0-1 ply x."""
    cases = [(pid, state) for state in MATCH_STATES for pid in POSITIONS]
    for (pid, state), found in zip(cases, gnubg_cube_hints(cases)):
        mine = match_cube_equities(found["probs"], state, 1, found["x"])
        where = f"{pid} {state}"
        assert 100 * mine.no_double == pytest.approx(found["nd"], abs=2e-4), where
        assert 100 * mine.double_take == pytest.approx(found["dt"], abs=2e-4), where
        assert 100 * mine.double_pass == pytest.approx(found["dp"], abs=2e-4), where
        decision = match_cube_decision(found["probs"], state, 1, found["x"])
        assert (decision.action, decision.response) == found["action"], where


def test_bad_players_are_rejected():
    with pytest.raises(MatchStateError):
        match_equity(gammonless(0.5), MatchState(7), 2)
    with pytest.raises(MatchStateError):
        MatchState().away(0)  # money has no match length
