"""Match equity: the Kazaross-XG2 table, match-winning chances, and match-play cube decisions.

The table (``bgzero/data/met_kazaross_xg2.json``, gnubg's ``met/Kazaross-XG2.xml``, also
gnubg's default) gives the match-winning chance (MWC) by score, up to 25-away:

* before the Crawford game, ``pre_crawford[i][j]`` for a side needing ``i + 1`` points
  against one needing ``j + 1``; its row and column for 1-away are the *Crawford game*;
* after it, ``post_crawford[j]`` for the trailer needing ``j + 1`` points against the
  leader's 1 (the trailer's free drop at even scores included).

The cube decisions are gnubg's 0-ply ones: ``Cl2CfMatch`` (eval.c) mixes the dead-cube MWC
with a live-cube MWC interpolated between the cash points of ``GetPoints``
(matchequity.c), which follow the doubling windows up to the cube level that is dead for a
side, the opponent's automatic redouble included; ``x`` weights the live part exactly as
for money. "Double, take" is the same transformation with the doubled cube owned by the
taker, "double, pass" the MWC of winning the current cube value. Decisions compare these
MWCs; :func:`match_cube_decision` reports them as normalised equities (gnubg's "EMG",
where "double, pass" is +1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

import numpy as np

from bgzero.cube.actions import CubeDecision, CubeEquities, decide
from bgzero.cube.money import CLASSIC, check_cube_life, check_cube_lives, check_probs, check_probs_array
from bgzero.cube.state import (
    CENTRED_CUBE,
    OWNED_CUBE,
    IllegalCubeActionError,
    MatchState,
    after_take,
    cube_access,
    may_double,
)
from bgzero.errors import BgzeroError

MET_LENGTH = 25


class MetError(BgzeroError, ValueError):
    """A score the match equity table does not cover, or a match function given a money game."""


def _load() -> tuple[tuple[tuple[float, ...], ...], tuple[float, ...]]:
    data = json.loads(files("bgzero").joinpath("data/met_kazaross_xg2.json").read_text())
    pre = tuple(tuple(float(v) for v in row) for row in data["pre_crawford"])
    post = tuple(float(v) for v in data["post_crawford"])
    if data["length"] != MET_LENGTH or len(pre) != MET_LENGTH or len(post) != MET_LENGTH:
        raise MetError(f"the packaged MET is not {MET_LENGTH} points long")
    return pre, post


_PRE_CRAWFORD, _POST_CRAWFORD = _load()


def mwc(away_me: int, away_opp: int, *, crawford: bool | None = None) -> float:
    """MWC of a side needing ``away_me`` points against one needing ``away_opp``, before a game.

    When exactly one side is 1-away the score alone does not say which table applies, so
    ``crawford`` must say whether this game is the Crawford game (True) or post-Crawford
    (False); otherwise it is ignored. Post-Crawford values include the trailer's free drop.
    """
    for away in (away_me, away_opp):
        if isinstance(away, bool) or not hasattr(away, "__index__") or not 1 <= away <= MET_LENGTH:
            raise MetError(f"away scores must be integers from 1 to {MET_LENGTH}, got {away!r}")
    away_me, away_opp = int(away_me), int(away_opp)
    if (away_me == 1) != (away_opp == 1):
        if crawford is None:
            raise MetError(
                f"at {away_me}-away vs {away_opp}-away say crawford=True (Crawford game) or False (post-Crawford)"
            )
        if not crawford:
            return 1.0 - _POST_CRAWFORD[away_opp - 1] if away_me == 1 else _POST_CRAWFORD[away_me - 1]
    return _PRE_CRAWFORD[away_me - 1][away_opp - 1]


def _require_match(state: MatchState) -> None:
    if state.is_money:
        raise MetError("match equity needs a match, got a money game")
    if state.over:
        raise MetError(f"the match is over at {state.score}")


def _after(state: MatchState, player: int, gain: int, opp_gain: int) -> float:
    """MWC of ``player`` after this game gives it ``gain`` points and the opponent ``opp_gain`` (gnubg ``getME``).

    The next game is post-Crawford once a side was 1-away (or this is the Crawford game);
    otherwise a side newly 1-away plays the Crawford game next.
    """
    away, opp_away = state.away(player) - gain, state.away(1 - player) - opp_gain
    if away <= 0:
        return 1.0
    if opp_away <= 0:
        return 0.0
    return mwc(away, opp_away, crawford=not (state.crawford or state.post_crawford))


def _rates(probs) -> tuple[tuple[float, float], tuple[float, float]]:
    """(gammon-only, backgammon) shares of the wins and of the losses, as gnubg's rG/rBG."""
    win, wg, wbg, lg, lbg = probs
    mine = ((wg - wbg) / win, wbg / win) if win > 0 else (0.0, 0.0)
    theirs = ((lg - lbg) / (1 - win), lbg / (1 - win)) if win < 1 else (0.0, 0.0)
    return mine, theirs


