"""TD(λ) targets as pure functions.

A game is the sequence of positions ``s_0 .. s_{T-1}``, each seen by the side on roll
before it rolls; the side on roll alternates, and the game ends when the mover of
``s_{T-1}`` bears off its last checker. With γ = 1, the λ-return of ``s_t`` is

    G_t = flip((1 - λ) V(s_{t+1}) + λ G_{t+1}),      G_{T-1} = exact result of the game,

over the 5-probability vector. ``flip`` changes the point of view because consecutive
positions belong to opposite sides; it is affine with weights summing to one, so it
commutes with the mixture. λ = 0 is one-step TD (bootstrap on the next position), λ = 1 is
Monte Carlo (every position learns the final result).

Where the mover of ``s_t`` explored (played another move than its greedy one), the
sample after ``s_t`` says how the exploratory move turned out, not what ``s_t`` is worth
to a greedy player; so ``G_t = flip(V(greedy result))`` there, and the trace is cut (a
tree backup, as in Q(λ)). Exploration then widens the positions seen without teaching
the net the values of a worse policy.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from bgzero.value.probs import flip, result_probs


def lambda_returns(values: np.ndarray, final_points: int, lam: float, explored: np.ndarray | None = None,
                   greedy_values: np.ndarray | None = None) -> np.ndarray:
    """λ-return targets (T, 5) for one game.

    ``values[t]`` is the network's estimate of ``s_t`` from its own side's view (only
    ``values[1:]`` are used); ``final_points`` is the result for the mover of ``s_{T-1}``
    (positive: it won, as it always does when the game ends by bearing off). Where
    ``explored[t]``, ``greedy_values[t]`` is the estimate of the greedy move's result
    (its own side's view, the opponent's) and the target backs up from it instead.
    """
    values = np.asarray(values, dtype=np.float64)
    backups = _greedy_backups(explored, greedy_values)
    T = len(values)
    targets = np.empty((T, values.shape[1]), np.float64)
    targets[T - 1] = result_probs(final_points)
    _back_up_greedy(targets, np.array([T - 1]), explored, backups)
    for t in range(T - 2, -1, -1):
        targets[t] = flip((1 - lam) * values[t + 1] + lam * targets[t + 1])
        _back_up_greedy(targets, np.array([t]), explored, backups)
    return np.clip(targets, 0.0, 1.0).astype(np.float32)  # rounding must not leave [0, 1]


def batch_lambda_returns(values: np.ndarray, lengths: np.ndarray, final_points: np.ndarray, lam: float,
                         explored: np.ndarray | None = None, greedy_values: np.ndarray | None = None) -> np.ndarray:
    """:func:`lambda_returns` for several games stored back to back (vectorised over games).

    Runs backwards over the longest game's length, so the Python loop is per ply, not
    per position.
    """
    lengths = np.asarray(lengths)
    backups = _greedy_backups(explored, greedy_values)
    ends = np.cumsum(lengths)
    targets = np.empty_like(values, dtype=np.float64)
    targets[ends - 1] = result_probs(np.asarray(final_points))
    _back_up_greedy(targets, ends - 1, explored, backups)
    for back in range(1, int(lengths.max(initial=0))):
        live = lengths > back
        idx = ends[live] - 1 - back
        targets[idx] = flip((1 - lam) * values[idx + 1] + lam * targets[idx + 1])
        _back_up_greedy(targets, idx, explored, backups)
    return np.clip(targets, 0.0, 1.0).astype(np.float32)  # rounding must not leave [0, 1]


def _greedy_backups(explored: np.ndarray | None, greedy_values: np.ndarray | None) -> np.ndarray | None:
    """The target of every explored position, ``flip(V(greedy result))``, computed once."""
    return None if explored is None else flip(np.asarray(greedy_values, np.float64))


def _back_up_greedy(targets: np.ndarray, idx: np.ndarray, explored: np.ndarray | None,
                    backups: np.ndarray | None) -> None:
    """Overwrite the targets of the explored positions among ``idx`` with their greedy backup."""
    if explored is None:
        return
    assert backups is not None  # made whenever explored is given
    idx = idx[explored[idx]]
    targets[idx] = backups[idx]


def td_loss(probs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy summed over the five outputs, averaged over positions.

    Each cumulative probability is a Bernoulli event, so cross-entropy is its natural
    loss; targets between 0 and 1 (bootstrapped estimates) are fine.
    """
    p = probs.clamp(1e-6, 1 - 1e-6)
    return F.binary_cross_entropy(p, targets, reduction="none").sum(dim=-1).mean()
