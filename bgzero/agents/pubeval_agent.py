"""Tesauro's pubeval as an agent: the fixed yardstick of backgammon programs."""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.board import swap_sides
from bgzero.movegen import MoveBatch
from bgzero.pubeval import pubeval_choose


class PubevalAgent(Agent):
    """Plays the candidate pubeval scores highest (race weights chosen before the move).

    pubeval scores moves, not positions, so it has no view of the cube: it keeps the
    :class:`~bgzero.agents.base.Agent` defaults, never doubling and always taking.
    """

    name = "pubeval"

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        return pubeval_choose(boards, swap_sides(moves.results), moves.offsets)
