"""The vectorised cube values (one match state, many probability vectors) agree with the scalar ones."""

import numpy as np
import pytest

from bgzero.cube import (
    CENTRED,
    CENTRED_CUBE,
    OWNED_CUBE,
    UNAVAILABLE_CUBE,
    CubeState,
    InvalidProbabilitiesError,
    MatchState,
    cubeful_equity,
    match_cubeful_mwc,
    match_equity,
    may_double,
    mwc_to_emg,
    no_double_value,
    normalised,
)
from bgzero.cube.cubeful import no_double_values, normalised_values
from bgzero.cube.met import match_cubeful_mwcs, match_equities, mwcs_to_emg
from bgzero.cube.money import cubeful_equities


def random_probs(rng, n: int) -> np.ndarray:
    """Cumulative probabilities, with the edges: certain wins and losses, no gammons, all gammons."""
    win = rng.uniform(0, 1, n)
    win[:8] = [0.0, 1.0, 1e-8, 1 - 1e-8, 0.5, 0.3, 0.7, 0.999]
    wg = win * rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < 0.8)
    wbg = wg * rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < 0.5)
    lg = (1 - win) * rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < 0.8)
    lbg = lg * rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < 0.5)
    wg[8], lg[9] = win[8], 1 - win[9]  # every win (loss) a gammon
    return np.stack([win, wg, wbg, lg, lbg], axis=1)


def match_states(length: int):
    """Every state of a ``length``-point match (money: ``length`` 0) worth checking, the cube at each value and owner."""
    cubes = [CubeState()] + [CubeState(v, o) for v in (2, 4, 8, 16, 32, 64) for o in (0, 1)]
    if length == 0:
        return [MatchState(0, (0, 0), jacoby=j, cube=c) for j in (False, True) for c in cubes]
    out = []
    for s0 in range(length):
        for s1 in range(length):
            crawfords = [False, True] if max(s0, s1) == length - 1 > min(s0, s1) else [False]
            for crawford in crawfords:
                for c in cubes if not crawford else [CubeState()]:
                    out.append(MatchState(length, (s0, s1), crawford=crawford, cube=c))
    return out


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 7, 11])
def test_no_double_values_equal_the_scalar_ones(length):
    rng = np.random.default_rng(35 + length)
    states = match_states(length)
    if len(states) > 150:  # a sample of the longer matches' states, the post-Crawford and Crawford ones all in
        late = [s for s in states if max(s.score) == length - 1 and s.cube.value <= 2]
        states = late + [states[i] for i in rng.choice(len(states), 150 - len(late), replace=False)]
    kinds = set()
    for state in states:
        probs = random_probs(rng, 40)
        lives = rng.uniform(0, 1, len(probs))
        lives[:3] = [0.0, 1.0, 0.68]
        for player in (0, 1):
            got = no_double_values(probs, state, player, lives)
            want = np.array([no_double_value(p, state, player, float(x)) for p, x in zip(probs, lives)])
            np.testing.assert_allclose(got, want, rtol=0, atol=0, err_msg=f"{state} player {player}")
            one = no_double_values(probs, state, player, 0.68)  # one cube life for every row
            np.testing.assert_allclose(one, [no_double_value(p, state, player, 0.68) for p in probs], rtol=0,
                                       atol=0)
            scale = np.linspace(-3, 3, len(probs)) if state.is_money else np.linspace(0, 1, len(probs))
            np.testing.assert_allclose(normalised_values(scale, state, player),
                                       [normalised(v, state, player) for v in scale], rtol=0, atol=0)
            if not state.is_money:
                np.testing.assert_allclose(match_equities(probs, state, player),
                                           [match_equity(p, state, player) for p in probs], rtol=0, atol=0)
                kinds.add(("post-Crawford" if state.post_crawford else "Crawford" if state.crawford else "pre",
                           "owned" if state.cube.owner == player else "centred" if state.cube.owner == CENTRED
                           else "unavailable", may_double(state, player)))
    if length >= 3:  # the test covers every kind of state
        assert {k[0] for k in kinds} == {"pre", "Crawford", "post-Crawford"}
        assert {k[1] for k in kinds} == {"owned", "centred", "unavailable"}


