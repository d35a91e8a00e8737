"""Cube play from cubeless probabilities, for agents that can estimate them.

An agent that evaluates a position before the roll (the five probabilities of the side on
roll) gets its doubles and takes here, by the arithmetic GNU Backgammon uses at 0 ply:
Janowski's model with a cube life ``x`` by position class, then gnubg's choice among "no
double", "double, take" and "double, pass" (:func:`bgzero.cube.cube_decision`, money or
match). The cube life is :data:`~bgzero.cube.GNUBG_SHALLOW`, gnubg's own setting for 0- and
1-ply cube decisions (rather than :data:`~bgzero.cube.CLASSIC`, its 2+ ply one), since the
agents decide at 0 or 1 ply: given the same probabilities they decide as gnubg's 0-ply
``hint`` does outside two-sided bear-offs, which gnubg reads from a cubeful database.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgzero.bearoff import is_bearoff
from bgzero.board import pip_counts
from bgzero.cube import (
    BEAROFF,
    CONTACT,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    GNUBG_SHALLOW,
    PASS,
    RACE,
    CubeEfficiency,
    MatchState,
    cube_decision,
    cube_efficiency,
)
from bgzero.pubeval import is_race


def cube_kinds(boards: np.ndarray) -> list[str]:
    """The cube-life class per board: bear-off (both sides home), race, or contact."""
    bearoff, race = is_bearoff(boards), is_race(boards)
    return [BEAROFF if bearoff[b] else RACE if race[b] else CONTACT for b in range(len(boards))]


def cube_lives(boards: np.ndarray, params: CubeEfficiency = GNUBG_SHALLOW) -> np.ndarray:
    """Janowski's cube life per board, by class (a race's by the roller's pips)."""
    pips = pip_counts(boards)[:, 0]
    return np.array([cube_efficiency(kind, int(pips[b]) if kind == RACE else None, params)
                     for b, kind in enumerate(cube_kinds(boards))])


def cube_actions(probs: np.ndarray, boards: np.ndarray, states: Sequence[MatchState], doublers,
                 params: CubeEfficiency = GNUBG_SHALLOW) -> tuple[np.ndarray, np.ndarray]:
    """``(double, take)``, two (B,) bool arrays: should the doubler double, should the taker take.

    ``probs`` (B, 5) are the doubler's, on roll before rolling in ``boards``; every double
    must be legal in ``states``. The doubler doubles when doubling is right and the taker's
    answer does not matter to that ("double, take" or "double, pass"), never when it is
    "too good" to double (play on for a gammon) or "no double".
    """
    lives = cube_lives(boards, params)
    decisions = [cube_decision(p, s, int(d), float(x)) for p, s, d, x in zip(probs, states, doublers, lives)]
    double = np.array([d.action in (DOUBLE_TAKE, DOUBLE_PASS) for d in decisions], bool)
    take = np.array([d.response != PASS for d in decisions], bool)
    return double, take
