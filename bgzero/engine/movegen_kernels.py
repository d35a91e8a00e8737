"""The move generator's numba kernels: one position's distinct legal results, in place.

How it is fast: the mover's occupied columns are a bit mask, and so are the columns a die
may land on (every point the other side does not block), so the legal starting columns of
a die are one AND of the two (plus the bar and bear-off cases), walked highest bit first.
Moves are made and unmade in place on one 50-byte row laid out like a result, so a result
is one fixed-size copy, and a step list is one packed 8-byte word. Doubles are searched
with non-increasing start columns, which reaches every distinct result exactly once;
non-doubles try both dice orders and drop repeats with an exact key (the mover's counts
and the blots hit) in a small open-addressing table. Results go straight into the output
arrays; one position at a time (``B == 1``, :func:`bgzero.engine.movegen.legal_results`) they go into a
preallocated slab that is handed out piece by piece, so the call allocates nothing.
"""

from __future__ import annotations

import threading

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

MAX_STEPS = 4  # moves in a step list (a double's four)


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
_DICE_1D: list[types.Type] = [types.Array(t, 1, "C", readonly=True) for t in (types.int8, types.int64)]
_DICE_1D.append(types.UniTuple(types.int64, 2))
_RET = types.UniTuple(types.int64, 3)


def _fixed_signatures(signatures, **options):
    """``njit(signatures, ...)``, its machine code loaded (or compiled) on first call, not at import.

    Each signature is its own entry in numba's cache and costs 10-25 ms to load; the three
    entry points have seven, and a command may call one of them (a hint only ``_gen_one``).
    On its first call from Python the kernel gets every listed signature, as an eager
    ``njit`` would, and compiles no other: later calls match them (converting arguments as
    numba does) or raise ``TypeError``. The kernel's ``_compile_for_args``, which numba calls
    when no signature matches, is replaced on this one dispatcher until then. (Jitted code
    calling an entry point would compile its own signature; none does.)
    """
    def wrap(fn):
        kernel = njit(**options)(fn)
        lock = threading.Lock()

        def first_call(*args, **kws):
            with lock:  # threads may make the first calls together (``generate(threads=...)``)
                if "_compile_for_args" in vars(kernel):
                    for sig in signatures:
                        kernel.compile(sig)
                    kernel.disable_compile()
                    del kernel._compile_for_args  # only now: a call meanwhile must wait here
            return kernel(*args, **kws)

        kernel._compile_for_args = first_call
        return kernel

    return wrap


@_fixed_signatures([_RET(_RO_BOARDS, dice, types.int64, types.int64, _I8_3D, _I8_3D, _I64_1D, types.int64)
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


@_fixed_signatures([types.int64(_RO_BOARDS, dice, _I8_1D) for dice in _DICE_2D], cache=True)
def _gen_one(boards, dice, slab):
    """``generate`` for B == 1 into the slab: ``(end row << 32) | first row`` or ``-error``
    (error 5 if B != 1). Holds the GIL, so Python threads take turns with the slab."""
    if boards.shape[0] != 1 or dice.shape[0] != 1:
        return -_NOT_ONE
    if boards.shape[1] != 2 or boards.shape[2] != 25 or dice.shape[1] != 2:
        return -_BAD_SHAPE
    return _gen_slab(boards[0], dice[0, 0], dice[0, 1], slab)


@_fixed_signatures([types.int64(_RO_BOARD, dice, _I8_1D) for dice in _DICE_1D], cache=True)
def _gen_board(board, dice, slab):
    """``legal_results`` into the slab, as :func:`_gen_one`."""
    if board.shape[0] != 2 or board.shape[1] != 25 or len(dice) != 2:
        return -_BAD_SHAPE
    return _gen_slab(board, dice[0], dice[1], slab)
