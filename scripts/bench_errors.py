"""Move-error benchmark: mean equity loss x1000 per move, judged by gnubg's 2-ply evaluation or by rollouts.

The positions, the judges and the loss arithmetic are :mod:`bgzero.arena.move_errors` (gnubg
n-ply) and :mod:`bgzero.arena.rollout_judge` (``--judge rollout``: 1,000 decisions from varied
play, every play within 0.10 of the best rolled out); this prints the table. gnubg 0-ply, gnubg 1-ply and pubeval are always shown as yardsticks (a
dash where gnubg-nn is absent). Cells are the mean loss x1000 with a 95% normal interval
(mean +- 1.96 sd / sqrt n), overall and per class, and how often the agent found the
judge's best move. ``--worst N`` adds each agent's share of its loss in its N worst
positions, and the worst of them by Position ID, to look at.

    python scripts/bench_errors.py --agent checkpoint:checkpoints/reference.pt@0 --positions 1000 --seed 0
    python scripts/bench_errors.py --judge rollout --agent strong@0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from bgzero.agents.specs import make_agent
from bgzero.arena.move_errors import CACHE, CLASSES, Reference, agent_losses, get_reference  # noqa: F401 (Reference: tests)
from bgzero.arena.rollout_judge import shipped_judge
from bgzero.engine.ids import position_id
from bgzero.errors import ConfigError

YARDSTICKS = ("gnubg@0", "gnubg@1", "pubeval")


def cell(loss: np.ndarray) -> str:
    """Mean loss x1000 with the half-width of a 95% normal interval."""
    if len(loss) == 0:
        return "—"
    if len(loss) == 1:
        return f"{1000 * loss[0]:.2f}"
    return f"{1000 * loss.mean():.2f} ± {1960 * loss.std(ddof=1) / np.sqrt(len(loss)):.2f}"


def table(rows: list[tuple[str, np.ndarray | None, float]], classes: np.ndarray) -> str:
    """Markdown: one row per agent (``None`` losses: the agent is unavailable)."""
    counts = [int((classes == c).sum()) for c in range(len(CLASSES))]
    head = ["agent", f"all ({len(classes)})"] + [f"{c} ({k})" for c, k in zip(CLASSES, counts)] + ["best move", "s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, loss, seconds in rows:
        if loss is None:
            cells = ["—"] * (len(head) - 1)
        else:
            cells = [cell(loss)] + [cell(loss[classes == c]) for c in range(len(CLASSES))]
            cells += [f"{100 * (loss <= 1e-9).mean():.1f}%", f"{seconds:.1f}"]
        lines.append("| " + " | ".join([name] + cells) + " |")
    return "\n".join(lines)


def worst(name: str, loss: np.ndarray, ref: Reference, n: int, shown: int = 5) -> str:
    """How much of the agent's total loss its ``n`` worst positions carry, and the worst
    few by gnubg Position ID: a heavy tail says the agent blunders in a few positions
    (look at them); a flat one says it is a little off everywhere."""
    order = np.argsort(-loss, kind="stable")
    share = loss[order[:n]].sum() / max(loss.sum(), 1e-12)
    worst_few = ", ".join(f"{position_id(ref.boards[p])} {ref.dice[p][0]}{ref.dice[p][1]} ({1000 * loss[p]:.0f})"
                          for p in order[:shown])
    return f"{name}: the worst {n} positions carry {100 * share:.0f}% of the loss; worst: {worst_few}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", action="append", default=[], help="agent spec (repeatable), e.g. "
                        "checkpoint:checkpoints/reference.pt@0")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge", choices=("gnubg", "rollout"), default="gnubg",
                        help="gnubg n-ply on gnubg self-play (--positions, --seed, --ref-plies), or the shipped rollout judge")
    parser.add_argument("--judge-file", type=Path, default=None,
                        help="with --judge rollout: a judge built by scripts/build_rollout_judge.py instead of the shipped one")
    parser.add_argument("--ref-plies", type=int, default=2, choices=(0, 1, 2), help="gnubg's ply for the reference")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where a freshly built reference is saved")
    parser.add_argument("--workers", type=int, default=0, help="processes for the reference (0: one per CPU)")
    parser.add_argument("--worst", type=int, default=0, help="also print each agent's share of loss in its N worst "
                        "positions, and the worst by Position ID")
    args = parser.parse_args(argv)

    counts_line = lambda ref: ", ".join(f"{k} {c} ({100 * k / len(ref.boards):.0f}%)"  # noqa: E731
                                        for c, k in zip(CLASSES, np.bincount(ref.classes, minlength=len(CLASSES))))
    if args.judge == "rollout":
        try:
            ref = Reference.load(args.judge_file) if args.judge_file else shipped_judge()
        except (OSError, ValueError, EOFError, KeyError) as exc:
            sys.exit(f"bench_errors: cannot read the rollout judge {args.judge_file or 'shipped'}: {exc}")
        m = ref.meta
        print(f"{len(ref.boards)} decisions from {m['counts']['games']} noisy games of {', '.join(m['players'])} "
              f"(seed {m['settings']['seed']}; {m['counts']['bearoff']} bear-offs counted as race): {counts_line(ref)}")
        print(f"judge: {m['judge']}, {m['rolled_plays']} plays within {m['window']} of the best (at most {m['top']}), "
              f"mean standard error {m['mean_se']:.4f}; other plays keep their 0-ply gap")
    else:
        ref, where = get_reference(args.positions, args.seed, args.ref_plies, args.cache, args.workers)
        m = ref.meta
        print(f"{len(ref.boards)} positions from {m['games']} gnubg 0-ply self-play games (seed {m['seed']}): "
              + counts_line(ref))
        print(f"reference: gnubg {m['plies']}-ply cubeless equity of all {len(ref.results)} results "
              f"({m['ms_per_evaluation']:.3g} ms per evaluation per process), {where}")
    print("cells: mean equity loss x1000 per move ± 95% interval; best move: share of the reference's best "
          "played; s: seconds to choose\n")
    rows = []
    for spec in list(YARDSTICKS) + args.agent:
        try:
            agent = make_agent(spec)
        except ConfigError as exc:
            if not spec.startswith("gnubg"):
                raise
            print(f"{spec}: {exc}", file=sys.stderr)
            rows.append((spec, None, 0.0))
            continue
        t = time.perf_counter()
        loss = agent_losses(agent, ref)
        rows.append((spec, loss, time.perf_counter() - t))
    print(table(rows, ref.classes))
    if args.worst > 0:
        print()
        for name, loss, _ in rows:
            if loss is not None:
                print(worst(name, loss, ref, args.worst))


if __name__ == "__main__":
    main()
