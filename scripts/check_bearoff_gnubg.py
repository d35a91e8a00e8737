"""Check bgzero's bear-off databases against GNU Backgammon.

Two comparisons:

1. Tables: bgzero's one-sided distributions against gnubg's one-sided database file
   (``gnubg_os0.bd``, shipped in the ``gnubg`` wheel, same position index), entry by entry.
   gnubg stores each probability as a 16-bit fraction and picks moves by means computed
   from those rounded values, so near-ties (means within ~1e-4 rolls) can go the other
   way there; bgzero's float64 tables follow the exact minimum. Likewise bgzero's exact
   two-sided table (both sides <= 6 checkers) against ``gnubg_ts0.bd``'s cubeless
   column, all 853,776 pairs.
2. Evaluations: :func:`bgzero.engine.bearoff.probs.bearoff_probs` against ``gnubg.evaluate`` (0-ply,
   cubeless money) on random positions where both sides have 1-15 checkers on points
   1-6 (a third of the sides with all 15, so gammons occur). gnubg answers from its exact
   two-sided database when both sides have at most 6 checkers (class BEAROFF2) and from
   the one-sided database otherwise (BEAROFF1); bgzero routes the same way. Each class
   is reported separately, with the one-sided formula alone (:func:`one_sided_probs`, fed
   with bgzero's table and with gnubg's) beside it: that separates "different tables"
   from "different method", and shows what the two-sided table fixes.

    python scripts/check_bearoff_gnubg.py --positions 5000 --seed 0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gnubg
import numpy as np

from bgzero.engine.bearoff import two_sided as bearoff_twosided
from bgzero.engine.bearoff.one_sided import (
    MAX_ROLLS,
    NUM_POSITIONS,
    BearoffDatabase,
    load_or_build,
    one_sided_probs,
    random_bearoff_boards,
)
from bgzero.engine.bearoff.probs import bearoff_probs
from bgzero.engine.board import to_gnubg

CLASS_NAMES = {4: "two-sided (BEAROFF2, both <= 6 checkers)", 6: "one-sided (BEAROFF1)"}
CUBELESS = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0)
ZERO_PLY = gnubg.evalcontext(0, 0, 1, 0, 0.0)


def read_gnubg_one_sided(path: Path) -> BearoffDatabase:
    """gnubg's compressed one-sided database with gammon distributions (``gnubg-OS-06-15-1-1-0``).

    After a 40-byte header, 8 index bytes per position: the uint32 offset of its data (in
    uint16 words), then count and first roll of the non-zero "all off" entries, then the
    same for the "first checker off" entries; the data are uint16 probabilities x 65535.
    """
    raw = path.read_bytes()
    if not raw.startswith(b"gnubg-OS-06-15-1-1-0"):
        raise ValueError(f"{path}: header {raw[:20]!r}, expected a compressed 6-point database with gammons")
    index = np.frombuffer(raw, np.uint8, count=8 * NUM_POSITIONS, offset=40).reshape(NUM_POSITIONS, 8)
    start = index[:, :4].copy().view("<u4").ravel().astype(np.int64)
    words = np.frombuffer(raw, "<u2", offset=40 + 8 * NUM_POSITIONS)
    off = np.zeros((NUM_POSITIONS, MAX_ROLLS))
    first = np.zeros((NUM_POSITIONS, MAX_ROLLS))
    for i, (s, (nz, lo, nzg, log)) in enumerate(zip(start, index[:, 4:].astype(np.int64))):
        off[i, lo:lo + nz] = words[s:s + nz]
        first[i, log:log + nzg] = words[s + nz:s + nz + nzg]
    return BearoffDatabase(off / 65535, first / 65535)


def read_gnubg_two_sided(path: Path) -> np.ndarray:
    """P(side on roll wins) from gnubg's cubeful two-sided database (``gnubg-TS-06-06-1``).

    After a 40-byte header, four uint16 values per (side on roll, opponent) pair in
    one-sided index order; the first is the cubeless equity, stored as (equity + 1) x 32767.5,
    i.e. P(win) x 65535.
    """
    raw = path.read_bytes()
    if not raw.startswith(b"gnubg-TS-06-06-1"):
        raise ValueError(f"{path}: header {raw[:16]!r}, expected a cubeful 6-point, 6-checker two-sided database")
    n = bearoff_twosided.NUM_POSITIONS
    return np.frombuffer(raw, "<u2", count=4 * n * n, offset=40).reshape(n, n, 4)[..., 0] / 65535


def gnubg_side(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gnubg's (win, win gammon, lose gammon) and position class for each board."""
    probs = np.empty((len(boards), 3))
    cls = np.empty(len(boards), np.int64)
    for b, board in enumerate(boards):
        g = to_gnubg(board)
        w, wg, _, lg, _, _ = gnubg.evaluate(g, CUBELESS, ZERO_PLY)
        probs[b] = w, wg, lg
        cls[b] = gnubg.classify(g)
    return probs, cls


