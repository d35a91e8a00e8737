"""bgzero-analyze match= against GNU Backgammon's own ``analyse match``, at the same plies, on the same files.

Plays short matches between different agents (``bgzero-match``'s engine), or reads the
``.mat`` files of ``--matches``, then at each ``--plies`` analyses every file with gnubg
(the Debian program: ``analyse match``, checker play and cube at that ply, luck at 0 ply)
and with bgzero (the whole folder in one batched :func:`analyse_matches`, luck at 0 ply
too), and prints per-player error rates side by side and the correlation over the
player-matches of the overall, checker and cube error rates and of the luck (bgzero's
luck in EMG against gnubg's "Luck total EMG"). It also counts the decisions gnubg marks
very bad (its analysed SGF: BM[2] checker, BC[2] cube), how many of them bgzero marks at
all and how many very bad, matched by game and action number.

``--cube-life classic`` gives bgzero's 0- and 1-ply cube decisions gnubg 1.07's cube life
(0.68 in contact at every depth) in place of the newer 0-1 ply set (0.76) that
``gnubg_efficiency`` copies from gnubg 1.1: the experiment behind docs/analysis.md's
answer to the cube-life question.

    python scripts/check_analysis_gnubg.py --matches runs/bench_analysis/all --plies 0 1 2 --out runs/check_analysis
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bgzero.analysis.match import analyse_matches
from bgzero.analysis.position import evaluator_from_spec
from bgzero.atomic import atomic_write_text
from bgzero.match.files import read_match_file
from bgzero.match.mat import write_mat
from bgzero.match.runner import play_matches_from_specs

PAIRS = (("strong", "gnubg@0"), ("strong", "pubeval"), ("gnubg@0", "pubeval"))
GNUBG = "/usr/games/gnubg"
KINDS = ("overall", "checker", "cube", "luck")
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\(\s*-?[\d.]+%\)\s+(-?[\d.]+)", re.M)
_LUCK = re.compile(r"^Luck total EMG \(MWC\)\s+([-+][\d.]+)\s+\(\s*[-+]?[\d.]+%\)\s+([-+][\d.]+)", re.M)
_MISSED = re.compile(r"^Missed doubles (?:below|above) CP[^\n]*?\s(\d+)[ (][^\n]*?\s(\d+)(?: \(|\s*$)", re.M)
_NODE = re.compile(r";([WB])\[([^\]]*)\]((?:\s*[A-Z]+(?:\[(?:\\.|[^\]\\])*\])+)*)")


def gnubg_analyse(files: list[Path], out: Path, ply: int) -> list[dict]:
    """gnubg's per-player error rates, luck and very-bad decisions for each file at ``ply`` (one gnubg run)."""
    commands = ["set threads 1", f"set analysis chequerplay evaluation plies {ply}",
                f"set analysis cubedecision evaluation plies {ply}", "set analysis luckanalysis plies 0"]
    for k, f in enumerate(files):
        commands += [f"import mat {f}", "analyse match", "show statistics match",
                     f"save match {out / f'gnubg_{ply}_{k}.sgf'}", "endofmatch"]
    text = subprocess.run([GNUBG, "-t", "-q", "-r"], input="\n".join(commands + ["quit", ""]), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=7200).stdout
    results = []
    for k, chunk in enumerate(text.split("endofmatch")[:len(files)]):
        rates = _RATE.findall(chunk)  # checker, cube, overall
        luck = _LUCK.search(chunk)
        if len(rates) < 3 or luck is None:
            raise SystemExit(f"gnubg printed no statistics for {files[k]}: {chunk[-1000:]}")
        missed = [sum(int(m[p]) for m in _MISSED.findall(chunk)) for p in (0, 1)]
        # gnubg prints errors as negative equity: their size is the error rate
        results.append({"checker": [abs(float(x)) for x in rates[0]], "cube": [abs(float(x)) for x in rates[1]],
                        "overall": [abs(float(x)) for x in rates[2]], "luck": [float(x) for x in luck.groups()],
                        "missed": missed, "very_bad": _very_bad(out / f"gnubg_{ply}_{k}.sgf")})
    return results


def _very_bad(sgf: Path) -> list[tuple]:
    """(player, game, action number, is_cube) of every decision gnubg's analysed SGF marks very bad."""
    marked = []
    for game, tree in enumerate(sgf.read_text().split("(;")[1:], 1):
        for turn, (colour, _, props) in enumerate(_NODE.findall(tree), 1):
            player = "WB".index(colour)
            if "BM[2]" in props:
                marked.append((player, game, turn, False))
            if "BC[2]" in props:
                marked.append((player, game, turn, True))
    return marked


def use_classic_cube_life() -> None:
    """bgzero's cubeful search with gnubg 1.07's cube life at every depth (see the module docstring)."""
    import bgzero.agents.cubeful as cubeful
    from bgzero.cube import CLASSIC

    cubeful.gnubg_efficiency = lambda plies: CLASSIC


