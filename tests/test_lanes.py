"""Lane buffers: each vector intrinsic does what its numpy spelling does."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from bgzero.value import lanes


@njit
def _apply(weights, offsets, scales, out):
    """Load row 0, add row 1, add row 2 scaled, store; then the ReLU and plain dot products with row 3."""
    buffer = lanes.lanes()
    lanes.load(buffer, weights, offsets[0])
    lanes.add(buffer, weights, offsets[1])
    lanes.add_scaled(buffer, weights, offsets[2], scales[0])
    lanes.store(buffer, out, offsets[4])
    product = lanes.lanes()
    lanes.load(product, scales, 1)  # zeros
    lanes.add_product(product, buffer, weights, offsets[3])
    return lanes.relu_dot(buffer, weights, offsets[3]), lanes.total(product)


@pytest.mark.parametrize("offsets", [(0, 16, 32, 48, 0), (3, 101, 7, 60, 5), (184, 0, 99, 1, 16)])
def test_each_operation_is_its_numpy_spelling(offsets):
    rng = np.random.default_rng(sum(offsets))
    weights = rng.normal(size=200).astype(np.float32)
    out = np.full(40, 7.0, np.float32)
    a, b, c, d, e = offsets
    row = lambda k: weights[k:k + lanes.WIDTH]
    want = row(a) + row(b) + np.float32(-0.75) * row(c)
    scales = np.r_[-0.75, np.zeros(lanes.WIDTH)].astype(np.float32)
    relu_dot, dot = _apply(weights, np.array(offsets, np.int64), scales, out)
    np.testing.assert_allclose(out[e:e + lanes.WIDTH], want, rtol=1e-6)
    assert (np.delete(out, np.arange(e, e + lanes.WIDTH)) == 7.0).all()  # nothing written outside the lanes
    assert relu_dot == pytest.approx(float(np.maximum(want, 0) @ row(d)), rel=1e-5)
    assert dot == pytest.approx(float(want @ row(d)), rel=1e-5)


def test_each_call_gets_its_own_buffer():
    @njit
    def two(weights):
        first, second = lanes.lanes(), lanes.lanes()
        lanes.load(first, weights, 0)
        lanes.load(second, weights, 16)
        lanes.add(first, weights, 0)
        return lanes.relu_dot(first, weights, 32), lanes.relu_dot(second, weights, 32)

    weights = np.abs(np.random.default_rng(0).normal(size=48)).astype(np.float32)
    got = two(weights)
    assert got[0] == pytest.approx(float(2 * weights[:16] @ weights[32:]), rel=1e-5)
    assert got[1] == pytest.approx(float(weights[16:32] @ weights[32:]), rel=1e-5)


@pytest.mark.parametrize("array", [np.zeros(32, np.float64), np.zeros((4, 32), np.float32)[:, ::2]])
def test_only_contiguous_float32_arrays_are_read(array):
    @njit
    def read(a):
        buffer = lanes.lanes()
        lanes.load(buffer, a, 0)

    with pytest.raises(TypingError):
        read(array)


def test_a_read_only_array_is_not_written_and_a_buffer_must_be_a_lane_buffer():
    @njit
    def copy(a, out):
        buffer = lanes.lanes()
        lanes.load(buffer, a, 0)
        lanes.store(buffer, out, 0)

    @njit
    def misuse(a):
        lanes.load(a, a, 0)  # an array where the lane buffer goes

    weights = np.ones(16, np.float32)
    frozen = np.zeros(16, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TypingError):
        copy(weights, frozen)
    with pytest.raises(TypingError):
        misuse(weights)
    assert (frozen == 0).all()
