"""GNU Backgammon as an agent, through the ``gnubg-nn`` PyPI package (optional).

gnubg's engine is global state: use one per process, never share it between threads.
Moves come from ``gnubg_nn.best_move``, which (unlike ``gnubg.findbestmove``) does not
truncate a move at its first bear-off.

Cube decisions: neither package answers one directly. ``gnubg``'s Python ``hint`` refuses
cube actions ("not yet implemented"), ``gnubg.evaluate`` returns only cubeless values even
with a cubeful context, and ``gnubg_nn.evaluate_cube_decision`` covers match play only, from
a global score. So the agent takes gnubg's cubeless probabilities before the roll
(``gnubg_nn.probabilities`` at its ply) and applies gnubg's 0-ply cube arithmetic to them
(:mod:`bgzero.agents.cube`: Janowski with gnubg's 0/1-ply cube life, money and match). At
0 ply that is gnubg's 0-ply cube arithmetic on gnubg's own probabilities (except that gnubg
reads two-sided bear-offs from its cubeful database); at 1-2 ply it is n-ply cubeless
probabilities under the 0-ply cube model, not gnubg's cubeful n-ply search.
"""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.cube import cube_actions
from bgzero.engine.board import to_gnubg
from bgzero.engine.movegen import MoveBatch
from bgzero.engine.notation import apply_steps
from bgzero.errors import ConfigError


class GnubgAgent(Agent):
    """gnubg's neural net at ``ply`` 0-2 (its 1-ply is our 1-ply)."""

    def __init__(self, ply: int = 0):
        try:
            import gnubg_nn
        except ImportError:
            raise ConfigError("agent 'gnubg' needs GNU Backgammon's Python engine: pip install gnubg-nn") from None
        self._best_move = gnubg_nn.best_move
        self._probabilities = gnubg_nn.probabilities
        self.ply = ply
        self.name = f"gnubg-{ply}ply"

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        chosen = np.empty(len(boards), np.int64)
        for b, (board, (d1, d2)) in enumerate(zip(boards, dice)):
            lo, hi = moves.offsets[b], moves.offsets[b + 1]
            if hi - lo == 1:
                chosen[b] = lo
                continue
            steps = self._best_move(to_gnubg(board), int(d1), int(d2), n=self.ply)
            result = apply_steps(board, steps)
            match = np.flatnonzero((moves.results[lo:hi] == result).all(axis=(1, 2)))
            if len(match) != 1:
                raise RuntimeError(f"gnubg's move {steps} for {board.tolist()} with {d1}-{d2} is not a legal result")
            chosen[b] = lo + match[0]
        return chosen

    def _probs(self, boards: np.ndarray) -> np.ndarray:
        return np.array([self._probabilities(to_gnubg(board), self.ply) for board in boards], np.float64)

    def double_decision(self, boards, states, players) -> np.ndarray:
        return cube_actions(self._probs(boards), boards, states, players)[0]

    def take_decision(self, boards, states, players) -> np.ndarray:
        return cube_actions(self._probs(boards), boards, states, players)[1]


class GnubgNet:
    """gnubg's 0-ply net (``gnubg-nn``) as an evaluator, one position at a time: a rollout's
    judge, or the checkpoint's place in bgzero's search; no pruning net, so every reply is scored."""

    pruner = None

    def __init__(self, needed_by: str = "this"):
        try:
            import gnubg_nn
        except ImportError:
            raise ConfigError(f"{needed_by} needs GNU Backgammon's Python engine: pip install gnubg-nn") from None
        self._probabilities = gnubg_nn.probabilities

    def probs(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) probabilities for the side on roll of each board, before it rolls."""
        return np.array([self._probabilities(to_gnubg(b), 0) for b in boards], np.float32).reshape(-1, 5)