def _win_mwc(state: MatchState, player: int, points: int, rates: tuple[float, float]) -> float:
    """MWC of ``player`` winning a game worth ``points``, ``2·points`` or ``3·points`` at these rates."""
    gammon, backgammon = rates
    return (
        (1 - gammon - backgammon) * _after(state, player, points, 0)
        + gammon * _after(state, player, 2 * points, 0)
        + backgammon * _after(state, player, 3 * points, 0)
    )


def _lose_mwc(state: MatchState, player: int, points: int, rates: tuple[float, float]) -> float:
    """MWC of ``player`` losing a game worth ``points``, ``2·points`` or ``3·points`` at the opponent's rates."""
    gammon, backgammon = rates
    return (
        (1 - gammon - backgammon) * _after(state, player, 0, points)
        + gammon * _after(state, player, 0, 2 * points)
        + backgammon * _after(state, player, 0, 3 * points)
    )


def match_equity(probs, state: MatchState, player: int) -> float:
    """Dead-cube MWC of ``player``, on roll with these probabilities, at the current cube value.

    Each outcome (single, gammon, backgammon won or lost: 1, 2, 3 times the cube) is
    weighted by its probability and valued by the MET at the score it leads to, a
    finished match counting 1 or 0. Equal to gnubg's ``eq2mwc(Utility(...))``.
    """
    _require_match(state)
    probs = check_probs(probs)
    mine, theirs = _rates(probs)
    cube = state.cube.value
    return probs[0] * _win_mwc(state, player, cube, mine) + (1 - probs[0]) * _lose_mwc(state, player, cube, theirs)


def _win_lose(state: MatchState, player: int) -> tuple[float, float]:
    _require_match(state)
    cube = state.cube.value
    return _after(state, player, cube, 0), _after(state, player, 0, cube)


def mwc_to_emg(value: float, state: MatchState, player: int) -> float:
    """Normalised equity (EMG) of an MWC: +1 is winning, -1 losing, a single game at the cube (gnubg ``mwc2eq``)."""
    win, lose = _win_lose(state, player)
    return (2 * value - (win + lose)) / (win - lose)


def emg_to_mwc(equity: float, state: MatchState, player: int) -> float:
    """The inverse of :func:`mwc_to_emg` (gnubg ``eq2mwc``)."""
    win, lose = _win_lose(state, player)
    return 0.5 * (equity * (win - lose) + (win + lose))


