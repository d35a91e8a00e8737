"""Move errors: an agent's mean equity loss per checker play, against a judge's scores of every play.

The fast strength signal that steers training and gates generations (``bgzero-iterate``),
in the units of gnubg's own benchmarks ("error rate"). Positions come from GNU Backgammon
0-ply self-play (seeded dice; a non-forced decision kept with probability ``KEEP`` so the
sample spreads over many games), each labelled with gnubg's class before the move:
contact, crashed (contact where a side has 6 or fewer checkers left in play), or race.
The judge scores every legal result of every position with gnubg's cubeless equity at
``plies`` (2 by default); built once in ``spawn`` processes (one gnubg engine each) and
cached as ``errors_<seed>_<n>.npz``. The package ships the 1,000-position, 2-ply one.
An agent chooses among bgzero's own generated results, matched to the judge's by board;
its loss is the best equity minus the chosen one's. ``bgzero-bench errors`` prints the table.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bgzero import paths
from bgzero.agents.specs import make_agent
from bgzero.engine.board import START, to_gnubg
from bgzero.engine.movegen import generate
from bgzero.interrupts import follow_the_main_process, starting_workers

CLASSES = ("contact", "crashed", "race")
KEEP = 0.25  # chance a non-forced decision is kept: ~11 per game, so ~90 games per 1,000
DATA = paths.DATA
CACHE = Path.home() / ".cache" / "bgzero"
CHOOSE_CHUNK = 64  # positions per choose() call: bounds the memory of 1-2 ply searches


@dataclass
class Reference:
    """Positions (side on roll in row 0), their rolls and classes, and every legal result
    (sides swapped, as :func:`bgzero.engine.movegen.generate` gives them) with the mover's equity;
    ``results[offsets[p]:offsets[p + 1]]`` belong to position ``p``."""

    boards: np.ndarray  # (P, 2, 25) int8
    dice: np.ndarray  # (P, 2) int8
    classes: np.ndarray  # (P,) int8, index into CLASSES
    offsets: np.ndarray  # (P + 1,) int64
    results: np.ndarray  # (N, 2, 25) int8
    equity: np.ndarray  # (N,) float64, the mover's cubeless equity after the move
    meta: dict
    equity_se: np.ndarray | None = None  # (N,) a rollout judge's standard errors (NaN: not rolled out)
    rolled: np.ndarray | None = None  # (N,) bool, a rollout judge's rolled-out plays

    OPTIONAL = ("equity_se", "rolled")

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = {k: getattr(self, k) for k in self.OPTIONAL if getattr(self, k) is not None}
        np.savez_compressed(path, boards=self.boards, dice=self.dice, classes=self.classes, offsets=self.offsets,
                            results=self.results, equity=self.equity, meta=json.dumps(self.meta), **extra)

    @classmethod
    def load(cls, path: Path) -> Reference:
        with np.load(path) as z:
            extra = {k: z[k] for k in cls.OPTIONAL if k in z.files}
            return cls(z["boards"], z["dice"], z["classes"], z["offsets"], z["results"], z["equity"],
                       json.loads(str(z["meta"])), **extra)


def file_name(seed: int, n: int, plies: int) -> str:
    """The default 2-ply reference keeps the plain name; other plies are marked."""
    return f"errors_{seed}_{n}.npz" if plies == 2 else f"errors_{seed}_{n}_{plies}ply.npz"


# --------------------------------------------------------------------------- positions


def sample_positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``n`` non-forced decisions from gnubg 0-ply self-play: (boards, dice, classes, games)."""
    import gnubg_nn

    gnubg0 = make_agent("gnubg@0")
    rng = np.random.default_rng(seed)
    boards: list[np.ndarray] = []
    dice: list[np.ndarray] = []
    classes: list[int] = []
    games = 0
    while len(boards) < n:
        games += 1
        board, first = START.copy(), True
        while True:
            roll = rng.integers(1, 7, size=2, dtype=np.int8)
            if first and roll[0] == roll[1]:
                continue  # the opening roll is never a double
            first = False
            moves = generate(board[None], roll[None])
            if moves.counts()[0] > 1 and rng.random() < KEEP:
                boards.append(board)
                dice.append(roll)
                cls = gnubg_nn.classify(to_gnubg(board))  # below c_race: race and both bear-off classes
                classes.append(0 if cls == gnubg_nn.c_contact else 1 if cls == gnubg_nn.c_crashed else 2)
                if len(boards) == n:
                    break
            board = moves.results[gnubg0.choose(board[None], roll[None], moves)[0]].copy()
            if board[1].sum() == 0:  # the mover has borne off its last checker
                break
    return np.array(boards, np.int8), np.array(dice, np.int8), np.array(classes, np.int8), games


# --------------------------------------------------------------------------- reference


