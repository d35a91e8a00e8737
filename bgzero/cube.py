"""The doubling cube and the match score (docs/rules.md sections 7-8), and money cube decisions.

State is immutable: :class:`CubeState` and :class:`MatchState` are frozen dataclasses and
every rule is a pure function returning a new state, so a match runner can keep a history
and replay it. Players are gnubg's 0 and 1; a cube owner of ``-1`` means centred.

Money cube decisions follow GNU Backgammon's 0-ply cube handling: ``Cl2CfMoney`` and
``MoneyLive`` (eval.c) turn the five cubeless probabilities of the side on roll into a
cubeful equity with Janowski's model, and ``FindBestCubeDecision`` (eval.c) picks the
action from the three equities "no double", "double, take" and "double, pass". Equities
are normalised as gnubg does: in units of the current cube, so "double, pass" is +1 and
"double, take" is twice the equity after the take (the stake doubles). Match-play
decisions live in :mod:`bgzero.met` and are reached through :func:`cube_decision`.

Probabilities are ``(win, win gammon, win backgammon, lose gammon, lose backgammon)``,
cumulative (a backgammon is also a gammon), for the side on roll *before* it rolls: the
convention of :mod:`bgzero.net` and of ``gnubg.evaluate``.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, replace

from bgzero.errors import BgzeroError
from bgzero.ids import MAX_CUBE, MAX_MATCH_LENGTH, GameState, MatchInfo

CENTRED = -1

# Cube access of the side on roll, the three cases of gnubg's MoneyLive.
CENTRED_CUBE = "centred"
OWNED_CUBE = "owned"
UNAVAILABLE_CUBE = "unavailable"

# Position kinds for cube_efficiency (gnubg's position classes, as far as the cube cares).
CONTACT = "contact"
CRASHED = "crashed"
RACE = "race"
BEAROFF = "bearoff"
OVER = "over"

# Decisions (the doubler's action, with the taker's proper answer folded in, as gnubg prints).
NO_DOUBLE = "no double"
DOUBLE_TAKE = "double, take"
DOUBLE_PASS = "double, pass"
DOUBLE_BEAVER = "double, beaver"
TOO_GOOD = "too good"
TAKE = "take"
PASS = "pass"
BEAVER = "beaver"

_EPSILON = 1e-7  # gnubg's Cl2CfMoney: a cube this close to certain is dead
_PROB_TOLERANCE = 1e-6  # float32 network outputs may overshoot their bounds by rounding


class MatchStateError(BgzeroError, ValueError):
    """A cube or match state that cannot occur under the rules (or outside gnubg's limits)."""


class IllegalCubeActionError(BgzeroError, ValueError):
    """A cube action or award the rules forbid in the given state."""


class InvalidProbabilitiesError(BgzeroError, ValueError):
    """Five cubeless probabilities that are not cumulative probabilities of one position."""


# --------------------------------------------------------------------------- state


def _int(name: str, value) -> int:
    """``value`` as an int (bools and numpy integers pass, floats and strings do not)."""
    try:
        return operator.index(value)
    except TypeError:
        raise MatchStateError(f"{name} must be an integer, got {value!r}") from None


def _cube_value(value) -> int:
    value = _int("cube value", value)
    if value < 1 or value > MAX_CUBE or value & (value - 1):
        raise MatchStateError(f"cube value {value} is not a power of two from 1 to {MAX_CUBE}")
    return value


def _check_player(player) -> None:
    if player not in (0, 1) or isinstance(player, float):
        raise MatchStateError(f"player must be 0 or 1, got {player!r}")


@dataclass(frozen=True)
class CubeState:
    """The cube's value (1-64) and owner (``-1`` centred, else the player who may redouble).

    A centred cube is always at 1 and a doubled one always owned (rules 24 and 26), so the
    two fields are checked against each other.
    """

    value: int = 1
    owner: int = CENTRED

    def __post_init__(self) -> None:
        value, owner = _cube_value(self.value), _int("cube owner", self.owner)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "owner", owner)
        if owner not in (CENTRED, 0, 1):
            raise MatchStateError(f"cube owner {owner} is not -1 (centred), 0 or 1")
        if (value == 1) != (owner == CENTRED):
            raise MatchStateError(f"a cube at {value} cannot be {'centred' if owner == CENTRED else 'owned'}")


