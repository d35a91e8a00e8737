"""Per-segment reductions over flat candidate arrays.

Move generation returns the candidates of B positions back to back, delimited by
``offsets``; choosing a move is a reduction over each segment.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def segment_argmax(scores, offsets):
    """Index of the highest score in each segment (first on ties); -1 for an empty one."""
    n_seg = offsets.shape[0] - 1
    best = np.full(n_seg, -1, dtype=np.int64)
    for b in range(n_seg):
        lo, hi = offsets[b], offsets[b + 1]
        if hi > lo:
            i_best = lo
            for i in range(lo + 1, hi):
                if scores[i] > scores[i_best]:
                    i_best = i
            best[b] = i_best
    return best


def segment_random(offsets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random index in each (non-empty) segment."""
    counts = np.diff(offsets)
    return offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)


@njit(cache=True)
def segment_top_k(scores, offsets, k):
    """Mask of the ``k`` highest scores in each segment (all of a segment of ``k`` or fewer;
    the first on ties). An insertion into a list of ``k``: segments are some twenty long."""
    keep = np.zeros(scores.shape[0], dtype=np.bool_)
    if k < 1:
        return keep
    top = np.empty(k, dtype=np.int64)
    for b in range(offsets.shape[0] - 1):
        lo, hi = offsets[b], offsets[b + 1]
        if hi - lo <= k:
            keep[lo:hi] = True
            continue
        n = 0
        for i in range(lo, hi):
            if n == k and not scores[i] > scores[top[k - 1]]:
                continue
            j = min(n, k - 1)
            while j > 0 and scores[i] > scores[top[j - 1]]:  # strictly: an earlier equal score stays ahead
                top[j] = top[j - 1]
                j -= 1
            top[j] = i
            n = min(n + 1, k)
        for j in range(k):
            keep[top[j]] = True
    return keep


@njit(cache=True)
def segment_runner_up(scores, offsets, best, k, u):
    """For each segment, one of its ``k`` highest-scoring indices other than ``best``, the
    ``floor(u * count)``-th of them (``u`` uniform in [0, 1) per segment); ``best`` itself
    where the segment has no other candidate. Self-play explores with it: a plausible
    second choice, not an arbitrary legal move."""
    out = best.copy()
    for b in range(offsets.shape[0] - 1):
        lo, hi = offsets[b], offsets[b + 1]
        n = min(k, hi - lo - 1)
        if n <= 0:
            continue
        pick = int(u[b] * n)
        seen = 0
        for j in np.argsort(-scores[lo:hi], kind="mergesort"):  # stable: first on ties
            if lo + j == best[b]:
                continue
            if seen == pick:
                out[b] = lo + j
                break
            seen += 1
    return out
