"""Self-play throughput: bgzero's vectorised 0-ply self-play next to GNU Backgammon's.

bgzero: a network of gnubg's contact size (250 inputs, 128 hidden, 5 outputs; the trained
``--checkpoint`` so that games have realistic lengths, else untrained weights, whose games
run several times longer) plays itself in ``--parallel`` lockstep games per process, on 1
process and on all cores; then the same with the race network and bear-off database.
gnubg: ``gnubg_nn.best_move(board, d1, d2, n=0)`` for both sides, in-process, single
thread (its C evaluator and move generator), the same way a Python program would use it.

    python scripts/bench_selfplay.py --seconds 20
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time

import numpy as np

from bgzero.engine.board import START, to_gnubg
from bgzero.engine.notation import apply_steps


def _bgzero_worker(args) -> tuple[int, int, float]:
    seconds, parallel, seed, routed, checkpoint = args
    import torch

    from bgzero.agents.neural import NeuralAgent
    from bgzero.selfplay.player import SelfPlayer
    from bgzero.value.checkpoint import load_net
    from bgzero.value.evaluator import Evaluator
    from bgzero.value.net import NetConfig, ValueNet

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = load_net(checkpoint)[0] if checkpoint else ValueNet(NetConfig(num_inputs=250, hidden=[128]))
    race = ValueNet(NetConfig(num_inputs=216, hidden=[64])) if routed else None
    player = SelfPlayer(NeuralAgent(Evaluator(net, "contact", race_net=race, exact_bearoff=routed)), parallel, seed)
    player.play(parallel // 2)  # warm-up: compile/load kernels, fill the pipeline
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        traj = player.play(parallel // 4)
        games += traj.games
        plies += len(traj.boards)
    return games, plies, time.perf_counter() - start


def bench_bgzero(seconds: float, processes: int, parallel: int, routed: bool, checkpoint: str | None) -> tuple[float, float]:
    jobs = [(seconds, parallel, 1000 + i, routed, checkpoint) for i in range(processes)]
    if processes == 1:
        results = [_bgzero_worker(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(processes) as pool:
            results = pool.map(_bgzero_worker, jobs)
    games = sum(r[0] for r in results)
    plies = sum(r[1] for r in results)
    wall = max(r[2] for r in results)
    return games / wall, plies / games


def bench_gnubg(seconds: float, seed: int = 0) -> tuple[float, float] | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    rng = np.random.default_rng(seed)
    games = plies = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        board, first = START.copy(), True
        while True:
            d1, d2 = rng.integers(1, 7, 2)
            while first and d1 == d2:
                d1, d2 = rng.integers(1, 7, 2)
            first = False
            board = apply_steps(board, gnubg_nn.best_move(to_gnubg(board), int(d1), int(d2), n=0))
            plies += 1
            if board[1].sum() == 0:  # the side that just moved has borne off
                break
        games += 1
    return games / (time.perf_counter() - t0), plies / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="measuring time per row")
    ap.add_argument("--parallel", type=int, default=128, help="lockstep games per bgzero process")
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="processes for the all-cores row")
    ap.add_argument("--checkpoint", default="checkpoints/reference.pt",
                    help="250-128-5 contact checkpoint to play with ('' for untrained weights)")
    args = ap.parse_args()
    checkpoint = args.checkpoint if args.checkpoint and os.path.exists(args.checkpoint) else None

    gnubg = bench_gnubg(args.seconds)
    rows = []
    for label, procs, routed in (("bgzero 250-128-5, 1 process", 1, False),
                                 (f"bgzero 250-128-5, {args.processes} processes", args.processes, False),
                                 (f"bgzero + race net + bear-off db, {args.processes} processes", args.processes, True)):
        gps, plies = bench_bgzero(args.seconds, procs, args.parallel, routed, checkpoint)
        rows.append((label, gps, plies))
    print(f"bgzero weights: {checkpoint or 'untrained'}")
    print("| self-play (0-ply) | games/s | plies/game | vs gnubg 1 thread |")
    print("|---|---|---|---|")
    if gnubg:
        print(f"| gnubg_nn.best_move, 1 thread | {gnubg[0]:.0f} | {gnubg[1]:.1f} | 1.00x |")
    for label, gps, plies in rows:
        ratio = f"{gps / gnubg[0]:.2f}x" if gnubg else "n/a (gnubg-nn not installed)"
        print(f"| {label} | {gps:.0f} | {plies:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
