"""The neural agent: plays the move whose result is worst for the opponent."""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.evaluator import Evaluator
from bgzero.movegen import MoveBatch
from bgzero.net import equity
from bgzero.segments import segment_argmax, segment_random


class NeuralAgent(Agent):
    """0-ply neural agent, with optional ε-exploration for self-play.

    Move results come with the opponent on roll, so the evaluator's equity is the
    opponent's; the mover takes the candidate that minimises it.
    """

    def __init__(self, evaluator: Evaluator, epsilon: float = 0.0, seed: int = 0, name: str = "neural"):
        self.evaluator = evaluator
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)
        self.name = name

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        opp_equity = equity(self.evaluator.probs(moves.results))
        best = segment_argmax(-opp_equity, moves.offsets)
        if self.epsilon > 0:
            explore = self.rng.random(len(best)) < self.epsilon
            best[explore] = segment_random(moves.offsets, self.rng)[explore]
        return best