def compare(files: list[Path], records: list, ours: list, theirs: list[dict]) -> dict:
    """Rows per player-match, the correlations, and gnubg's very-bad decisions as bgzero marks them."""
    rows = []
    very_bad = {kind: {"gnubg": 0, "flagged": 0, "very_bad": 0} for kind in ("checker", "cube")}
    for f, record, mine, gn in zip(files, records, ours, theirs):
        marks = {(d.player, d.game, d.turn, d.kind != "checker"): d.mark for p in mine.players for d in p.decisions
                 if d.counted}
        for key in gn["very_bad"]:
            count = very_bad["cube" if key[3] else "checker"]
            count["gnubg"] += 1
            count["flagged"] += bool(marks.get(key))
            count["very_bad"] += marks.get(key) == "very bad"
        for p in (0, 1):
            s = mine.players[p]
            rows.append({"file": f.name, "player": record.names[p],
                         "bgzero_overall": s.error_rate, "gnubg_overall": gn["overall"][p],
                         "bgzero_checker": s.checker_error_rate, "gnubg_checker": gn["checker"][p],
                         "bgzero_cube": s.cube_error_rate, "gnubg_cube": gn["cube"][p],
                         "bgzero_luck": s.luck_emg, "gnubg_luck": gn["luck"][p],
                         "bgzero_missed": s.missed_doubles, "gnubg_missed": gn["missed"][p]})
    r = {k: float(np.corrcoef([x[f"bgzero_{k}"] for x in rows], [x[f"gnubg_{k}"] for x in rows])[0, 1])
         for k in KINDS}
    return {"r": r, "very_bad": very_bad, "rows": rows}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=Path, help="a folder of .mat files to analyse (else play new ones)")
    parser.add_argument("--per-pair", type=int, default=10, help="matches per pair of agents, when playing")
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plies", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--agent", default="strong", help="bgzero's judge; @PLY is added per ply")
    parser.add_argument("--cube-life", choices=("gnubg", "classic"), default="gnubg")
    parser.add_argument("--out", type=Path, default=Path("runs/check_analysis"))
    args = parser.parse_args(argv)
    if any(p not in (0, 1, 2) for p in args.plies):
        parser.error("--plies must each be 0, 1 or 2")
    if args.matches is not None and not sorted(args.matches.glob("*.mat")):
        parser.error(f"--matches {args.matches} holds no .mat files")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.cube_life == "classic":
        use_classic_cube_life()
    if args.matches is not None:
        files = sorted(args.matches.glob("*.mat"))
        records = [read_match_file(f) for f in files]
    else:
        files, records = [], []
        for a, b in PAIRS:
            played, _ = play_matches_from_specs(a, b, args.per_pair, length=args.length, seed=args.seed)
            for record in played:
                files.append(write_mat(args.out / f"match_{len(files) + 1:04d}.mat", record))
                records.append(record)
    summary = {"matches": len(files), "cube_life": args.cube_life, "agent": args.agent, "plies": {}}
    for ply in args.plies:
        start = time.perf_counter()
        theirs = gnubg_analyse(files, args.out, ply)
        gnubg_seconds = time.perf_counter() - start
        evaluator, _ = evaluator_from_spec(f"{args.agent}@{ply}")
        start = time.perf_counter()
        ours = analyse_matches(evaluator, records, ply)
        bgzero_seconds = time.perf_counter() - start
        result = {**compare(files, records, ours, theirs), "bgzero_seconds": bgzero_seconds,
                  "gnubg_seconds": gnubg_seconds}
        summary["plies"][ply] = result
        atomic_write_text(args.out / f"agreement_{args.cube_life}.json", json.dumps(summary, indent=1))
        report(ply, len(files), result)


def report(ply: int, matches: int, result: dict) -> None:
    rows, r, vb = result["rows"], result["r"], result["very_bad"]
    print(f"\n{ply}-ply: {matches} matches, {len(rows)} player-matches")
    print(f"{'agent':<10}{'n':>4}" + "".join(f"{f'{who} {k}':>17}" for k in ("overall", "cube", "missed")
                                           for who in ("bgzero", "gnubg")))
    by_agent: dict[str, list] = {}
    for x in rows:
        by_agent.setdefault(x["player"], []).append(x)
    for name, xs in by_agent.items():
        print(f"{name:<10}{len(xs):>4}" + "".join(f"{np.mean([x[f'{who}_{k}'] for x in xs]):>17.1f}"
                                                 for k in ("overall", "cube", "missed") for who in ("bgzero", "gnubg")))
    print("r: " + ", ".join(f"{k} {r[k]:.3f}" for k in KINDS))
    for kind, c in vb.items():
        print(f"gnubg's very bad {kind} decisions: {c['gnubg']}; bgzero marks {c['flagged']} of them, "
              f"{c['very_bad']} very bad")
    print(f"bgzero {result['bgzero_seconds']:.0f} s, gnubg {result['gnubg_seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
