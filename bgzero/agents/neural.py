"""The neural agent: plays the move whose result is worst for the opponent, at 0-2 ply, and uses the cube."""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.cube import cube_actions
from bgzero.evaluator import Evaluator
from bgzero.movegen import MoveBatch
from bgzero.net import equity
from bgzero.search import DEFAULT_FILTERS, choose_moves, evaluate_ply
from bgzero.segments import segment_argmax, segment_random


class NeuralAgent(Agent):
    """Neural agent at ``ply`` 0, 1 or 2, with optional ε-exploration for self-play.

    Move results come with the opponent on roll, so the evaluator's equity is the
    opponent's; the mover takes the candidate that minimises it.

    Cube decisions evaluate the position before the roll at the same ``ply`` and apply
    gnubg's 0-ply cube arithmetic to those probabilities (:mod:`bgzero.agents.cube`).
    """

    def __init__(self, evaluator: Evaluator, epsilon: float = 0.0, seed: int = 0, name: str = "neural",
                 ply: int = 0, filters=DEFAULT_FILTERS):
        self.evaluator = evaluator
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.ply = ply
        self.filters = filters

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        if self.ply == 0:
            best = segment_argmax(-equity(self.evaluator.probs(moves.results)), moves.offsets)
        else:
            best = choose_moves(self.evaluator, moves, self.ply, self.filters)
        if self.epsilon > 0:
            explore = self.rng.random(len(best)) < self.epsilon
            best[explore] = segment_random(moves.offsets, self.rng)[explore]
        return best

    def double_decision(self, boards, states, players) -> np.ndarray:
        return cube_actions(evaluate_ply(self.evaluator, boards, self.ply), boards, states, players)[0]

    def take_decision(self, boards, states, players) -> np.ndarray:
        return cube_actions(evaluate_ply(self.evaluator, boards, self.ply), boards, states, players)[1]
