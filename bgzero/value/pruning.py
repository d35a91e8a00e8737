"""Pruning nets: a small network that ranks a position's replies cheaply inside search.

Inside an n-ply search the side on roll picks a reply to each of the 21 rolls at 0-ply,
and that choice is where the search's time goes: some twenty candidates a roll, each
encoded with the contact encoder and scored by the full contact net. gnubg ranks those
candidates with small "pruning" nets on plain board inputs and gives only the best few to
its full net; bgzero does the same (:func:`bgzero.agents.search.best_replies`). A pruning net is
a ``198-H-5`` ReLU :class:`~bgzero.value.net.ValueNet` on Tesauro's inputs, distilled from the
contact net (:mod:`bgzero.learn.distill`). It runs here as one numba kernel straight from the
boards: each of Tesauro's inputs depends on one point's count, so the first layer is one
precomputed row per occupied point, and no input matrix is ever built.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numba import njit

from bgzero.engine import rowbits
from bgzero.errors import ConfigError
from bgzero.value import lanes
from bgzero.value.encode import TESAURO_SIDE
from bgzero.value.encode import off as checkers_off
from bgzero.value.frozen import layer_weights, pad_to, point_table
from bgzero.value.netconfig import NetConfig

PRUNE_ENCODER = "tesauro198"
PRUNE_INPUTS = 2 * TESAURO_SIDE + 2
_OFF = 25  # the table's cell for the checkers borne off
_NO_ROWS = np.zeros(0, np.int64)


class PruningNet:
    """Equities (side on roll) from a one-hidden-layer ReLU net on Tesauro's 198 inputs.

    Built from the net's state dict as numpy arrays: a snapshot, which later training of a
    torch net does not reach. The first layer is tabulated per side, point (the bar and the
    checkers off count as points) and count: a position's hidden layer is the bias plus one
    table row per occupied point. The table is made on first use: a command that never
    prunes (a 0-ply hint) does not pay for it.
    """

    def __init__(self, config: NetConfig, weights: dict[str, np.ndarray]):
        if config.num_inputs != PRUNE_INPUTS or len(config.hidden) != 1 or config.activation != "relu":
            raise ConfigError(f"a pruning net is {PRUNE_INPUTS}-H-5 with ReLU; got {config.num_inputs} inputs, "
                              f"hidden {config.hidden}, {config.activation}")
        self.config = config
        (w1, b1), (w2, self._b2) = layer_weights(config, weights)
        self._w1 = w1
        self._b1 = _padded(b1 + w1[:, 2 * TESAURO_SIDE])  # the side-on-roll unit is always 1
        self._w2 = _padded(w2).ravel()  # (5 * H'): each output's weights a run of lanes

    @classmethod
    def of(cls, net) -> PruningNet:
        """A pruning net from a torch :class:`~bgzero.value.net.ValueNet`, as its weights are now."""
        return cls(net.config, net.weights())

    @cached_property
    def _table(self) -> np.ndarray:
        """The first layer per side, cell and count (:func:`~bgzero.value.frozen.point_table`),
        flattened from (2, 26, 16, H'), the hidden units padded to whole lane buffers."""
        table = point_table(PRUNE_ENCODER, np.ascontiguousarray(self._w1.T), _tesauro_units, cells=26)
        return _padded(table).ravel()

    def equities(self, boards: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """(N,) float32 cubeless equities the net gives ``boards`` (N, 2, 25), or (R,) those of
        ``boards[rows]`` (read in place: search scores most of a batch, and a copy costs more)."""
        every, rows = rows is None, _NO_ROWS if rows is None else np.ascontiguousarray(rows, np.int64)
        return _equities(np.ascontiguousarray(boards, np.int8), every, rows, self._table, self._b1, self._w2, self._b2)


def _padded(a: np.ndarray) -> np.ndarray:
    """``a`` with its last axis, the hidden units, padded to whole lane buffers (:func:`~bgzero.value.frozen.pad_to`)."""
    return pad_to(a, a.shape[:-1] + (a.shape[-1] + -a.shape[-1] % lanes.WIDTH,))


def _tesauro_units(side: int, cell: int) -> np.ndarray:
    """Tesauro's units for one cell: a point's four, the bar's one, the checkers off's one
    (the layout of :func:`bgzero.value.encode.tesauro198_kernel`)."""
    base = side * TESAURO_SIDE
    return base + (4 * cell + np.arange(4) if cell < 24 else np.array([96 + cell - 24]))


@njit(cache=True, inline="always")
def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


@njit(cache=True, fastmath=True, nogil=True)
def _equities(boards, every, rows, table, b1, w2, b2):
    """Each board's equity (``every``), or each listed in ``rows``.

    The hidden units go 16 at a time through one lane buffer (:mod:`bgzero.value.lanes`):
    the bias, plus a table row per occupied point (found as a bitmask, :mod:`bgzero.engine.rowbits`),
    then the ReLU and its share of each of the five outputs; with the 16 hidden units of a
    shipped pruning net, one pass a board.
    """
    n = boards.shape[0] if every else rows.shape[0]
    width = b1.shape[0]
    out = np.empty(n, np.float32)
    h = lanes.lanes()
    for i in range(n):
        k = i if every else rows[i]
        z0, z1, z2, z3, z4 = b2[0], b2[1], b2[2], b2[3], b2[4]
        for lo in range(0, width, lanes.WIDTH):
            lanes.load(h, b1, lo)
            for side in range(2):
                row = boards[k, side]
                cells = rowbits.above(row, 0)
                while cells:  # the occupied cells, rearmost last
                    c = rowbits.lowest(cells)
                    cells &= cells - 1
                    lanes.add(h, table, ((side * 26 + c) * 16 + row[c]) * width + lo)
                off = checkers_off(row)
                if off > 0:
                    lanes.add(h, table, ((side * 26 + _OFF) * 16 + off) * width + lo)
            z0 += lanes.relu_dot(h, w2, lo)
            z1 += lanes.relu_dot(h, w2, width + lo)
            z2 += lanes.relu_dot(h, w2, 2 * width + lo)
            z3 += lanes.relu_dot(h, w2, 3 * width + lo)
            z4 += lanes.relu_dot(h, w2, 4 * width + lo)
        win = _sigmoid(z0)
        wg = win * _sigmoid(z1)
        lg = (1.0 - win) * _sigmoid(z3)
        out[i] = 2.0 * win - 1.0 + wg - lg + wg * _sigmoid(z2) - lg * _sigmoid(z4)
    return out
