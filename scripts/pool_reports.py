"""Pool strength-report rows from matches on different dice seeds into one figure.

A long match (10,000 games at 2-ply take hours here) runs as chunks, one seed each, so
that every finished chunk survives an interruption; this prints the pooled row per agent
and opponent, with its 95% interval and game count:

    bgzero-eval a=checkpoint:checkpoints/strong.pt@2 b=gnubg games=500 \\
        seed=S report=runs/strong_2ply/seed_S.json        # for S = 2026, 2027, ...
    python scripts/pool_reports.py runs/strong_2ply/seed_*.json

A seed that appears twice for the same agent and opponent is an error: the same dice
would be counted twice.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import fields
from pathlib import Path

from bgzero.arena.duplicate import MatchResult, pooled

RESULT_FIELDS = tuple(f.name for f in fields(MatchResult))


def read_rows(paths: list[str]) -> list[dict]:
    """Every row of the report files, each checked for the fields pooling needs."""
    rows = []
    for path in paths:
        try:
            records = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise SystemExit(f"error: cannot read report {path}: {e}")
        if not isinstance(records, list):
            raise SystemExit(f"error: {path} is not a report (expected a list of rows)")
        for i, row in enumerate(records):
            missing = [f for f in ("agent", "opponent", "seed", *RESULT_FIELDS) if f not in row]
            if missing:
                raise SystemExit(f"error: row {i} of {path} lacks {', '.join(missing)}")
            rows.append(row)
    return rows


def pool_rows(rows: list[dict]) -> dict[tuple[str, str], tuple[MatchResult, list[int]]]:
    """Pooled result and seeds per (agent, opponent); a repeated seed is an error."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["agent"], row["opponent"]].append(row)
    out = {}
    for key, group in groups.items():
        seeds = [row["seed"] for row in group]
        repeated = sorted({s for s in seeds if seeds.count(s) > 1})
        if repeated:
            raise SystemExit(f"error: {key[0]} vs {key[1]}: seed {repeated[0]} appears twice; "
                             "the same dice would be counted twice")
        results = [MatchResult(**{f: row[f] for f in RESULT_FIELDS}) for row in group]
        out[key] = (pooled(results), sorted(seeds))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="JSON files written by bgzero-eval report=")
    args = ap.parse_args(argv)
    print("| bgzero agent | opponent | games | ppg ± 95% | win % | gammons for/against | seeds |")
    print("|---|---|---|---|---|---|---|")
    for (agent, opponent), (r, seeds) in pool_rows(read_rows(args.reports)).items():
        span = f"{seeds[0]} … {seeds[-1]}" if len(seeds) > 1 else str(seeds[0])
        print(f"| {agent} | {opponent} | {r.games:,} | {r.ppg:+.3f} ± {r.ci95:.3f} | {100 * r.win_rate:.1f} | "
              f"{100 * r.a_gammon_rate:.1f} / {100 * r.b_gammon_rate:.1f} | {span} ({len(seeds)}) |")


if __name__ == "__main__":
    sys.exit(main())
