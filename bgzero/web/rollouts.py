"""What ``/api/rollout`` needs from a rollout engine, so the endpoint does not depend on how it is done.

A :class:`RolloutRunner` rolls out one request and reports its progress through a callback
as it goes; the endpoint streams those reports to the client as JSON lines, then the
result. Rollouts themselves belong to :mod:`bgzero.rollout` (issue 18), which has not
landed yet: until a runner over it is passed to :func:`bgzero.web.api.create_app`, the
endpoint checks the request and answers 501 with :data:`NOT_INSTALLED`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from bgzero.cube import MatchState

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


class RolloutRunner(Protocol):
    def __call__(self, request: RolloutRequest, progress: Progress) -> dict:
        """The finished rollout as JSON-ready data (probabilities, equities, standard errors, trials)."""


NOT_INSTALLED = ("rollouts need the bgzero.rollout package (issue 18), which this installation does not have yet; "
                 "/api/move, /api/evaluate and /api/cube work meanwhile")
