"""Vectorised self-play: many games in lockstep, one generate and one forward per ply.

:func:`lockstep_turns` is the one self-play loop: it keeps its games in flight, and when one
ends a new game starts in its slot, so every ply works on a full batch. A
:class:`SelfPlayer` turns its turns into :class:`Trajectories` for TD learning: the
positions each mover faced (side on roll in row 0), back to back, each game's result for
the mover of its last position, and where the agent explored, the greedy move's result it
passed over (the TD targets back up from it). :func:`lockstep_self_play` gives the
collectors of search candidates every turn's candidates and their probabilities.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from bgzero.agents.base import Agent
from bgzero.engine.board import START
from bgzero.engine.game import check_length, game_results, roll_dice
from bgzero.engine.movegen import MoveBatch, generate
from bgzero.engine.segments import segment_argmax, segment_random
from bgzero.value.evaluator import Evaluator
from bgzero.value.probs import equity


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


@dataclass(frozen=True)
class Turn:
    """One ply of every game in flight: the boards before it, the roll, the candidates and the choices."""

    boards: np.ndarray  # (G, 2, 25) side on roll in row 0
    dice: np.ndarray  # (G, 2)
    moves: MoveBatch
    chosen: np.ndarray  # (G,) index into moves.results of the move played
    greedy: np.ndarray  # (G,) the agent's greedy move, different from chosen where it explored
    over: np.ndarray  # (G,) points the game's mover won with it, 0 while play goes on
    following: np.ndarray  # (G, 2, 25) the next turn's boards: the results played, finished games restarted


Choice = Callable[[np.ndarray, np.ndarray, MoveBatch], tuple[np.ndarray, np.ndarray]]


def lockstep_turns(choose: Choice, games: int, rng: np.random.Generator) -> Iterator[Turn]:
    """Endless self-play of ``games`` games in lockstep with ``choose(boards, dice, moves) -> (chosen, greedy)``.

    Dice come from ``rng`` alone, a game's first roll is an opening roll (never a double),
    and a finished game restarts from the starting position in its slot.
    """
    boards = np.repeat(START[None], games, axis=0)
    opening = np.ones(games, bool)
    turns = np.zeros(games, np.int64)  # of each slot's game, for :func:`check_length`
    while True:
        dice = roll_dice(rng, games, opening)
        moves = generate(boards, dice)
        chosen, greedy = choose(boards, dice, moves)
        following = moves.results[chosen]
        over = -game_results(following)  # the side now on roll has lost
        opening = over != 0
        following[opening] = START
        turns = np.where(opening, 0, turns + 1)
        check_length(turns)
        yield Turn(boards, dice, moves, chosen, greedy, over, following)
        boards = following


class SelfPlayer:
    """Plays an agent against itself, ``parallel_games`` at a time, and keeps each game's trajectory."""

    def __init__(self, agent: Agent, parallel_games: int, seed: int):
        self.agent = agent
        self.turns = lockstep_turns(agent.choose_and_greedy, parallel_games, np.random.default_rng(seed))
        self.history: list[list[np.ndarray]] = [[] for _ in range(parallel_games)]
        self.passed_over: list[list[np.ndarray | None]] = [[] for _ in range(parallel_games)]

    def play(self, games: int) -> Trajectories:
        """Advance all slots until at least ``games`` games have finished."""
        done_boards, lengths, points, explored, greedy = [], [], [], [], []
        while len(lengths) < games:
            turn = next(self.turns)
            for slot, h in enumerate(self.history):
                h.append(turn.boards[slot])
                passed = turn.chosen[slot] != turn.greedy[slot]
                self.passed_over[slot].append(turn.moves.results[turn.greedy[slot]] if passed else None)
            for slot in np.flatnonzero(turn.over):
                h = self.history[slot]
                done_boards.append(np.stack(h))
                lengths.append(len(h))
                points.append(int(turn.over[slot]))
                explored.extend(g is not None for g in self.passed_over[slot])
                greedy.extend(g for g in self.passed_over[slot] if g is not None)
                self.history[slot], self.passed_over[slot] = [], []
        greedy_boards = np.stack(greedy) if greedy else np.empty((0, 2, 25), np.int8)
        return Trajectories(np.concatenate(done_boards), np.array(lengths), np.array(points),
                            np.array(explored, bool), greedy_boards)


def lockstep_self_play(evaluator: Evaluator, rng: np.random.Generator, games: int, explore: float):
    """Endless 0-ply self-play of ``games`` games in lockstep; yields every turn's
    ``(moves, probs, boards)``: the candidates, their probabilities (next mover's view) and
    the boards after the moves played, finished games restarted.

    Each game plays its best move by 0-ply, or with chance ``explore`` a random one, so
    the positions spread beyond the net's own best lines. The collectors of search
    candidates (:func:`bgzero.learn.distill.self_play_candidates`,
    :func:`bgzero.learn.search_targets.candidate_turns`) keep what they need of each turn.
    """
    seen = {}

    def choose(boards, dice, moves):
        seen["probs"] = probs = evaluator.probs(moves.results)
        greedy = segment_argmax(-equity(probs), moves.offsets)
        chosen = greedy.copy()
        wander = rng.random(games) < explore
        chosen[wander] = segment_random(moves.offsets, rng)[wander]
        return chosen, greedy

    for turn in lockstep_turns(choose, games, rng):
        yield turn.moves, seen["probs"], turn.following
