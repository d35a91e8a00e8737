"""The arithmetic of the five probabilities, without torch: equity, the other side's view, exact results.

Probabilities are GNU Backgammon's five cumulative ones for the side on roll before it
rolls, ``(win, win gammon, win backgammon, lose gammon, lose backgammon)``, gammons
including backgammons. Agents, search and the cube need this arithmetic; none of them
need the network, so it lives apart from :mod:`bgzero.value.net`. Each function takes
numpy arrays or torch tensors (last axis 5).
"""

from __future__ import annotations

import numpy as np

NUM_OUTPUTS = 5
WIN, WIN_G, WIN_BG, LOSE_G, LOSE_BG = range(5)
_FLIPPED = [WIN, LOSE_G, LOSE_BG, WIN_G, WIN_BG]


def equity(probs):
    """Cubeless money equity ``2w - 1 + wg - lg + wbg - lbg``."""
    return 2 * probs[..., 0] - 1 + probs[..., 1] - probs[..., 3] + probs[..., 2] - probs[..., 4]


def flip(probs):
    """The same probabilities seen by the other side: (w, wg, wbg, lg, lbg) -> (1-w, lg, lbg, wg, wbg)."""
    if not hasattr(probs, "__torch_function__"):
        probs = np.asarray(probs)
    out = probs[..., _FLIPPED]
    out[..., WIN] = 1 - probs[..., WIN]
    return out


def result_probs(points) -> np.ndarray:
    """Exact five probabilities of a finished game scored ``points`` (+1..+3 won, -1..-3 lost)."""
    pts = np.asarray(points)
    out = np.zeros(pts.shape + (NUM_OUTPUTS,), np.float32)
    won, mag = pts > 0, np.abs(pts)
    out[..., WIN] = won
    out[..., WIN_G] = won & (mag >= 2)
    out[..., WIN_BG] = won & (mag >= 3)
    out[..., LOSE_G] = ~won & (mag >= 2)
    out[..., LOSE_BG] = ~won & (mag >= 3)
    return out
