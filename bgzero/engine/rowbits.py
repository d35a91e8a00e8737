"""A board row's 25 counts at once: bitmasks and sums for the numba kernels.

Kernels ask the same questions of every row they meet (which points hold checkers, which
hold two or more, how many checkers are left) and a loop over the 25 counts answers them
one count at a time, with a branch each that the counts make unpredictable. These
intrinsics load the row as one vector of bytes (a masked load of exactly 25, so nothing
past the row is read), compare it whole and return bit ``c`` for cell ``c``, which a kernel
then walks lowest bit first (:func:`lowest`) or reads with a shift. A row is a
C-contiguous int8 array of at least 25 elements, such as ``boards[k, side]``; typing checks
the dtype and layout, not the length (as :mod:`bgzero.value.lanes` does not check offsets),
and a comparison's ``k`` is a count, 0 to 127.

An edit to this module starts a fresh cache of every kernel (:mod:`bgzero.kernel_cache`):
numba alone would check a kernel against its own source file only.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

CELLS = 25
_LANES = 32
_BYTE = ir.IntType(8)
_VECTOR = ir.VectorType(_BYTE, _LANES)
_WIDE = ir.VectorType(ir.IntType(16), _LANES)
_MASK = ir.VectorType(ir.IntType(1), _LANES)
_IN_ROW = ir.Constant(_MASK, [1] * CELLS + [0] * (_LANES - CELLS))


def _typed(row) -> bool:
    return isinstance(row, types.Array) and row.dtype == types.int8 and row.ndim == 1 and row.layout == "C"


def _load(context, builder, row_type, row):
    """The row's 25 counts as bytes, zeros in the lanes beyond."""
    data = builder.bitcast(context.make_array(row_type)(context, builder, row).data, _VECTOR.as_pointer())
    load = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(_VECTOR, [_VECTOR.as_pointer(), ir.IntType(32), _MASK, _VECTOR]),
        "llvm.masked.load.v32i8.p0v32i8")
    return builder.call(load, [data, ir.Constant(ir.IntType(32), 1), _IN_ROW, ir.Constant(_VECTOR, [0] * _LANES)])


def _compare(row, k, op: str, mirrored: bool = False):
    """Typing and code of a comparison of each count with ``k``, as a bitmask (cell ``c`` at
    bit ``24 - c`` when ``mirrored``)."""
    if not (_typed(row) and isinstance(k, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        counts = _load(context, builder, sig.args[0], args[0])
        if mirrored:
            order = [CELLS - 1 - c for c in range(CELLS)] + list(range(CELLS, _LANES))
            counts = builder.shuffle_vector(counts, ir.Constant(_VECTOR, ir.Undefined),
                                            ir.Constant(ir.VectorType(ir.IntType(32), _LANES), order))
        value = builder.trunc(context.cast(builder, args[1], sig.args[1], types.int64), _BYTE)
        splat = builder.insert_element(ir.Constant(_VECTOR, ir.Undefined), value, ir.Constant(ir.IntType(32), 0))
        splat = builder.shuffle_vector(splat, ir.Constant(_VECTOR, ir.Undefined),
                                       ir.Constant(ir.VectorType(ir.IntType(32), _LANES), [0] * _LANES))
        hits = builder.and_(builder.icmp_signed(op, counts, splat), _IN_ROW)
        return builder.zext(builder.bitcast(hits, ir.IntType(_LANES)), ir.IntType(64))
    return types.int64(row, k), codegen


@intrinsic
def above(typingctx, row, k):
    """``above(row, k)``: bit ``c`` set where ``row[c] > k`` (``k`` of 0: the occupied cells)."""
    return _compare(row, k, ">")


@intrinsic
def equal(typingctx, row, k):
    """``equal(row, k)``: bit ``c`` set where ``row[c] == k``."""
    return _compare(row, k, "==")


@intrinsic
def above_mirrored(typingctx, row, k):
    """``above_mirrored(row, k)``: bit ``24 - c`` set where ``row[c] > k``: the cells as the
    other side numbers them (its point ``25 - p`` is my point ``p``, cell ``p - 1``)."""
    return _compare(row, k, ">", mirrored=True)


@intrinsic
def total(typingctx, row):
    """``total(row)``: the sum of the row's 25 counts."""
    if not _typed(row):
        return None

    def codegen(context, builder, sig, args):
        wide = builder.sext(_load(context, builder, sig.args[0], args[0]), _WIDE)
        add = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(16), [_WIDE]),
                                             "llvm.vector.reduce.add.v32i16")
        return builder.sext(builder.call(add, [wide]), ir.IntType(64))
    return types.int64(row), codegen


@njit(cache=True, inline="always")
def lowest(bits):
    """The lowest set bit's index of a non-zero mask: the next cell of a walk over it."""
    return trailing_zeros(bits)


@njit(cache=True, inline="always")
def highest(bits):
    """The highest set bit's index of a mask, -1 for none: a row's rearmost occupied cell."""
    return 63 - leading_zeros(bits)