def cash_points(probs, state: MatchState, player: int) -> tuple[float, float]:
    """Live-cube cash points of ``player`` and of the opponent, each as its own winning chance.

    gnubg's ``GetPoints``: start from the highest cube level where a redouble would be dead
    for a side (there the cash point is the dead one, with the other side's automatic
    redouble when only the doubler would be dead), then step down one doubling window at a
    time. The opponent's take point is one minus the doubler's cash point.
    """
    _require_match(state)
    rates = _rates(check_probs(probs))
    sides = (player, 1 - player)
    aways = tuple(state.away(side) - 1 for side in sides)  # gnubg's 0-based "away"
    cube, levels = state.cube.value, 0
    while min(aways) >= 2 * (cube << levels):
        levels += 1
    live = [[0.0] * (levels + 2) for _ in sides]
    for level in range(levels, -1, -1):
        value = cube << level
        for k in (0, 1):
            side, other = sides[k], 1 - k
            cash = _after(state, side, value, 0)
            if min(aways) < 2 * value:  # the doubled cube is dead
                prime = 2 * value if aways[k] < 2 * value <= aways[other] else value
                take_win = _win_mwc(state, side, 2 * prime, rates[k])
                take_lose = _lose_mwc(state, side, 2 * prime, rates[other])
                live[k][level] = (take_lose - cash) / (take_lose - take_win)
            else:
                take_win = _win_mwc(state, side, 2 * value, rates[k])
                redouble_pass = _after(state, side, 0, 2 * value)
                live[k][level] = 1 - live[other][level + 1] * (cash - take_win) / (redouble_pass - take_win)
    return live[0][0], live[1][0]


def take_point(state: MatchState, doubler: int, probs=None) -> float:
    """The winning chance the taker needs to take a double by ``doubler`` with a live cube.

    One minus the doubler's cash point from :func:`cash_points`; ``probs`` (the doubler's)
    only supply the gammon rates, and without them the game is gammonless.
    """
    return 1 - cash_points((0.5, 0, 0, 0, 0) if probs is None else probs, state, doubler)[0]


def _cube_alive(state: MatchState) -> bool:
    """gnubg's ``fDoCubeful``: no live cube in the Crawford game, at 2-away/2-away, or when it is dead for both."""
    n, cube, (s0, s1) = state.match_length, state.cube.value, state.score
    return not (s0 + cube >= n and s1 + cube >= n or s0 == s1 == n - 2 or state.crawford)


