"""Cubeless money matches between two agents, with duplicate dice.

Variance reduction: every dice sequence is played twice, once with each agent moving
first, so the luck of the dice largely cancels within a pair. Confidence intervals are
computed over pairs, the independent unit. All games of a batch advance in lockstep, one
move-generator call per agent per ply.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from tqdm import tqdm

from bgzero.agents.base import Agent
from bgzero.agents.specs import make_agent
from bgzero.engine.board import START
from bgzero.engine.game import check_length, game_results, opening_rolls
from bgzero.engine.movegen import generate
from bgzero.errors import Interrupted
from bgzero.interrupts import follow_the_main_process
from bgzero.value.threads import set_torch_threads

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
    dice[:, 0] = opening_rolls(rng, n)[1]
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
        check_length(ply[active])
    return points


def play_pairs(agent_a: Agent, agent_b: Agent, dice: np.ndarray, batch_pairs: int = 256) -> np.ndarray:
    """(pairs, 2) points for A: each dice row played with A first, then with B first."""
    out = []
    for lo in range(0, len(dice), batch_pairs):
        d = dice[lo:lo + batch_pairs]
        k = len(d)
        pts = play_games(agent_a, agent_b, np.concatenate([d, d]),
                         np.concatenate([np.ones(k, bool), np.zeros(k, bool)]))
        out.append(np.stack([pts[:k], pts[k:]], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 2), np.int64)


def play_duplicate(agent_a: Agent, agent_b: Agent, games: int, seed: int = 0, batch_pairs: int = 256) -> MatchResult:
    """``games`` (rounded up to even) cubeless games of A vs B in this process, duplicate dice."""
    dice = draw_dice(np.random.default_rng(seed), max(1, math.ceil(games / 2)))
    start = time.perf_counter()
    return summarise_pairs(play_pairs(agent_a, agent_b, dice, batch_pairs), time.perf_counter() - start)


_AGENTS: dict[str, Agent] = {}


def _play_pairs_shard(args) -> np.ndarray:
    spec_a, spec_b, dice, batch_pairs = args
    for spec in (spec_a, spec_b):
        if spec not in _AGENTS:
            _AGENTS[spec] = make_agent(spec)
    set_torch_threads(1)
    return play_pairs(_AGENTS[spec_a], _AGENTS[spec_b], dice, batch_pairs)


def play_duplicate_from_specs(spec_a: str, spec_b: str, games: int, seed: int = 0, processes: int = 1,
                     batch_pairs: int = 256, progress: bool = False) -> MatchResult:
    """Like :func:`play_duplicate` for agents named by spec strings, over ``processes`` processes.

    The dice are drawn here, before sharding, so the result does not depend on the
    number of processes. Each process builds its own agents (gnubg's engine is global
    state and must not be shared).
    """
    make_agent(spec_a), make_agent(spec_b)  # fail fast, in this process, on a bad spec
    pairs = max(1, math.ceil(games / 2))
    dice = draw_dice(np.random.default_rng(seed), pairs)
    shard = max(1, min(batch_pairs, math.ceil(pairs / max(1, processes))))
    jobs = [(spec_a, spec_b, dice[lo:lo + shard], batch_pairs) for lo in range(0, pairs, shard)]
    start = time.perf_counter()
    bar = tqdm(total=2 * pairs, unit="game", disable=not progress, dynamic_ncols=True)
    results = []
    try:
        if processes <= 1:
            for job in jobs:
                results.append(_play_pairs_shard(job))
                bar.update(2 * len(job[2]))
        else:
            with mp.get_context("spawn").Pool(processes, initializer=follow_the_main_process) as pool:
                for res in pool.imap(_play_pairs_shard, jobs):
                    results.append(res)
                    bar.update(2 * len(res))
    except KeyboardInterrupt:  # Ctrl-C: the pairs finished so far are a (partial) result
        bar.close()
        done = summarise_pairs(np.concatenate(results), time.perf_counter() - start) if results else None
        raise Interrupted(f"{done.games if done else 0} of {2 * pairs} games were finished", partial=done) from None
    bar.close()
    return summarise_pairs(np.concatenate(results), time.perf_counter() - start)


def summarise_pairs(pair_points: np.ndarray, seconds: float) -> MatchResult:
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


def pooled(results: Sequence[MatchResult]) -> MatchResult:
    """One result from independent matches (different dice seeds), so long matches can run in chunks.

    Figures are weighted by games; the interval combines the matches' standard errors,
    sqrt(sum((n_i * ci_i)^2)) / N, which treats the chunks as independent samples.
    """
    if not results:
        raise ValueError("nothing to pool: no match results given")
    total = sum(r.games for r in results)

    def weighted(field: str) -> float:
        return sum(r.games * getattr(r, field) for r in results) / total

    return MatchResult(
        games=total,
        ppg=weighted("ppg"),
        ci95=math.sqrt(sum((r.games * r.ci95) ** 2 for r in results)) / total,
        win_rate=weighted("win_rate"),
        a_gammon_rate=weighted("a_gammon_rate"),
        a_backgammon_rate=weighted("a_backgammon_rate"),
        b_gammon_rate=weighted("b_gammon_rate"),
        b_backgammon_rate=weighted("b_backgammon_rate"),
        seconds=sum(r.seconds for r in results),
    )
