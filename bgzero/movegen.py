"""Batched legal-move generation: every distinct position a roll can lead to.

The primitive is "all positions after moving" (as in wildbg): for each of B boards and
rolls, the kernel returns every *distinct* legal resulting position once, with the sides
already swapped (the opponent on roll), plus one step sequence that makes it. The rules
are those of RULES.md sections 3-5:

* each die moves one checker; a checker using several dice must land legally in between;
* a point with two or more opposing checkers blocks, a single one is hit;
* checkers on the bar enter first, and a die that cannot enter is lost while any remain;
* doubles are four moves; as much of the roll as possible must be played, and when only
  one die of a non-double can be played, the larger one if it can;
* bearing off needs every checker home; exact dice bear off from their point, larger
  dice only from the highest occupied point.

A roll that cannot be played still yields one result: the unchanged position with the
sides swapped and an empty step list, so a game loop needs no special case.

Doubles are searched with non-increasing start points, which reaches every distinct
result exactly once; non-doubles try both dice orders and drop repeats with an exact
hash table (Zobrist bucket, then a full comparison).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numba import njit

from bgzero.errors import InvalidDiceError, InvalidPositionError

MAX_STEPS = 4
_HASH_SLOTS = 1024  # power of two, comfortably above the most results of a non-double


@dataclass(frozen=True)
class MoveBatch:
    """Results of :func:`generate` for a batch.

    ``results[offsets[b]:offsets[b+1]]`` are the distinct positions reachable from board
    ``b`` with its roll, sides swapped (the opponent on roll). ``steps[k]`` is one way to
    reach ``results[k]``: up to four ``(from, to)`` pairs in the mover's numbering, 25
    for the bar and 0 for off, padded with ``-1``.
    """

    results: np.ndarray  # (N, 2, 25) int8
    offsets: np.ndarray  # (B + 1,) int64
    steps: np.ndarray  # (N, 4, 2) int8

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def counts(self) -> np.ndarray:
        """Number of distinct results per input board."""
        return np.diff(self.offsets)


# --------------------------------------------------------------------------- kernels
#
# The kernels work on two int8 rows in place: ``me`` (the mover) and ``op`` (the other
# side, in its own numbering), making and unmaking single-die moves. A non-double result
# is identified exactly by two int64 keys kept up to date as checkers move: ``lo`` packs
# the mover's columns 0-15 as 4-bit counts, ``hi`` packs columns 16-24 in its low 36 bits
# and, above them, one bit per opposing blot hit (the rest of ``op`` follows from that).

_HIT_SHIFT = 36


@njit(cache=True, inline="always")
def _dest(me, op, src, die, outside):
    """Destination column of moving ``src`` by ``die``; -1 bears off, -2 is illegal."""
    dest = src - die
    if dest >= 0:
        return dest if op[23 - dest] < 2 else -2
    if outside > 0:
        return -2
    if dest == -1:
        return -1
    for higher in range(src + 1, 6):  # an over-roll bears off only the highest checker
        if me[higher] > 0:
            return -2
    return -1


@njit(cache=True, inline="always")
def _make(me, op, src, dest):
    """Move one checker in place; returns 1 if it hit a blot, else 0."""
    me[src] -= 1
    if dest < 0:
        return 0
    me[dest] += 1
    opp_col = 23 - dest
    if op[opp_col] == 1:
        op[opp_col] = 0
        op[24] += 1
        return 1
    return 0


@njit(cache=True, inline="always")
def _unmake(me, op, src, dest, hit):
    me[src] += 1
    if dest >= 0:
        me[dest] -= 1
        if hit:
            op[23 - dest] = 1
            op[24] -= 1


@njit(cache=True, inline="always")
def _key_delta(src, dest, hit):
    """Change of the exact (lo, hi) key for a move that has been made."""
    lo = np.int64(0)
    hi = np.int64(0)
    if src < 16:
        lo -= np.int64(1) << (4 * src)
    else:
        hi -= np.int64(1) << (4 * (src - 16))
    if dest >= 0:
        if dest < 16:
            lo += np.int64(1) << (4 * dest)
        else:
            hi += np.int64(1) << (4 * (dest - 16))
        if hit:
            hi += np.int64(1) << (_HIT_SHIFT + 23 - dest)
    return lo, hi


@njit(cache=True, inline="always")
def _outside_delta(src, dest):
    """Change in the count of checkers outside the home board for src -> dest."""
    return -1 if (src >= 6 and dest < 6) else 0


@njit(cache=True, inline="always")
def _set_path(path, depth, src, dest):
    path[depth, 0] = src + 1
    path[depth, 1] = dest + 1 if dest >= 0 else 0


@njit(cache=True, inline="always")
def _record(me, op, path, depth, score, state, res, steps, table, lo, hi, dedupe):
    """Store the current position if it is a new result at the best score so far.

    ``state`` holds [n, start, best score, stamp]; ``table`` rows are open-addressing
    slots [stamp, lo, hi] whose stamp marks them live for the current search.
    Returns False when the output buffers are full.
    """
    n = state[0]
    if score < state[2]:
        return True
    if score > state[2]:
        state[2] = score
        state[3] += 1
        n = state[1]
        state[0] = n
    if dedupe:
        mask = table.shape[0] - 1
        mix = lo * np.int64(-7046029254386353131) + hi * np.int64(0x2545F4914F6CDD1D)
        slot = (mix ^ (mix >> 29)) & mask
        while table[slot, 0] == state[3]:
            if table[slot, 1] == lo and table[slot, 2] == hi:
                return True
            slot = (slot + 1) & mask
        table[slot, 0] = state[3]
        table[slot, 1] = lo
        table[slot, 2] = hi
    if n >= res.shape[0]:
        return False
    for c in range(25):
        res[n, 0, c] = op[c]
        res[n, 1, c] = me[c]
    for s in range(MAX_STEPS):
        if s < depth:
            steps[n, s, 0] = path[s, 0]
            steps[n, s, 1] = path[s, 1]
        else:
            steps[n, s, 0] = -1
            steps[n, s, 1] = -1
    state[0] = n + 1
    return True


@njit(cache=True, inline="always")
def _first_source(me, top):
    """Highest column <= ``top`` holding a checker that may move (the bar first)."""
    if me[24] > 0:
        return 24 if top >= 24 else -1
    src = min(top, 23)
    while src >= 0 and me[src] == 0:
        src -= 1
    return src


@njit(cache=True)
def _gen_nondouble(me, op, d1, d2, outside, state, res, steps, table, path):
    """Both dice orders of a non-double; scores: both dice 4, larger alone 2, smaller 1."""
    hi_die = max(d1, d2)
    for order in range(2):
        a = d1 if order == 0 else d2
        b = d2 if order == 0 else d1
        s1 = _first_source(me, 24)
        while s1 >= 0:
            t1 = _dest(me, op, s1, a, outside)
            if t1 != -2:
                h1 = _make(me, op, s1, t1)
                lo1, hi1 = _key_delta(s1, t1, h1)
                out1 = outside + _outside_delta(s1, t1)
                _set_path(path, 0, s1, t1)
                played2 = False
                s2 = _first_source(me, 24)
                while s2 >= 0:
                    t2 = _dest(me, op, s2, b, out1)
                    if t2 != -2:
                        h2 = _make(me, op, s2, t2)
                        lo2, hi2 = _key_delta(s2, t2, h2)
                        _set_path(path, 1, s2, t2)
                        played2 = True
                        ok = _record(me, op, path, 2, 4, state, res, steps, table, lo1 + lo2, hi1 + hi2, True)
                        _unmake(me, op, s2, t2, h2)
                        if not ok:
                            _unmake(me, op, s1, t1, h1)
                            return False
                    s2 = _first_source(me, s2 - 1)
                if not played2:
                    score = 2 if a == hi_die else 1
                    if not _record(me, op, path, 1, score, state, res, steps, table, lo1, hi1, True):
                        _unmake(me, op, s1, t1, h1)
                        return False
                _unmake(me, op, s1, t1, h1)
            s1 = _first_source(me, s1 - 1)
    return True


@njit(cache=True)
def _gen_double(me, op, die, outside, state, res, steps, table, path, stack):
    """Depth-first search of a double with non-increasing start columns.

    Iterative (numba cannot cache recursive functions). ``stack[d]`` holds, for depth
    ``d``: next start column to try, the move made (src, dest, hit), whether any move
    was made there, and the count of checkers outside home. A dead end at depth ``d > 0``
    scores ``d`` moves.
    """
    depth = 0
    stack[0, 0] = 24
    stack[0, 4] = 0
    stack[0, 5] = outside
    while depth >= 0:
        src = _first_source(me, stack[depth, 0])
        dest = -2
        while src >= 0:
            dest = _dest(me, op, src, die, stack[depth, 5])
            if dest != -2:
                break
            src = _first_source(me, src - 1)
        if src >= 0:
            hit = _make(me, op, src, dest)
            _set_path(path, depth, src, dest)
            if depth == 3:
                ok = _record(me, op, path, 4, 4, state, res, steps, table, 0, 0, False)
                _unmake(me, op, src, dest, hit)
                stack[depth, 0] = src - 1
                if not ok:
                    for d in range(depth - 1, -1, -1):
                        _unmake(me, op, stack[d, 1], stack[d, 2], stack[d, 3])
                    return False
            else:
                stack[depth, 0] = src - 1
                stack[depth, 1] = src
                stack[depth, 2] = dest
                stack[depth, 3] = hit
                stack[depth, 4] = 1
                depth += 1
                stack[depth, 0] = src
                stack[depth, 4] = 0
                stack[depth, 5] = stack[depth - 1, 5] + _outside_delta(src, dest)
        else:
            if stack[depth, 4] == 0 and depth > 0:
                if not _record(me, op, path, depth, depth, state, res, steps, table, 0, 0, False):
                    for d in range(depth - 1, -1, -1):
                        _unmake(me, op, stack[d, 1], stack[d, 2], stack[d, 3])
                    return False
            depth -= 1
            if depth >= 0:
                _unmake(me, op, stack[depth, 1], stack[depth, 2], stack[depth, 3])
    return True


@njit(cache=True, nogil=True)
def _generate_range(boards, dice, first, res, steps, counts):
    """Generate for boards[first:], writing compactly; returns (stop, results written).

    Stops early, at the first board whose results do not fit, when the buffers fill up.
    Returns stop = -1 - b for board b with dice outside 1-6 or more than 15 checkers a
    side, so bad input never reaches the search.
    """
    me = np.empty(25, np.int8)
    op = np.empty(25, np.int8)
    path = np.full((MAX_STEPS, 2), -1, np.int8)
    table = np.zeros((_HASH_SLOTS, 3), np.int64)
    stack = np.zeros((4, 6), np.int64)
    state = np.zeros(4, np.int64)  # n, start, best score, stamp
    n = 0
    for b in range(first, boards.shape[0]):
        outside = 0
        total_me = 0
        total_op = 0
        for c in range(25):
            me[c] = boards[b, 0, c]
            op[c] = boards[b, 1, c]
            if me[c] < 0 or op[c] < 0:
                return -1 - b, n
            total_me += me[c]
            total_op += op[c]
            if c >= 6:
                outside += me[c]
        d1, d2 = dice[b, 0], dice[b, 1]
        if total_me > 15 or total_op > 15 or d1 < 1 or d1 > 6 or d2 < 1 or d2 > 6:
            return -1 - b, n
        state[0] = n
        state[1] = n
        state[2] = -1
        state[3] += 1
        if d1 == d2:
            ok = _gen_double(me, op, d1, outside, state, res, steps, table, path, stack)
        else:
            ok = _gen_nondouble(me, op, d1, d2, outside, state, res, steps, table, path)
        if ok and state[2] < 0:  # no legal move: the turn passes
            ok = _record(me, op, path, 0, 0, state, res, steps, table, 0, 0, False)
        if not ok:
            return b, n
        n = state[0]
        counts[b] = n - state[1]
    return boards.shape[0], n


# --------------------------------------------------------------------------- Python API


def _check_inputs(boards, dice):
    boards = np.asarray(boards)
    dice = np.asarray(dice)
    if boards.ndim != 3 or boards.shape[1:] != (2, 25):
        raise InvalidPositionError(f"boards must have shape (B, 2, 25), got {boards.shape}")
    if dice.shape != (boards.shape[0], 2):
        raise InvalidDiceError(f"dice must have shape ({boards.shape[0]}, 2), got {dice.shape}")
    if dice.size and (dice.min() < 1 or dice.max() > 6):
        bad = dice[((dice < 1) | (dice > 6)).any(axis=1)][0]
        raise InvalidDiceError(f"dice must be 1-6, got {bad.tolist()}")
    if boards.size and boards.min() < 0:
        raise InvalidPositionError("boards hold a negative checker count")
    if boards.size and boards.sum(axis=2).max() > 15:
        raise InvalidPositionError("a side has more than 15 checkers on the board")
    return np.ascontiguousarray(boards, dtype=np.int8), np.ascontiguousarray(dice, dtype=np.int8)


def _generate_serial(boards: np.ndarray, dice: np.ndarray) -> MoveBatch:
    B = boards.shape[0]
    counts = np.zeros(B, np.int64)
    capacity = max(64, 32 * B)
    chunks_res, chunks_steps = [], []
    first = 0
    while True:
        res = np.empty((capacity, 2, 25), np.int8)
        steps = np.empty((capacity, MAX_STEPS, 2), np.int8)
        stop, n = _generate_range(boards, dice, first, res, steps, counts)
        chunks_res.append(res[:n])
        chunks_steps.append(steps[:n])
        if stop == B:
            break
        if stop == first:  # a single board overflowed an empty buffer: grow it
            capacity *= 2
        first = stop
    offsets = np.zeros(B + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    if len(chunks_res) == 1:
        return MoveBatch(chunks_res[0], offsets, chunks_steps[0])
    return MoveBatch(np.concatenate(chunks_res), offsets, np.concatenate(chunks_steps))


_POOL: ThreadPoolExecutor | None = None


def generate(boards, dice, *, threads: int = 1) -> MoveBatch:
    """All distinct legal results for each board and roll (see the module docstring).

    ``boards`` is ``(B, 2, 25)`` in the side-on-roll convention of :mod:`bgzero.board`
    and ``dice`` is ``(B, 2)``. With ``threads > 1`` the batch is split across threads
    (the kernel releases the GIL); ``threads=0`` means one per CPU.
    """
    global _POOL
    boards, dice = _check_inputs(boards, dice)
    if threads == 0:
        threads = os.cpu_count() or 1
    if threads <= 1 or boards.shape[0] < 2 * threads:
        return _generate_serial(boards, dice)
    if _POOL is None or _POOL._max_workers < threads:
        _POOL = ThreadPoolExecutor(max_workers=threads)
    bounds = np.linspace(0, boards.shape[0], threads + 1).astype(int)
    parts = list(_POOL.map(lambda i: _generate_serial(boards[bounds[i]:bounds[i + 1]], dice[bounds[i]:bounds[i + 1]]),
                           range(threads)))
    offsets = [np.zeros(1, np.int64)]
    base = 0
    for part in parts:
        offsets.append(part.offsets[1:] + base)
        base += part.offsets[-1]
    return MoveBatch(np.concatenate([p.results for p in parts]), np.concatenate(offsets),
                     np.concatenate([p.steps for p in parts]))


def legal_results(board, dice) -> tuple[np.ndarray, np.ndarray]:
    """Results (sides swapped) and step lists for one board and one roll."""
    batch = generate(np.asarray(board)[None], np.asarray(dice).reshape(1, 2))
    return batch.results, batch.steps


def warm_up() -> None:
    """Compile (or load from cache) the kernels before timed work."""
    from bgzero.board import START
    generate(START[None], np.array([[3, 1]]))
    generate(START[None], np.array([[2, 2]]))