def report(name: str, ours: np.ndarray, theirs: np.ndarray) -> float:
    """Print max / mean |Δ| of win, win gammon, lose gammon; return max |Δ P(win)|."""
    d = np.abs(ours - theirs)
    cols = "; ".join(f"{k} max {d[:, j].max():.5f} mean {d[:, j].mean():.2e}" for j, k in enumerate(("win", "wg", "lg")))
    print(f"  {name} (n={len(d)})\n      |Δ| {cols}")
    return float(d[:, 0].max())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tolerance", type=float, default=0.005,
                    help="largest |Δ P(win)| accepted between bgzero and gnubg.evaluate, in every class")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    db = load_or_build()
    two_sided = bearoff_twosided.load_or_build()
    print(f"bgzero databases ready in {time.perf_counter() - t0:.2f} s")
    data = Path(gnubg.__file__).parent / "data"
    theirs_db = read_gnubg_one_sided(data / "gnubg_os0.bd")
    rolls = np.arange(MAX_ROLLS)
    for name, ours, theirs in (("all off", db.off, theirs_db.off), ("first off", db.first_off, theirs_db.first_off)):
        d = np.abs(ours - theirs)
        print(f"table '{name}' vs gnubg_os0.bd: max |Δp| {d.max():.5f}, rows with max |Δp| > 1e-3: "
              f"{int((d.max(axis=1) > 1e-3).sum())}/{NUM_POSITIONS}, max |Δ mean rolls| {np.abs((ours - theirs) @ rolls).max():.6f}")
    d = np.abs(two_sided.win - read_gnubg_two_sided(data / "gnubg_ts0.bd"))
    print(f"two-sided table vs gnubg_ts0.bd ({d.size:,} pairs): max |Δ P(win)| {d.max():.2e}, mean {d.mean():.2e}")

    boards = random_bearoff_boards(args.positions, np.random.default_rng(args.seed))
    ours = bearoff_probs(boards, db, two_sided)[:, [0, 1, 3]].astype(np.float64)
    one_sided = one_sided_probs(boards, db)[:, [0, 1, 3]].astype(np.float64)
    with_their_table = one_sided_probs(boards, theirs_db)[:, [0, 1, 3]].astype(np.float64)
    theirs, cls = gnubg_side(boards)
    gammonish = (boards.sum(axis=2) == 15).any(axis=1)
    print(f"{args.positions} random bear-off positions (seed {args.seed}), {int(gammonish.sum())} with a side on 15 checkers:")
    worst = report("bgzero vs gnubg.evaluate, all", ours, theirs)
    ok = worst < args.tolerance
    print(f"    all: max |Δ P(win)| {worst:.5f} {'<' if ok else '>='} {args.tolerance}")
    for c, name in CLASS_NAMES.items():
        sel = cls == c
        if not sel.any():
            continue
        worst = report(f"bgzero vs gnubg.evaluate, {name}", ours[sel], theirs[sel])
        report(f"one-sided formula, our table, vs gnubg, {name}", one_sided[sel], theirs[sel])
        report(f"one-sided formula, gnubg's table, vs gnubg, {name}", with_their_table[sel], theirs[sel])
        good = worst < args.tolerance
        print(f"    {name}: max |Δ P(win)| {worst:.5f} {'<' if good else '>='} {args.tolerance}")
        ok &= good
    if not np.isin(cls, list(CLASS_NAMES)).all():
        print(f"unexpected gnubg classes {sorted(set(cls.tolist()) - set(CLASS_NAMES))}")
        ok = False
    print("OK" if ok else "FAIL")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
