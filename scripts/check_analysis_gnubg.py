"""bgzero-analyze match= against GNU Backgammon's own ``analyse match``, both at 0-ply, on the same files.

Plays short matches between different agents (``bgzero-match``'s engine), analyses every file
with bgzero (``strong`` at 0-ply) and with the Debian gnubg program (``analyse match``, 0-ply
checker play and cube), and prints per-player error rates side by side, their correlation,
the correlation of each player's luck (bgzero's in points, gnubg's "Luck total EMG"),
and how many of the decisions gnubg marks very bad bgzero flags too (matched by game and
action number; gnubg's marks read from its analysed SGF: BM[2]/BC[2] very bad).

    python scripts/check_analysis_gnubg.py --per-pair 10 --length 3 --out runs/check_analysis
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

from bgzero.arena.analysis import evaluator_from_spec
from bgzero.arena.match import play_matches_from_specs
from bgzero.arena.match_analysis import analyse_match
from bgzero.arena.matfile import write_match
from bgzero.atomic import atomic_write_text

PAIRS = (("strong", "gnubg@0"), ("strong", "pubeval"), ("gnubg@0", "pubeval"))
GNUBG = "/usr/games/gnubg"
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\(\s*-?[\d.]+%\)\s+(-?[\d.]+)", re.M)
_LUCK = re.compile(r"^Luck total EMG \(MWC\)\s+([-+][\d.]+)\s+\(\s*[-+]?[\d.]+%\)\s+([-+][\d.]+)", re.M)
_NODE = re.compile(r";([WB])\[([^\]]*)\]((?:\s*[A-Z]+(?:\[(?:\\.|[^\]\\])*\])+)*)")


def gnubg_analyse(files: list[Path], out: Path) -> list[dict]:
    """gnubg's per-player error rates and very-bad decisions for each file (one gnubg run)."""
    commands = ["set threads 1", "set analysis chequerplay evaluation plies 0",
                "set analysis cubedecision evaluation plies 0"]
    for k, f in enumerate(files):
        commands += [f"import mat {f}", "analyse match", "show statistics match", f"save match {out / f'{k}.sgf'}",
                     "endofmatch"]
    text = subprocess.run([GNUBG, "-t", "-q", "-r"], input="\n".join(commands + ["quit", ""]), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=3600).stdout
    results = []
    for k, chunk in enumerate(text.split("endofmatch")[:len(files)]):
        rates = _RATE.findall(chunk)  # checker, cube, overall
        if len(rates) < 3:
            raise SystemExit(f"gnubg printed no statistics for {files[k]}: {chunk[-1000:]}")
        # gnubg prints errors as negative equity: their size is the error rate
        luck = _LUCK.search(chunk)
        results.append({"checker": [abs(float(x)) for x in rates[0]], "cube": [abs(float(x)) for x in rates[1]],
                        "overall": [abs(float(x)) for x in rates[2]], "luck": [float(x) for x in luck.groups()],
                        "very_bad": _very_bad(out / f"{k}.sgf")})
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-pair", type=int, default=10, help="matches per pair of agents")
    parser.add_argument("--length", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent", default="strong", help="bgzero's judge (0-ply unless @PLY)")
    parser.add_argument("--out", type=Path, default=Path("runs/check_analysis"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    files, records = [], []
    for a, b in PAIRS:
        played, _ = play_matches_from_specs(a, b, args.per_pair, length=args.length, seed=args.seed, progress=True)
        for record in played:
            files.append(write_match(args.out / f"match_{len(files) + 1:04d}.mat", record))
            records.append(record)
    start = time.perf_counter()
    theirs = gnubg_analyse(files, args.out)
    gnubg_seconds = time.perf_counter() - start
    evaluator, ply = evaluator_from_spec(args.agent)
    start = time.perf_counter()
    ours = [analyse_match(evaluator, r, ply) for r in records]
    bgzero_seconds = time.perf_counter() - start
    rows, very_bad, flagged, strict = [], 0, 0, 0
    for f, record, mine, gn in zip(files, records, ours, theirs):
        marks = {(d.player, d.game, d.turn, d.kind != "checker"): d.mark for p in mine.players for d in p.decisions
                 if d.counted}
        for key in gn["very_bad"]:
            very_bad += 1
            flagged += bool(marks.get(key))
            strict += marks.get(key) == "very bad"
        for p in (0, 1):
            stats = mine.players[p]
            rows.append({"file": f.name, "player": record.names[p], "bgzero_checker": stats.checker_error_rate,
                         "gnubg_checker": gn["checker"][p], "bgzero_overall": stats.error_rate,
                         "gnubg_overall": gn["overall"][p], "bgzero_luck": stats.luck, "gnubg_luck": gn["luck"][p]})

    def r(key: str) -> float:
        return float(np.corrcoef([x[f"bgzero_{key}"] for x in rows], [x[f"gnubg_{key}"] for x in rows])[0, 1])

    summary = {"matches": len(files), "players": len(rows), "r_checker": r("checker"), "r_overall": r("overall"),
               "r_luck": r("luck"),
               "gnubg_very_bad": very_bad, "flagged_any_mark": flagged, "flagged_very_bad": strict,
               "bgzero_seconds": bgzero_seconds, "gnubg_seconds": gnubg_seconds, "rows": rows}
    atomic_write_text(args.out / "agreement.json", json.dumps(summary, indent=1))
    by_agent: dict[str, list] = {}
    for x in rows:
        by_agent.setdefault(x["player"], []).append(x)
    print(f"{'agent':<10}{'n':>4}{'bgzero checker':>16}{'gnubg checker':>15}{'bgzero overall':>16}{'gnubg overall':>15}")
    for name, xs in by_agent.items():
        print(f"{name:<10}{len(xs):>4}" + "".join(f"{np.mean([x[k] for x in xs]):>{w}.1f}" for k, w in (
            ("bgzero_checker", 16), ("gnubg_checker", 15), ("bgzero_overall", 16), ("gnubg_overall", 15))))
    print(f"{len(files)} {args.length}-point matches, {len(rows)} player-matches: r(checker) = {summary['r_checker']:.3f},"
          f" r(overall) = {summary['r_overall']:.3f}, r(luck) = {summary['r_luck']:.3f}; gnubg marks {very_bad} decisions very bad, bgzero marks "
          f"{flagged} of them ({100 * flagged / max(very_bad, 1):.0f}%; {strict} very bad); "
          f"bgzero {bgzero_seconds:.0f} s, gnubg {gnubg_seconds:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
