"""Cubeful values: what a side on roll is worth with the cube and the score, in one currency for a search.

Checker play for the score and the cubeful search (:mod:`bgzero.agents.cubeful`) compare
positions reached with different cube values, so they need a currency that does not change
with the cube: money *points* (the normalised equity times the cube value) and, in a match,
the match-winning chance. Both grow with the side's prospects, and the opponent's value is
``-v`` in money and ``1 - v`` in a match. Gammons that cannot change the result count for
nothing in a match, as the MET gives them the same MWC (double match point, or a cube so
high that a single win decides); the Crawford game has a dead cube.
"""

from __future__ import annotations

import numpy as np

from bgzero.cube.actions import CubeEquities
from bgzero.cube.met import (
    _match_cubeful,
    _rates_array,
    _terms,
    match_cube_equities,
    match_cubeful_mwc,
    match_cubeful_mwcs,
    mwc_to_emg,
    mwcs_to_emg,
    pass_mwc,
)
from bgzero.cube.money import (
    CLASSIC,
    _cubeful_equities,
    check_cube_lives,
    check_probs_array,
    money_cube_equities,
    money_equities,
    money_equity,
)
from bgzero.cube.state import MatchState, cube_access, may_double


def no_double_value(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> float:
    """``player``'s Janowski value on roll, not doubling now: money points or MWC."""
    if state.is_money:
        return money_equity(probs, state, player, x) * state.cube.value
    return match_cubeful_mwc(probs, state, player, x)


def no_double_values(probs, state: MatchState, player: int, x=CLASSIC.contact) -> np.ndarray:
    """:func:`no_double_value` of each row of ``probs`` (n, 5) at one state, as an array (``x``: one or per row)."""
    if state.is_money:
        return money_equities(probs, state, player, x) * state.cube.value
    return match_cubeful_mwcs(probs, state, player, x)


def no_double_values_at(probs, states, player: int, x=CLASSIC.contact) -> np.ndarray:
    """(n, len(states)): :func:`no_double_values` in each of ``states``, the rows checked once."""
    p = check_probs_array(probs)
    x = check_cube_lives(x, len(p))
    out = np.empty((len(p), len(states)))
    rates = None
    for j, state in enumerate(states):
        if state.is_money:
            out[:, j] = _cubeful_equities(p, x, cube_access(state, player), state.jacoby_active) * state.cube.value
        else:
            rates = _rates_array(p) if rates is None else rates
            out[:, j] = _match_cubeful(p, rates, x, _terms(state, player))
    return out


def cube_values(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeEquities:
    """No double, double/take and double/pass for ``player``, as values (the double must be legal)."""
    if state.is_money:
        eq = money_cube_equities(probs, state, player, x)
        cube = state.cube.value
        return CubeEquities(eq.no_double * cube, eq.double_take * cube, eq.double_pass * cube)
    return match_cube_equities(probs, state, player, x)


def pass_value(state: MatchState, player: int) -> float:
    """``player``'s value when the opponent passes its double: the current cube won."""
    if state.is_money:
        return float(state.cube.value)
    return pass_mwc(state, player)


def proper_value(no_double: float, double_take: float | None, double_pass: float) -> float:
    """The value after the proper cube action: the doubler doubles when the taker's best answer beats not doubling.

    ``double_take`` is ``None`` where the side may not double. A side "too good" to double
    keeps "no double", as its value then exceeds "double, pass".
    """
    if double_take is None:
        return no_double
    return max(no_double, min(double_take, double_pass))


def cubeful_value(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> float:
    """``player``'s value on roll after its proper cube action, by Janowski's model (gnubg's 0-ply leaf)."""
    if not may_double(state, player):
        return no_double_value(probs, state, player, x)
    v = cube_values(probs, state, player, x)
    return proper_value(v.no_double, v.double_take, v.double_pass)


def other_side(value: float, state: MatchState) -> float:
    """The opponent's value of the same position: ``-value`` in money, ``1 - value`` in a match."""
    return -value if state.is_money else 1.0 - value


def normalised(value: float, state: MatchState, player: int) -> float:
    """A value as gnubg prints it: money per cube (cubeful equity), match as EMG."""
    if state.is_money:
        return value / state.cube.value
    return mwc_to_emg(value, state, player)


def normalised_values(values, state: MatchState, player: int) -> np.ndarray:
    """:func:`normalised` of an array of values at one state."""
    if state.is_money:
        return np.asarray(values, np.float64) / state.cube.value
    return mwcs_to_emg(values, state, player)
