"""Build the rollout judge of checker play (:mod:`bgzero.judge.rollout_judge`), resumably.

    python scripts/build_rollout_judge.py --folder runs/rollout_judge --seconds 3600   # stop, then run again
    python scripts/build_rollout_judge.py --folder runs/rollout_judge --out bgzero/data/rollout_judge_0_1000.npz

Each run goes on from the chunks already saved in ``--folder``; once all are done, ``--out``
writes the judge that ``bgzero-bench errors judge=rollout`` reads (``judge_file=`` for one not at the
shipped path).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tqdm import tqdm

from bgzero.errors import ConfigError
from bgzero.judge.rollout_judge import CHUNK, JudgeSettings, assemble, build


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, required=True, help="the build's chunks (resumed from here)")
    parser.add_argument("--decisions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=324, help="variance-reduced trials per play")
    parser.add_argument("--player", default="strong_td", help="the rollouts' player and judge (0-ply)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=None, help="stop between chunks after this long")
    parser.add_argument("--out", type=Path, default=None, help="write the finished judge here")
    args = parser.parse_args(argv)
    settings = JudgeSettings(args.decisions, args.seed, args.trials, args.player)
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    chunks = -(-args.decisions // CHUNK)
    try:
        with tqdm(total=chunks, desc="rollout judge", unit="chunk") as bar:
            def advance(done: int, _total: int) -> None:
                bar.n = done
                bar.refresh()
            done = build(args.folder, settings, args.processes, deadline, advance)
        print(f"{done}/{chunks} chunks of {CHUNK} decisions in {args.folder}")
        if args.out is not None and done == chunks:
            assemble(args.folder, settings).save(args.out)
            print(f"judge written to {args.out}")
    except ConfigError as exc:
        sys.exit(f"build_rollout_judge: {exc}")
    except KeyboardInterrupt:
        sys.exit("build_rollout_judge: interrupted; the chunks saved so far are kept: run it again to go on")


if __name__ == "__main__":
    main()
