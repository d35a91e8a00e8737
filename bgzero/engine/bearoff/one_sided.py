"""One-sided bear-off database: exact roll-count distributions for home-board positions.

Once both sides have every remaining checker on their own points 1-6, no contact is
possible and each side's future is a one-player game. For each of the 54,264 ways to put
0-15 checkers on six points the database holds

* ``off[i, n]``: P(bearing off every checker takes exactly ``n`` rolls), playing each roll
  to minimise the expected number of rolls (gnubg's one-sided database does the same;
  moves whose means agree within 1e-12 are tied and go to the lowest index);
* ``first_off[i, n]``: for 15 checkers, P(the first checker comes off on roll ``n``),
  playing to minimise the expected rolls to that first checker (a point mass at 0 when
  fewer than 15 remain: a checker is already off). This decides gammons.

Index: gnubg's ``PositionBearoff`` ordering, so entries line up with ``gnubg_os0.bd``.
With ``s_k`` the checkers on points ``k+1..6``, ``index = sum_k C(s_k + 5 - k, 6 - k)``:
positions come ordered by checker count, and any move (within the board or off) lowers
the index, so one pass in index order is a complete dynamic programme.

Evaluation (:func:`bgzero.engine.bearoff.probs.bearoff_probs`): where both sides have at most 6 checkers, P(win) comes
from the exact two-sided table (:mod:`bgzero.engine.bearoff.two_sided`, optimal play for winning;
no gammons are possible there). Elsewhere :func:`one_sided_probs` combines the two sides'
distributions as independent, exactly as gnubg's one-sided evaluator does: each side
follows its own fixed race-minimising policy (and, for gammons, its gammon-saving
policy), ignoring what the opponent holds. That is exact for those policies but not
optimal two-sided play (a trailer should maximise its chance to finish in time, not
minimise its mean): on short positions it is off by up to about 0.014 in P(win), which
is why the two-sided table takes over there. Where gnubg itself uses the one-sided table
the two agree to 2e-4 (scripts/check_bearoff_gnubg.py).

The table builds in one to two seconds with numba (``python -m bgzero.engine.bearoff`` rebuilds
it and prints the time) and is cached on disk under ``$BGZERO_CACHE`` (default
``~/.cache/bgzero``) with a SHA-256 checksum; a missing or corrupt cache is rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import time
import zipfile
from dataclasses import dataclass, fields
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from bgzero.atomic import atomic_write
from bgzero.errors import BgzeroError, InvalidPositionError

log = logging.getLogger(__name__)

NUM_POINTS = 6
NUM_CHECKERS = 15
NUM_POSITIONS = comb(NUM_CHECKERS + NUM_POINTS, NUM_POINTS)  # 54,264
MAX_ROLLS = 32
"""Length of each distribution (rolls 0..31); the worst position needs far fewer."""
CACHE_NAME = "bearoff1.npz"
_FORMAT = 1  # bump when the table's meaning changes so old caches are rebuilt

_COMB = np.array([[comb(n, r) for r in range(NUM_POINTS + 1)] for n in range(NUM_CHECKERS + NUM_POINTS + 1)], np.int64)


# --------------------------------------------------------------------------- indexing


def position_index(counts) -> np.ndarray:
    """Database index of one-sided home positions ``(..., 6)`` (checkers on points 1-6).

    ``sum_k C(s_k + 5 - k, 6 - k)`` with ``s_k`` the checkers on points ``k+1..6``: the
    rank of the position's stars-and-bars bit string, as gnubg's ``PositionBearoff``.
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.shape[-1:] != (NUM_POINTS,):
        raise InvalidPositionError(f"home counts need a last axis of 6, got shape {c.shape}")
    if (c < 0).any() or (c.sum(axis=-1) > NUM_CHECKERS).any():
        raise InvalidPositionError("home counts must be >= 0 and total at most 15")
    s = np.cumsum(c[..., ::-1], axis=-1)[..., ::-1]  # s[..., k]: checkers on points k+1..6
    k = np.arange(NUM_POINTS)
    return _COMB[s + 5 - k, 6 - k].sum(axis=-1)


@functools.cache
def positions() -> np.ndarray:
    """All one-sided home positions as a read-only ``(54264, 6)`` int8 array, by index."""
    rows = np.zeros((1, 0), np.int64)
    for _ in range(NUM_POINTS):
        room = NUM_CHECKERS - rows.sum(axis=1)
        reps = room + 1
        rows = np.repeat(rows, reps, axis=0)
        add = np.concatenate([np.arange(r) for r in reps])
        rows = np.column_stack([rows, add])
    table = np.empty((NUM_POSITIONS, NUM_POINTS), np.int8)
    table[position_index(rows)] = rows
    table.setflags(write=False)
    return table


