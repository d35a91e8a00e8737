"""Sixteen float32 lanes at a time: vector operations for the nets' numba kernels.

numba vectorises a loop over a row only behind run-time checks that the accumulator and
the weights do not overlap, and for a 16-wide row it never reaches its vector loop; it
never keeps an accumulator in registers across rows. These intrinsics state the vector
operation outright: a *lane buffer* (:func:`lanes`) lives on the stack, so LLVM holds it
in a register across a loop that only loads, updates and stores it whole, and the
operations on it are single ``<16 x float>`` instructions (AVX-512; two AVX2 halves, four
SSE quarters or NEON registers elsewhere). The arrays are float32 and C-contiguous; an
offset counts elements of the flattened array and must leave 16 elements after it.

An edit to this module starts a fresh cache of every kernel (:mod:`bgzero.kernel_cache`):
numba alone would check a kernel against its own source file only.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

WIDTH = 16
_FLOAT = ir.FloatType()
_VECTOR = ir.VectorType(_FLOAT, WIDTH)
_FAST = ("fast",)


_BUFFER = types.CPointer(types.float32)


def _typed(buffer, array, offset, writes: bool = False) -> bool:
    """Typing: a lane buffer, a C-contiguous float32 array (writable where written) and a
    whole-number offset; anything else is a typing error at compile time."""
    return (buffer == _BUFFER and isinstance(array, types.Array) and array.dtype == types.float32
            and array.layout == "C" and (array.mutable or not writes) and isinstance(offset, types.Integer))


def _at(context, builder, array_type, array, offset):
    """A ``<16 x float>*`` to ``array``'s flattened element ``offset``."""
    data = context.make_array(array_type)(context, builder, array).data
    return builder.bitcast(builder.gep(data, [offset]), _VECTOR.as_pointer())


def _buffer(builder, pointer):
    return builder.bitcast(pointer, _VECTOR.as_pointer())


def _accumulate(builder, buffer, update):
    """``buffer += update`` (a ``<16 x float>``)."""
    target = _buffer(builder, buffer)
    builder.store(builder.fadd(builder.load(target, align=4), update, flags=_FAST), target, align=4)


@intrinsic
def lanes(typingctx):
    """A lane buffer: a pointer to 16 float32 on the calling kernel's stack, uninitialised
    (:func:`load` it first), one per call site however often it runs; it must not leave
    the kernel."""
    def codegen(context, builder, sig, args):
        return cgutils.alloca_once(builder, _FLOAT, size=WIDTH)
    return _BUFFER(), codegen


@intrinsic
def load(typingctx, buffer, array, offset):
    """``buffer = array[offset:offset + 16]``."""
    if not _typed(buffer, array, offset):
        return None
    def codegen(context, builder, sig, args):
        value = builder.load(_at(context, builder, sig.args[1], args[1], args[2]), align=4)
        builder.store(value, _buffer(builder, args[0]), align=4)
        return context.get_dummy_value()
    return types.void(buffer, array, offset), codegen


@intrinsic
def store(typingctx, buffer, array, offset):
    """``array[offset:offset + 16] = buffer``."""
    if not _typed(buffer, array, offset, writes=True):
        return None
    def codegen(context, builder, sig, args):
        value = builder.load(_buffer(builder, args[0]), align=4)
        builder.store(value, _at(context, builder, sig.args[1], args[1], args[2]), align=4)
        return context.get_dummy_value()
    return types.void(buffer, array, offset), codegen


@intrinsic
def add(typingctx, buffer, array, offset):
    """``buffer += array[offset:offset + 16]``."""
    if not _typed(buffer, array, offset):
        return None
    def codegen(context, builder, sig, args):
        _accumulate(builder, args[0], builder.load(_at(context, builder, sig.args[1], args[1], args[2]), align=4))
        return context.get_dummy_value()
    return types.void(buffer, array, offset), codegen


@intrinsic
def add_scaled(typingctx, buffer, array, offset, scale):
    """``buffer += scale * array[offset:offset + 16]``."""
    if not (_typed(buffer, array, offset) and isinstance(scale, (types.Float, types.Integer))):
        return None
    def codegen(context, builder, sig, args):
        row = builder.load(_at(context, builder, sig.args[1], args[1], args[2]), align=4)
        factor = context.cast(builder, args[3], sig.args[3], types.float32)
        splat = cgutils.get_null_value(_VECTOR)
        for lane in range(WIDTH):
            splat = builder.insert_element(splat, factor, ir.Constant(ir.IntType(32), lane))
        _accumulate(builder, args[0], builder.fmul(splat, row, flags=_FAST))
        return context.get_dummy_value()
    return types.void(buffer, array, offset, scale), codegen


@intrinsic
def add_product(typingctx, buffer, other, array, offset):
    """``buffer += other * array[offset:offset + 16]`` (``other`` a lane buffer too)."""
    if not (_typed(buffer, array, offset) and other == _BUFFER):
        return None
    def codegen(context, builder, sig, args):
        row = builder.load(_at(context, builder, sig.args[2], args[2], args[3]), align=4)
        _accumulate(builder, args[0], builder.fmul(builder.load(_buffer(builder, args[1]), align=4), row, flags=_FAST))
        return context.get_dummy_value()
    return types.void(buffer, other, array, offset), codegen


def _sum(builder, value):
    reduce = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_FLOAT, [_FLOAT, _VECTOR]),
                                            "llvm.vector.reduce.fadd.v16f32")
    return builder.call(reduce, [ir.Constant(_FLOAT, 0.0), value], fastmath=_FAST)


@intrinsic
def total(typingctx, buffer):
    """``sum(buffer)`` as float32."""
    if buffer != _BUFFER:
        return None
    def codegen(context, builder, sig, args):
        return _sum(builder, builder.load(_buffer(builder, args[0]), align=4))
    return types.float32(buffer), codegen


@intrinsic
def relu_dot(typingctx, buffer, array, offset):
    """``sum(max(buffer, 0) * array[offset:offset + 16])`` as float32."""
    if not _typed(buffer, array, offset):
        return None
    def codegen(context, builder, sig, args):
        value = builder.load(_buffer(builder, args[0]), align=4)
        zero = ir.Constant(_VECTOR, [0.0] * WIDTH)
        positive = builder.select(builder.fcmp_ordered(">", value, zero), value, zero)
        row = builder.load(_at(context, builder, sig.args[1], args[1], args[2]), align=4)
        return _sum(builder, builder.fmul(positive, row, flags=_FAST))
    return types.float32(buffer, array, offset), codegen
