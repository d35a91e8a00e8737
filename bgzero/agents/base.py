"""The agent interface: choose one move for each of many positions at once."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from bgzero.movegen import MoveBatch


class Agent(ABC):
    """A checker-play policy over batches.

    ``choose`` receives B boards (side on roll in row 0), their rolls, and the move
    generator's candidates for them, and returns for each board the index of the chosen
    result in ``moves.results`` (a global index, between ``offsets[b]`` and
    ``offsets[b+1]``). Working on the whole batch lets neural agents evaluate every
    candidate of every game in one forward pass.
    """

    name: str = "agent"

    @abstractmethod
    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        """Global indices (B,) into ``moves.results``."""

    def __repr__(self) -> str:
        return self.name