# --------------------------------------------------------------------------- building


@njit(cache=True)
def _index_of(c):
    idx = 0
    s = 0
    for k in range(NUM_POINTS - 1, -1, -1):
        s += c[k]
        idx += _COMB[s + 5 - k, 6 - k]
    return idx


@njit(cache=True, inline="always")
def side_index(row):
    """One side of a board, ``(25,)``: its database index, whether it has all 15 checkers, and
    whether it is a bear-off side at all (every checker on points 1-6, at most 15)."""
    left = 0
    valid = True
    for c in range(25):
        n = row[c]
        left += n
        valid &= n >= 0 and (n == 0 or c < NUM_POINTS)
    valid &= left <= NUM_CHECKERS
    return (_index_of(row) if valid else 0), left == NUM_CHECKERS, valid


@njit(cache=True)
def single_moves(table):
    """``step[i, d-1, p]``: index after moving a checker from point ``p+1`` by ``d``; -1 if illegal.

    Exact dice bear off from their point; a larger die bears off only from the highest
    occupied point; otherwise the checker moves down inside the home board.
    """
    n = table.shape[0]
    step = np.full((n, 6, NUM_POINTS), -1, np.int32)
    c = np.empty(NUM_POINTS, np.int64)
    for i in range(1, n):
        for p in range(NUM_POINTS):
            c[p] = table[i, p]
        top = NUM_POINTS - 1
        while c[top] == 0:
            top -= 1
        for d in range(1, 7):
            for p in range(top + 1):
                if c[p] == 0:
                    continue
                dest = p - d  # column; -1 is exactly off
                if dest < -1 and p != top:
                    continue
                c[p] -= 1
                if dest >= 0:
                    c[dest] += 1
                step[i, d - 1, p] = _index_of(c)
                if dest >= 0:
                    c[dest] -= 1
                c[p] += 1
    return step


@njit(cache=True)
def roll_scratch(n):
    """The work arrays :func:`play_roll` needs over a table of ``n`` positions, and its tag.

    ``(front, nxt, results, seen, done, dice, tag)``: allocated once per table build.
    """
    return (np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32), np.zeros(n, np.int64),
            np.zeros(n, np.bool_), np.empty(4, np.int64), np.int64(0))


@njit(cache=True)
def play_roll(start, dice, ndice, step, front, nxt, seen, tag, results, nres, done):
    """Add the distinct results of playing ``dice[:ndice]`` in that order from ``start``.

    Every die is playable while a checker remains, so playing each die in turn is exactly
    "as much of the roll as possible"; an empty board simply stops. ``done`` marks
    indices already in ``results``; ``seen`` de-duplicates each step's frontier.
    """
    front[0] = start
    nf = 1
    for k in range(ndice):
        tag += 1
        nn = 0
        for f in range(nf):
            s = front[f]
            if s == 0:
                if seen[0] != tag:
                    seen[0] = tag
                    nxt[nn] = 0
                    nn += 1
                continue
            for p in range(NUM_POINTS):
                r = step[s, dice[k] - 1, p]
                if r >= 0 and seen[r] != tag:
                    seen[r] = tag
                    nxt[nn] = r
                    nn += 1
        for f in range(nn):
            front[f] = nxt[f]
        nf = nn
    for f in range(nf):
        r = front[f]
        if not done[r]:
            done[r] = True
            results[nres] = r
            nres += 1
    return tag, nres


@njit(cache=True)
def _argmin_mean(results, nres, mean):
    """The result with the lowest expected rolls; exact ties go to the lowest index."""
    best = results[0]
    for j in range(1, nres):
        r = results[j]
        if mean[r] < mean[best] - 1e-12 or (abs(mean[r] - mean[best]) <= 1e-12 and r < best):
            best = r
    return best


@njit(cache=True)
def _build_kernel(table, step, length):
    n = table.shape[0]
    off = np.zeros((n, length))
    first = np.zeros((n, length))
    mean_off = np.zeros(n)
    mean_first = np.zeros(n)
    off[0, 0] = 1.0
    first[0, 0] = 1.0
    front, nxt, results, seen, done, dice, tag = roll_scratch(n)
    for i in range(1, n):
        full = table[i].sum() == NUM_CHECKERS
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                double = d1 == d2
                ndice = np.int64(4 if double else 2)
                nres = np.int64(0)
                for order in range(1 if double else 2):
                    dice[:] = d1
                    dice[1 - order] = d2
                    tag, nres = play_roll(i, dice, ndice, step, front, nxt, seen, tag, results, nres, done)
                for j in range(nres):
                    done[results[j]] = False
                w = (1.0 if double else 2.0) / 36.0
                b = _argmin_mean(results, nres, mean_off)
                mean_off[i] += w * (1.0 + mean_off[b])
                off[i, 1:] += w * off[b, :-1]
                if full:
                    g = _argmin_mean(results, nres, mean_first)
                    mean_first[i] += w * (1.0 + mean_first[g])
                    first[i, 1:] += w * first[g, :-1]
        if not full:
            first[i, 0] = 1.0
    return off, first


