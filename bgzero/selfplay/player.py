"""Vectorised self-play: many games in lockstep, one generate and one forward per ply.

A :class:`SelfPlayer` keeps ``parallel_games`` games in flight; when one ends, a new game
starts in its slot, so every ply works on a full batch. Finished games come out as
:class:`Trajectories`: the positions each mover faced (side on roll in row 0), back to
back, each game's result for the mover of its last position, and where the agent
explored, the greedy move's result it passed over (the TD targets back up from it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgzero.agents.base import Agent
from bgzero.engine.board import START
from bgzero.engine.game import game_results


@dataclass
class Trajectories:
    """Finished games stored back to back."""

    boards: np.ndarray  # (P, 2, 25) int8, the positions s_t seen by the side on roll
    lengths: np.ndarray  # (G,) plies per game
    points: np.ndarray  # (G,) result for the mover of each game's last position (> 0)
    explored: np.ndarray  # (P,) bool, the move from s_t was exploratory, not greedy
    greedy: np.ndarray  # (E, 2, 25) int8, the greedy results at the explored s_t, in order

    @property
    def games(self) -> int:
        return len(self.lengths)

    @staticmethod
    def concat(parts: list["Trajectories"]) -> "Trajectories":
        return Trajectories(*(np.concatenate([getattr(p, f) for p in parts])
                              for f in ("boards", "lengths", "points", "explored", "greedy")))


def roll_dice(rng: np.random.Generator, n: int, opening: np.ndarray) -> np.ndarray:
    """(n, 2) dice; rows flagged ``opening`` never get a double (rule 5)."""
    dice = rng.integers(1, 7, size=(n, 2), dtype=np.int8)
    doubles = opening & (dice[:, 0] == dice[:, 1])
    while doubles.any():
        dice[doubles] = rng.integers(1, 7, size=(int(doubles.sum()), 2), dtype=np.int8)
        doubles = opening & (dice[:, 0] == dice[:, 1])
    return dice


class SelfPlayer:
    """Plays an agent against itself, ``parallel_games`` at a time."""

    def __init__(self, agent: Agent, parallel_games: int, seed: int):
        from bgzero.engine.movegen import generate

        self._generate = generate
        self.agent = agent
        self.rng = np.random.default_rng(seed)
        self.boards = np.repeat(START[None], parallel_games, axis=0)
        self.history: list[list[np.ndarray]] = [[] for _ in range(parallel_games)]
        self.passed_over: list[list[np.ndarray | None]] = [[] for _ in range(parallel_games)]

    def play(self, games: int) -> Trajectories:
        """Advance all slots until at least ``games`` games have finished."""
        done_boards, lengths, points, explored, greedy = [], [], [], [], []
        while len(lengths) < games:
            opening = np.array([not h for h in self.history])
            dice = roll_dice(self.rng, len(self.boards), opening)
            moves = self._generate(self.boards, dice)
            chosen_idx, greedy_idx = self.agent.choose_and_greedy(self.boards, dice, moves)
            chosen = moves.results[chosen_idx]
            for slot, h in enumerate(self.history):
                h.append(self.boards[slot])
                self.passed_over[slot].append(moves.results[greedy_idx[slot]] if chosen_idx[slot] != greedy_idx[slot]
                                              else None)
            over = game_results(chosen)
            self.boards = chosen
            for slot in np.flatnonzero(over):
                h = self.history[slot]
                done_boards.append(np.stack(h))
                lengths.append(len(h))
                points.append(-int(over[slot]))  # the side now on roll lost
                explored.extend(g is not None for g in self.passed_over[slot])
                greedy.extend(g for g in self.passed_over[slot] if g is not None)
                self.history[slot], self.passed_over[slot] = [], []
                self.boards[slot] = START
        greedy_boards = np.stack(greedy) if greedy else np.empty((0, 2, 25), np.int8)
        return Trajectories(np.concatenate(done_boards), np.array(lengths), np.array(points),
                            np.array(explored, bool), greedy_boards)
