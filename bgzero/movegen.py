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

How it is fast: the mover's occupied columns are a bit mask, and so are the columns a die
may land on (every point the other side does not block), so the legal starting columns of
a die are one AND of the two (plus the bar and bear-off cases), walked highest bit first.
Moves are made and unmade in place on one 50-byte row laid out like a result, so a result
is one fixed-size copy, and a step list is one packed 8-byte word. Doubles are searched
with non-increasing start columns, which reaches every distinct result exactly once;
non-doubles try both dice orders and drop repeats with an exact key (the mover's counts
and the blots hit) in a small open-addressing table. Results go straight into the output
arrays; one position at a time (``B == 1``, :func:`legal_results`) they go into a
preallocated slab that is handed out piece by piece, so the call allocates nothing.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from bgzero.errors import InvalidDiceError, InvalidPositionError

MAX_STEPS = 4


@dataclass(frozen=True, slots=True, weakref_slot=True)
class MoveBatch:
    """Results of :func:`generate` for a batch.

    ``results[offsets[b]:offsets[b+1]]`` are the distinct positions reachable from board
    ``b`` with its roll, sides swapped (the opponent on roll). ``steps[k]`` is one way to
    reach ``results[k]``: up to four ``(from, to)`` pairs in the mover's numbering, 25
    for the bar and 0 for off, padded with ``-1``.

    The arrays are the caller's own (no later call writes to them), but for ``B == 1``
    they are views into a slab shared with other single-position calls' results, which
    stays in memory while any of them is referenced.
    """

    results: np.ndarray  # (N, 2, 25) int8
    offsets: np.ndarray  # (B + 1,) int64
    steps: np.ndarray  # (N, 4, 2) int8

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def counts(self) -> np.ndarray:
        """Number of distinct results per input board."""
        return np.diff(self.offsets)


_new = object.__new__
_set_results = MoveBatch.results.__set__
_set_offsets = MoveBatch.offsets.__set__
_set_steps = MoveBatch.steps.__set__


def _move_batch(results, offsets, steps) -> MoveBatch:
    """``MoveBatch(results, offsets, steps)`` without the frozen ``__init__``'s cost."""
    batch = _new(MoveBatch)
    _set_results(batch, results)
    _set_offsets(batch, offsets)
    _set_steps(batch, steps)
    return batch


# --------------------------------------------------------------------------- kernels
#
# The working position is one int8 row ``cur`` laid out like a result: the other side's
# 25 columns, then the mover's (``cur[25 + c]``). ``occ`` has bit c set when the mover
# has a checker on column c (24 = bar); ``open_mask`` has bit t set when the mover may
# land on column t (the other side has fewer than two checkers there). Neither side's
# blocks change during a move (only blots are hit), so ``open_mask`` is fixed.
#
# A non-double result is identified exactly by two int64 keys kept up to date as
# checkers move: ``lo`` packs the mover's columns 0-15 as 4-bit counts, ``hi`` packs
# columns 16-24 in its low 36 bits and, above them, one bit per opposing blot hit (the
# rest of the other side follows from that). Step lists are packed into one int64, byte
# 2k = from and 2k + 1 = to of move k, 0xFF (-1) where unused.
#
# Outputs are flat int8 buffers addressed in bytes: result row n at ``res[rb + 50 n:]``,
# its step word at ``steps[sb + 8 n:]``, hash slot i at ``table[tb + 24 i:]`` (stamp, lo,
# hi), so one position at a time everything lives in one buffer that needs no views
# (each numba reshape or view costs about 60 ns a call).
#
# Helpers that take arrays are written out in the loops by hand: a numba call (or an
# ``inline="always"`` one) that passes an array costs an NRT incref/decref pair, which
# measured 20-30% slower here.

_HASH_SLOTS = 1024  # power of two, well above the most keys one non-double inserts
_TABLE_BYTES = (_HASH_SLOTS + 1) * 24  # the slots, then the current stamp
_HIT_SHIFT = 36
_BAR_BIT = 1 << 24
_BOARD_BITS = (1 << 25) - 1
_NO_STEPS = -1  # the packed step word of an empty step list
_K1 = -7046029254386353131  # hash multipliers
_K2 = 0x2545F4914F6CDD1D