def _judge(job) -> tuple[list[tuple[np.ndarray, np.ndarray]], int, float]:
    """Every distinct result of each (gnubg board, d1, d2), scored by gnubg at ``plies``.

    Runs in a worker process: gnubg's engine is global state, one per process. Keeps the
    results of one position together so that gnubg's evaluation cache serves the shared
    replies. Returns [(results (k, 2, 25) int8, mover's equities (k,))], evaluations, seconds.
    """
    import gnubg
    import gnubg_nn

    positions, plies, prune = job
    cube = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0)
    context = gnubg.evalcontext(0, plies, 1, prune, 0.0)
    out, count, start = [], 0, time.perf_counter()
    for gboard, d1, d2 in positions:
        results = np.array([gnubg_nn.board_from_position_key(k) for k in gnubg_nn.moves(gboard, d1, d2)], np.int8)
        equity = np.array([-gnubg.evaluate(to_gnubg(r), cube, context)[5] for r in results])
        out.append((results, equity))
        count += len(results)
    return out, count, time.perf_counter() - start


def build_reference(n: int, seed: int, plies: int = 2, workers: int = 0, prune: int = 1) -> Reference:
    """Sample the positions and score all their results (progress on stderr)."""
    t0 = time.perf_counter()
    boards, dice, classes, games = sample_positions(n, seed)
    sampled = time.perf_counter() - t0
    chunk = 8
    jobs = [([(to_gnubg(b), int(r[0]), int(r[1])) for b, r in zip(boards[i:i + chunk], dice[i:i + chunk])],
             plies, prune) for i in range(0, n, chunk)]
    workers = workers or multiprocessing.cpu_count()
    parts, evals, eval_s = [], 0, 0.0
    t1 = time.perf_counter()
    stream: Iterator[tuple[list[tuple[np.ndarray, np.ndarray]], int, float]]
    if workers == 1:
        stream = map(_judge, jobs)
    else:
        with starting_workers():
            pool = multiprocessing.get_context("spawn").Pool(workers, initializer=follow_the_main_process)
        stream = pool.imap(_judge, jobs)
    for i, (part, count, seconds) in enumerate(stream, 1):
        parts += part
        evals += count
        eval_s += seconds
        done = time.perf_counter() - t1
        print(f"\rreference: {len(parts)}/{n} positions, {evals} evaluations, {done:.0f} s, "
              f"~{done / i * (len(jobs) - i):.0f} s left", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if workers != 1:
        pool.close()
        pool.join()
    counts = [len(r) for r, _ in parts]
    meta = dict(seed=seed, positions=n, games=games, plies=plies, prune=prune, keep=KEEP, evaluations=evals,
                ms_per_evaluation=1000 * eval_s / evals, workers=workers, sample_s=round(sampled, 1),
                reference_s=round(time.perf_counter() - t1, 1))
    return Reference(boards, dice, classes, np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                     np.concatenate([r for r, _ in parts]), np.concatenate([e for _, e in parts]), meta)


def shipped_reference() -> Reference:
    """The package's own judge: 1,000 positions (seed 0) scored by gnubg 2-ply."""
    return Reference.load(DATA / file_name(0, 1000, 2))


def get_reference(n: int, seed: int, plies: int, cache: Path, workers: int) -> tuple[Reference, str]:
    """The cached reference (the package's data first, then ``cache``) or a fresh one saved to ``cache``."""
    name = file_name(seed, n, plies)
    for path in (DATA / name, cache / name):
        if path.exists():
            return Reference.load(path), f"loaded from {path}"
    ref = build_reference(n, seed, plies, workers)
    ref.save(cache / name)
    return ref, f"built and saved to {cache / name}"


# --------------------------------------------------------------------------- scoring


def match_results(ref: Reference, lo: int, hi: int, moves) -> np.ndarray:
    """For reference positions ``lo:hi`` and bgzero's ``moves`` for them: the reference
    index of every generated result. Raises if a position's two result sets differ."""
    index = np.empty(len(moves.results), np.int64)
    for b, p in enumerate(range(lo, hi)):
        start = ref.offsets[p]
        known = {r.tobytes(): start + k for k, r in enumerate(ref.results[start:ref.offsets[p + 1]])}
        ours = moves.results[moves.offsets[b]:moves.offsets[b + 1]]
        found = [known.get(r.tobytes(), -1) for r in ours]  # -1: not among the reference's results
        if -1 in found or len(set(found)) != len(known):
            raise ValueError(f"position {p} ({ref.dice[p].tolist()}): bgzero's {len(ours)} results "
                             f"do not match the reference's {len(known)}")
        index[moves.offsets[b]:moves.offsets[b + 1]] = found
    return index


def losses(ref: Reference, chosen: np.ndarray) -> np.ndarray:
    """Equity lost per position: the best result's equity minus the chosen one's
    (``chosen`` are reference indices, one per position)."""
    best = np.maximum.reduceat(ref.equity, ref.offsets[:-1])
    return best - ref.equity[chosen]


def agent_losses(agent, ref: Reference) -> np.ndarray:
    """The agent's loss on every reference position, choosing among bgzero's results."""
    chosen = np.empty(len(ref.boards), np.int64)
    for lo in range(0, len(ref.boards), CHOOSE_CHUNK):
        hi = min(lo + CHOOSE_CHUNK, len(ref.boards))
        moves = generate(ref.boards[lo:hi], ref.dice[lo:hi])
        chosen[lo:hi] = match_results(ref, lo, hi, moves)[agent.choose(ref.boards[lo:hi], ref.dice[lo:hi], moves)]
    return losses(ref, chosen)