@dataclass(frozen=True)
class MatchState:
    """Score, options and cube before a turn of a match (``match_length`` N) or money game (0).

    ``crawford`` marks the current game as the Crawford game (rule 30); later games with a
    side at N-1 are post-Crawford (:attr:`post_crawford`). ``jacoby`` and ``beavers`` are
    the money options of rule 28; they are kept in a match (a Match ID carries the Jacoby
    bit) but act only in money play. In money play ``score`` is a running total.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    cube: CubeState = CubeState()

    def __post_init__(self) -> None:
        n = _int("match_length", self.match_length)
        object.__setattr__(self, "match_length", n)
        try:
            s0, s1 = self.score
        except (TypeError, ValueError):
            raise MatchStateError(f"score must be a pair of integers, got {self.score!r}") from None
        score = (_int("score", s0), _int("score", s1))
        object.__setattr__(self, "score", score)
        for name in ("crawford", "jacoby", "beavers"):
            flag = getattr(self, name)
            if flag not in (0, 1):  # True and False too
                raise MatchStateError(f"{name} must be a bool, got {flag!r}")
            object.__setattr__(self, name, bool(flag))
        if not isinstance(self.cube, CubeState):
            raise MatchStateError(f"cube must be a CubeState, got {self.cube!r}")
        if not 0 <= n <= MAX_MATCH_LENGTH:
            raise MatchStateError(f"match_length {n} is not 0 (money) to {MAX_MATCH_LENGTH}")
        if min(score) < 0:
            raise MatchStateError(f"score {score} is negative")
        if n == 0:
            if self.crawford:
                raise MatchStateError("crawford is set in a money game")
            return
        if max(score) > n or min(score) >= n:
            raise MatchStateError(f"score {score} is impossible in a {n}-point match")
        if self.crawford and not (max(score) == n - 1 > min(score)):
            raise MatchStateError(f"score {score} cannot be a Crawford game: exactly one side must be at {n - 1}")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def over(self) -> bool:
        """Whether a side has reached the match length (never in money play)."""
        return not self.is_money and max(self.score) >= self.match_length

    @property
    def post_crawford(self) -> bool:
        """A game after the Crawford game: a side is at N-1, the match goes on, and not ``crawford``."""
        return not self.is_money and not self.over and not self.crawford and max(self.score) == self.match_length - 1

    @property
    def jacoby_active(self) -> bool:
        """Gammons count single now: money play, the Jacoby option, and the cube still centred."""
        return self.is_money and self.jacoby and self.cube.owner == CENTRED

    def away(self, player: int) -> int:
        """Points ``player`` still needs to win the match."""
        _check_player(player)
        if self.is_money:
            raise MatchStateError("a money game has no match length, so no side is 'away'")
        return self.match_length - self.score[player]


# --------------------------------------------------------------------------- rules


def may_double(state: MatchState, player: int) -> bool:
    """Whether ``player`` (the side on roll, before rolling: rule 25) may double now.

    Rules 24-25 (centred or own cube), 27 (cap 64), 30 (not in the Crawford game) and 31
    (not when winning this game at the current cube already wins the match, which also
    covers the leader post-Crawford). The same test as gnubg's ``GetDPEq``.
    """
    _check_player(player)
    if state.over or state.cube.owner not in (CENTRED, player) or 2 * state.cube.value > MAX_CUBE:
        return False
    if state.is_money:
        return True
    return not state.crawford and state.score[player] + state.cube.value < state.match_length


def may_beaver(state: MatchState, doubler: int) -> bool:
    """Whether the opponent of ``doubler`` may answer a legal double with a beaver (rule 28).

    Money play with the beavers option only, and the redoubled cube must stay within 64.
    """
    return state.is_money and state.beavers and may_double(state, doubler) and 4 * state.cube.value <= MAX_CUBE


def after_take(state: MatchState, doubler: int) -> MatchState:
    """The state after ``doubler`` doubles and the opponent takes: twice the value, taker owns (rule 26)."""
    if not may_double(state, doubler):
        raise IllegalCubeActionError(f"player {doubler} may not double in {state}")
    return replace(state, cube=CubeState(2 * state.cube.value, 1 - doubler))


def after_beaver(state: MatchState, doubler: int) -> MatchState:
    """The state after a double and a beaver: four times the value, the beaverer keeps the cube."""
    if not may_beaver(state, doubler):
        raise IllegalCubeActionError(f"player {1 - doubler} may not beaver a double by {doubler} in {state}")
    return replace(state, cube=CubeState(4 * state.cube.value, 1 - doubler))


def drop_points(state: MatchState) -> int:
    """Points a pass concedes: the cube value *before* the double, i.e. ``state``'s (rule 26)."""
    return state.cube.value


