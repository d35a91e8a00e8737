"""Frozen networks: a checkpoint's nets evaluated from plain numpy weights, without torch.

A loaded checkpoint's nets never change, so they need none of torch's machinery, and at
the batch sizes of search and rollouts torch's per-call cost and its dense first layer
are most of an evaluation. Here a numba kernel runs the whole :class:`~bgzero.value.net.ValueNet`
on the encoder's output and skips zero inputs. For the contact encoder the first layer
takes one table row per occupied point (its four units, and its terms of the features
that are sums over the points) and the rows of the other non-zero features: some 33 rows
instead of a product with all 250 inputs. Training keeps torch nets (their weights change
under the evaluator); a frozen net is built from weights that do not, as
:func:`~bgzero.value.checkpoint.load_evaluator` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.engine import rowbits
from bgzero.errors import ConfigError
from bgzero.value import lanes
from bgzero.value.encode import (
    CELL_SUM_FEATURES,
    CONTACT_FEATURES,
    CONTACT_POINT_UNITS,
    CONTACT_SIDE,
    contact_features_kernel,
    get_encoder,
)
from bgzero.value.netconfig import ACTIVATIONS, NetConfig, weight_shapes

CHUNK = 2048
"""Boards encoded and evaluated together: their inputs stay in cache between the two."""


class FrozenNet:
    """A value net's (N, 5) probabilities for boards, from its state dict's numpy arrays."""

    def __init__(self, config: NetConfig, weights: dict[str, np.ndarray], encoder: str):
        self.config = config
        self.encoder = get_encoder(encoder)
        if self.encoder.num_inputs != config.num_inputs:
            raise ConfigError(f"encoder {encoder!r} gives {self.encoder.num_inputs} inputs, "
                              f"the net expects {config.num_inputs}")
        self._act = ACTIVATIONS.index(config.activation)  # the kernel's activation code
        *body, (w_head, b_head) = layer_weights(config, weights)
        # Hidden units padded to whole groups of lane buffers, with zero weights out; a layer
        # reads only the real units of the one before, so padded units have no weights in.
        padded = [len(b) + -len(b) % GROUP for _, b in body]
        rows = [pad_to(w.T, (w.shape[1], p)) for (w, _), p in zip(body, padded)]  # (in, out): an input's row is contiguous
        self._biases = [pad_to(b, (p,)) for (_, b), p in zip(body, padded)]
        self._head = (pad_to(w_head, (5, padded[-1] if body else config.num_inputs)), b_head)
        self._tabled = encoder == "contact" and bool(body)
        self._inputs = [np.arange(w.shape[1]) for w, _ in body]  # the inputs each layer reads
        if self._tabled:  # its point units and cell sums come from a table, its other features from their own kernel
            table = point_table("contact", rows[0], _contact_units).reshape(-1, padded[0])
            rows[0] = np.concatenate([table, rows[0][_CONTACT_FEATURES[_UNTABLED]]])
            self._inputs[0] = _UNTABLED
        self._rows = [np.ascontiguousarray(r).ravel() for r in rows]

    @classmethod
    def of(cls, net, encoder: str) -> FrozenNet:
        """A frozen copy of a torch :class:`~bgzero.value.net.ValueNet` as its weights are now."""
        return cls(net.config, net.weights(), encoder)

    def probs(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float32 probabilities for (N, 2, 25) boards, as the torch net gives them."""
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 2, 25)
        out = np.empty((len(boards), 5), np.float32)
        x = np.empty((min(CHUNK, len(boards)), len(_CONTACT_FEATURES) if self._tabled else self.config.num_inputs),
                     np.float32)
        hidden = [np.empty((len(x), len(b)), np.float32) for b in self._biases]
        for lo in range(0, len(boards), CHUNK):
            n = min(CHUNK, len(boards) - lo)
            chunk = boards[lo:lo + n]
            if self._tabled:
                contact_features_kernel(chunk, x[:n], False)  # the cell sums come from the table
            else:
                self.encoder.fn(chunk, x[:n])
            h, tabled = x[:n], self._tabled
            for inputs, w, b, buf in zip(self._inputs, self._rows, self._biases, hidden):
                _sparse_layer(h, inputs, w, b, self._act, buf[:n], chunk, tabled)
                h, tabled = buf[:n], False
            _head(h, *self._head, out[lo:lo + n])
        return out


