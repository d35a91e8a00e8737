"""Self-play backends side by side: the learner loop's games/s on local processes and on Ray.

Both backends run the same config and the real learner loop (take a chunk, λ-return
targets, minibatch steps, publish the weights), timed over ``--games`` games after a
warm-up in which every worker starts and compiles its kernels. Each backend runs
``--repeats`` times, alternating, because a shared machine is noisy; next to the wall-clock
rate stands games per CPU-second of the whole process tree (learner, workers, and for Ray
its daemons, all children of the driver when it starts the local Ray instance; read from
Linux's /proc), which the share of a busy machine the scheduler grants does not move.
Then the pieces an
estimate at scale needs: one self-play worker alone (games/s, positions/s, and the share
of its time spent evaluating positions) and the learner alone (positions/s, updates/s).
The nets start from ``--checkpoint`` when it exists (untrained nets play games several
times longer than trained ones, which changes games/s but not positions/s).

    python scripts/bench_backends.py --games 2000 --workers 2
    python scripts/bench_backends.py net=mlp80 selfplay.parallel_games=128   # any train override
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import torch
from hydra import compose, initialize_config_dir

from bgzero import paths
from bgzero.agents.neural import NeuralAgent
from bgzero.learn.train import learn, make_optimizer, workers_backend
from bgzero.selfplay.build import build_nets, make_evaluator
from bgzero.selfplay.player import SelfPlayer
from bgzero.value.checkpoint import load_checkpoint

CONFIGS = str(paths.CONFIGS)


def start_nets(cfg, checkpoint: str | None):
    torch.manual_seed(cfg.seed)
    nets = build_nets(cfg)
    if checkpoint:
        nets["contact"].load_state_dict(load_checkpoint(checkpoint)["model"])
    return nets


def tree_cpu_seconds() -> float:
    """CPU seconds used so far by this process and all its descendants that are still running."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        children.setdefault(int(fields[1]), []).append(pid)
        times[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


def learner_loop(cfg, checkpoint: str | None, games: int) -> tuple[float, float, float]:
    """Steady-state games/s, learner positions/s and games per CPU-second of the loop on ``cfg``'s backend."""
    net = start_nets(cfg, checkpoint)
    evaluator, opt, rng = make_evaluator(net, cfg), make_optimizer(net, cfg.td), np.random.default_rng(cfg.seed)
    n = cfg.selfplay.workers
    workers = workers_backend(cfg)(cfg, net, [1000 + w for w in range(n)])
    try:
        for _ in range(2 * n):
            workers.get()
        done = positions = 0
        start, cpu = time.perf_counter(), tree_cpu_seconds()
        while done < games:
            traj = workers.get()
            learn(net, evaluator, opt, traj, cfg, rng)
            workers.publish(net)
            done, positions = done + traj.games, positions + len(traj.boards)
        wall, cpu = time.perf_counter() - start, tree_cpu_seconds() - cpu
    finally:
        workers.close()
    return done / wall, positions / wall, done / cpu


def one_worker(cfg, checkpoint: str | None, games: int):
    """One self-play worker with nothing else to do: games/s, positions/s, share of time evaluating, its games."""
    evaluator = make_evaluator(start_nets(cfg, checkpoint), cfg)
    forward = evaluator.probs
    spent = [0.0]

    def timed(boards):
        tick = time.perf_counter()
        out = forward(boards)
        spent[0] += time.perf_counter() - tick
        return out

    evaluator.probs = timed
    player = SelfPlayer(NeuralAgent(evaluator, cfg.selfplay.epsilon, seed=1), cfg.selfplay.parallel_games, seed=1)
    player.play(cfg.selfplay.games_per_chunk)  # compile
    spent[0] = 0.0
    start = time.perf_counter()
    traj = player.play(games)
    wall = time.perf_counter() - start
    return traj.games / wall, len(traj.boards) / wall, spent[0] / wall, traj


def learner_alone(cfg, checkpoint: str | None, traj, seconds: float = 10.0) -> tuple[float, float]:
    """The learner's positions/s and minibatch updates/s on finished games, with no self-play beside it."""
    net = start_nets(cfg, checkpoint)
    evaluator, opt, rng = make_evaluator(net, cfg), make_optimizer(net, cfg.td), np.random.default_rng(0)
    learn(net, evaluator, opt, traj, cfg, rng)
    positions, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        learn(net, evaluator, opt, traj, cfg, rng)
        positions += len(traj.boards)
    per_s = positions / (time.perf_counter() - start)
    return per_s, per_s * cfg.td.epochs / cfg.td.batch_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000, help="games timed per run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--checkpoint", default="checkpoints/reference.pt",
                        help="contact-net checkpoint of the config's shape to start from ('' for untrained weights)")
    parser.add_argument("overrides", nargs="*", help="train config overrides, e.g. net=mlp80")
    args = parser.parse_args()
    checkpoint = args.checkpoint if args.checkpoint and Path(args.checkpoint).exists() else None
    print(f"weights: {checkpoint or 'untrained'}")
    torch.set_num_threads(1)
    with initialize_config_dir(config_dir=CONFIGS, version_base="1.3"):
        cfgs = {b: compose("train", overrides=[*args.overrides, f"selfplay.backend={b}",
                                               f"selfplay.workers={args.workers}"]) for b in ("local", "ray")}
    wall, per_cpu = {b: [] for b in cfgs}, {b: [] for b in cfgs}
    for run in range(args.repeats):
        for backend, cfg in cfgs.items():
            gps, pps, gpc = learner_loop(cfg, checkpoint, args.games)
            wall[backend].append(gps)
            per_cpu[backend].append(gpc)
            print(f"run {run + 1} {backend:5s}: {gps:6.1f} games/s, {pps:7.0f} positions/s, {gpc:6.1f} games/CPU-s "
                  f"({args.workers} workers + learner, {args.games} games)", flush=True)
    for name, rates in (("games/s", wall), ("games/CPU-s", per_cpu)):
        for run, (local, ray) in enumerate(zip(rates["local"], rates["ray"]), 1):
            print(f"{name:11s} run {run}: ray / local = {ray / local:.3f} (overhead {100 * (1 - ray / local):+.1f}%)")
        mean = np.mean(rates["ray"]) / np.mean(rates["local"])
        print(f"{name:11s} mean:  ray / local = {mean:.3f} (overhead {100 * (1 - mean):+.1f}%)")
    cfg = cfgs["local"]
    gps, pps, share, traj = one_worker(cfg, checkpoint, args.games // 4)
    print(f"one worker alone: {gps:.1f} games/s, {pps:.0f} positions/s, {100 * share:.0f}% of its time evaluating "
          f"positions (encode + net), {traj.lengths.mean():.1f} positions/game")
    lps, ups = learner_alone(cfg, checkpoint, traj)
    print(f"learner alone ({cfg.device}): {lps:.0f} positions/s = {ups:.0f} updates/s of {cfg.td.batch_size} "
          f"x {cfg.td.epochs} epoch(s); feeds {lps / pps:.1f} workers")


if __name__ == "__main__":
    main()
