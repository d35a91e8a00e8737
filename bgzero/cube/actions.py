"""Cube actions and the choice among them: gnubg's ``FindBestCubeDecision``.

The doubler's three equities ("no double", "double, take", "double, pass") decide both
sides' actions, whether they are money equities or match-winning chances; money play
(:mod:`bgzero.cube.money`) and match play (:mod:`bgzero.cube.met`) both end here.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_DOUBLE = "no double"
DOUBLE_TAKE = "double, take"
DOUBLE_PASS = "double, pass"
DOUBLE_BEAVER = "double, beaver"
TOO_GOOD = "too good"
TAKE = "take"
PASS = "pass"
BEAVER = "beaver"


@dataclass(frozen=True)
class CubeEquities:
    """The doubler's value of no double, double/take and double/pass.

    Normalised equities in a :class:`CubeDecision` and from :func:`money_cube_equities`;
    match-winning chances from :func:`bgzero.cube.met.match_cube_equities`.
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