def match_cubeful_mwc(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> float:
    """Cubeful MWC of ``player`` on roll: dead·(1 - x) + live·x (gnubg ``Cl2CfMatch``).

    The live MWC is linear in the win chance between: losing at the opponent's gammon
    rates (p = 0), the opponent cashing (p = the opponent's cash point, when it can
    double), ``player`` cashing (p = its cash point, when it can double), and winning at
    its own rates (p = 1).
    """
    check_cube_life(x)
    dead = match_equity(probs, state, player)
    if not _cube_alive(state):
        return dead
    probs = check_probs(probs)
    win = probs[0]
    mine, theirs = _rates(probs)
    cube = state.cube.value
    cash, opp_cash = _after(state, player, cube, 0), _after(state, player, 0, cube)
    win_all, lose_all = _win_mwc(state, player, cube, mine), _lose_mwc(state, player, cube, theirs)
    my_cash_point, opp_cash_point = cash_points(probs, state, player)
    opp_too_good, too_good = 1 - opp_cash_point, my_cash_point
    access = cube_access(state, player)
    if access == OWNED_CUBE:
        if win <= too_good:
            live = lose_all + (cash - lose_all) * win / too_good if too_good > 0 else lose_all
        else:
            live = cash + (win_all - cash) * (win - too_good) / (1 - too_good) if too_good < 1 else win_all
    elif win <= opp_too_good:
        live = lose_all + (opp_cash - lose_all) * win / opp_too_good if opp_too_good > 0 else lose_all
    elif access != CENTRED_CUBE:
        live = opp_cash + (win_all - opp_cash) * (win - opp_too_good) / (1 - opp_too_good)
    elif win < too_good:
        live = opp_cash + (cash - opp_cash) * (win - opp_too_good) / (too_good - opp_too_good)
    else:
        live = cash + (win_all - cash) * (win - too_good) / (1 - too_good) if too_good < 1 else win_all
    return dead * (1 - x) + live * x


# --------------------------------------------------------------------------- vectorised
#
# The same computations over many probability vectors at one match state: the terms that
# depend on the score and cube alone (the MET after each result, the cube levels of the
# cash points, the cube access) are computed once per (state, player) and cached, and the
# arithmetic on the probabilities is done on arrays, operation for operation as the scalar
# functions above do it, so the results agree with theirs to the last bit or so.


@dataclass(frozen=True)
class _Level:
    """One side's doubling window at one cube level of :func:`cash_points`."""

    cash: float
    dead: bool
    take_win: tuple[float, float, float]  # MWC after winning 1, 2, 3 times the take's cube
    take_lose: tuple[float, float, float]  # dead cube: after losing them
    redouble_pass: float  # live cube: after the opponent's redouble is passed


@dataclass(frozen=True)
class _Terms:
    """What :func:`match_cubeful_mwc` needs of a (state, player) besides the probabilities."""

    alive: bool
    access: str
    win: tuple[float, float, float]  # MWC after winning 1, 2, 3 times the cube
    lose: tuple[float, float, float]  # after losing them
    levels: tuple[tuple[_Level, _Level], ...]  # from the lowest cube level up, (player, opponent)


@lru_cache(maxsize=4096)
def _terms(state: MatchState, player: int) -> _Terms:
    _require_match(state)
    cube = state.cube.value
    sides = (player, 1 - player)
    aways = tuple(state.away(side) - 1 for side in sides)
    levels = 0
    while min(aways) >= 2 * (cube << levels):
        levels += 1
    table = []
    for level in range(levels + 1):
        value = cube << level
        pair = []
        for k in (0, 1):
            side, other = sides[k], 1 - k
            cash = _after(state, side, value, 0)
            if min(aways) < 2 * value:
                prime = 2 * value if aways[k] < 2 * value <= aways[other] else value
                points = 2 * prime
                pair.append(_Level(cash, True, tuple(_after(state, side, j * points, 0) for j in (1, 2, 3)),
                                   tuple(_after(state, side, 0, j * points) for j in (1, 2, 3)), 0.0))
            else:
                points = 2 * value
                pair.append(_Level(cash, False, tuple(_after(state, side, j * points, 0) for j in (1, 2, 3)),
                                   (0.0, 0.0, 0.0), _after(state, side, 0, 2 * value)))
        table.append(tuple(pair))
    return _Terms(_cube_alive(state), cube_access(state, player),
                  tuple(_after(state, player, j * cube, 0) for j in (1, 2, 3)),
                  tuple(_after(state, player, 0, j * cube) for j in (1, 2, 3)), tuple(table))


def _rates_array(p: np.ndarray):
    """:func:`_rates` of each row of ``p`` (n, 5)."""
    win, wg, wbg, lg, lbg = p.T
    with np.errstate(divide="ignore", invalid="ignore"):
        mine = (np.where(win > 0, (wg - wbg) / win, 0.0), np.where(win > 0, wbg / win, 0.0))
        theirs = (np.where(win < 1, (lg - lbg) / (1 - win), 0.0), np.where(win < 1, lbg / (1 - win), 0.0))
    # each with the single games' share, 1 - gammon - backgammon, computed once for every _mix
    return (*mine, 1 - mine[0] - mine[1]), (*theirs, 1 - theirs[0] - theirs[1])


def _mix(rates, after: tuple[float, float, float]):
    """:func:`_win_mwc` / :func:`_lose_mwc` with the three MWCs given (``rates`` from :func:`_rates_array`)."""
    gammon, backgammon, single = rates
    return single * after[0] + gammon * after[1] + backgammon * after[2]


def match_equities(probs, state: MatchState, player: int) -> np.ndarray:
    """:func:`match_equity` of each row of ``probs`` (n, 5), as an array."""
    return _match_equities(check_probs_array(probs), _terms(state, player))


def _match_equities(p: np.ndarray, t: _Terms, rates=None) -> np.ndarray:
    mine, theirs = _rates_array(p) if rates is None else rates
    win = p[:, 0]
    return win * _mix(mine, t.win) + (1 - win) * _mix(theirs, t.lose)


def match_cubeful_mwcs(probs, state: MatchState, player: int, x=CLASSIC.contact) -> np.ndarray:
    """:func:`match_cubeful_mwc` of each row of ``probs`` (n, 5); ``x`` one cube life or one per row.

    Equal to the scalar function row by row (the same operations in the same order); the
    score's part of the computation is done once per (state, player).
    """
    p = check_probs_array(probs)
    return _match_cubeful(p, _rates_array(p), check_cube_lives(x, len(p)), _terms(state, player))


def _match_cubeful(p: np.ndarray, rates, x: np.ndarray, t: _Terms) -> np.ndarray:
    """:func:`match_cubeful_mwcs` of checked probabilities, their rates and cube lives given."""
    mine, theirs = rates
    win = p[:, 0]
    win_all, lose_all = _mix(mine, t.win), _mix(theirs, t.lose)
    dead = win * win_all + (1 - win) * lose_all  # _match_equities, its two parts kept
    if not t.alive:
        return dead
    cash, opp_cash = t.win[0], t.lose[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        live_points = [None, None]
        for pair in reversed(t.levels):
            above = live_points
            live_points = [None, None]
            for k in (0, 1):
                lv, other = pair[k], 1 - k
                take_win = _mix(rates[k], lv.take_win)
                if lv.dead:
                    take_lose = _mix(rates[other], lv.take_lose)
                    live_points[k] = (take_lose - lv.cash) / (take_lose - take_win)
                else:
                    live_points[k] = 1 - above[other] * (lv.cash - take_win) / (lv.redouble_pass - take_win)
        too_good, opp_too_good = live_points[0], 1 - live_points[1]
        high = np.where(too_good < 1, cash + (win_all - cash) * (win - too_good) / (1 - too_good), win_all)
        if t.access == OWNED_CUBE:
            low = np.where(too_good > 0, lose_all + (cash - lose_all) * win / too_good, lose_all)
            live = np.where(win <= too_good, low, high)
        else:
            low = np.where(opp_too_good > 0, lose_all + (opp_cash - lose_all) * win / opp_too_good, lose_all)
            if t.access != CENTRED_CUBE:
                mid = opp_cash + (win_all - opp_cash) * (win - opp_too_good) / (1 - opp_too_good)
            else:
                mid = np.where(win < too_good, opp_cash + (cash - opp_cash) * (win - opp_too_good)
                               / (too_good - opp_too_good), high)
            live = np.where(win <= opp_too_good, low, mid)
    return dead * (1 - x) + live * x


def mwcs_to_emg(values, state: MatchState, player: int) -> np.ndarray:
    """:func:`mwc_to_emg` of an array of MWCs."""
    win, lose = _win_lose(state, player)
    return (2 * np.asarray(values, np.float64) - (win + lose)) / (win - lose)


def pass_mwc(state: MatchState, player: int) -> float:
    """MWC of ``player`` when its double is passed: the current cube won."""
    _require_match(state)
    return _after(state, player, state.cube.value, 0)


def match_cube_equities(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeEquities:
    """MWCs of no double, double/take (cube doubled, owned by the taker) and double/pass for ``player``."""
    return CubeEquities(
        no_double=match_cubeful_mwc(probs, state, player, x),
        double_take=match_cubeful_mwc(probs, after_take(state, player), player, x),
        double_pass=pass_mwc(state, player),
    )


def match_cube_decision(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeDecision:
    """The match cube decision for ``player`` on roll before rolling, equities as EMG (pass = +1)."""
    _require_match(state)
    if not may_double(state, player):
        raise IllegalCubeActionError(f"player {player} may not double in {state}")
    mwcs = match_cube_equities(probs, state, player, x)
    equities = CubeEquities(
        no_double=mwc_to_emg(mwcs.no_double, state, player),
        double_take=mwc_to_emg(mwcs.double_take, state, player),
        double_pass=1.0,  # winning the current cube is +1 by the definition of EMG
    )
    return decide(equities, wins_gammons=check_probs(probs)[1] > 0)
