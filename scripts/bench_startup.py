"""Start-up cost of the move generator and of a hint in a fresh process, next to gnubg's.

A worker process, a test run or a CLI call pays this once: start Python, import the
engine, and generate the first moves. numba compiles the kernels once and caches them on
disk, so every later process only loads them. Each row is the best of ``--repeats`` fresh
interpreters, timed from launch to exit. The first table is the move generator's, with the
child's own split:

- ``numpy``: importing numpy; ``numba``: importing numba; ``kernels``: importing
  ``bgzero.engine.movegen`` and the first ``generate`` (numba initialises its compiler state and
  loads the cached machine code on that first use).

numba imports ``scipy.linalg`` on its first kernel load when scipy is installed (to look for
BLAS). scipy is not a bgzero dependency (it arrives with OpenSpiel in the ``dev`` extra), so
the script also runs the child with ``import scipy`` made to fail, which is what a process
sees where only bgzero's own dependencies are installed. The peer row is gnubg's C
generator through ``gnubg_nn`` (import and first ``moves`` call).

The second table is a whole command: ``bgzero-hint position=4HPwATDgc/ABMA dice=31`` with
the shipped ``strong`` agent (with and without scipy; a console script spares numba the
refresh that probes for BLAS, :func:`bgzero.cli.launch.load_cached_kernels_without_refresh`),
next to the gnubg program's ``hint`` on the same position and roll (``gnubg -t -q -r``,
commands on stdin), with whether the command imported torch. ``--every-command`` adds each playing command's ``--help`` and a
small real call (a server: until it is ready to serve). Commands run as their console
scripts do (:mod:`bgzero.cli.launch`, which answers ``--help`` before importing the
command), from a temporary directory, so run the script with ``PYTHONPATH`` set to the
checkout it measures.

Every child runs without ``PYTHONDONTWRITEBYTECODE``: an installed package has its modules
compiled to bytecode (pip does it on install), and a child that may not write bytecode
compiles bgzero's modules from source on every start (~0.15 s here), which no user pays.

    python scripts/bench_startup.py --repeats 5 [--every-command]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
                  "scipy": "scipy.linalg" in sys.modules}))
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


COMMAND = """
import atexit, json, sys
sys.argv = {argv!r}
atexit.register(lambda: print(json.dumps({{"torch": "torch" in sys.modules, "scipy": "scipy.linalg" in sys.modules}}),
                              file=sys.stderr))
from bgzero.cli.launch import {name} as main
main()
"""

POSITION, DICE = "4HPwATDgc/ABMA", "31"
GNUBG_HINT = f"new game\nset board {POSITION}\nset turn 0\nset dice 3 1\nhint\nquit\n"

EVERY = {  # command: (its arguments for a small real call, its stdin, the line it prints when ready to serve)
    "analyze": (["input=positions.txt", "output=out.jsonl"], None, None),
    "eval": (["a=pubeval", "b=random", "games=2", "processes=1", "out=eval", "progress=false"], None, None),
    "hint": ([f"position={POSITION}", f"dice={DICE}"], None, None),
    "match": (["a=pubeval", "b=random", "matches=1", "length=1", "processes=1", "out=match", "progress=false"], None,
              None),
    "play": (["seed=1", "confirm=false"], "quit\n", None),
    "rollout": ([f"position={POSITION}", "trials=36", "progress=false"], None, None),
    "serve": (["port=0"], None, "serving"),
    "web": (["port=0"], None, "bgzero-web: http"),
}


CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: this one, with bytecode written and read as an installed package has it."""


