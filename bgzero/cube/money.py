"""Money cube decisions from cubeless probabilities: Janowski's model as gnubg uses it.

Money cube decisions follow GNU Backgammon's 0-ply cube handling: ``Cl2CfMoney`` and
``MoneyLive`` (eval.c) turn the five cubeless probabilities of the side on roll into a
cubeful equity with Janowski's model, and ``FindBestCubeDecision`` (eval.c) picks the
action from the three equities "no double", "double, take" and "double, pass". Equities
are normalised as gnubg does: in units of the current cube, so "double, pass" is +1 and
"double, take" is twice the equity after the take (the stake doubles).

Probabilities are ``(win, win gammon, win backgammon, lose gammon, lose backgammon)``,
cumulative (a backgammon is also a gammon), for the side on roll *before* it rolls: the
convention of :mod:`bgzero.value.probs` and of ``gnubg.evaluate``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bgzero.cube.actions import CubeDecision, CubeEquities, decide
from bgzero.cube.state import (
    CENTRED_CUBE,
    OWNED_CUBE,
    UNAVAILABLE_CUBE,
    IllegalCubeActionError,
    MatchState,
    MatchStateError,
    cube_access,
    may_beaver,
    may_double,
)
from bgzero.engine.classify import BEAROFF, CONTACT, CRASHED, OVER, RACE, PositionClass
from bgzero.errors import BgzeroError

_EPSILON = 1e-7  # gnubg's Cl2CfMoney: a cube this close to certain is dead
_PROB_TOLERANCE = 1e-6  # float32 network outputs may overshoot their bounds by rounding


class InvalidProbabilitiesError(BgzeroError, ValueError):
    """Five cubeless probabilities that are not cumulative probabilities of one position."""



# --------------------------------------------------------------------------- Janowski


@dataclass(frozen=True)
class CubeEfficiency:
    """Janowski's cube life ``x`` by position kind, gnubg's ``EvalEfficiency`` parameters.

    The defaults (:data:`CLASSIC`) are gnubg's historical values, still its 2+ ply ones:
    0.68 for contact and crashed positions, 0.6 for one-sided bear-offs, and for races
    ``x = 0.55 + 0.00125 * pips`` (pips of the side on roll) kept in [0.6, 0.7].
    """

    contact: float = 0.68
    crashed: float = 0.68
    bearoff: float = 0.6
    race_factor: float = 0.00125
    race_coefficient: float = 0.55
    race_min: float = 0.6
    race_max: float = 0.7


CLASSIC = CubeEfficiency()
# What gnubg 1.07+ uses at 0 and 1 ply (`show cubeefficiency`, the second figures): the
# parameters that reproduce its 0-ply `hint` cube equities.
GNUBG_SHALLOW = CubeEfficiency(
    contact=0.76, crashed=0.76, bearoff=0.6, race_factor=0.0025, race_coefficient=0.6, race_min=0.6, race_max=0.8
)


def gnubg_efficiency(plies: int) -> CubeEfficiency:
    """The cube life gnubg gives the leaves of a cubeful evaluation ``plies`` deep.

    :data:`GNUBG_SHALLOW` at 0 and 1 ply, :data:`CLASSIC` deeper: bgzero's 2-ply search on
    gnubg's own 0-ply net gives gnubg's 2-ply ``hint`` equities with CLASSIC (median
    error under 0.0005) and misses them by 0.002-0.006 with the shallow set.
    """
    return GNUBG_SHALLOW if plies <= 1 else CLASSIC


def cube_efficiency(kind: PositionClass, pips: int | None = None, params: CubeEfficiency = CLASSIC) -> float:
    """Cube life ``x`` for a position ``kind``; a race needs ``pips``, the pip count of the side on roll.

    ``OVER`` (a finished game) has a dead cube, 0.
    """
    if kind == RACE:
        if pips is None or pips < 0:
            raise MatchStateError(f"a race needs the pip count of the side on roll, got {pips!r}")
        return min(max(params.race_coefficient + params.race_factor * pips, params.race_min), params.race_max)
    fixed = {CONTACT: params.contact, CRASHED: params.crashed, BEAROFF: params.bearoff, OVER: 0.0}
    if kind not in fixed:
        raise MatchStateError(f"position kind {kind!r} is not a position class: {[c.name for c in PositionClass]}")
    return fixed[kind]


def check_probs(probs) -> tuple[float, float, float, float, float]:
    """``probs`` as five floats, after checking they are cumulative probabilities.

    Network outputs may overshoot a bound by float32 rounding; that much is tolerated.
    """
    try:
        values = tuple(float(p) for p in probs)
    except (TypeError, ValueError):
        raise InvalidProbabilitiesError(f"probabilities must be a sequence of 5 numbers, got {probs!r}") from None
    if len(values) != 5 or not all(math.isfinite(v) for v in values):
        raise InvalidProbabilitiesError(
            f"need 5 finite probabilities (win, win g, win bg, lose g, lose bg), got {values}"
        )
    win, wg, wbg, lg, lbg = values
    tol = _PROB_TOLERANCE
    cumulative = (
        -tol <= win <= 1 + tol
        and -tol <= wbg <= wg + tol
        and wg <= win + tol
        and -tol <= lbg <= lg + tol
        and lg <= 1 - win + tol
    )
    if not cumulative:
        raise InvalidProbabilitiesError(
            f"probabilities {values} are not cumulative: need 0 <= wbg <= wg <= win <= 1 and 0 <= lbg <= lg <= 1 - win"
        )
    return values


def check_probs_array(probs) -> np.ndarray:
    """``probs`` (n, 5) as a float64 array, after checking each row as :func:`check_probs` does."""
    p = np.asarray(probs, np.float64)
    if p.ndim != 2 or p.shape[1] != 5:
        raise InvalidProbabilitiesError(f"need an (n, 5) array of probabilities, got shape {p.shape}")
    if not np.isfinite(p).all():
        raise InvalidProbabilitiesError("need 5 finite probabilities (win, win g, win bg, lose g, lose bg) per row")
    win, wg, wbg, lg, lbg = p.T
    tol = _PROB_TOLERANCE
    cumulative = ((-tol <= win) & (win <= 1 + tol) & (-tol <= wbg) & (wbg <= wg + tol) & (wg <= win + tol)
                  & (-tol <= lbg) & (lbg <= lg + tol) & (lg <= 1 - win + tol))
    if not cumulative.all():
        check_probs(p[np.flatnonzero(~cumulative)[0]])  # raises, naming the row
    return p


def check_cube_lives(x, n: int) -> np.ndarray:
    """A cube life per row: ``x`` one number or ``n`` of them, each in [0, 1]."""
    lives = np.broadcast_to(np.asarray(x, np.float64), (n,))
    if not ((lives >= 0) & (lives <= 1)).all():
        check_cube_life(float(lives[np.flatnonzero(~((lives >= 0) & (lives <= 1)))[0]]))
    return lives


def dead_equity(probs, *, jacoby: bool = False) -> float:
    """Cubeless money equity per cube (gnubg ``Utility``); with ``jacoby`` gammons count single."""
    win, wg, wbg, lg, lbg = check_probs(probs)
    gammon_price = 0.0 if jacoby else 1.0
    return 2 * win - 1 + gammon_price * (wg - lg + wbg - lbg)


def average_win_loss(probs) -> tuple[float, float]:
    """Janowski's W and L: the average size of a win and of a loss, in cubes.

    W = 1 + (wg + wbg)/win and L = 1 + (lg + lbg)/(1 - win), from the cumulative outputs
    (a backgammon adds 1 through each of wg and wbg). A side that never wins (or never
    loses) gets 1.
    """
    win, wg, wbg, lg, lbg = check_probs(probs)
    big_win = 1 + (wg + wbg) / win if win > 0 else 1.0
    big_loss = 1 + (lg + lbg) / (1 - win) if win < 1 else 1.0
    return big_win, big_loss


def janowski_points(probs) -> tuple[float, float]:
    """The live-cube take point TP = (L - 1/2)/(W + L + 1/2) and cash point CP = (L + 1)/(W + L + 1/2).

    Both are winning chances of the side on roll, as in gnubg's ``MoneyLive``.
    """
    big_win, big_loss = average_win_loss(probs)
    return (big_loss - 0.5) / (big_win + big_loss + 0.5), (big_loss + 1) / (big_win + big_loss + 0.5)


def live_equity(probs, access: str, *, jacoby: bool = False) -> float:
    """Janowski's fully live cube equity per cube (gnubg ``MoneyLive``), piecewise linear in the win chance.

    ``access`` is the cube of the side on roll: ``"centred"`` (-L at 0, -1 at TP, +1 at CP,
    W at 1), ``"owned"`` (-L at 0, +1 at CP, W at 1) or ``"unavailable"`` (-L at 0, -1 at
    TP, W at 1). With ``jacoby`` and a centred cube the ends are flat at -1 and +1: the
    side that is too good must cash, as gammons would not count.
    """
    win = check_probs(probs)[0]
    big_win, big_loss = average_win_loss(probs)
    take_point, cash_point = janowski_points(probs)
    if access == CENTRED_CUBE:
        if win < take_point:
            return -1.0 if jacoby else -big_loss + (big_loss - 1) * win / take_point
        if win < cash_point:
            return -1 + 2 * (win - take_point) / (cash_point - take_point)
        return 1.0 if jacoby else 1 + (big_win - 1) * (win - cash_point) / (1 - cash_point)
    if access == OWNED_CUBE:
        if win < cash_point:
            return -big_loss + (1 + big_loss) * win / cash_point
        return 1 + (big_win - 1) * (win - cash_point) / (1 - cash_point)
    if access == UNAVAILABLE_CUBE:
        if win < take_point:
            return -big_loss + (big_loss - 1) * win / take_point
        return -1 + (big_win + 1) * (win - take_point) / (1 - take_point)
    raise MatchStateError(f"cube access {access!r} is not one of {(CENTRED_CUBE, OWNED_CUBE, UNAVAILABLE_CUBE)}")


def cubeful_equity(probs, access: str, x: float = CLASSIC.contact, *, jacoby: bool = False) -> float:
    """Money cubeful equity per cube: dead·(1 - x) + live·x (gnubg ``Cl2CfMoney``).

    As in gnubg, a side (almost) sure to win or to lose has a dead cube: the dead equity.
    """
    check_cube_life(x)
    win = check_probs(probs)[0]
    dead = dead_equity(probs, jacoby=jacoby)
    if win <= _EPSILON or win >= 1 - _EPSILON:
        return dead
    return dead * (1 - x) + live_equity(probs, access, jacoby=jacoby) * x


def cubeful_equities(probs, access: str, x=CLASSIC.contact, *, jacoby: bool = False) -> np.ndarray:
    """:func:`cubeful_equity` of each row of ``probs`` (n, 5); ``x`` one cube life or one per row.

    The same operations as the scalar functions, on arrays: equal to them row by row.
    """
    p = check_probs_array(probs)
    x = check_cube_lives(x, len(p))
    if access not in (CENTRED_CUBE, OWNED_CUBE, UNAVAILABLE_CUBE):
        raise MatchStateError(f"cube access {access!r} is not one of {(CENTRED_CUBE, OWNED_CUBE, UNAVAILABLE_CUBE)}")
    return _cubeful_equities(p, x, access, jacoby)


def _cubeful_equities(p: np.ndarray, x: np.ndarray, access: str, jacoby: bool) -> np.ndarray:
    """:func:`cubeful_equities` of checked probabilities and cube lives."""
    win, wg, wbg, lg, lbg = p.T
    dead = 2 * win - 1 + (0.0 if jacoby else 1.0) * (wg - lg + wbg - lbg)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_win = np.where(win > 0, 1 + (wg + wbg) / win, 1.0)
        big_loss = np.where(win < 1, 1 + (lg + lbg) / (1 - win), 1.0)
        take_point = (big_loss - 0.5) / (big_win + big_loss + 0.5)
        cash_point = (big_loss + 1) / (big_win + big_loss + 0.5)
        if access == CENTRED_CUBE:
            low = -1.0 if jacoby else -big_loss + (big_loss - 1) * win / take_point
            high = 1.0 if jacoby else 1 + (big_win - 1) * (win - cash_point) / (1 - cash_point)
            live = np.where(win < take_point, low, np.where(
                win < cash_point, -1 + 2 * (win - take_point) / (cash_point - take_point), high))
        elif access == OWNED_CUBE:
            live = np.where(win < cash_point, -big_loss + (1 + big_loss) * win / cash_point,
                            1 + (big_win - 1) * (win - cash_point) / (1 - cash_point))
        else:
            live = np.where(win < take_point, -big_loss + (big_loss - 1) * win / take_point,
                            -1 + (big_win + 1) * (win - take_point) / (1 - take_point))
    return np.where((win <= _EPSILON) | (win >= 1 - _EPSILON), dead, dead * (1 - x) + live * x)


def money_equities(probs, state: MatchState, player: int, x=CLASSIC.contact) -> np.ndarray:
    """:func:`money_equity` of each row of ``probs`` (n, 5), as an array."""
    _require_money(state)
    return cubeful_equities(probs, cube_access(state, player), x, jacoby=state.jacoby_active)


def check_cube_life(x: float) -> None:
    """Reject a cube life ``x`` outside [0, 1] (0 is a dead cube, 1 a fully live one)."""
    if not 0 <= x <= 1:
        raise MatchStateError(f"cube life x must be in [0, 1], got {x!r}")


def money_take_point(big_win: float, big_loss: float, x: float = CLASSIC.contact) -> float:
    """The smallest winning chance with which a money take is right, for the taker.

    ``big_win`` and ``big_loss`` are the *doubler's* W and L. The taker takes while the
    doubler's "double, take" equity, 2·cubeful(unavailable), is at most +1; both are
    linear in the doubler's win chance p on each side of TP, so this solves for p. With
    no gammons this is 25% for a dead cube (x = 0), 20% for a fully live one (x = 1) and
    (1/2)/(2 + x/2), 21.4%, at x = 0.68.
    """
    check_cube_life(x)
    take_point = (big_loss - 0.5) / (big_win + big_loss + 0.5)

    def solve(slope: float, intercept: float) -> float:
        return (0.5 - intercept) / slope  # doubler's p where slope·p + intercept = 1/2

    # dead(p) = p·W - (1-p)·L; live above TP = -1 + (W+1)(p-TP)/(1-TP); below = -L + (L-1)p/TP
    dead_slope, dead_intercept = big_win + big_loss, -big_loss
    live_slope = (big_win + 1) / (1 - take_point)
    p = solve(
        (1 - x) * dead_slope + x * live_slope,
        (1 - x) * dead_intercept + x * (-1 - live_slope * take_point),
    )
    if p < take_point:
        p = solve((1 - x) * dead_slope + x * (big_loss - 1) / take_point, (1 - x) * dead_intercept - x * big_loss)
    return 1 - p


def money_equity(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> float:
    """Cubeful money equity per cube of ``player``, on roll in ``state``, by Janowski's model."""
    _require_money(state)
    return cubeful_equity(probs, cube_access(state, player), x, jacoby=state.jacoby_active)


def money_cube_equities(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeEquities:
    """No double, double/take and double/pass (+1) for ``player`` on roll, per current cube.

    After a take the cube is the opponent's (unavailable to ``player``) and no longer
    centred, so the Jacoby rule stops applying; the stake doubles, hence the factor 2.
    """
    _require_money(state)
    return CubeEquities(
        no_double=money_equity(probs, state, player, x),
        double_take=2 * cubeful_equity(probs, UNAVAILABLE_CUBE, x),
        double_pass=1.0,
    )


def money_cube_decision(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeDecision:
    """The money cube decision for ``player`` on roll before rolling; the double must be legal."""
    _require_money(state)
    _require_double(state, player)
    return decide(
        money_cube_equities(probs, state, player, x),
        wins_gammons=check_probs(probs)[1] > 0,
        beaver_allowed=may_beaver(state, player),
    )



def _require_money(state: MatchState) -> None:
    if not state.is_money:
        raise MatchStateError(f"money cube functions need a money game, got a {state.match_length}-point match")


def _require_double(state: MatchState, player: int) -> None:
    if not may_double(state, player):
        raise IllegalCubeActionError(f"player {player} may not double in {state}")
