"""What ``/api/rollout`` needs from a rollout engine, so the endpoint does not depend on how it is done.

A :class:`RolloutRunner` rolls out one request and reports its progress through a callback
as it goes; the endpoint streams those reports to the client as JSON lines, then the
result. :func:`run_rollout` is the runner over :mod:`bgzero.rollout`; tests pass their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from bgzero.cube import MatchState
from bgzero.rollout import RolloutSettings, make_player, rollout_document

Progress = Callable[[int, int, dict], None]
"""``progress(trials_done, trials_total, partial_result)``, called from the runner's thread."""


@dataclass(frozen=True)
class RolloutRequest:
    """A position before the roll (``dice`` None), or the best ``top`` plays of a roll, to roll out."""

    board: np.ndarray  # side on roll in row 0
    dice: tuple[int, int] | None
    state: MatchState
    agent: str  # a spec the server offers
    trials: int
    seed: int
    top: int = 5
    on_roll: int = 0  # the player on roll in ``state`` (the Match ID's dice owner)


class RolloutRunner(Protocol):
    def __call__(self, request: RolloutRequest, progress: Progress) -> dict:
        """The finished rollout as JSON-ready data (probabilities, equities, standard errors, trials)."""


def run_rollout(request: RolloutRequest, progress: Progress) -> dict:
    """A variance-reduced rollout by the request's agent, cubeful in a match, reporting after every batch."""
    settings = RolloutSettings(trials=request.trials, seed=request.seed, cubeful=not request.state.is_money,
                               batch=min(RolloutSettings.batch, max(36, request.trials // 10 // 36 * 36)))  # ~10 reports
    return clamp_probabilities(rollout_document(
        request.board, request.dice, make_player(request.agent), settings, request.state, request.on_roll,
        top=request.top, progress=lambda done, total, se: progress(done, total, {"se": se})))


def clamp_probabilities(document: dict) -> dict:
    """``document`` with every ``probs`` in [0, 1]: variance reduction's estimate of a few trials can
    leave them (a gammon chance of -0.043 after one trial), which no player reads as a probability."""
    def fix(doc: dict) -> dict:
        return {**doc, "probs": [min(1.0, max(0.0, float(p))) for p in doc["probs"]]} if "probs" in doc else doc
    out = fix(document)
    if "moves" in out:
        out["moves"] = [fix(m) for m in out["moves"]]
    return out