def run_command(name: str, args: list[str], cwd: str, stdin: str | None = None, ready: str | None = None,
                env: dict | None = None, prefix: str = "") -> tuple[float, dict]:
    """Wall time of the console script ``bgzero-NAME args`` from launch to exit (or to printing
    ``ready``, then interrupted), and whether it imported torch and scipy."""
    code = prefix + COMMAND.format(argv=[f"bgzero-{name}", *args], name=name)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=cwd, env=env, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if ready is None:
        out, _ = proc.communicate(stdin, timeout=600)
        wall = time.perf_counter() - start
    else:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if ready in line:
                break
        wall = time.perf_counter() - start
        proc.send_signal(signal.SIGINT)
        try:
            out = "".join(lines) + proc.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:  # a server that ignored Ctrl-C once: stop it, and say so
            proc.kill()
            raise SystemExit(f"bench_startup.py: bgzero-{name} did not stop within 60 s of SIGINT") from None
    report = [line for line in out.splitlines() if line.startswith('{"torch"')]
    if not report:
        raise SystemExit(f"bench_startup.py: bgzero-{name} {' '.join(args)} failed: {out.strip()[-500:]}")
    return wall, json.loads(report[-1])


def run_gnubg(program: str) -> float:
    start = time.perf_counter()
    subprocess.run([program, "-t", "-q", "-r"], input=GNUBG_HINT, capture_output=True, text=True, check=True,
                   timeout=120)
    return time.perf_counter() - start


def command_rows(repeats: int, every: bool) -> None:
    """The second table: a hint as a command, bgzero's and gnubg's; with ``every``, each playing command too."""
    rows = [("bgzero-hint, this environment", "hint", EVERY["hint"], ""),
            ("bgzero-hint, without scipy", "hint", EVERY["hint"], NO_SCIPY)]
    if every:
        for name, call in EVERY.items():
            rows += [(f"bgzero-{name} --help", name, (["--help"], None, None), ""),
                     (f"bgzero-{name} {' '.join(call[0])}", name, call, "")]
    gnubg = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
    best: dict[str, tuple[float, dict]] = {}
    with tempfile.TemporaryDirectory() as cwd:
        Path(cwd, "positions.txt").write_text(f"{POSITION} {DICE}\n{POSITION} 66\n")
        env = dict(CHILD_ENV, PYTHONPATH=os.pathsep.join(p for p in [os.getcwd(), os.environ.get("PYTHONPATH")] if p))
        for _ in range(repeats):
            for name, script, (args, stdin, ready), prefix in rows:
                wall, report = run_command(script, args, cwd, stdin, ready, env, prefix)
                if name not in best or wall < best[name][0]:
                    best[name] = (wall, report)
            if gnubg:
                wall = run_gnubg(gnubg)
                if "gnubg hint" not in best or wall < best["gnubg hint"][0]:
                    best["gnubg hint"] = (wall, {})
    peer = best.get("gnubg hint")
    print(f"\nbest of {repeats} fresh processes each; a server's time is to its ready line\n")
    print("| command | launch to exit | torch imported | scipy.linalg imported | time ÷ gnubg's hint |")
    print("|---|---:|---|---|---:|")
    for name, *_ in rows + ([("gnubg hint",)] if peer else []):
        wall, r = best[name]
        flags = [("yes" if r[k] else "no") if k in r else "-" for k in ("torch", "scipy")]
        ratio = f"{wall / peer[0]:.1f}×" if peer else "-"
        print(f"| {name} | {wall:.2f} s | {flags[0]} | {flags[1]} | {ratio} |")


def run_child(code: str) -> tuple[float, dict]:
    """Wall time from launch to exit of a fresh interpreter running ``code``, and its report."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=CHILD_ENV)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bench_startup.py: child failed: {done.stderr.strip().splitlines()[-1]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per row (best is kept)")
    parser.add_argument("--every-command", action="store_true", help="also each playing command's --help and a call")
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
    print("| process | launch to exit | numpy | numba | kernels + first generate | scipy.linalg imported | time ÷ gnubg_nn's |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, _ in rows:
        wall, r = best[name]
        ratio = f"{wall / peer[0]:.2f}×" if peer else "-"
        if "kernels" in r:
            print(f"| {name} | {wall:.2f} s | {r['numpy']:.2f} s | {r['numba']:.2f} s | {r['kernels']:.2f} s "
                  f"| {'yes' if r['scipy'] else 'no'} | {ratio} |")
        else:
            print(f"| {name} | {wall:.2f} s | - | - | - | - | {ratio} |")
    command_rows(args.repeats, args.every_command)


if __name__ == "__main__":
    main()