@dataclass(frozen=True)
class BearoffDatabase:
    """The two distribution tables, ``(54264, MAX_ROLLS)`` float64 each, indexed by position."""

    off: np.ndarray
    first_off: np.ndarray

    def expected_rolls(self, index) -> np.ndarray:
        """Mean rolls to bear off every checker, for database indices."""
        return self.off[index] @ np.arange(MAX_ROLLS, dtype=np.float64)

    def checksum(self) -> str:
        """SHA-256 over the format version and both tables' bytes."""
        h = hashlib.sha256(f"bearoff1 v{_FORMAT} {self.off.shape}".encode())
        h.update(np.ascontiguousarray(self.off).tobytes())
        h.update(np.ascontiguousarray(self.first_off).tobytes())
        return h.hexdigest()


def build() -> BearoffDatabase:
    """Compute the database from scratch (1-2 s once compiled) and check every row sums to 1."""
    t0 = time.perf_counter()
    table = positions()
    off, first = _build_kernel(table, single_moves(table), MAX_ROLLS)
    for name, arr in (("off", off), ("first_off", first)):
        worst = np.abs(arr.sum(axis=1) - 1.0).max()
        if worst > 1e-9:
            raise RuntimeError(f"bear-off {name} distributions lose mass {worst:.3g}: MAX_ROLLS={MAX_ROLLS} too short")
    for arr in (off, first):
        arr.setflags(write=False)
    log.info("built the one-sided bear-off database (%d positions) in %.2f s", NUM_POSITIONS, time.perf_counter() - t0)
    return BearoffDatabase(off, first)


# --------------------------------------------------------------------------- caching


def cache_path() -> Path:
    """``$BGZERO_CACHE/bearoff1.npz``, or ``~/.cache/bgzero/bearoff1.npz``."""
    root = os.environ.get("BGZERO_CACHE") or Path.home() / ".cache" / "bgzero"
    return Path(root) / CACHE_NAME


class CorruptCacheError(BgzeroError, ValueError):
    """A cache file whose shape, dtype or checksum is wrong."""


def save_tables(path: Path, db) -> None:
    """Write a table database (a dataclass of float64 arrays with ``checksum()``) atomically."""
    tables = {f.name: getattr(db, f.name) for f in fields(db)}
    atomic_write(path, lambda f: np.savez(f, **tables, sha256=np.array(db.checksum())), "wb")


def load_tables(path: Path, cls, shape: tuple[int, ...]):
    """A ``cls`` database read from ``path``, every table float64 of ``shape`` and read-only,
    its checksum verified; raise :class:`CorruptCacheError` if it does not check out."""
    try:
        with np.load(path, allow_pickle=False) as z:
            tables, stored = {f.name: z[f.name] for f in fields(cls)}, str(z["sha256"])
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError) as exc:
        raise CorruptCacheError(f"{path}: unreadable ({exc})") from exc
    if any(t.shape != shape or t.dtype != np.float64 for t in tables.values()):
        found = " / ".join(f"{t.shape} {t.dtype}" for t in tables.values())
        raise CorruptCacheError(f"{path}: tables {found}, want {shape} float64")
    for table in tables.values():
        table.setflags(write=False)
    db = cls(**tables)
    if db.checksum() != stored:
        raise CorruptCacheError(f"{path}: SHA-256 mismatch")
    return db


def load_or_build_tables(path: Path, load, build, what: str, logger: logging.Logger):
    """``load(path)``, or ``build()`` and cache it when the file is missing or corrupt (a
    cache that cannot be written is only a warning: the built tables are returned)."""
    try:
        return load(path)
    except FileNotFoundError:
        logger.info("no %s at %s; building it", what, path)
    except (CorruptCacheError, OSError) as exc:
        logger.warning("rebuilding the %s: %s", what, exc)
    db = build()
    try:
        save_tables(path, db)
    except OSError as exc:
        logger.warning("could not cache the %s at %s (%s); using it uncached", what, path, exc)
    return db


def save(db: BearoffDatabase, path: Path) -> None:
    """Write atomically (:func:`save_tables`)."""
    save_tables(path, db)


def load(path: Path) -> BearoffDatabase:
    """Read and verify a cache file (:func:`load_tables`)."""
    return load_tables(path, BearoffDatabase, (NUM_POSITIONS, MAX_ROLLS))


