"""Rollout speed and correctness against GNU Backgammon's own rollouts, in one run.

    python scripts/bench_rollout.py --speed --agreement

``--speed``: trials/s of bgzero (one process and ``--processes``) and of the Debian
``gnubg`` program's ``rollout`` command (one thread and ``--threads``), on the same
positions with the same settings: 0-ply, cubeless, untruncated and truncated at 7 plies,
variance reduction on and off, truncation evaluated at 0 ply, games ending at exact
two-sided bear-offs. bgzero's 0-ply ranks each roll's plays with the checkpoint's pruning
net and scores the best five with its contact net; gnubg's 0-ply rollouts score every play
with the full net, which bgzero does with ``prune=false`` (timed too, on ``--processes``).
gnubg's times leave out its start (loading its nets and databases, 0.1-0.2 s, timed alone
before each run); bgzero's include starting its worker processes and building the player.
``--agreement``: untruncated cubeless rollouts of ``--positions``
varied positions (the opening, contact, a checker on the bar, races, bear-offs) with
``agent=gnubg@0`` against gnubg's, position by position in combined standard errors.
``--vr-factor``: the standard error of a 1,296-trial rollout with and without variance
reduction. Prints a table per part and writes everything to ``--out`` as JSON.

gnubg prints a rollout's result only to a terminal, so it runs on a pseudo-terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from bgzero.atomic import atomic_write_text
from bgzero.engine.board import START
from bgzero.engine.classify import BEAROFF, CONTACT, RACE, classify
from bgzero.engine.ids import board_from_position_id, position_id
from bgzero.rollout import PlayerSpec, RolloutSettings, rollout_positions
from bgzero.rollout.lockstep import in_two_sided_database
from bgzero.rollout.result import combined_z
from bgzero.selfplay.player import lockstep_self_play
from bgzero.value.checkpoint import load_evaluator

GNUBG = "/usr/games/gnubg"
MONEY_NO_DICE = "cAkAAAAAAAAA"  # money, cube centred, player 0 on roll, not yet rolled
_RESULT = re.compile(r"^\s*([0-9.]+) ([0-9.]+) ([0-9.]+) - ([0-9.]+) ([0-9.]+) ([0-9.]+) CL\s+([-+0-9.]+)", re.MULTILINE)
_ERROR = re.compile(r"^\s*\[([0-9.]+) ([0-9.]+) ([0-9.]+) - ([0-9.]+) ([0-9.]+) ([0-9.]+) CL\s+([0-9.]+)\]", re.MULTILINE)


def varied_positions(n: int, seed: int, checkpoint: str) -> list[tuple[str, str]]:
    """(kind, Position ID): the opening, then positions of 0-ply self-play by kind, in a fixed mix."""
    want = {"bar": max(1, n // 5), "contact": max(1, n // 3), "race": max(1, n // 4)}
    want["bearoff"] = max(0, n - 1 - sum(want.values()))
    found = {k: [] for k in want}
    evaluator = load_evaluator(checkpoint)
    rng = np.random.default_rng(seed)
    for turn, (_, _, boards) in enumerate(lockstep_self_play(evaluator, rng, 64, explore=0.05)):
        if turn < 4 or turn % 7:  # past the first moves, and spaced out along the games
            continue
        cls = classify(boards)
        for b, c in zip(boards, cls):
            kind = ("bar" if b[0, 24] else "contact") if c == CONTACT else "race" if c == RACE else \
                "bearoff" if c == BEAROFF and not in_two_sided_database(b[None])[0] else None
            pid = position_id(b)
            if kind and len(found[kind]) < want[kind] and pid not in found[kind] and rng.random() < 0.2:
                found[kind].append(pid)
        if all(len(found[k]) == want[k] for k in want):
            break
    return [("opening", position_id(START))] + [(k, pid) for k in want for pid in found[k]]


def gnubg_rollout(pids: list[str], trials: int, vr: bool, truncate: int | None, threads: int,
                  seed: int, ply: int = 0) -> tuple[list[dict], float]:
    """gnubg's cubeless rollouts of ``pids`` (each before the roll) at ``ply``; results and seconds."""
    head = [f"set threads {threads}", f"set rollout trials {trials}", "set rollout cubeful off",
            f"set rollout varredn {'on' if vr else 'off'}", "set rollout quasirandom on", f"set rollout seed {seed}",
            f"set rollout chequerplay plies {ply}", "set rollout later enable off",
            "set rollout truncation chequerplay plies 0", "set rollout truncation cubedecision plies 0",
            "set rollout bearofftruncation exact on", "set rollout bearofftruncation onesided off",
            f"set rollout truncation enable {'off' if truncate is None else 'on'}",
            *([f"set rollout truncation plies {truncate}"] if truncate else []), "set display off", "set output digits 5", "new game"]
    body = [line for pid in pids for line in (f"set gnubgid {pid}:{MONEY_NO_DICE}", "rollout")]
    text, seconds = _run_gnubg(head + body)
    parts = text.split("Rollout done. Printing final results.")[1:]
    if len(parts) != len(pids):
        raise RuntimeError(f"gnubg printed {len(parts)} rollout results for {len(pids)} positions")
    out = []
    for part in parts:
        mean, err = _RESULT.search(part), _ERROR.search(part)
        w, wg, wbg, _, lg, lbg, eq = (float(v) for v in mean.groups())
        se = [float(v) for v in err.groups()]
        out.append({"probs": [w, wg, wbg, lg, lbg], "equity": eq, "equity_se": se[6], "win_se": se[0]})
    return out, seconds


