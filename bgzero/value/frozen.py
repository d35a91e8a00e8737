"""Frozen networks: a checkpoint's nets evaluated from plain numpy weights, without torch.

A loaded checkpoint's nets never change, so they need none of torch's machinery, and at
the batch sizes of search and rollouts torch's per-call cost and its dense first layer
are most of an evaluation. Here a numba kernel runs the whole :class:`~bgzero.value.net.ValueNet`
on the encoder's output and skips zero inputs: of the contact encoder's 200 point units a
position sets some twenty, so the first layer adds ~60 weight rows instead of multiplying
by all 250. Training keeps torch nets (their weights change under the evaluator); a
frozen net is built from weights that do not, as :func:`~bgzero.value.checkpoint.load_evaluator` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.errors import ConfigError
from bgzero.value.encode import CONTACT_POINT_UNITS, CONTACT_SIDE, contact_features_kernel, get_encoder
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
        *body, self._head = layer_weights(config, weights)  # the head stays (5, in): contiguous dot products
        self._layers = [(np.ascontiguousarray(w.T), b) for w, b in body]  # (in, out): one input's row is contiguous
        self._table = _NO_TABLE
        if encoder == "contact" and body:  # its point units come from a table, its features from their own kernel
            w1 = self._layers[0][0]
            self._table = point_table("contact", w1, _contact_units)
            self._layers[0] = (np.ascontiguousarray(w1[_CONTACT_FEATURES]), self._layers[0][1])

    @classmethod
    def of(cls, net, encoder: str) -> FrozenNet:
        """A frozen copy of a torch :class:`~bgzero.value.net.ValueNet` as its weights are now."""
        return cls(net.config, net.weights(), encoder)

    def probs(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float32 probabilities for (N, 2, 25) boards, as the torch net gives them."""
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 2, 25)
        out = np.empty((len(boards), 5), np.float32)
        tabled = len(self._table) > 0
        x = np.empty((min(CHUNK, len(boards)), len(_CONTACT_FEATURES) if tabled else self.config.num_inputs), np.float32)
        hidden = [np.empty((len(x), w.shape[1]), np.float32) for w, _ in self._layers]
        for lo in range(0, len(boards), CHUNK):
            n = min(CHUNK, len(boards) - lo)
            chunk = boards[lo:lo + n]
            (contact_features_kernel if tabled else self.encoder.fn)(chunk, x[:n])
            h, table = x[:n], self._table
            for (w, b), buf in zip(self._layers, hidden):
                _sparse_layer(h, w, b, self._act, buf[:n], chunk, table)
                h, table = buf[:n], _NO_TABLE
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
_NO_TABLE = np.zeros((0, 25, 16, 1), np.float32)


def point_table(encoder: str, w1: np.ndarray, units, cells: int = 25) -> np.ndarray:
    """(2, cells, 16, H): the first layer's sum over the inputs ``units(side, cell)`` that depend
    on one cell's checker count alone, per side, cell (24 the bar, 25 the checkers off) and
    count; ``w1`` is (inputs, H). Read off the encoder itself, on boards where that cell holds
    the count, so the table cannot drift from the encoding."""
    side, cell, count = (a.ravel() for a in np.meshgrid(range(2), range(cells), range(16), indexing="ij"))
    boards = np.zeros((len(side), 2, 25), np.int8)
    on, off = cell < 25, cell == 25
    boards[np.flatnonzero(on), side[on], cell[on]] = count[on]
    boards[np.flatnonzero(off), side[off], 0] = 15 - count[off]  # ``count`` borne off: the rest on one point
    x = get_encoder(encoder)(boards)
    table = np.zeros((len(side), w1.shape[1]), np.float32)
    for k, (s, c) in enumerate(zip(side, cell)):
        u = units(s, c)
        table[k] = x[k, u] @ w1[u]
    return table.reshape(2, cells, 16, -1)


def _contact_units(side: int, point: int) -> np.ndarray:
    """The contact encoder's four units of one point (the bar is point 24)."""
    return side * CONTACT_SIDE + 4 * point + np.arange(4)


@njit(cache=True, fastmath=True, nogil=True)
def _sparse_layer(x, w, b, act, out, boards, table):
    """``out = act(x @ w + b)``, adding only the rows of ``w`` whose input is non-zero; plus,
    with a non-empty ``table``, the row ``table[side, point, n]`` for each point of ``boards``
    holding n checkers (inputs that depend on one point's count alone, tabulated).

    The non-zero inputs are gathered first, without branches, and their rows added two at
    a time (half the passes over the accumulator); rows are indexed, never sliced, as a
    slice in numba's inner loop costs more than the row's arithmetic.
    """
    width = w.shape[1]
    acc = np.empty(width, np.float32)
    idx = np.zeros(x.shape[1] + 1, np.int64)
    val = np.zeros(x.shape[1] + 1, np.float32)
    for k in range(x.shape[0]):
        m = 0
        for i in range(x.shape[1]):
            v = x[k, i]
            idx[m] = i
            val[m] = v
            m += v != 0.0
        idx[m] = 0  # a zero partner for an odd last row
        val[m] = 0.0
        for j in range(width):
            acc[j] = b[j]
        if table.shape[0]:
            for side in range(2):
                for c in range(25):
                    n = boards[k, side, c]
                    if n > 0:
                        for j in range(width):
                            acc[j] += table[side, c, n, j]
        for t in range(0, m, 2):
            i0, i1, v0, v1 = idx[t], idx[t + 1], val[t], val[t + 1]
            for j in range(width):
                acc[j] += v0 * w[i0, j] + v1 * w[i1, j]
        if act == 0:
            for j in range(width):
                out[k, j] = max(acc[j], 0.0)
        elif act == 1:
            for j in range(width):
                out[k, j] = 1.0 / (1.0 + np.exp(-acc[j]))
        elif act == 2:
            for j in range(width):
                out[k, j] = np.tanh(acc[j])
        else:
            for j in range(width):
                out[k, j] = acc[j] if acc[j] > 0.0 else np.expm1(acc[j])


@njit(cache=True, fastmath=True, nogil=True)
def _head(h, w, b, out):
    """The five cumulative probabilities from the last hidden layer (:func:`~bgzero.value.net.probs_from_logits`)."""
    z = np.empty(5, np.float32)
    for k in range(h.shape[0]):
        for j in range(5):
            s = b[j]
            for i in range(h.shape[1]):
                s += h[k, i] * w[j, i]
            z[j] = s
        z0, z1, z2, z3, z4 = z[0], z[1], z[2], z[3], z[4]
        win = 1.0 / (1.0 + np.exp(-z0))
        wg = win / (1.0 + np.exp(-z1))
        lg = (1.0 - win) / (1.0 + np.exp(-z3))
        out[k, 0] = win
        out[k, 1] = wg
        out[k, 2] = wg / (1.0 + np.exp(-z2))
        out[k, 3] = lg
        out[k, 4] = lg / (1.0 + np.exp(-z4))
