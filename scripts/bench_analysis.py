"""``bgzero-analyze match=FOLDER`` against GNU Backgammon's ``analyse match``, same files, same plies, one run.

Plays (or reuses) seeded 5-point matches with ``bgzero-match ... format=both``, then for each
``--plies`` times both programs as whole commands, start-up included: bgzero-analyze on the
folder (the console script's entry point; every position in batches through the search) and
one gnubg process that imports and analyses every ``.mat`` in turn (checker play and cube at
that ply, luck at 0 ply on both sides, ``set threads 1``). Both run with the same niceness and
one thread each (``OMP_NUM_THREADS=1`` for torch), and each command is timed in wall-clock
and in CPU seconds (its own and its children's); the ratio is gnubg's time over bgzero's, so above 1
means bgzero is faster. On a shared machine the CPU seconds are the steadier figure.

    python scripts/bench_analysis.py --matches 4 --seed 35 --plies 0 1 2 --out runs/bench_analysis
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bgzero.atomic import atomic_write_text

PAIRS = (("strong", "gnubg@0"), ("strong", "pubeval"), ("gnubg@0", "pubeval"))
GNUBG = "/usr/games/gnubg"
BGZERO_ANALYZE = [sys.executable, "-c", "import sys; from bgzero.cli.launch import analyze; sys.exit(analyze())"]
"""What the ``bgzero-analyze`` console script runs (``pyproject.toml``), with this interpreter and
``PYTHONPATH``: timing ``python -m bgzero.cli.analyze`` instead would leave out the launcher's
loading of numba's cached kernels (:func:`bgzero.cli.launch.load_cached_kernels_without_refresh`)."""


def make_matches(out: Path, matches: int, length: int, seed: int) -> list[Path]:
    """``matches`` matches per pair of :data:`PAIRS` under ``out/PAIR``, each pair from ``seed``; existing folders are reused."""
    files = []
    for a, b in PAIRS:
        folder = out / f"{a}-{b}".replace("@", "")
        if not sorted(folder.glob("match_*.mat")):
            subprocess.run([sys.executable, "-m", "bgzero.cli.match", f"a={a}", f"b={b}", f"length={length}",
                            f"matches={matches}", f"seed={seed}", "shard=1", "processes=1", "format=both",
                            "progress=false", f"out={folder}"], check=True, stdout=subprocess.DEVNULL)
        found = sorted(folder.glob("match_*.mat"))
        if len(found) < matches:
            raise SystemExit(f"{folder} holds {len(found)} matches, fewer than --matches {matches}: remove it to replay")
        files += found[:matches]
    return files


def timed(command: list[str], stdin: str | None = None, env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, output) of ``command`` run to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(command, input=stdin, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({run.returncode}): {run.stdout[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, run.stdout


def gnubg_commands(files: list[Path], ply: int) -> str:
    """gnubg's script: every file imported and analysed at ``ply`` (luck at 0, its default)."""
    lines = ["set threads 1", f"set analysis chequerplay evaluation plies {ply}",
             f"set analysis cubedecision evaluation plies {ply}", "set analysis luckanalysis plies 0"]
    for f in files:
        lines += [f"import mat {f}", "analyse match"]
    return "\n".join(lines + ["quit", "y", ""])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4, help="matches per pair of agents")
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--plies", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--agent", default="strong", help="bgzero's judge; @PLY is added per ply")
    parser.add_argument("--out", type=Path, default=Path("runs/bench_analysis"))
    args = parser.parse_args(argv)
    if args.matches < 1 or any(p not in (0, 1, 2) for p in args.plies):
        parser.error("--matches must be at least 1 and --plies each 0, 1 or 2")
    if not Path(GNUBG).exists():
        parser.error(f"gnubg is not installed at {GNUBG} (apt-get install gnubg)")
    files = make_matches(args.out, args.matches, args.length, args.seed)
    folder = args.out / "all"
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("match_*.mat"):
        stale.unlink()
    for k, f in enumerate(files, 1):  # one folder of .mat only, so both programs read the same files
        (folder / f"match_{k:04d}.mat").write_text(f.read_text())
    mats = sorted(folder.glob("match_*.mat"))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    rows = []
    for ply in args.plies:
        ours = timed([*BGZERO_ANALYZE, f"match={folder}", f"agent={args.agent}@{ply}",
                      "progress=false", "luck_ply=0", f"output={args.out / f'bgzero_{ply}.json'}"], env=env)
        theirs = timed([GNUBG, "-t", "-q", "-r"], stdin=gnubg_commands(mats, ply), env=env)
        row = {"ply": ply, "bgzero_wall": ours[0], "bgzero_cpu": ours[1], "gnubg_wall": theirs[0],
               "gnubg_cpu": theirs[1], "ratio_wall": theirs[0] / ours[0], "ratio_cpu": theirs[1] / ours[1]}
        rows.append(row)
        print(f"{ply}-ply: bgzero {ours[0]:.1f} s wall / {ours[1]:.1f} s CPU, gnubg {theirs[0]:.1f} s / "
              f"{theirs[1]:.1f} s: gnubg/bgzero {row['ratio_wall']:.2f}x wall, {row['ratio_cpu']:.2f}x CPU", flush=True)
    load = os.getloadavg()
    summary = {"matches": len(mats), "length": args.length, "seed": args.seed, "agent": args.agent,
               "load_after": load, "nice": os.nice(0), "rows": rows}
    atomic_write_text(args.out / "bench.json", json.dumps(summary, indent=1))
    print(f"{len(mats)} {args.length}-point matches; niceness {os.nice(0)}; load average after {load[0]:.2f}")
    print("| ply | bgzero wall s | gnubg wall s | ratio (wall) | bgzero CPU s | gnubg CPU s | ratio (CPU) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['ply']} | {r['bgzero_wall']:.1f} | {r['gnubg_wall']:.1f} | {r['ratio_wall']:.2f}x | "
              f"{r['bgzero_cpu']:.1f} | {r['gnubg_cpu']:.1f} | {r['ratio_cpu']:.2f}x |")


if __name__ == "__main__":
    sys.exit(main())
