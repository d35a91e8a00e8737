"""Cube play from cubeless probabilities, for agents that can estimate them.

An agent that evaluates a position before the roll (the five probabilities of the side on
roll) gets its doubles and takes here, by the arithmetic GNU Backgammon uses at 0 ply:
Janowski's model with a cube life ``x`` by position class, then gnubg's choice among "no
double", "double, take" and "double, pass" (:func:`bgzero.cube.state.cube_decision`, money or
match). The cube life is :data:`~bgzero.cube.money.GNUBG_SHALLOW`, gnubg's own setting for 0- and
1-ply cube decisions (the cubeful search gives the leaves of a 2+ ply search
:data:`~bgzero.cube.money.CLASSIC`, as gnubg does: :func:`bgzero.cube.gnubg_efficiency`): given
the same probabilities they decide as gnubg's 0-ply ``hint`` does outside two-sided
bear-offs, which gnubg reads from a cubeful database.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgzero.cube import (
    DOUBLE_PASS,
    DOUBLE_TAKE,
    GNUBG_SHALLOW,
    PASS,
    CubeEfficiency,
    MatchState,
    cube_decision,
    cube_efficiency,
)
from bgzero.engine.board import pip_counts
from bgzero.engine.classify import RACE, PositionClass, classify


def cube_lives(boards: np.ndarray, params: CubeEfficiency = GNUBG_SHALLOW) -> np.ndarray:
    """Janowski's cube life per board, by class (a race's by the roller's pips)."""
    kinds = np.asarray(classify(boards), np.int64)
    by_kind = np.zeros(len(PositionClass))
    for kind in PositionClass:
        if kind != RACE:
            by_kind[kind] = cube_efficiency(kind, None, params)
    lives = by_kind[kinds]
    race = kinds == RACE
    if race.any():  # cube_efficiency's race formula, on arrays
        pips = pip_counts(boards)[race, 0].astype(np.float64)
        lives[race] = np.minimum(np.maximum(params.race_coefficient + params.race_factor * pips, params.race_min),
                                 params.race_max)
    return lives


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