def load_or_build(path: Path | None = None) -> BearoffDatabase:
    """The cached database at ``path`` (default :func:`cache_path`), rebuilt if missing or corrupt."""
    return load_or_build_tables(cache_path() if path is None else Path(path), load, build, "bear-off database", log)


@functools.cache
def get_database() -> BearoffDatabase:
    """The process-wide database (loaded or built on first use)."""
    return load_or_build()


# --------------------------------------------------------------------------- evaluation


def is_bearoff(boards: np.ndarray) -> np.ndarray:
    """True where both sides have every remaining checker on their points 1-6 (no contact left).

    Works on ``(2, 25)`` or ``(..., 2, 25)``; returns ``boards.shape[:-2]`` bools.
    """
    b = np.asarray(boards)
    return ~(b[..., NUM_POINTS:] != 0).any(axis=(-2, -1))


def home_counts(boards) -> np.ndarray:
    """``(..., 2, 6)`` int64 home-board counts of bear-off boards; raise for any other board."""
    b = np.asarray(boards)
    mask = is_bearoff(b)
    if not mask.all():
        bad = np.argwhere(~np.atleast_1d(mask))[0]
        raise InvalidPositionError(f"board {tuple(bad.tolist())} is not a bear-off position (checkers outside points 1-6)")
    return b[..., :NUM_POINTS].astype(np.int64)


def one_sided_probs(boards: np.ndarray, db: BearoffDatabase | None = None) -> np.ndarray:
    """Cubeless ``(..., 5)`` float32 probabilities of bear-off boards ``(..., 2, 25)`` from
    the one-sided distributions alone (each side's fixed policy, sides independent).

    The side on roll moves first, so it wins iff its rolls needed ``n`` satisfy
    ``n <= m``, the opponent's: ``P(win) = sum_n P_me(n) P_opp(>= n)``. It wins a gammon
    if the opponent still has 15 checkers and, in its ``n - 1`` turns, gets none off:
    ``sum_n P_me(n) F_opp(>= n)``. It loses a gammon if it has 15 and the opponent
    finishes on its ``m``-th roll before it gets one off in ``m`` turns:
    ``sum_m P_opp(m) F_me(> m)``. Backgammons are impossible (no checker is in the
    winner's home board).
    """
    home = home_counts(boards)
    return probs_from_counts(home, position_index(home[..., 0, :]), position_index(home[..., 1, :]), db)


def probs_from_counts(home, me, opp, db):
    """:func:`one_sided_probs` for validated home counts and their indices."""
    db = get_database() if db is None else db
    full = home.sum(axis=-1) == NUM_CHECKERS
    out = np.zeros(np.shape(me) + (5,), np.float32)
    _probs_kernel(db.off, db.first_off, np.ravel(me), np.ravel(opp), full[..., 0].ravel(), full[..., 1].ravel(),
                  out.reshape(-1, 5))
    return out


@njit(cache=True)
def _probs_kernel(off, first_off, me, opp, full_me, full_opp, out):
    """:func:`one_sided_row` for each pair of indices."""
    for k in range(me.shape[0]):
        one_sided_row(off, first_off, me[k], opp[k], full_me[k], full_opp[k], out, k)


@njit(cache=True, inline="always")
def one_sided_row(off, first_off, a, b, full_me, full_opp, out, k):
    """``out[k]``: the three sums of :func:`one_sided_probs` for indices ``a`` (on roll) and ``b``,
    each tail ``P(X >= n)`` accumulated from the longest game down, so that no tail array is
    built (a rollout's bear-offs ask for thousands)."""
    win = gammon = lose_gammon = 0.0
    opp_tail = opp_first_tail = my_first_tail = 0.0  # P(X >= n) of the opponent's rolls, first-off rolls, mine
    for n in range(off.shape[1] - 1, -1, -1):
        opp_tail += off[b, n]
        opp_first_tail += first_off[b, n]
        win += off[a, n] * opp_tail
        gammon += off[a, n] * opp_first_tail
        lose_gammon += off[b, n] * my_first_tail  # mine after m rolls: P(first off > m)
        my_first_tail += first_off[a, n]
    out[k, 0] = win
    out[k, 1] = gammon if full_opp else 0.0
    out[k, 3] = lose_gammon if full_me else 0.0


def random_bearoff_boards(n: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, 2, 25)`` boards: each side 1-15 checkers spread over its points 1-6, all 15 a third of the
    time (so gammons are possible); for checks against gnubg and the exact tables."""
    boards = np.zeros((n, 2, 25), np.int8)
    count = np.where(rng.random((n, 2)) < 1 / 3, 15, rng.integers(1, 16, (n, 2)))
    for b in range(n):
        for side in range(2):
            boards[b, side, :6] = rng.multinomial(count[b, side], rng.dirichlet(np.ones(6)))
    return boards
