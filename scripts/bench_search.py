"""n-ply move choice speed: bgzero's batched search next to gnubg's ``best_move``.

Positions (with their rolls) come from seeded pubeval self-play, forced moves excluded.
bgzero chooses with a checkpoint at 0, 1 and 2 ply (gnubg-style move filters), all
positions of a batch searched together, replies inside the search ranked by the
checkpoint's pruning net when it has one (``bgzero-prune``); gnubg chooses with ``gnubg_nn.best_move(board,
d1, d2, n=ply)`` one position at a time (its nets are 250-128-5 for contact, the same size
as bgzero's contact net; it prunes replies with its own small nets). Single-threaded both.
With a pruning net, the 1- and 2-ply rows are repeated without it, with the share of
positions where both choose the same move.

    python scripts/bench_search.py --checkpoint checkpoints/reference.pt --positions 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from bgzero.agents.neural import NeuralAgent
from bgzero.agents.pubeval import PubevalAgent
from bgzero.engine.board import START, to_gnubg
from bgzero.engine.game import game_results
from bgzero.engine.movegen import generate
from bgzero.value.checkpoint import load_evaluator


def sample_positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions with a real choice, from pubeval playing itself."""
    rng = np.random.default_rng(seed)
    agent = PubevalAgent()
    boards, dice = [], []
    board = START.copy()
    while len(boards) < n:
        d = rng.integers(1, 7, size=(1, 2), dtype=np.int8)
        moves = generate(board[None], d)
        if len(moves.results) > 1 and rng.random() < 0.3:
            boards.append(board.copy())
            dice.append(d[0])
        board = moves.results[agent.choose(board[None], d, moves)[0]]
        if game_results(board[None])[0]:
            board = START.copy()
    return np.array(boards), np.array(dice)


def time_bgzero(evaluator, boards, dice, ply: int, batch: int) -> tuple[float, np.ndarray]:
    """Move choices per second, and the chosen results."""
    agent = NeuralAgent(evaluator, ply=ply)
    chosen = []
    start = time.perf_counter()
    for lo in range(0, len(boards), batch):
        b, d = boards[lo:lo + batch], dice[lo:lo + batch]
        moves = generate(b, d)
        chosen.append(moves.results[agent.choose(b, d, moves)])
    return len(boards) / (time.perf_counter() - start), np.concatenate(chosen)


def time_gnubg(boards, dice, ply: int) -> float | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    start = time.perf_counter()
    for board, (d1, d2) in zip(boards, dice):
        gnubg_nn.best_move(to_gnubg(board), int(d1), int(d2), n=ply)
    return len(boards) / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", default="checkpoints/reference.pt")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    evaluator = load_evaluator(args.checkpoint)
    boards, dice = sample_positions(args.positions, args.seed)
    time_bgzero(evaluator, boards[:8], dice[:8], 2, 8)  # warm-up
    pruning = evaluator.pruner
    print(f"pruning net: {'yes' if pruning is not None else 'none (add one with bgzero-prune)'}\n")
    print("| ply | bgzero, batch of all | bgzero, one at a time | gnubg best_move | ratio (batched / gnubg) "
          "| ratio (one at a time / gnubg) |")
    print("|---|---:|---:|---:|---:|---:|")
    for ply in (0, 1, 2):
        n = len(boards) if ply < 2 else max(20, len(boards) // 4)
        evaluator.pruner = pruning
        batched, chosen = time_bgzero(evaluator, boards[:n], dice[:n], ply, n)
        single, _ = time_bgzero(evaluator, boards[:n // 2], dice[:n // 2], ply, 1)
        gnubg = time_gnubg(boards[:n // 2], dice[:n // 2], ply)
        print(row(str(ply), batched, single, gnubg), flush=True)
        if pruning is not None and ply > 0:
            evaluator.pruner = None
            batched, unpruned = time_bgzero(evaluator, boards[:n], dice[:n], ply, n)
            single, _ = time_bgzero(evaluator, boards[:n // 2], dice[:n // 2], ply, 1)
            same = np.mean([(a == b).all() for a, b in zip(chosen, unpruned)])
            print(row(f"{ply}, no pruning net ({same:.0%} same moves)", batched, single, gnubg), flush=True)


def row(label: str, batched: float, single: float, gnubg: float | None) -> str:
    """One markdown row: rates and the ratios to gnubg."""
    if gnubg is None:
        return f"| {label} | {batched:,.1f}/s | {single:,.1f}/s | not installed | n/a | n/a |"
    return (f"| {label} | {batched:,.1f}/s | {single:,.1f}/s | {gnubg:,.1f}/s | {batched / gnubg:.2f}x "
            f"| {single / gnubg:.2f}x |")


if __name__ == "__main__":
    main()
