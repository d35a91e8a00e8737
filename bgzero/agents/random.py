"""The uniformly random mover: the floor every agent must beat."""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.engine.movegen import MoveBatch
from bgzero.engine.segments import segment_random


class RandomAgent(Agent):
    """Picks uniformly among the distinct legal results.

    The cube keeps the :class:`~bgzero.agents.base.Agent` defaults: never doubles, always takes.
    """

    name = "random"
    deterministic = False

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        return segment_random(moves.offsets, self.rng)