def gnubg_start(threads: int, repeats: int = 3) -> float:
    """Seconds gnubg takes to start, load its nets and databases, and quit (the least of
    ``repeats``): not rollout time, so the speed table takes it off gnubg's times."""
    return min(_run_gnubg([f"set threads {threads}", "set display off", "new game"])[1] for _ in range(repeats))


def rollout_seconds(seconds: float, start: float) -> float:
    """gnubg's run less its start; a run that took no longer than starting says the run was too short."""
    if seconds <= start:
        raise RuntimeError(f"gnubg ran {seconds:.2f} s and starts in {start:.2f} s: give it more trials")
    return seconds - start


def _run_gnubg(lines: list[str]) -> tuple[str, float]:
    """What the gnubg program prints running ``lines``, and the seconds it ran."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines + ["quit", ""]))
    master, slave = pty.openpty()
    start = time.perf_counter()
    with open(f.name) as commands:
        proc = subprocess.Popen([GNUBG, "-t", "-q", "-r"], stdin=commands, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait()
    seconds = time.perf_counter() - start
    os.close(master)
    os.unlink(f.name)
    return b"".join(chunks).decode(errors="replace").replace("\r", "\n"), seconds


def bgzero_rollout(pids, spec: PlayerSpec, settings: RolloutSettings, processes: int):
    boards = np.stack([board_from_position_id(p) for p in pids])
    start = time.perf_counter()
    res = rollout_positions(boards, spec, settings, processes=processes, progress=True)
    return res, time.perf_counter() - start


def speed(args, pids) -> list[dict]:
    rows = []
    spec = PlayerSpec(f"checkpoint:{args.checkpoint}")
    for truncate in (None, 7):
        for vr in (True, False):
            factor = (1 if vr else 8) * (1 if truncate is None else 8)  # cheap settings get more trials
            g_trials = min(1296, args.gnubg_trials * factor)
            b_trials = min(10368, args.bgzero_trials * factor)
            row = {"truncate": truncate, "vr": vr, "positions": len(pids), "load": os.getloadavg()[0]}
            for threads in sorted({1, args.threads}):
                start = gnubg_start(threads)
                _, sec = gnubg_rollout(pids, g_trials, vr, truncate, threads, args.seed)
                row[f"gnubg_{threads}t"] = len(pids) * g_trials / rollout_seconds(sec, start)
                row[f"gnubg_{threads}t_start_s"] = start
            batch = len(pids) * max(36, -(-b_trials // 8))  # eight batches, none left over: work for each process
            settings = RolloutSettings(trials=b_trials, truncate=truncate, vr=vr, seed=args.seed, batch=batch)
            for processes in sorted({1, args.processes}):
                _, sec = bgzero_rollout(pids, spec, settings, processes)
                row[f"bgzero_{processes}p"] = len(pids) * b_trials / sec
            if args.unpruned:  # every play scored by the contact net, as gnubg's 0-ply rollouts do
                _, sec = bgzero_rollout(pids, PlayerSpec(spec.agent, prune=False), settings, args.processes)
                row[f"bgzero_unpruned_{args.processes}p"] = len(pids) * b_trials / sec
            if args.one_ply and truncate is None and vr:
                one = RolloutSettings(trials=args.one_ply, truncate=None, vr=True, seed=args.seed,
                                      batch=max(1, args.one_ply // 4))
                _, sec = bgzero_rollout(pids[:1], PlayerSpec(f"checkpoint:{args.checkpoint}@1"), one, args.processes)
                row[f"bgzero_1ply_{args.processes}p"] = args.one_ply / sec
                start = gnubg_start(args.threads)
                _, sec = gnubg_rollout(pids[:1], args.one_ply, True, None, args.threads, args.seed, ply=1)
                row[f"gnubg_1ply_{args.threads}t"] = args.one_ply / rollout_seconds(sec, start)
                row[f"gnubg_1ply_{args.threads}t_start_s"] = start
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def agreement(args, positions) -> list[dict]:
    pids = [pid for _, pid in positions]
    theirs, g_sec = gnubg_rollout(pids, args.agree_trials, True, None, args.threads, args.seed)
    spec = PlayerSpec("gnubg@0", judge=f"checkpoint:{args.checkpoint}")
    ours, b_sec = bgzero_rollout(pids, spec, RolloutSettings(trials=args.agree_trials, seed=args.seed + 1),
                                 args.processes)
    rows = []
    for (kind, pid), g, b in zip(positions, theirs, ours):
        rows.append({"kind": kind, "position": pid, "gnubg": g["equity"], "gnubg_se": g["equity_se"],
                     "bgzero": b.equity, "bgzero_se": b.equity_se, "gnubg_win": g["probs"][0],
                     "bgzero_win": b.probs[0],
                     "z": combined_z(b.equity, max(b.equity_se, args.se_floor), g["equity"], g["equity_se"])})
        print(json.dumps(rows[-1]), flush=True)
    print(f"gnubg {g_sec:.0f} s, bgzero {b_sec:.0f} s; worst z {max(r['z'] for r in rows):.2f}")
    return rows


def vr_factor(args) -> dict:
    spec = PlayerSpec(f"checkpoint:{args.checkpoint}")
    out = {}
    for vr in (True, False):
        settings = RolloutSettings(trials=1296, vr=vr, seed=args.seed, batch=324)
        (r,), sec = bgzero_rollout([position_id(START)], spec, settings, args.processes)
        out["vr" if vr else "plain"] = {**r.as_dict(), "seconds": sec}
    out["factor"] = out["plain"]["equity_se"] / out["vr"]["equity_se"]
    out["z"] = combined_z(out["vr"]["equity"], out["vr"]["equity_se"], out["plain"]["equity"],
                          out["plain"]["equity_se"])
    print(json.dumps(out))
    return out


def bearoff_check(args) -> dict:
    """Two-sided bear-offs rolled out by a player kept from the databases, against the exact table."""
    from bgzero.engine.bearoff.one_sided import positions
    from bgzero.engine.bearoff.probs import bearoff_probs

    table = positions()[1:924]  # one side's home boards with 1-6 checkers
    rng = np.random.default_rng(args.seed)
    pairs = rng.integers(len(table), size=(args.bearoff, 2))
    boards = np.zeros((args.bearoff, 2, 25), np.int8)
    boards[:, 0, :6], boards[:, 1, :6] = table[pairs[:, 0]], table[pairs[:, 1]]
    exact = bearoff_probs(boards)[:, 0].astype(float)
    spec = PlayerSpec(f"checkpoint:{args.checkpoint}", database=False)
    out = {"positions": args.bearoff, "trials": 1296}
    for vr in (False, True):
        res, sec = bgzero_rollout([position_id(b) for b in boards], spec,
                                  RolloutSettings(trials=1296, seed=args.seed, database=False, vr=vr), args.processes)
        z = [abs(r.probs[0] - p) / r.probs_se[0] if r.probs_se[0] > 0 else 0.0 for r, p in zip(res, exact)]
        out["vr" if vr else "plain"] = {
            "max_z": float(max(z)), "within_3se": int(sum(v <= 3 for v in z)),
            "mean_abs_error": float(np.mean([abs(r.probs[0] - p) for r, p in zip(res, exact)])),
            "mean_se": float(np.mean([r.probs_se[0] for r in res])), "seconds": sec}
    print(json.dumps(out))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default="checkpoints/reference.pt")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--vr-factor", action="store_true")
    ap.add_argument("--bearoff", type=int, default=0, help="two-sided bear-offs to check against the exact table")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--speed-positions", type=int, default=4, help="the first N of the varied positions")
    ap.add_argument("--gnubg-trials", type=int, default=72, help="per position, VR untruncated (x8 when cheaper)")
    ap.add_argument("--bgzero-trials", type=int, default=324, help="per position, VR untruncated (x8 when cheaper)")
    ap.add_argument("--agree-trials", type=int, default=324)
    ap.add_argument("--se-floor", type=float, default=0.0005,
                    help="least error counted for bgzero: gnubg's and bgzero's one-sided bear-off tables differ by up to "
                         "0.0002 in P(win), so where both rollouts are nearly exact the tables, not the rollouts, differ")
    ap.add_argument("--one-ply", type=int, default=36, help="trials of a 1-ply rollout of the opening (0: none)")
    ap.add_argument("--unpruned", action=argparse.BooleanOptionalAction, default=True,
                    help="also time bgzero without its pruning net (--processes), scoring every play as gnubg's 0-ply")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="runs/bench_rollout.json")
    args = ap.parse_args()
    positions = varied_positions(args.positions, args.seed, args.checkpoint)
    report = {"positions": positions, "args": vars(args), "load": os.getloadavg()}
    if args.speed:
        report["speed"] = speed(args, [pid for _, pid in positions[:args.speed_positions]])
    if args.vr_factor:
        report["vr_factor"] = vr_factor(args)
    if args.bearoff:
        report["bearoff"] = bearoff_check(args)
    if args.agreement:
        report["agreement"] = agreement(args, positions)
    atomic_write_text(Path(args.out), json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
