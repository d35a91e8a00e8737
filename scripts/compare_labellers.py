"""Which labeller chooses best? 2-ply search, truncated rollouts and averages of them, on the gnubg-2-ply judge.

A generation's labels are only as good as the labeller's choices among a turn's candidates.
This scores labellers the way the fine-tuning uses them: on each of the shipped judge's
1,000 positions (:func:`bgzero.judge.move_errors.shipped_reference`) the ``--top`` best plays
by ``--ranker``'s 0-ply are the candidates, each labeller picks the one it values most, and
the loss is gnubg 2-ply's best minus the pick (x1000, a 95% interval), with each labeller's
paired difference from the first and its cost in candidates per CPU-second.

Labellers: ``PATH@PLY`` (n-ply search), ``rollout:PATH:TRIALSxPLIES`` (variance-reduced
rollouts by PATH at 0 ply, truncated after PLIES), and ``A+B`` (the mean of their equities).

    python scripts/compare_labellers.py --labeller checkpoints/strong_td.pt@2 \\
        --labeller checkpoints/iterate/gen-004.pt@2 --labeller checkpoints/strong_td.pt@2+checkpoints/iterate/gen-004.pt@2 \\
        --labeller rollout:checkpoints/strong_td.pt:144x11 --positions 150
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bgzero.agents.search import evaluate_ply
from bgzero.engine.movegen import generate
from bgzero.judge.move_errors import match_results, shipped_reference
from bgzero.rollout import RolloutSettings, rollout_positions
from bgzero.rollout.players import make_player
from bgzero.value.checkpoint import load_evaluator
from bgzero.value.probs import equity


def mover_equities(spec: str, roots: np.ndarray, cache: dict) -> tuple[np.ndarray, float]:
    """The mover's equity of each candidate (sides swapped, opponent on roll) and the CPU seconds it took."""
    if spec in cache:
        return cache[spec], 0.0
    if "+" in spec:
        parts = [mover_equities(s, roots, cache) for s in spec.split("+")]
        cache[spec] = np.mean([e for e, _ in parts], axis=0)
        return cache[spec], sum(t for _, t in parts)
    start = time.process_time()
    if spec.startswith("rollout:"):
        _, path, plan = spec.split(":")
        trials, plies = (int(x) for x in plan.split("x"))
        results = rollout_positions(roots, make_player(f"checkpoint:{path}@0"),
                                    RolloutSettings(trials=trials, truncate=plies, seed=0))
        values = -np.array([r.equity for r in results])
    else:
        path, ply = spec.rsplit("@", 1)
        values = -equity(evaluate_ply(load_evaluator(path), roots, int(ply)))
    cache[spec] = values
    return values, time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labeller", action="append", required=True)
    ap.add_argument("--ranker", default="checkpoints/strong_td.pt", help="checkpoint whose 0-ply picks the candidates")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--positions", type=int, default=1000, help="a seeded sample of the judge's positions")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ref = shipped_reference()
    picked = np.sort(np.random.default_rng(args.seed).choice(len(ref.boards), min(args.positions, len(ref.boards)),
                                                            replace=False))
    ranker = load_evaluator(args.ranker)
    roots, owner, index = [], [], []
    for p in picked:
        moves = generate(ref.boards[p:p + 1], ref.dice[p:p + 1])
        order = np.argsort(equity(ranker.probs(moves.results)))[:args.top]  # best for the mover first
        roots.append(moves.results[order])
        owner += [p] * len(order)
        index += match_results(ref, p, p + 1, moves)[order].tolist()
    roots, owner, index = np.concatenate(roots), np.array(owner), np.array(index)
    starts = np.r_[0, np.flatnonzero(np.diff(owner)) + 1]
    best = np.maximum.reduceat(ref.equity, ref.offsets[:-1])[picked]
    print(f"{len(picked)} positions, {len(roots)} candidates (top {args.top} by {args.ranker} at 0 ply)\n")
    print("| labeller | loss x1000 | minus the first | candidates / CPU-s |\n|---|---|---|---|")
    cache, first = {}, None
    for spec in args.labeller:
        values, seconds = mover_equities(spec, roots, cache)
        loss = best - ref.equity[index[starts + np.array([np.argmax(v) for v in np.split(values, starts[1:])])]]
        first = loss if first is None else first
        d = loss - first
        rate = f"{len(roots) / seconds:,.0f}" if seconds else "—"
        print(f"| {spec} | {1000 * loss.mean():.2f} ± {1960 * loss.std(ddof=1) / np.sqrt(len(loss)):.2f} | "
              f"{1000 * d.mean():+.2f} ± {1960 * d.std(ddof=1) / np.sqrt(len(d)):.2f} | {rate} |", flush=True)


if __name__ == "__main__":
    main()