def layer_weights(config: NetConfig, weights: dict[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each layer's float32 ``(out, in)`` weight and bias, hidden layers then the head, from a
    :class:`~bgzero.value.net.ValueNet` state dict; :class:`ConfigError` unless they fit ``config``."""
    shapes = weight_shapes(config)
    shape = "-".join(map(str, [config.num_inputs, *config.hidden, 5]))
    if set(weights) != set(shapes):
        raise ConfigError(f"weights do not fit a {shape} net (names {', '.join(sorted(map(str, weights)))})")
    arrays = {k: np.array(weights[k], np.float32) for k in shapes}
    for k, want in shapes.items():
        if arrays[k].shape != want:
            raise ConfigError(f"weights do not fit a {shape} net ({k} is {arrays[k].shape}, expected {want})")
    names = list(shapes)
    return [(arrays[w], arrays[b]) for w, b in zip(names[::2], names[1::2])]


_CONTACT_FEATURES = np.r_[CONTACT_POINT_UNITS:CONTACT_SIDE, CONTACT_SIDE + CONTACT_POINT_UNITS:2 * CONTACT_SIDE]
"""The contact inputs that :func:`~bgzero.value.encode.contact_features_kernel` fills, in its order."""
_SUMMED = np.array([name in CELL_SUM_FEATURES for name in CONTACT_FEATURES] * 2)
_CELL_SUMS = _CONTACT_FEATURES[_SUMMED]
"""The contact inputs that are sums of per-point terms (:data:`~bgzero.value.encode.CELL_SUM_FEATURES`)."""
_UNTABLED = np.flatnonzero(~_SUMMED)
"""The features kernel's outputs that the first layer reads as inputs: those not in the table."""
_TABLE_ROWS = 2 * 25 * 16
"""Rows of the point table (side, point, count) ahead of the first layer's feature rows."""
GROUP = 4 * lanes.WIDTH
"""Hidden units a layer computes together, in four lane buffers."""
_L1, _L2, _L3 = lanes.WIDTH, 2 * lanes.WIDTH, 3 * lanes.WIDTH  # the second to fourth buffers' first unit


def pad_to(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` (float32) in the top-left corner of zeros of ``shape``: hidden units padded to
    whole lane buffers have no weights in and none out, so they change nothing."""
    out = np.zeros(shape, np.float32)
    out[tuple(slice(0, n) for n in a.shape)] = a
    return out


def point_table(encoder: str, w1: np.ndarray, units, cells: int = 25) -> np.ndarray:
    """(2, cells, 16, H): the first layer's sum over the inputs ``units(side, cell)``, each of
    which depends on one cell's checker count alone or sums terms that do (zero for an empty
    cell; such an input is listed in every cell's units), per side, cell (24 the bar, 25 the
    checkers off) and count; ``w1`` is (inputs, H). Read off the encoder itself, on boards
    where that cell alone holds the count, so the table cannot drift from the encoding."""
    side, cell, count = (a.ravel() for a in np.meshgrid(range(2), range(cells), range(16), indexing="ij"))
    boards = np.zeros((len(side), 2, 25), np.int8)
    on, off = cell < 25, cell == 25
    boards[np.flatnonzero(on), side[on], cell[on]] = count[on]
    boards[np.flatnonzero(off), side[off], 0] = 15 - count[off]  # ``count`` borne off: the rest on one point
    x = get_encoder(encoder)(boards).reshape(2, cells, 16, -1)
    table = np.zeros((2, cells, 16, w1.shape[1]), np.float32)
    for s in range(2):
        for c in range(cells):
            u = units(s, c)
            rows = w1[u]  # gathered once for the cell's 16 counts: the gather, not the product, was the cost
            for n in range(16):
                table[s, c, n] = x[s, c, n, u] @ rows
    return table


def _contact_units(side: int, point: int) -> np.ndarray:
    """The contact encoder's four units of one point (the bar is point 24), and the cell sums."""
    return np.r_[side * CONTACT_SIDE + 4 * point + np.arange(4), _CELL_SUMS]


@njit(cache=True, fastmath=True, nogil=True)
def _sparse_layer(x, inputs, w, b, act, out, boards, tabled):
    """``out = act(x[:, inputs] @ w + b)``, adding only the rows of ``w`` (flattened, a row per
    input read, as wide as ``b``) whose input is non-zero; with ``tabled``, ``w`` starts with
    the point table and the row of (side, point, n) is added for each point of ``boards``
    holding n.

    The occupied points (:mod:`bgzero.engine.rowbits`) and the non-zero inputs are gathered
    first; then each group of 64 units adds its rows in four lane buffers
    (:mod:`bgzero.value.lanes`), which stay in registers.
    """
    width = b.shape[0]
    first = _TABLE_ROWS if tabled else 0
    idx = np.zeros(50 + inputs.shape[0], np.int64)  # at most 50 occupied points, then the inputs
    val = np.zeros(50 + inputs.shape[0], np.float32)
    a0, a1, a2, a3 = lanes.lanes(), lanes.lanes(), lanes.lanes(), lanes.lanes()
    for k in range(x.shape[0]):
        m = 0
        if tabled:
            for side in range(2):
                row = boards[k, side]
                cells = rowbits.above(row, 0)
                while cells:  # the occupied points
                    c = rowbits.lowest(cells)
                    cells &= cells - 1
                    idx[m] = ((side * 25 + c) * 16 + row[c]) * width
                    val[m] = 1.0
                    m += 1
        for i in range(inputs.shape[0]):
            v = x[k, inputs[i]]
            idx[m] = (first + i) * width
            val[m] = v
            m += v != 0.0
        for lo in range(0, width, GROUP):
            lanes.load(a0, b, lo)
            lanes.load(a1, b, lo + _L1)
            lanes.load(a2, b, lo + _L2)
            lanes.load(a3, b, lo + _L3)
            for t in range(m):
                r, v = idx[t] + lo, val[t]
                lanes.add_scaled(a0, w, r, v)
                lanes.add_scaled(a1, w, r + _L1, v)
                lanes.add_scaled(a2, w, r + _L2, v)
                lanes.add_scaled(a3, w, r + _L3, v)
            row = k * width + lo
            lanes.store(a0, out, row)
            lanes.store(a1, out, row + _L1)
            lanes.store(a2, out, row + _L2)
            lanes.store(a3, out, row + _L3)
        if act == 0:
            for j in range(width):
                out[k, j] = max(out[k, j], 0.0)
        elif act == 1:
            for j in range(width):
                out[k, j] = 1.0 / (1.0 + np.exp(-out[k, j]))
        elif act == 2:
            for j in range(width):
                out[k, j] = np.tanh(out[k, j])
        else:
            for j in range(width):
                out[k, j] = out[k, j] if out[k, j] > 0.0 else np.expm1(out[k, j])


@njit(cache=True, fastmath=True, nogil=True)
def _head(h, w, b, out):
    """The five cumulative probabilities from the last hidden layer (:func:`~bgzero.value.net.probs_from_logits`):
    each output's products 16 units at a time in its own lane buffer, summed once at the end
    (the last few units one by one, where a linear net's inputs leave some)."""
    width = h.shape[1]
    whole = width - width % lanes.WIDTH
    zero = np.zeros(lanes.WIDTH, np.float32)
    v, a0, a1, a2, a3, a4 = lanes.lanes(), lanes.lanes(), lanes.lanes(), lanes.lanes(), lanes.lanes(), lanes.lanes()
    for k in range(h.shape[0]):
        lanes.load(a0, zero, 0)
        lanes.load(a1, zero, 0)
        lanes.load(a2, zero, 0)
        lanes.load(a3, zero, 0)
        lanes.load(a4, zero, 0)
        for lo in range(0, whole, lanes.WIDTH):
            lanes.load(v, h, k * width + lo)
            lanes.add_product(a0, v, w, lo)
            lanes.add_product(a1, v, w, width + lo)
            lanes.add_product(a2, v, w, 2 * width + lo)
            lanes.add_product(a3, v, w, 3 * width + lo)
            lanes.add_product(a4, v, w, 4 * width + lo)
        z0 = b[0] + lanes.total(a0)
        z1 = b[1] + lanes.total(a1)
        z2 = b[2] + lanes.total(a2)
        z3 = b[3] + lanes.total(a3)
        z4 = b[4] + lanes.total(a4)
        for i in range(whole, width):
            x = h[k, i]
            z0 += x * w[0, i]
            z1 += x * w[1, i]
            z2 += x * w[2, i]
            z3 += x * w[3, i]
            z4 += x * w[4, i]
        win = 1.0 / (1.0 + np.exp(-z0))
        wg = win / (1.0 + np.exp(-z1))
        lg = (1.0 - win) / (1.0 + np.exp(-z3))
        out[k, 0] = win
        out[k, 1] = wg
        out[k, 2] = wg / (1.0 + np.exp(-z2))
        out[k, 3] = lg
        out[k, 4] = lg / (1.0 + np.exp(-z4))
