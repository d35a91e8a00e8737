"""Start-up cost of the move generator in a fresh process, next to gnubg's.

A worker process, a test run or a CLI call pays this once: start Python, import the
engine, and generate the first moves. numba compiles the kernels once and caches them on
disk, so every later process only loads them. Each row is the best of ``--repeats`` fresh
interpreters, timed from launch to exit, with the child's own split:

- ``numpy``: importing numpy; ``numba``: importing numba; ``kernels``: importing
  ``bgzero.engine.movegen`` and the first ``generate`` (numba initialises its compiler state and
  loads the cached machine code on that first use).

numba imports ``scipy.linalg`` on its first kernel load when scipy is installed (to look for
BLAS). scipy is not a bgzero dependency (it arrives with OpenSpiel in the ``dev`` extra), so
the script also runs the child with ``import scipy`` made to fail, which is what a process
sees where only bgzero's own dependencies are installed. The peer row is gnubg's C
generator through ``gnubg_nn`` (import and first ``moves`` call).

    python scripts/bench_startup.py --repeats 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

NO_SCIPY = """
import importlib.abc, sys
class _NoScipy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError("scipy hidden by bench_startup.py")
        return None
sys.meta_path.insert(0, _NoScipy())
"""

BGZERO = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import numba
t2 = time.perf_counter()
from bgzero.engine.board import START
from bgzero.engine.movegen import generate
n = len(generate(START[None], np.array([[3, 1]], np.int8)).results)
t3 = time.perf_counter()
print(json.dumps({"numpy": t1 - t0, "numba": t2 - t1, "kernels": t3 - t2, "results": n,
                  "scipy": "scipy" in sys.modules}))
"""

GNUBG = """
import json, time
t0 = time.perf_counter()
import gnubg_nn
board = [[0] * 25, [0] * 25]
for side in board:
    side[5], side[7], side[12], side[23] = 5, 3, 5, 2
n = len(gnubg_nn.moves(board, 3, 1))
print(json.dumps({"import+moves": time.perf_counter() - t0, "results": n}))
"""


def run_child(code: str) -> tuple[float, dict]:
    """Wall time from launch to exit of a fresh interpreter running ``code``, and its report."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bench_startup.py: child failed: {done.stderr.strip().splitlines()[-1]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per row (best is kept)")
    args = parser.parse_args()

    run_child(BGZERO)  # compiles the kernels into numba's cache if this is the first run
    rows = [("bgzero, this environment", BGZERO), ("bgzero, without scipy (bgzero's own dependencies)",
                                                    NO_SCIPY + BGZERO)]
    try:
        import gnubg_nn  # noqa: F401
        rows.append(("gnubg_nn (C generator): import + first moves", GNUBG))
    except ImportError:
        pass
    best: dict[str, tuple[float, dict]] = {}
    for _ in range(args.repeats):  # passes interleaved, so background load hits every row alike
        for name, code in rows:
            wall, report = run_child(code)
            if name not in best or wall < best[name][0]:
                best[name] = (wall, report)

    peer = best.get("gnubg_nn (C generator): import + first moves")
    print(f"best of {args.repeats} fresh processes each\n")
    print("| process | launch to exit | numpy | numba | kernels + first generate | scipy imported | time ÷ gnubg_nn's |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, _ in rows:
        wall, r = best[name]
        ratio = f"{wall / peer[0]:.2f}×" if peer else "-"
        if "kernels" in r:
            print(f"| {name} | {wall:.2f} s | {r['numpy']:.2f} s | {r['numba']:.2f} s | {r['kernels']:.2f} s "
                  f"| {'yes' if r['scipy'] else 'no'} | {ratio} |")
        else:
            print(f"| {name} | {wall:.2f} s | - | - | - | - | {ratio} |")


if __name__ == "__main__":
    main()
