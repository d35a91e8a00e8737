"""The cube decision for the side on roll: money or match play, the only place that sees both."""

from __future__ import annotations

from bgzero.cube.actions import CubeDecision
from bgzero.cube.met import match_cube_decision
from bgzero.cube.money import CLASSIC, money_cube_decision
from bgzero.cube.state import MatchState


def cube_decision(probs, state: MatchState, player: int, x: float = CLASSIC.contact) -> CubeDecision:
    """The cube decision for ``player`` on roll: money (:mod:`bgzero.cube.money`) or match play (:mod:`bgzero.cube.met`)."""
    if state.is_money:
        return money_cube_decision(probs, state, player, x)
    return match_cube_decision(probs, state, player, x)


def take_decision(probs, state: MatchState, doubler: int, x: float = CLASSIC.contact) -> str:
    """The taker's answer to a double by ``doubler``: ``"take"``, ``"pass"`` or ``"beaver"``.

    ``probs`` are still the doubler's (the side on roll, before rolling). The taker takes
    iff its equity after the take, -(double/take), is at least that of passing,
    -(double/pass), i.e. -1 in normalised equity.
    """
    return cube_decision(probs, state, doubler, x).response