def test_money_cubeful_equities_equal_the_scalar_ones():
    rng = np.random.default_rng(1)
    probs = random_probs(rng, 500)
    lives = rng.uniform(0, 1, len(probs))
    for access in (CENTRED_CUBE, OWNED_CUBE, UNAVAILABLE_CUBE):
        for jacoby in (False, True):
            got = cubeful_equities(probs, access, lives, jacoby=jacoby)
            want = [cubeful_equity(p, access, float(x), jacoby=jacoby) for p, x in zip(probs, lives)]
            np.testing.assert_allclose(got, want, rtol=0, atol=0)


def test_match_values_are_the_scalar_ones_on_network_like_probabilities():
    """float32 probabilities that overshoot a bound by rounding are taken as the scalar function takes them."""
    rng = np.random.default_rng(2)
    probs = random_probs(rng, 300).astype(np.float32)
    state = MatchState(7, (3, 5), cube=CubeState(2, 1))
    got = match_cubeful_mwcs(probs, state, 1)
    np.testing.assert_allclose(got, [match_cubeful_mwc(p, state, 1) for p in probs], rtol=0, atol=0)
    emg = mwcs_to_emg(got, state, 1)
    np.testing.assert_allclose(emg, [mwc_to_emg(v, state, 1) for v in got], rtol=0, atol=0)


def test_bad_input_is_refused_as_the_scalar_function_refuses_it():
    state = MatchState(5, (1, 2))
    with pytest.raises(InvalidProbabilitiesError):
        match_cubeful_mwcs(np.array([[0.5, 0.6, 0.0, 0.0, 0.0]]), state, 0)  # more gammons than wins
    with pytest.raises(InvalidProbabilitiesError):
        match_cubeful_mwcs(np.array([[0.5, 0.1, 0.0, 0.0]]), state, 0)
    with pytest.raises(ValueError):
        match_cubeful_mwcs(np.array([[0.5, 0.1, 0.0, 0.0, 0.0]]), state, 0, 1.5)
    with pytest.raises(ValueError):
        match_cubeful_mwcs(np.array([[0.5, 0.1, 0.0, 0.0, 0.0]]), MatchState(0), 0)


def test_cube_lives_are_cube_efficiency_per_board():
    from bgzero.agents.cube import cube_lives
    from bgzero.cube import CLASSIC, GNUBG_SHALLOW, cube_efficiency
    from bgzero.engine.board import START, pip_counts
    from bgzero.engine.classify import RACE, PositionClass, classify
    from bgzero.engine.game import ROLLS
    from bgzero.engine.movegen import generate

    rng = np.random.default_rng(3)
    boards, seen = np.stack([START] * len(ROLLS)), []
    for _ in range(100):  # random games, to the bear-off and the end
        moves = generate(boards, ROLLS)
        seen.append(moves.results)
        boards = moves.results[[rng.integers(moves.offsets[i], moves.offsets[i + 1]) for i in range(len(boards))]]
    seen = np.concatenate(seen)
    kinds = classify(seen)
    assert {PositionClass.CONTACT, PositionClass.RACE, PositionClass.BEAROFF} <= set(kinds.tolist())
    pips = pip_counts(seen)[:, 0]
    for params in (GNUBG_SHALLOW, CLASSIC):
        want = [cube_efficiency(PositionClass(k), int(pips[i]) if k == RACE else None, params)
                for i, k in enumerate(kinds)]
        np.testing.assert_array_equal(cube_lives(seen, params), want)


def test_values_in_several_states_at_once_are_each_states_values():
    from bgzero.cube.cubeful import no_double_values_at

    rng = np.random.default_rng(4)
    probs = random_probs(rng, 200)
    lives = rng.uniform(0, 1, len(probs))
    for group in (match_states(0)[:6], match_states(5)[::7], match_states(3)):
        for player in (0, 1):
            got = no_double_values_at(probs, group, player, lives)
            want = np.stack([no_double_values(probs, s, player, lives) for s in group], axis=1)
            np.testing.assert_array_equal(got, want)
