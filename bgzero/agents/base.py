"""The agent interface: choose one move, and answer the cube, for many positions at once."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from bgzero.cube import MatchState
from bgzero.engine.movegen import MoveBatch


class Agent(ABC):
    """A checker-play policy over batches.

    ``choose`` receives B boards (side on roll in row 0), their rolls, and the move
    generator's candidates for them, and returns for each board the index of the chosen
    result in ``moves.results`` (a global index, between ``offsets[b]`` and
    ``offsets[b+1]``). Working on the whole batch lets neural agents evaluate every
    candidate of every game in one forward pass.

    The cube (:mod:`bgzero.match.runner`) is answered the same way, a batch at a time. An agent
    that has no view of the cube keeps the defaults: it never doubles and always takes.

    Games with the cube (matches and money sessions) ask :meth:`choose_for_score`, which
    also passes each board's match state and mover; an agent that plays the same whatever
    the score keeps the default, plain :meth:`choose`. Cubeless play (training, duplicate
    games) asks :meth:`choose`.
    """

    name: str = "agent"

    @property
    def deterministic(self) -> bool:
        """The same board and roll always get the same move (a rollout then plays each once)."""
        return True

    @abstractmethod
    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        """Global indices (B,) into ``moves.results``."""

    def choose_for_score(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch,
                         states: Sequence[MatchState], players) -> np.ndarray:
        """Global indices (B,) as :meth:`choose`, for board ``b`` played by ``players[b]`` in ``states[b]``.

        By default the score and cube make no difference.
        """
        return self.choose(boards, dice, moves)

    def double_decision(self, boards: np.ndarray, states: Sequence[MatchState], players) -> np.ndarray:
        """(B,) bool: offer a double? By default never.

        ``boards`` have the would-be doubler on roll, before it rolls; ``states`` are the
        match states before the double and ``players`` the doubler's player number (0 or
        1). Asked only where :func:`bgzero.cube.state.may_double` allows the double.
        """
        return np.zeros(len(boards), bool)

    def take_decision(self, boards: np.ndarray, states: Sequence[MatchState], players) -> np.ndarray:
        """(B,) bool: take the double (else pass)? By default always.

        The arguments are those the doubler was asked with: ``boards`` with the *doubler* on
        roll, the states before the double, and the *doubler's* player number.
        """
        return np.ones(len(boards), bool)

    def __repr__(self) -> str:
        return self.name