def points_for(kind: int, cube_value: int, *, jacoby: bool = False) -> int:
    """Points for a game won as ``kind`` (1 single, 2 gammon, 3 backgammon) at ``cube_value``.

    ``jacoby`` is :attr:`MatchState.jacoby_active`: then gammons and backgammons count as
    single games (rule 28).
    """
    kind = _int("result kind", kind)
    if kind not in (1, 2, 3):
        raise MatchStateError(f"result kind {kind} is not 1 (single), 2 (gammon) or 3 (backgammon)")
    return (1 if jacoby else kind) * _cube_value(cube_value)


def award(state: MatchState, winner: int, points: int) -> MatchState:
    """The state for the next game after ``winner`` scores ``points`` (rules 26, 29, 30, 32).

    The cube returns to the centre. In a match the score stops at N (rule 29), and the next
    game is the Crawford game exactly when this award brings a side to N-1 for the first
    time in the match; games after it are post-Crawford.
    """
    _check_player(winner)
    points = _int("points", points)
    if points < 1:
        raise IllegalCubeActionError(f"points must be positive, got {points}")
    if state.over:
        raise IllegalCubeActionError(f"the match is over at {state.score}; no more points can be awarded")
    score = list(state.score)
    score[winner] += points
    crawford = False
    n = state.match_length
    if n:
        score[winner] = min(score[winner], n)
        crawford = max(state.score) < n - 1 and score[winner] == n - 1
    return replace(state, score=tuple(score), crawford=crawford, cube=CubeState())


def match_winner(state: MatchState) -> int | None:
    """The player who has reached the match length, else ``None`` (always ``None`` for money)."""
    if not state.over:
        return None
    return 0 if state.score[0] >= state.match_length else 1


# --------------------------------------------------------------------------- Match IDs


def to_match_info(
    state: MatchState,
    *,
    on_roll: int,
    turn: int | None = None,
    dice: tuple[int, int] = (0, 0),
    double_offered: bool = False,
    resignation: int = 0,
    game_state: int | None = None,
) -> MatchInfo:
    """The :class:`~bgzero.ids.MatchInfo` (hence Match ID) of ``state`` with ``on_roll`` to play.

    ``turn`` (who must act) defaults to ``on_roll``; ``game_state`` to playing, or over once
    a side has won. Beavers are not part of a Match ID.
    """
    _check_player(on_roll)
    return MatchInfo(
        cube_value=state.cube.value,
        cube_owner=state.cube.owner,
        dice_owner=on_roll,
        crawford=state.crawford,
        game_state=(GameState.OVER if state.over else GameState.PLAYING) if game_state is None else game_state,
        turn=on_roll if turn is None else turn,
        double_offered=double_offered,
        resignation=resignation,
        dice=dice,
        match_length=state.match_length,
        score=state.score,
        jacoby=state.jacoby,
    )


def from_match_info(info: MatchInfo, *, beavers: bool = False) -> MatchState:
    """The :class:`MatchState` recorded in ``info`` (who is on roll is ``info.dice_owner``)."""
    return MatchState(
        match_length=info.match_length,
        score=info.score,
        crawford=info.crawford,
        jacoby=info.jacoby,
        beavers=beavers,
        cube=CubeState(info.cube_value, info.cube_owner),
    )


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


