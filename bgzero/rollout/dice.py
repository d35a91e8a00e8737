"""Rollout dice: a pure function of (seed, trial, ply), stratified where it pays.

A trial's dice never depend on which process rolls it or on what else is in its batch,
so the same seed gives the same trials however the work is split. The first roll of
every 36 consecutive trials covers the 36 rolls once each, and the first two rolls of
every 1,296 consecutive trials cover the 1,296 pairs once each (gnubg's quasi-random
dice): the luck of the opening rolls, the largest single source of variance in a short
rollout, is then shared out exactly. Later rolls come from a counter-based hash. Every
candidate play of a position is rolled out with the same dice sequences (common random
numbers), so the differences between plays are far more precise than the values.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from bgzero.engine.game import ROLLS

DICE = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], np.int8)
"""The 36 ordered rolls; a roll is an index into this table."""

TO_DISTINCT = np.array([int(np.flatnonzero((ROLLS == sorted(d)).all(axis=1))[0]) for d in DICE.tolist()], np.int64)
"""Index in :data:`ROLLS` of each of the 36 ordered rolls."""

_BLOCK = 36 * 36
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: a bijection on uint64 that scrambles every bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def _hashed_rolls(seed, trials, ply):
    """The rolls of plies 2 and later: a hash of (seed, trial, ply), in one pass."""
    out = np.empty(trials.shape[0], np.int64)
    for i in range(trials.shape[0]):
        key = _mix(seed ^ _mix(np.uint64(trials[i]) * _GOLDEN + ply))
        out[i] = np.int64(key % np.uint64(36))
    return out


@functools.lru_cache(maxsize=4096)
def _permutations(seed: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """The two shuffles of the 36 rolls used by trials ``block * 1296`` onwards."""
    rng = np.random.default_rng([seed, block])
    return rng.permutation(36), rng.permutation(36)


def trial_rolls(seed: int, trials: np.ndarray, ply: int) -> np.ndarray:
    """(n,) roll indices (into :data:`DICE`) of ``trials`` at ``ply`` (0 is the first roll).

    Ply 0: trial ``t`` takes the ``t mod 36``-th roll of its block's first shuffle. Ply 1:
    the ``(t mod 36 + t // 36) mod 36``-th of the second shuffle, so any 36 consecutive
    trials also cover the 36 second rolls, and a block's 1,296 trials meet every pair once.
    """
    trials = np.asarray(trials, np.int64)
    if ply >= 2:
        return _hashed_rolls(np.uint64(seed & (2**64 - 1)), trials, np.uint64(ply))
    out = np.empty(len(trials), np.int64)
    blocks = trials // _BLOCK
    for block in np.unique(blocks).tolist():
        mask = blocks == block
        first, second = _permutations(int(seed), int(block))
        t = trials[mask]
        out[mask] = first[t % 36] if ply == 0 else second[(t % 36 + t // 36) % 36]
    return out
