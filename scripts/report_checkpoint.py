"""Strength report for a checkpoint: cubeless money vs pubeval and gnubg, duplicate dice.

Prints a markdown table (one row per opponent and ply, each with its 95% interval and
game count) and writes it with the raw figures to ``--out`` (JSON). The model cards and
the README quote its output.

    python scripts/report_checkpoint.py checkpoints/reference.pt \
        --row pubeval:0:20000 --row gnubg:0:10000 --row pubeval:1:1000
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from bgzero.arena.duplicate import play_duplicate_from_specs
from bgzero.atomic import atomic_write_text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--row", action="append", default=[],
                    help="OPPONENT:PLY:GAMES, e.g. pubeval:0:20000 or gnubg:0:10000 (opponent spec in bgzero-eval grammar)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=None, help="JSON file for the figures (default: next to the checkpoint)")
    args = ap.parse_args()
    rows = args.row or ["pubeval:0:20000"]
    out = Path(args.out or Path(args.checkpoint).with_suffix(".report.json"))
    records = json.loads(out.read_text()) if out.exists() else []
    print("| bgzero agent | opponent | games | ppg ± 95% | win % | gammons for/against | games/s |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        opponent, ply, games = row.rsplit(":", 2)
        spec = f"checkpoint:{args.checkpoint}@{ply}"
        r = play_duplicate_from_specs(spec, opponent, int(games), seed=args.seed, processes=args.processes, progress=True)
        records.append({"agent": spec, "opponent": opponent, "seed": args.seed, **r.as_dict()})
        print(f"| {Path(args.checkpoint).name} {ply}-ply | {opponent} | {r.games} | {r.ppg:+.3f} ± {r.ci95:.3f} | "
              f"{100 * r.win_rate:.1f} | {100 * r.a_gammon_rate:.1f} / {100 * r.b_gammon_rate:.1f} | "
              f"{r.games_per_second:.1f} |", flush=True)
        atomic_write_text(out, json.dumps(records, indent=2))


if __name__ == "__main__":
    main()
