"""Cubeless money matches between two agents, with duplicate dice.

Variance reduction: every dice sequence is played twice, once with each agent moving
first, so the luck of the dice largely cancels within a pair. Confidence intervals are
computed over pairs, the independent unit. All games of a batch advance in lockstep, one
move-generator call per agent per ply.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from bgzero.agents.base import Agent
from bgzero.board import START
from bgzero.game import game_results
from bgzero.movegen import generate

MAX_PLIES = 512  # dice are pre-drawn per pair; longer games reuse the sequence cyclically


@dataclass
class MatchResult:
    """Outcome of a duplicate match, from agent A's point of view."""

    games: int
    ppg: float
    ci95: float
    win_rate: float
    a_gammon_rate: float
    a_backgammon_rate: float
    b_gammon_rate: float
    b_backgammon_rate: float
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict:
        return asdict(self) | {"games_per_second": self.games_per_second}

    def __str__(self) -> str:
        return (f"{self.ppg:+.3f} ± {self.ci95:.3f} ppg over {self.games} games "
                f"(wins {100 * self.win_rate:.1f}%, gammons A {100 * self.a_gammon_rate:.1f}% "
                f"B {100 * self.b_gammon_rate:.1f}%, {self.games_per_second:.0f} games/s)")


def draw_dice(rng: np.random.Generator, n: int, plies: int = MAX_PLIES) -> np.ndarray:
    """(n, plies, 2) dice; ply 0 is an opening roll (never a double, rule 5)."""
    dice = rng.integers(1, 7, size=(n, plies, 2), dtype=np.int8)
    opening = rng.choice(30, size=n)
    first = opening // 5 + 1
    second = opening % 5 + 1
    second = second + (second >= first)
    dice[:, 0, 0], dice[:, 0, 1] = first, second
    return dice


def play_games(agent_a: Agent, agent_b: Agent, dice: np.ndarray, a_first: np.ndarray) -> np.ndarray:
    """Play one game per row of ``dice`` to the end; returns A's signed points per game."""
    n = len(dice)
    boards = np.repeat(START[None], n, axis=0)
    ply = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    active = np.arange(n)
    while len(active):
        b = boards[active]
        d = dice[active, ply[active] % dice.shape[1]]
        a_on_roll = (ply[active] % 2 == 0) == a_first[active]
        for agent, mask, sign in ((agent_a, a_on_roll, 1), (agent_b, ~a_on_roll, -1)):
            if not mask.any():
                continue
            moves = generate(b[mask], d[mask])
            chosen = moves.results[agent.choose(b[mask], d[mask], moves)]
            idx = active[mask]
            boards[idx] = chosen
            points[idx] = -sign * game_results(chosen)  # the side now on roll lost if it is over
        ply[active] += 1
        active = active[points[active] == 0]
    return points


def play_match(agent_a: Agent, agent_b: Agent, games: int, seed: int = 0, batch_pairs: int = 256) -> MatchResult:
    """``games`` (rounded up to even) cubeless games of A vs B, duplicate dice."""
    rng = np.random.default_rng(seed)
    pairs = max(1, math.ceil(games / 2))
    start = time.perf_counter()
    pair_points = []
    for lo in range(0, pairs, batch_pairs):
        k = min(batch_pairs, pairs - lo)
        dice = draw_dice(rng, k)
        both = np.concatenate([dice, dice])
        a_first = np.concatenate([np.ones(k, bool), np.zeros(k, bool)])
        pts = play_games(agent_a, agent_b, both, a_first)
        pair_points.append(np.stack([pts[:k], pts[k:]], axis=1))
    pts = np.concatenate(pair_points)  # (pairs, 2)
    return summarise(pts, time.perf_counter() - start)


def summarise(pair_points: np.ndarray, seconds: float) -> MatchResult:
    """Statistics of (pairs, 2) signed points for A; the interval is over pair means."""
    flat = pair_points.ravel()
    pair_means = pair_points.mean(axis=1)
    n_pairs = len(pair_means)
    sd = pair_means.std(ddof=1) if n_pairs > 1 else 0.0
    return MatchResult(
        games=len(flat),
        ppg=float(flat.mean()),
        ci95=float(1.96 * sd / math.sqrt(n_pairs)),
        win_rate=float((flat > 0).mean()),
        a_gammon_rate=float((flat >= 2).mean()),
        a_backgammon_rate=float((flat >= 3).mean()),
        b_gammon_rate=float((flat <= -2).mean()),
        b_backgammon_rate=float((flat <= -3).mean()),
        seconds=seconds,
    )
