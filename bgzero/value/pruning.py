"""Pruning nets: a small network that ranks a position's replies cheaply inside search.

Inside an n-ply search the side on roll picks a reply to each of the 21 rolls at 0-ply,
and that choice is where the search's time goes: some twenty candidates a roll, each
encoded with the contact encoder and scored by the full contact net. gnubg ranks those
candidates with small "pruning" nets on plain board inputs and gives only the best few to
its full net; bgzero does the same (:func:`bgzero.agents.search.best_replies`). A pruning net is
a ``198-H-5`` ReLU :class:`~bgzero.value.net.ValueNet` on Tesauro's inputs, distilled from the
contact net (:mod:`bgzero.learn.distill`). It runs here, from the net's numpy weights and
without torch, as one numba kernel straight from the
boards: Tesauro's inputs are mostly zeros, so the first layer adds up only the weight rows
of the units an occupied point sets (the layout of :func:`bgzero.value.encode.tesauro198_kernel`),
and no input matrix is ever built.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.errors import ConfigError
from bgzero.value.encode import TESAURO_SIDE
from bgzero.value.netconfig import NetConfig

PRUNE_ENCODER = "tesauro198"
PRUNE_INPUTS = 2 * TESAURO_SIDE + 2


class PruningNet:
    """Equities (side on roll) from a one-hidden-layer ReLU net on Tesauro's 198 inputs."""

    def __init__(self, config: NetConfig, weights: dict[str, np.ndarray]):
        """``weights``: the net's state dict as numpy arrays (a read checkpoint's, or ``ValueNet.weights()``)."""
        if config.num_inputs != PRUNE_INPUTS or len(config.hidden) != 1 or config.activation != "relu":
            raise ConfigError(f"a pruning net is {PRUNE_INPUTS}-H-5 with ReLU; got {config.num_inputs} inputs, "
                              f"hidden {config.hidden}, {config.activation}")
        self._w1 = np.ascontiguousarray(np.asarray(weights["body.0.weight"]).T, np.float32)  # (198, H)
        self._b1 = np.asarray(weights["body.0.bias"], np.float32)
        self._w2 = np.ascontiguousarray(np.asarray(weights["head.weight"]).T, np.float32)  # (H, 5)
        self._b2 = np.asarray(weights["head.bias"], np.float32)

    def equities(self, boards: np.ndarray) -> np.ndarray:
        """(N,) float32 cubeless equities the net gives ``boards`` (N, 2, 25)."""
        return _equities(np.ascontiguousarray(boards, np.int8), self._w1, self._b1, self._w2, self._b2)


@njit(cache=True, inline="always")
def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


@njit(cache=True)
def _equities(boards, w1, b1, w2, b2):
    hidden = b1.shape[0]
    out = np.empty(boards.shape[0], np.float32)
    h = np.empty(hidden, np.float32)
    for k in range(boards.shape[0]):
        h[:] = b1
        _add(h, w1[2 * TESAURO_SIDE], 1.0)  # the side-on-roll unit (its partner unit is 0)
        for side in range(2):
            row = boards[k, side]
            base = side * TESAURO_SIDE
            for p in range(24):  # Tesauro's units per point: n>=1, n>=2, n>=3, (n-3)/2
                n = row[p]
                if n > 0:
                    _add(h, w1[base + 4 * p], 1.0)
                    if n > 1:
                        _add(h, w1[base + 4 * p + 1], 1.0)
                        if n > 2:
                            _add(h, w1[base + 4 * p + 2], 1.0)
                            if n > 3:
                                _add(h, w1[base + 4 * p + 3], (n - 3) / 2.0)
            if row[24] > 0:
                _add(h, w1[base + 96], row[24] / 2.0)
            borne_off = 15 - row.sum()
            if borne_off > 0:
                _add(h, w1[base + 97], borne_off / 15.0)
        z0, z1, z2, z3, z4 = b2[0], b2[1], b2[2], b2[3], b2[4]
        for j in range(hidden):
            if h[j] > 0.0:
                z0 += h[j] * w2[j, 0]
                z1 += h[j] * w2[j, 1]
                z2 += h[j] * w2[j, 2]
                z3 += h[j] * w2[j, 3]
                z4 += h[j] * w2[j, 4]
        win = _sigmoid(z0)  # the ValueNet head: win and four conditional chances
        wg = win * _sigmoid(z1)
        lg = (1.0 - win) * _sigmoid(z3)
        out[k] = 2.0 * win - 1.0 + wg - lg + wg * _sigmoid(z2) - lg * _sigmoid(z4)
    return out


@njit(cache=True, inline="always")
def _add(h, w, v):
    for j in range(h.shape[0]):
        h[j] += v * w[j]