# error codes the kernels return
_OK, _BAD_BOARD, _BAD_DICE, _FULL, _BAD_SHAPE, _NOT_ONE = 0, 1, 2, 3, 4, 5


@intrinsic
def _top_bit(typingctx, x):
    """Index of the highest set bit of a non-zero integer (one ``lzcnt``)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], x, types.int64)
        clz = builder.ctlz(v, ir.Constant(ir.IntType(1), 1))
        return builder.sub(ir.Constant(ir.IntType(64), 63), clz)

    return types.int64(x), codegen


def _byte_ptr(context, builder, aryty, ary, off, offty):
    data = context.make_array(aryty)(context, builder, ary).data
    return builder.gep(data, [context.cast(builder, off, offty, types.intp)])


@intrinsic
def _copy_row(typingctx, dst, off, src):
    """``dst[off:off + 50] = src[:50]`` as one fixed-size memcpy."""
    sig = types.void(dst, off, src)

    def codegen(context, builder, signature, args):
        dptr = _byte_ptr(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        sptr = context.make_array(signature.args[2])(context, builder, args[2]).data
        cgutils.raw_memcpy(builder, dptr, sptr, ir.Constant(ir.IntType(64), 50), 1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _get64(typingctx, buf, off):
    """The int64 at byte ``off`` of the int8 array ``buf``."""
    sig = types.int64(buf, off)

    def codegen(context, builder, signature, args):
        ptr = _byte_ptr(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)

    return sig, codegen


@intrinsic
def _put64(typingctx, buf, off, val):
    """Store the int64 ``val`` at byte ``off`` of the int8 array ``buf``."""
    sig = types.void(buf, off, types.int64)

    def codegen(context, builder, signature, args):
        ptr = _byte_ptr(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        v = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store(v, builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def _sources(occ, okd, d):
    """Columns a checker may leave with die ``d``: a bit mask, the bar being bit 24.

    ``okd`` is ``open_mask << d``: the columns whose checkers land on an open point.
    """
    if occ >= _BAR_BIT:
        return occ & okd & _BAR_BIT
    m = occ & okd
    if occ < 64 and occ != 0:  # all home: bear off exactly, or from the highest point
        if (occ >> (d - 1)) & 1:
            m |= np.int64(1) << (d - 1)
        else:
            h = _top_bit(occ)
            if h < d - 1:
                m |= np.int64(1) << h
    return m


@njit(cache=True)
def _key_delta(src, dest, hit):
    """Change of the exact (lo, hi) key for a move src -> dest (dest -1 = off)."""
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


@njit(cache=True)
def _push(path, k, src, dest):
    """The packed step word ``path`` with move ``k`` set to src -> dest (columns)."""
    shift = 16 * k
    return (path & ~(np.int64(0xFFFF) << shift)) | (((src + 1) | ((dest + 1) << 8)) << shift)


@njit(cache=True)
def _nondouble(cur, occ, d1, d2, open_mask, res, rb, steps, sb, n, cap, table, tb):
    """Both dice orders of a non-double, from row ``n``; returns the new row count or -1
    when it reaches ``cap``. Scores: both dice 4, the larger alone 2, the smaller 1."""
    start = n
    best = -1
    mask = _HASH_SLOTS - 1
    stamp = _get64(table, tb + 24 * _HASH_SLOTS) + 1  # slots with this stamp are live
    big = max(d1, d2)
    for order in range(2):
        a = d1 if order == 0 else d2
        b = d2 if order == 0 else d1
        oka = (open_mask << a) & _BOARD_BITS
        okb = (open_mask << b) & _BOARD_BITS
        m1 = _sources(occ, oka, a)
        while m1 != 0:
            s1 = _top_bit(m1)
            m1 ^= np.int64(1) << s1
            t1 = s1 - a if s1 >= a else -1
            # make s1 -> t1
            occ1 = occ
            cur[25 + s1] -= 1
            if cur[25 + s1] == 0:
                occ1 ^= np.int64(1) << s1
            h1 = False
            if t1 >= 0:
                cur[25 + t1] += 1
                occ1 |= np.int64(1) << t1
                if cur[23 - t1] == 1:
                    cur[23 - t1] = 0
                    cur[24] += 1
                    h1 = True
            lo1, hi1 = _key_delta(s1, t1, h1)
            p1 = _push(_NO_STEPS, 0, s1, t1)
            m2 = _sources(occ1, okb, b)
            if m2 == 0:  # only this die can be played
                score = 2 if a == big else 1
                if score >= best:
                    if score > best:
                        best = score
                        stamp += 1
                        n = start
                    slot = (((lo1 ^ (hi1 * np.int64(_K2))) * np.int64(_K1)) >> 54) & mask
                    new = True
                    while _get64(table, tb + 24 * slot) == stamp:
                        if _get64(table, tb + 24 * slot + 8) == lo1 and _get64(table, tb + 24 * slot + 16) == hi1:
                            new = False
                            break
                        slot = (slot + 1) & mask
                    if new:
                        if n >= cap:
                            _put64(table, tb + 24 * _HASH_SLOTS, stamp)
                            return -1
                        _put64(table, tb + 24 * slot, stamp)
                        _put64(table, tb + 24 * slot + 8, lo1)
                        _put64(table, tb + 24 * slot + 16, hi1)
                        _copy_row(res, rb + 50 * n, cur)
                        _put64(steps, sb + 8 * n, p1)
                        n += 1
            else:
                if best < 4:
                    best = 4
                    stamp += 1
                    n = start
                while m2 != 0:
                    s2 = _top_bit(m2)
                    m2 ^= np.int64(1) << s2
                    t2 = s2 - b if s2 >= b else -1
                    h2 = t2 >= 0 and cur[23 - t2] == 1
                    lo2, hi2 = _key_delta(s2, t2, h2)
                    lo = lo1 + lo2
                    hi = hi1 + hi2
                    slot = (((lo ^ (hi * np.int64(_K2))) * np.int64(_K1)) >> 54) & mask
                    new = True
                    while _get64(table, tb + 24 * slot) == stamp:
                        if _get64(table, tb + 24 * slot + 8) == lo and _get64(table, tb + 24 * slot + 16) == hi:
                            new = False
                            break
                        slot = (slot + 1) & mask
                    if new:
                        if n >= cap:
                            _put64(table, tb + 24 * _HASH_SLOTS, stamp)
                            return -1
                        _put64(table, tb + 24 * slot, stamp)
                        _put64(table, tb + 24 * slot + 8, lo)
                        _put64(table, tb + 24 * slot + 16, hi)
                        # the result is cur with s2 -> t2 applied on the output row
                        r = rb + 50 * n
                        _copy_row(res, r, cur)
                        _put64(steps, sb + 8 * n, _push(p1, 1, s2, t2))
                        res[r + 25 + s2] -= 1
                        if t2 >= 0:
                            res[r + 25 + t2] += 1
                            if h2:
                                res[r + 23 - t2] = 0
                                res[r + 24] += 1
                        n += 1
            # unmake s1 -> t1
            cur[25 + s1] += 1
            if t1 >= 0:
                cur[25 + t1] -= 1
                if h1:
                    cur[23 - t1] = 1
                    cur[24] -= 1
    _put64(table, tb + 24 * _HASH_SLOTS, stamp)
    return n


@njit(cache=True)
def _double(cur, occ, d, open_mask, res, rb, steps, sb, n, cap):
    """Four moves of ``d`` with non-increasing start columns (every result once), from
    row ``n``; returns the new row count (``n`` if nothing is legal) or -1 when it
    reaches ``cap``. A play that cannot go on after k < 4 moves scores k; only the best
    score is kept."""
    start = n
    best = -1
    okd = (open_mask << d) & _BOARD_BITS
    m0 = _sources(occ, okd, d)
    while m0 != 0:
        s0 = _top_bit(m0)
        m0 ^= np.int64(1) << s0
        t0 = s0 - d if s0 >= d else -1
        occ1 = occ
        cur[25 + s0] -= 1
        if cur[25 + s0] == 0:
            occ1 ^= np.int64(1) << s0
        h0 = False
        if t0 >= 0:
            cur[25 + t0] += 1
            occ1 |= np.int64(1) << t0
            if cur[23 - t0] == 1:
                cur[23 - t0] = 0
                cur[24] += 1
                h0 = True
        p1 = _push(_NO_STEPS, 0, s0, t0)
        m1 = _sources(occ1, okd, d) & ((np.int64(2) << s0) - 1)
        if m1 == 0 and best <= 1:  # dead end after one move
            if best < 1:
                best = 1
                n = start
            if n >= cap:
                return -1
            _copy_row(res, rb + 50 * n, cur)
            _put64(steps, sb + 8 * n, p1)
            n += 1
        while m1 != 0:
            s1 = _top_bit(m1)
            m1 ^= np.int64(1) << s1
            t1 = s1 - d if s1 >= d else -1
            occ2 = occ1
            cur[25 + s1] -= 1
            if cur[25 + s1] == 0:
                occ2 ^= np.int64(1) << s1
            h1 = False
            if t1 >= 0:
                cur[25 + t1] += 1
                occ2 |= np.int64(1) << t1
                if cur[23 - t1] == 1:
                    cur[23 - t1] = 0
                    cur[24] += 1
                    h1 = True
            p2 = _push(p1, 1, s1, t1)
            m2 = _sources(occ2, okd, d) & ((np.int64(2) << s1) - 1)
            if m2 == 0 and best <= 2:
                if best < 2:
                    best = 2
                    n = start
                if n >= cap:
                    return -1
                _copy_row(res, rb + 50 * n, cur)
                _put64(steps, sb + 8 * n, p2)
                n += 1
            while m2 != 0:
                s2 = _top_bit(m2)
                m2 ^= np.int64(1) << s2
                t2 = s2 - d if s2 >= d else -1
                occ3 = occ2
                cur[25 + s2] -= 1
                if cur[25 + s2] == 0:
                    occ3 ^= np.int64(1) << s2
                h2 = False
                if t2 >= 0:
                    cur[25 + t2] += 1
                    occ3 |= np.int64(1) << t2
                    if cur[23 - t2] == 1:
                        cur[23 - t2] = 0
                        cur[24] += 1
                        h2 = True
                p3 = _push(p2, 2, s2, t2)
                m3 = _sources(occ3, okd, d) & ((np.int64(2) << s2) - 1)
                if m3 == 0:
                    if best <= 3:
                        if best < 3:
                            best = 3
                            n = start
                        if n >= cap:
                            return -1
                        _copy_row(res, rb + 50 * n, cur)
                        _put64(steps, sb + 8 * n, p3)
                        n += 1
                elif best < 4:
                    best = 4
                    n = start
                while m3 != 0:  # the fourth move is applied on the output row
                    s3 = _top_bit(m3)
                    m3 ^= np.int64(1) << s3
                    t3 = s3 - d if s3 >= d else -1
                    if n >= cap:
                        return -1
                    r = rb + 50 * n
                    _copy_row(res, r, cur)
                    _put64(steps, sb + 8 * n, _push(p3, 3, s3, t3))
                    res[r + 25 + s3] -= 1
                    if t3 >= 0:
                        res[r + 25 + t3] += 1
                        if cur[23 - t3] == 1:
                            res[r + 23 - t3] = 0
                            res[r + 24] += 1
                    n += 1
                cur[25 + s2] += 1
                if t2 >= 0:
                    cur[25 + t2] -= 1
                    if h2:
                        cur[23 - t2] = 1
                        cur[24] -= 1
            cur[25 + s1] += 1
            if t1 >= 0:
                cur[25 + t1] -= 1
                if h1:
                    cur[23 - t1] = 1
                    cur[24] -= 1
        cur[25 + s0] += 1
        if t0 >= 0:
            cur[25 + t0] -= 1
            if h0:
                cur[23 - t0] = 1
                cur[24] -= 1
    return n


@njit(cache=True, inline="always")
def _position(board, d1, d2, cur, res, rb, steps, sb, n, cap, table, tb):
    """Check and generate one (2, 25) board from row ``n``: (new row count, error).

    Bad input (dice outside 1-6, a negative count, more than 15 checkers a side, a point
    held by both sides) never reaches the search.
    """
    d1 = np.int64(d1)
    d2 = np.int64(d2)
    if d1 < 1 or d1 > 6 or d2 < 1 or d2 > 6:
        return n, _BAD_DICE
    occ = np.int64(0)
    theirs = np.int64(0)
    open_mask = np.int64(0)
    tot_me = 0
    tot_op = 0
    for c in range(25):
        m = board[0, c]
        o = board[1, c]
        if m < 0 or o < 0:
            return n, _BAD_BOARD
        tot_me += m
        tot_op += o
        cur[25 + c] = m
        cur[c] = o
        if m > 0:
            occ |= np.int64(1) << c
        if c < 24:
            if o > 0:
                theirs |= np.int64(1) << (23 - c)
            if o < 2:
                open_mask |= np.int64(1) << (23 - c)
    if tot_me > 15 or tot_op > 15 or (occ & theirs) != 0:
        return n, _BAD_BOARD
    start = n
    if d1 == d2:
        n = _double(cur, occ, d1, open_mask, res, rb, steps, sb, n, cap)
    else:
        n = _nondouble(cur, occ, d1, d2, open_mask, res, rb, steps, sb, n, cap, table, tb)
    if n < 0:
        return start, _FULL
    if n == start:  # no legal move: the turn passes
        if n >= cap:
            return start, _FULL
        _copy_row(res, rb + 50 * n, cur)
        _put64(steps, sb + 8 * n, _NO_STEPS)
        n += 1
    return n, _OK


_RO_BOARDS = types.Array(types.int8, 3, "C", readonly=True)
_RO_BOARD = types.Array(types.int8, 2, "C", readonly=True)
_I8_3D = types.Array(types.int8, 3, "C")
_I8_1D = types.Array(types.int8, 1, "C")
_I64_1D = types.Array(types.int64, 1, "C")
_DICE_2D = [types.Array(t, 2, "C", readonly=True) for t in (types.int8, types.int64)]
_DICE_1D = [types.Array(t, 1, "C", readonly=True) for t in (types.int8, types.int64)]
_DICE_1D.append(types.UniTuple(types.int64, 2))
_RET = types.UniTuple(types.int64, 3)


@njit([_RET(_RO_BOARDS, dice, types.int64, types.int64, _I8_3D, _I8_3D, _I64_1D, types.int64)
       for dice in _DICE_2D], cache=True, nogil=True)
def _gen_batch(boards, dice, lo, hi, res, steps, offsets, n):
    """Boards ``lo:hi`` into rows from ``n``, setting ``offsets[b + 1]`` to board b's end.

    Returns (stop, n, error): on an error it stops at board ``stop``, having written the
    boards before it (error: 1 bad board, 2 bad dice, 3 output full, 4 bad shapes).
    """
    if boards.shape[1] != 2 or boards.shape[2] != 25 or dice.shape[0] != boards.shape[0] or dice.shape[1] != 2:
        return lo, n, _BAD_SHAPE
    cap = res.shape[0]
    flat_res = res.reshape(cap * 50)
    flat_steps = steps.reshape(cap * 2 * MAX_STEPS)
    cur = np.empty(64, np.int8)
    table = np.zeros(_TABLE_BYTES, np.int8)
    for b in range(lo, hi):
        n2, err = _position(boards[b], dice[b, 0], dice[b, 1], cur, flat_res, 0, flat_steps, 0, n, cap, table, 0)
        if err != _OK:
            return b, n, err
        n = n2
        offsets[b + 1] = n
    return hi, n, _OK


# One position at a time, results go to a slab of _SLAB_ROWS rows, laid out in one int8
# buffer: results (R * 50 bytes), steps (R * 8), offsets pairs (R * 16: the pair for a
# call starting at row s is at byte 16 s), the hash table, the next free row (int64),
# then the working row (56 bytes). One buffer is one argument to unbox and nothing to
# allocate per call.
_SLAB_ROWS = 2048


@njit(cache=True, inline="always")
def _gen_slab(board, d1, d2, slab):
    """One board into the slab: returns ``(end row << 32) | first row``, or ``-error``."""
    rows = (slab.shape[0] - 64 - _TABLE_BYTES) // 74
    top = rows * 74 + _TABLE_BYTES
    start = _get64(slab, top)
    n, err = _position(board, d1, d2, slab[top + 8:top + 64], slab, 0, slab, 50 * rows, start, rows,
                       slab, 74 * rows)
    if err != _OK:
        return -err
    _put64(slab, 58 * rows + 16 * start, 0)
    _put64(slab, 58 * rows + 16 * start + 8, n - start)
    _put64(slab, top, n)
    return (n << 32) | start


@njit([types.int64(_RO_BOARDS, dice, _I8_1D) for dice in _DICE_2D], cache=True)
def _gen_one(boards, dice, slab):
    """``generate`` for B == 1 into the slab: ``(end row << 32) | first row`` or ``-error``
    (error 5 if B != 1). Holds the GIL, so Python threads take turns with the slab."""
    if boards.shape[0] != 1 or dice.shape[0] != 1:
        return -_NOT_ONE
    if boards.shape[1] != 2 or boards.shape[2] != 25 or dice.shape[1] != 2:
        return -_BAD_SHAPE
    return _gen_slab(boards[0], dice[0, 0], dice[0, 1], slab)


@njit([types.int64(_RO_BOARD, dice, _I8_1D) for dice in _DICE_1D], cache=True)
def _gen_board(board, dice, slab):
    """``legal_results`` into the slab, as :func:`_gen_one`."""
    if board.shape[0] != 2 or board.shape[1] != 25 or len(dice) != 2:
        return -_BAD_SHAPE
    return _gen_slab(board, dice[0], dice[1], slab)


# --------------------------------------------------------------------------- Python API


def _new_slab():
    """(buffer, results view, steps view, offsets pairs view) of a fresh, empty slab."""
    rows = _SLAB_ROWS
    buf = np.empty(rows * 74 + _TABLE_BYTES + 64, np.int8)
    buf[rows * 74:] = 0  # hash table, next free row, working row
    return (buf, buf[:rows * 50].reshape(rows, 2, 25), buf[rows * 50:rows * 58].reshape(rows, MAX_STEPS, 2),
            buf[rows * 58:rows * 74].view(np.int64).reshape(rows, 2))


_SLAB = _new_slab()


def _board_problem(board) -> str:
    """What is wrong with one board, in words (for error messages)."""
    arr = np.asarray(board)
    if arr.shape != (2, 25):
        return f"shape {arr.shape}, not (2, 25)"
    if (arr < 0).any():
        side, col = map(int, np.argwhere(arr < 0)[0])
        return f"negative checker count {int(arr[side, col])} at side {side} column {col}"
    totals = arr.sum(axis=1)
    for side in (0, 1):
        if totals[side] > 15:
            return f"side {side} has {int(totals[side])} checkers on the board; at most 15"
    both = (arr[0, :24] > 0) & (arr[1, 23::-1] > 0)
    if both.any():
        return f"point {int(np.argmax(both)) + 1} (side on roll's numbering) is held by both sides"
    return "invalid"


def _input_error(boards, dice, b: int, err: int) -> Exception:
    if err == _BAD_DICE:
        return InvalidDiceError(f"dice[{b}] = {np.asarray(dice[b]).tolist()}: each die must be 1-6")
    if err == _BAD_BOARD:
        return InvalidPositionError(f"boards[{b}] = {np.asarray(boards[b]).tolist()}: {_board_problem(boards[b])}")
    if np.ndim(boards) != 3 or np.shape(boards)[1:] != (2, 25):
        return InvalidPositionError(f"boards must have shape (B, 2, 25), got {np.shape(boards)}")
    return InvalidDiceError(f"dice must have shape ({np.shape(boards)[0]}, 2), got {np.shape(dice)}")


def _integers(arr, error, what):
    """``arr`` as integers, or ``error`` when it holds anything else."""
    if arr.dtype.kind in "iu":
        return arr
    if arr.dtype.kind == "b" or (arr.dtype.kind == "f" and np.array_equal(arr, np.trunc(arr))):
        return arr.astype(np.int64)
    raise error(f"{what} must hold integers, got {arr.dtype} values")


def _coerce(boards, dice):
    """The general path's inputs: C-ordered int8 boards and int64 dice, shapes checked,
    board values that int8 cannot hold reported (the kernels check everything else)."""
    boards = _integers(np.asarray(boards), InvalidPositionError, "boards")
    dice = _integers(np.asarray(dice), InvalidDiceError, "dice")
    if boards.ndim != 3 or boards.shape[1:] != (2, 25):
        raise _input_error(boards, dice, 0, _BAD_SHAPE)
    if dice.shape != (boards.shape[0], 2):
        raise _input_error(boards, dice, 0, _BAD_SHAPE)
    if boards.dtype != np.int8:
        bad = ((boards < 0) | (boards > 15)).any(axis=(1, 2))
        if bad.any():
            raise _input_error(boards, dice, int(np.argmax(bad)), _BAD_BOARD)
    if dice.dtype not in (np.int8, np.int64):
        dice = dice.astype(np.int64)
    return np.ascontiguousarray(boards, dtype=np.int8), np.ascontiguousarray(dice)


_ROWS_PER_BOARD = 32  # first guess at the output size; it grows when a batch needs more


def _run(boards, dice, lo: int, hi: int, offsets):
    """Boards ``lo:hi`` into fresh arrays: (results, steps, rows); ``offsets[lo + 1:hi + 1]``
    count from this part's first row."""
    cap = _ROWS_PER_BOARD * (hi - lo) + 64
    res = np.empty((cap, 2, 25), np.int8)
    steps = np.empty((cap, MAX_STEPS, 2), np.int8)
    stop, n, err = _gen_batch(boards, dice, lo, hi, res, steps, offsets, 0)
    while stop < hi:
        if err != _FULL:
            raise _input_error(boards, dice, stop, err)
        cap = 2 * cap + 1024
        grown = np.empty((cap, 2, 25), np.int8)
        grown[:n] = res[:n]
        res = grown
        grown = np.empty((cap, MAX_STEPS, 2), np.int8)
        grown[:n] = steps[:n]
        steps = grown
        stop, n, err = _gen_batch(boards, dice, stop, hi, res, steps, offsets, n)
    return res, steps, n


