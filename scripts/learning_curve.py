"""Learning curve of a training run: ppg vs pubeval against games trained and wall time.

Reads the run's TensorBoard scalars (``eval/ppg_vs_pubeval``, its interval and
``eval/wall_seconds``), prints a markdown table and writes a PNG.

    python scripts/learning_curve.py runs/reference --out docs/reference_curve.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402


def read_curve(run: Path) -> list[tuple[int, float, float, float, float]]:
    """(games, ppg, low, high, wall seconds) per evaluation, the last one per step kept.

    Runs written before checkpoints carried their wall time restart the clock at a
    resume; such segments are joined at the last evaluation before the resume, which
    undercounts by the time between that evaluation and the crash.
    """
    ea = EventAccumulator(str(run / "tb"), size_guidance={"scalars": 0})
    ea.Reload()
    tags = ea.Tags()["scalars"]
    if "eval/ppg_vs_pubeval" not in tags:
        raise SystemExit(f"{run}: no eval/ppg_vs_pubeval scalars in {run / 'tb'}")
    by_step = {}
    for name in ("eval/ppg_vs_pubeval", "eval/ppg_ci95_low", "eval/ppg_ci95_high", "eval/wall_seconds"):
        for e in ea.Scalars(name):
            by_step.setdefault(e.step, {})[name] = e.value
    rows, offset, last_wall = [], 0.0, 0.0
    for step in sorted(by_step):
        v = by_step[step]
        if len(v) == 4:
            wall = v["eval/wall_seconds"]
            if wall + offset < last_wall:  # the run was resumed: its clock restarted
                offset = last_wall
            last_wall = wall + offset
            rows.append((step, v["eval/ppg_vs_pubeval"], v["eval/ppg_ci95_low"], v["eval/ppg_ci95_high"], last_wall))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="PNG path (default: RUN/learning_curve.png)")
    args = ap.parse_args()
    rows = read_curve(args.run)
    print("| games trained | wall time (min) | ppg vs pubeval ± 95% |")
    print("|---:|---:|---|")
    for games, ppg, lo, hi, wall in rows:
        print(f"| {games:,} | {wall / 60:.0f} | {ppg:+.3f} ± {(hi - lo) / 2:.3f} |")
    games = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(games, [r[1] for r in rows], yerr=[(r[3] - r[2]) / 2 for r in rows], fmt="o-", capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("self-play games trained")
    ax.set_ylabel("ppg vs pubeval (95% CI)")
    top = ax.secondary_xaxis("top", functions=(lambda g: g, lambda g: g))
    top.set_xticks(games[:: max(1, len(games) // 6)])
    top.set_xticklabels([f"{rows[i][4] / 60:.0f}m" for i in range(0, len(rows), max(1, len(rows) // 6))])
    top.set_xlabel("wall time")
    ax.set_title(f"Learning curve: {args.run.name}")
    fig.tight_layout()
    out = args.out or args.run / "learning_curve.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"written: {out}")


if __name__ == "__main__":
    main()
