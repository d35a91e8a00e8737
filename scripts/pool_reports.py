"""Pool strength-report rows from matches on different dice seeds into one figure.

A long match (10,000 games at 2-ply take hours here) runs as chunks, one seed each, so
that every finished chunk survives an interruption; this prints the pooled row per agent
and opponent, with its 95% interval and game count:

    bgzero-eval a=checkpoint:checkpoints/strong.pt@2 b=gnubg games=500 \\
        seed=S report=runs/strong_2ply/seed_S.json        # for S = 2026, 2027, ...
    python scripts/pool_reports.py runs/strong_2ply/seed_*.json

A seed that appears twice for the same agent and opponent is an error: the same dice
would be counted twice. The pooling is :func:`bgzero.arena.reports.pooled_table`.
"""

from __future__ import annotations

import argparse
import sys

from bgzero.arena.reports import pooled_table
from bgzero.errors import ConfigError


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="JSON files written by bgzero-eval report=")
    args = ap.parse_args(argv)
    try:
        print(pooled_table(args.reports))
    except ConfigError as e:
        raise SystemExit(f"error: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
