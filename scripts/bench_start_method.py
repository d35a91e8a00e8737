"""How rollout workers start: fork, forkserver (with bgzero preloaded) and spawn, in one run.

    python scripts/bench_start_method.py --calls 3 --repeats 3

Each method runs in a fresh interpreter, as a command does: ``--calls`` rollouts of the opening
one after another (``--trials`` trials truncated at 7 plies by ``strong`` at 0 ply, on
``--processes`` workers), each timed from the call to its result: the first call pays for
starting the workers (and, under forkserver, the server), the later ones for a new pool from a
warm process, as the web app's rollouts are. ``--repeats`` interleaves the methods so that the
machine's load falls on all alike; the table gives each call's median. The numbers of every
rollout are the same under each method (checked).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

METHODS = ("fork", "forkserver", "spawn")

CHILD = """
import json, sys, time
import multiprocessing
method, calls, trials, processes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
from bgzero.rollout import parallel
parallel.start_method = lambda *_: method
if method == "forkserver":
    multiprocessing.set_forkserver_preload(parallel.PRELOAD)
from bgzero.engine.board import START
from bgzero.rollout import PlayerSpec, RolloutSettings, rollout_positions
times, equities = [], []
for _ in range(calls):
    started = time.perf_counter()
    result = rollout_positions(START[None], PlayerSpec("strong"), RolloutSettings(trials=trials, truncate=7,
                               batch=trials // (2 * processes)), processes=processes)[0]
    times.append(time.perf_counter() - started)
    equities.append(float(result.equity))
print(json.dumps({"times": times, "equities": equities}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trials", type=int, default=2592)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    runs: dict[str, list[dict]] = {m: [] for m in METHODS}
    for _ in range(args.repeats):
        for method in METHODS:
            done = subprocess.run([sys.executable, "-c", CHILD, method, str(args.calls), str(args.trials),
                                   str(args.processes)], capture_output=True, text=True, check=True)
            runs[method].append(json.loads(done.stdout))
    equities = {json.dumps(run["equities"]) for method in METHODS for run in runs[method]}
    assert len(equities) == 1, f"the rollouts differ between methods: {equities}"
    print(f"{args.trials} trials of the opening, truncated at 7 plies, strong at 0 ply, {args.processes} workers; "
          f"median of {args.repeats} runs (seconds from the call to the result)")
    print("| method | " + " | ".join(f"call {k + 1}" for k in range(args.calls)) + " |")
    print("|---|" + "---|" * args.calls)
    for method in METHODS:
        cells = [statistics.median(run["times"][k] for run in runs[method]) for k in range(args.calls)]
        print(f"| {method} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