def cube_efficiency(kind: str, pips: int | None = None, params: CubeEfficiency = CLASSIC) -> float:
    """Cube life ``x`` for a position ``kind``; a race needs ``pips``, the pip count of the side on roll.

    ``"over"`` (a finished game) has a dead cube, 0.
    """
    if kind == RACE:
        if pips is None or pips < 0:
            raise MatchStateError(f"a race needs the pip count of the side on roll, got {pips!r}")
        return min(max(params.race_coefficient + params.race_factor * pips, params.race_min), params.race_max)
    fixed = {CONTACT: params.contact, CRASHED: params.crashed, BEAROFF: params.bearoff, OVER: 0.0}
    if kind not in fixed:
        raise MatchStateError(f"position kind {kind!r} is not one of {sorted([*fixed, RACE])}")
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


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class CubeEquities:
    """The doubler's value of no double, double/take and double/pass.

    Normalised equities in a :class:`CubeDecision` and from :func:`money_cube_equities`;
    match-winning chances from :func:`bgzero.met.match_cube_equities`.
    """

    no_double: float
    double_take: float
    double_pass: float


@dataclass(frozen=True)
class CubeDecision:
    """A cube decision for the side on roll, in normalised equity (+1 = "double, pass").

    ``action`` is the doubler's proper action with the taker's answer folded in
    (``"no double"``, ``"double, take"``, ``"double, pass"``, ``"double, beaver"`` or
    ``"too good"``); ``response`` is what the taker should answer a double with (``"take"``,
    ``"pass"`` or ``"beaver"``), whatever the doubler does; ``equity`` is the equity of
    the proper action.
    """

    action: str
    response: str
    equity: float
    equities: CubeEquities


def decide(equities: CubeEquities, *, wins_gammons: bool, beaver_allowed: bool = False) -> CubeDecision:
    """gnubg's ``FindBestCubeDecision`` on the three equities of the doubler.

    The taker passes when "double, take" is worth more to the doubler than "double, pass"
    (a tie takes), and beavers (when allowed) while the take is worth less than 0 to the
    doubler: the beaver doubles the stake again. The doubler doubles when the double, as
    answered, is worth at least "no double". A position worth more than "double, pass"
    undoubled is "too good" when it can win a gammon (gnubg's sanity check); without
    gammons gnubg calls it "double, pass" if the taker would pass, else "no double".
    """
    nd, dt, dp = equities.no_double, equities.double_take, equities.double_pass
    if dt > dp:
        response, doubled = PASS, dp
    elif beaver_allowed and dt < 0:
        response, doubled = BEAVER, 2 * dt
    else:
        response, doubled = TAKE, dt
    if doubled >= nd:
        action = {PASS: DOUBLE_PASS, TAKE: DOUBLE_TAKE, BEAVER: DOUBLE_BEAVER}[response]
        return CubeDecision(action, response, doubled, equities)
    if nd > dp and wins_gammons:
        action = TOO_GOOD
    elif nd > dp and response == PASS:
        action = DOUBLE_PASS
    else:
        action = NO_DOUBLE
    return CubeDecision(action, response, nd, equities)


def cube_access(state: MatchState, player: int) -> str:
    """``"centred"``, ``"owned"`` or ``"unavailable"``: the cube as ``player`` sees it."""
    _check_player(player)
    owner = state.cube.owner
    return CENTRED_CUBE if owner == CENTRED else OWNED_CUBE if owner == player else UNAVAILABLE_CUBE


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


def cube_decision(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeDecision:
    """The cube decision for ``player`` on roll: money (here) or match play (:mod:`bgzero.met`)."""
    if state.is_money:
        return money_cube_decision(probs, state, player, x)
    from bgzero import met  # met builds on this module, so it is imported only when needed

    return met.match_cube_decision(probs, state, player, x)


def take_decision(probs, state: MatchState, doubler: int, x: float = CLASSIC.contact) -> str:
    """The taker's answer to a double by ``doubler``: ``"take"``, ``"pass"`` or ``"beaver"``.

    ``probs`` are still the doubler's (the side on roll, before rolling). The taker takes
    iff its equity after the take, -(double/take), is at least that of passing,
    -(double/pass), i.e. -1 in normalised equity.
    """
    return cube_decision(probs, state, doubler, x).response


def _require_money(state: MatchState) -> None:
    if not state.is_money:
        raise MatchStateError(f"money cube functions need a money game, got a {state.match_length}-point match")


def _require_double(state: MatchState, player: int) -> None:
    if not may_double(state, player):
        raise IllegalCubeActionError(f"player {player} may not double in {state}")
