"""Exact two-sided bear-off database: P(win) under optimal play when both sides have <= 6 checkers.

The one-sided database (:mod:`bgzero.engine.bearoff.one_sided`) plays each side to minimise its expected
rolls and combines the two sides as independent. Optimal play for *winning* depends on
the opponent (a trailer should maximise its chance to finish in time), so that
combination is off by up to ~0.01 in P(win) where both sides are short; gnubg uses an
exact two-sided table there, and so does :func:`bgzero.engine.bearoff.probs.bearoff_probs`.

``win[a, b]``: P(the side on roll, holding one-sided position ``a``, wins against
position ``b``), every roll of both sides played to maximise its own P(win). Indices
are the one-sided database's (:func:`bgzero.engine.bearoff.one_sided.position_index`); it orders positions
by checker count, so the 924 positions with at most 6 checkers are exactly indices
0..923. No gammons: a side with <= 6 checkers left has borne off at least 9.

Recurrence: ``win[a, b] = sum_roll w(roll) * max_r (1 - win[b, r])`` over the distinct
results ``r`` of playing the roll from ``a``, with ``win[b, 0] = 0`` (the side that just
moved bore off its last checker) and ``win[0, b] = 1`` (kept for completeness: the
side on roll has already finished). Every move lowers the index (``r < a``), so
``b + r < a + b``: filling the table in order of ``a + b`` is a complete dynamic
programme.

Builds in about 0.3 s once numba has compiled the kernels (a few seconds the first time;
``python -m bgzero.engine.bearoff`` rebuilds it and prints the time); cached next to the
one-sided table as ``bearoff2.npz`` with a SHA-256 checksum, rebuilt when missing or corrupt.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from bgzero.engine.bearoff import one_sided as bearoff
from bgzero.engine.bearoff.one_sided import CorruptCacheError  # noqa: F401  (what load raises, re-exported)

log = logging.getLogger(__name__)

MAX_CHECKERS = 6
NUM_POSITIONS = comb(MAX_CHECKERS + bearoff.NUM_POINTS, bearoff.NUM_POINTS)  # 924
CACHE_NAME = "bearoff2.npz"
_FORMAT = 1  # bump when the table's meaning changes so old caches are rebuilt

_ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], np.int64)
_WEIGHTS = np.where(_ROLLS[:, 0] == _ROLLS[:, 1], 1.0, 2.0)  # in 36ths: sums stay exact, a sure win is exactly 1


# --------------------------------------------------------------------------- building


@njit(cache=True)
def _roll_results(step, rolls, fill, offsets, data):
    """Distinct results of each (position, roll), in CSR form; returns how many in all.

    With ``fill`` false only ``offsets`` is written (a counting pass that sizes ``data``).
    Both orders of a non-double are played (:func:`bgzero.engine.bearoff.one_sided.play_roll`).
    """
    n = step.shape[0]
    front, nxt, results, seen, done, dice, tag = bearoff.roll_scratch(n)
    total = 0
    for a in range(n):
        for k in range(rolls.shape[0]):
            d1, d2 = rolls[k, 0], rolls[k, 1]
            nres = np.int64(0)
            if a > 0:
                double = d1 == d2
                for order in range(1 if double else 2):
                    dice[:] = d1
                    dice[1 - order] = d2
                    tag, nres = bearoff.play_roll(a, dice, np.int64(4 if double else 2), step, front, nxt,
                                                   seen, tag, results, nres, done)
            for j in range(nres):
                done[results[j]] = False
                if fill:
                    data[total + j] = results[j]
            total += nres
            offsets[a * rolls.shape[0] + k + 1] = total
    return total


@njit(cache=True)
def _build_kernel(offsets, data, weights, n):
    """The ``(n, n)`` table by the recurrence, filled in order of ``a + b`` (see the module docstring)."""
    nrolls = weights.shape[0]
    win = np.empty((n, n))
    win[0, :] = 1.0
    win[1:, 0] = 0.0
    for s in range(2, 2 * n - 1):
        for a in range(max(1, s - n + 1), min(s - 1, n - 1) + 1):
            b = s - a
            acc = 0.0
            for k in range(nrolls):
                worst = 1.0  # the opponent's lowest P(win) over our results
                for j in range(offsets[a * nrolls + k], offsets[a * nrolls + k + 1]):
                    worst = min(worst, win[b, data[j]])
                acc += weights[k] * (1.0 - worst)
            win[a, b] = acc / 36.0
    return win


@dataclass(frozen=True)
class TwoSidedDatabase:
    """``win``: ``(924, 924)`` float64, P(side on roll wins) by (its index, opponent's index)."""

    win: np.ndarray

    def checksum(self) -> str:
        """SHA-256 over the format version and the table's bytes."""
        h = hashlib.sha256(f"bearoff2 v{_FORMAT} {self.win.shape}".encode())
        h.update(np.ascontiguousarray(self.win).tobytes())
        return h.hexdigest()


def build() -> TwoSidedDatabase:
    """Compute the table from scratch (about 0.3 s once compiled) and check it is a probability."""
    t0 = time.perf_counter()
    table = bearoff.positions()[:NUM_POSITIONS]
    step = bearoff.single_moves(table)
    offsets = np.zeros(NUM_POSITIONS * len(_ROLLS) + 1, np.int64)
    data = np.empty(_roll_results(step, _ROLLS, False, offsets, np.empty(0, np.int32)), np.int32)
    _roll_results(step, _ROLLS, True, offsets, data)
    win = _build_kernel(offsets, data, _WEIGHTS, NUM_POSITIONS)
    if not (win.min() >= 0.0 and win.max() <= 1.0 + 1e-12):
        raise RuntimeError(f"two-sided bear-off table out of [0, 1]: {win.min():.3g}..{win.max():.3g}")
    win.setflags(write=False)
    log.info("built the two-sided bear-off database (%d pairs) in %.2f s", win.size, time.perf_counter() - t0)
    return TwoSidedDatabase(win)


# --------------------------------------------------------------------------- caching


def cache_path() -> Path:
    """``bearoff2.npz`` in the one-sided database's cache folder (``$BGZERO_CACHE``, or ``~/.cache/bgzero``)."""
    return bearoff.cache_path().with_name(CACHE_NAME)


def save(db: TwoSidedDatabase, path: Path) -> None:
    """Write atomically (:func:`bgzero.engine.bearoff.one_sided.save_tables`)."""
    bearoff.save_tables(path, db)


def load(path: Path) -> TwoSidedDatabase:
    """Read and verify a cache file (:func:`bgzero.engine.bearoff.one_sided.load_tables`)."""
    return bearoff.load_tables(path, TwoSidedDatabase, (NUM_POSITIONS, NUM_POSITIONS))


def load_or_build(path: Path | None = None) -> TwoSidedDatabase:
    """The cached table at ``path`` (default :func:`cache_path`), rebuilt if missing or corrupt."""
    path = cache_path() if path is None else Path(path)
    return bearoff.load_or_build_tables(path, load, build, "two-sided bear-off database", log)


@functools.cache
def get_database() -> TwoSidedDatabase:
    """The process-wide table (loaded or built on first use)."""
    return load_or_build()