def _generate_serial(boards, dice) -> MoveBatch:
    B = boards.shape[0]
    offsets = np.empty(B + 1, np.int64)
    offsets[0] = 0
    res, steps, n = _run(boards, dice, 0, B, offsets)
    # shrink in place to the rows used (no copy; nothing else refers to these arrays)
    res.resize((n, 2, 25), refcheck=False)
    steps.resize((n, MAX_STEPS, 2), refcheck=False)
    return _move_batch(res, offsets, steps)


_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_MIN_BOARDS_PER_THREAD = 256  # ~200 us of work: below this a thread costs more than it saves


def _generate_parallel(boards, dice, threads: int) -> MoveBatch:
    """Split the batch into ``threads`` runs of boards, each writing its own region of
    one output; the regions are then moved together (the first stays where it is)."""
    global _POOL, _POOL_SIZE
    if _POOL is None or _POOL_SIZE < threads:
        _POOL = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="movegen")
        _POOL_SIZE = threads
    B = boards.shape[0]
    offsets = np.empty(B + 1, np.int64)
    offsets[0] = 0
    bounds = [B * i // threads for i in range(threads + 1)]
    rows = [0]
    for i in range(threads):
        rows.append(rows[-1] + _ROWS_PER_BOARD * (bounds[i + 1] - bounds[i]) + 64)
    res = np.empty((rows[-1], 2, 25), np.int8)
    steps = np.empty((rows[-1], MAX_STEPS, 2), np.int8)

    def work(i):
        lo, hi = bounds[i], bounds[i + 1]
        stop, n, err = _gen_batch(boards, dice, lo, hi, res[rows[i]:rows[i + 1]], steps[rows[i]:rows[i + 1]],
                                  offsets, 0)
        if stop == hi:
            return n, None
        if err != _FULL:
            raise _input_error(boards, dice, stop, err)
        return n, (stop, *_run(boards, dice, stop, hi, offsets))  # the rest, in its own arrays

    parts = list(_POOL.map(work, range(threads)))
    total = 0
    for i, (n, rest) in enumerate(parts):
        lo, hi = bounds[i], bounds[i + 1]
        if rest is None:
            offsets[lo + 1:hi + 1] += total
        else:
            offsets[lo + 1:rest[0] + 1] += total
            offsets[rest[0] + 1:hi + 1] += total + n
        total += n + (0 if rest is None else rest[3])
    if any(rest is not None for _, rest in parts):  # some run outgrew its region: concatenate
        pieces = []
        for i, (n, rest) in enumerate(parts):
            pieces.append((res[rows[i]:rows[i] + n], steps[rows[i]:rows[i] + n]))
            if rest is not None:
                pieces.append((rest[1][:rest[3]], rest[2][:rest[3]]))
        return _move_batch(np.concatenate([p[0] for p in pieces]), offsets, np.concatenate([p[1] for p in pieces]))
    at = 0
    for i, (n, _) in enumerate(parts):
        if at != rows[i]:
            res[at:at + n] = res[rows[i]:rows[i] + n]
            steps[at:at + n] = steps[rows[i]:rows[i] + n]
        at += n
    res.resize((total, 2, 25), refcheck=False)
    steps.resize((total, MAX_STEPS, 2), refcheck=False)
    return _move_batch(res, offsets, steps)


def _generate_one(boards, dice):
    """B == 1 into the slab (a fresh one when it is full), or None for the batch path."""
    global _SLAB
    for _ in range(2):
        slab = _SLAB
        try:
            code = _gen_one(boards, dice, slab[0])
        except (TypeError, ValueError):
            return None
        if code >= 0:
            start = code & 0xFFFFFFFF
            end = code >> 32
            return _move_batch(slab[1][start:end], slab[3][start], slab[2][start:end])
        if code != -_FULL:
            return None
        if slab is _SLAB:
            _SLAB = _new_slab()
    return None


def generate(boards, dice, *, threads: int = 1) -> MoveBatch:
    """All distinct legal results for each board and roll (see the module docstring).

    ``boards`` is ``(B, 2, 25)`` in the side-on-roll convention of :mod:`bgzero.board`
    and ``dice`` is ``(B, 2)``. With ``threads > 1`` a large batch is split across
    threads (the kernel releases the GIL); ``threads=0`` means one per CPU. Bad input
    raises :class:`InvalidPositionError` or :class:`InvalidDiceError` naming the index.

    The fast path wants C-ordered int8 boards and int8 or int64 dice; anything else
    that holds the right integers is converted first.
    """
    slab = _SLAB  # the common single-position case first, written out
    try:
        code = _gen_one(boards, dice, slab[0])
    except (TypeError, ValueError):  # not C-ordered int8 boards with int8/int64 dice
        boards, dice = _coerce(boards, dice)
        code = -_FULL if len(boards) == 1 else -_NOT_ONE
    if code >= 0:
        start = code & 0xFFFFFFFF
        end = code >> 32
        return _move_batch(slab[1][start:end], slab[3][start], slab[2][start:end])
    if code == -_FULL:
        batch = _generate_one(boards, dice)
        if batch is not None:
            return batch
    try:
        return _generate_batch(boards, dice, threads)
    except (TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, (InvalidPositionError, InvalidDiceError)):
            raise
    boards, dice = _coerce(boards, dice)
    return _generate_batch(boards, dice, threads)


def _generate_batch(boards, dice, threads: int) -> MoveBatch:
    if threads != 1:
        if threads == 0:
            threads = os.cpu_count() or 1
        if threads > 1 and boards.shape[0] >= _MIN_BOARDS_PER_THREAD * threads:
            return _generate_parallel(boards, dice, threads)
    return _generate_serial(boards, dice)


def legal_results(board, dice) -> tuple[np.ndarray, np.ndarray]:
    """Results (sides swapped) and step lists for one board and one roll.

    The arrays are views into a slab shared with other single-position results (see
    :class:`MoveBatch`); no later call writes to them.
    """
    slab = _SLAB
    try:
        code = _gen_board(board, dice, slab[0])
    except (TypeError, ValueError):
        code = -1
    if code >= 0:
        start = code & 0xFFFFFFFF
        end = code >> 32
        return slab[1][start:end], slab[2][start:end]
    board = np.asarray(board)
    batch = generate(board.reshape((1,) + board.shape), np.asarray(dice).reshape(1, -1))
    return batch.results, batch.steps


def warm_up() -> None:
    """Load the compiled kernels (from numba's cache) and run each entry point once.

    The kernels have fixed signatures and are compiled or loaded at import; this only
    makes sure the first timed call pays nothing more.
    """
    from bgzero.board import START

    for roll in ([[3, 1]], [[2, 2]]):
        generate(START[None], np.array(roll, np.int8))
        generate(START[None], np.array(roll, np.int64))
        generate(np.stack([START, START]), np.array(roll * 2))
    legal_results(START, (3, 1))
    legal_results(START, np.array([3, 1]))
