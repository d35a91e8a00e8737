"""The neural agent: plays the move whose result is worst for the opponent, at 0-2 ply, and uses the cube."""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.cubeful import choose_for_score, cube_decisions
from bgzero.agents.search import DEFAULT_FILTERS, choose_moves
from bgzero.cube import DOUBLE_PASS, DOUBLE_TAKE, PASS
from bgzero.engine.movegen import MoveBatch
from bgzero.engine.segments import segment_argmax, segment_random, segment_runner_up
from bgzero.value.evaluator import Evaluator, checker_play
from bgzero.value.probs import equity


class NeuralAgent(Agent):
    """Neural agent at ``ply`` 0, 1 or 2, with optional ε-exploration for self-play.

    Move results come with the opponent on roll, so the evaluator's equity is the
    opponent's; the mover takes the candidate that minimises it.

    With the cube (:meth:`choose_for_score`) candidates are ranked by cubeful money equity or
    match-winning chance, and cube decisions are taken, by the cubeful search of
    :mod:`bgzero.agents.cubeful` at the same ``ply`` (at 0 ply, gnubg's 0-ply cube arithmetic);
    plain :meth:`choose`, as training uses, stays cubeless.
    """

    def __init__(self, evaluator: Evaluator, epsilon: float = 0.0, seed: int = 0, name: str = "neural",
                 ply: int = 0, filters=DEFAULT_FILTERS, explore_top: int = 0):
        self.evaluator = evaluator
        self.epsilon = epsilon
        self.explore_top = explore_top
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.ply = ply
        self.filters = filters

    @property
    def deterministic(self) -> bool:
        return self.epsilon == 0  # exploring moves are drawn at random

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        return self.choose_and_greedy(boards, dice, moves)[0]

    def choose_and_greedy(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> tuple[np.ndarray, np.ndarray]:
        """The moves played and the greedy ones; they differ only where the agent explored.

        With chance ``epsilon`` a move explores: a uniformly random legal move, or with
        ``explore_top = k > 0`` one of the k best other moves by 0-ply equity. Self-play
        keeps the greedy move so that the explored position learns its greedy value.
        """
        score = None
        if self.ply == 0:
            score = -equity(checker_play(self.evaluator, 0).probs(moves.results))
            greedy = segment_argmax(score, moves.offsets)
        else:
            greedy = choose_moves(self.evaluator, moves, self.ply, self.filters)
        return self._explore(greedy, moves, score), greedy

    def choose_for_score(self, boards, dice, moves, states, players) -> np.ndarray:
        greedy = choose_for_score(self.evaluator, moves, states, players, self.ply, self.filters)
        return self._explore(greedy, moves)

    def _explore(self, greedy: np.ndarray, moves: MoveBatch, score: np.ndarray | None = None) -> np.ndarray:
        """The moves played: ``greedy``, but where exploring another (ranked by 0-ply cubeless equity)."""
        chosen = greedy.copy()
        if self.epsilon > 0:
            explore = self.rng.random(len(greedy)) < self.epsilon
            if self.explore_top > 0:
                if score is None:
                    score = -equity(self.evaluator.probs(moves.results))
                other = segment_runner_up(score, moves.offsets, greedy, self.explore_top, self.rng.random(len(greedy)))
            else:
                other = segment_random(moves.offsets, self.rng)
            chosen[explore] = other[explore]
        return chosen

    def double_decision(self, boards, states, players) -> np.ndarray:
        decisions = cube_decisions(self.evaluator, boards, states, players, self.ply)[0]
        return np.array([d.action in (DOUBLE_TAKE, DOUBLE_PASS) for d in decisions], bool)

    def take_decision(self, boards, states, players) -> np.ndarray:
        decisions = cube_decisions(self.evaluator, boards, states, players, self.ply)[0]
        return np.array([d.response != PASS for d in decisions], bool)
