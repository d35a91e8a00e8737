"""What a rollout found: means and standard errors over its trials (pure functions)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from bgzero.value.probs import equity


@dataclass(frozen=True)
class RolloutResult:
    """One rolled-out position, for the side on roll before it rolls (or the mover of a play).

    ``probs`` are the five cumulative probabilities (win, win gammon, win backgammon, lose
    gammon, lose backgammon), ``equity`` the cubeless money equity; with the cube,
    ``cubeful_equity`` is per unit of the starting cube in money play and in EMG (gnubg's
    normalised match equity) in a match. Each ``*_se`` is the standard error of the mean
    over ``trials`` trials (variance-reduced where luck was subtracted).
    """

    probs: tuple[float, float, float, float, float]
    probs_se: tuple[float, float, float, float, float]
    equity: float
    equity_se: float
    trials: int
    cubeful_equity: float | None = None
    cubeful_se: float | None = None

    def as_dict(self) -> dict:
        out = asdict(self)
        if self.cubeful_equity is None:
            del out["cubeful_equity"], out["cubeful_se"]
        return out

    def flipped(self) -> RolloutResult:
        """The same result seen by the other side (a play's rollout starts with the opponent on roll)."""
        w, wg, wbg, lg, lbg = self.probs
        s = self.probs_se
        return RolloutResult((1 - w, lg, lbg, wg, wbg), (s[0], s[3], s[4], s[1], s[2]), -self.equity, self.equity_se,
                             self.trials, None if self.cubeful_equity is None else -self.cubeful_equity,
                             self.cubeful_se)


def standard_error(values: np.ndarray) -> np.ndarray:
    """Standard error of the mean along the first axis (0 for fewer than two values)."""
    n = len(values)
    if n < 2:
        return np.zeros(values.shape[1:])
    return values.std(axis=0, ddof=1) / math.sqrt(n)


def summarise(probs: np.ndarray, cubeful: np.ndarray | None = None) -> RolloutResult:
    """The result of trials whose (variance-reduced) probabilities are ``probs`` (n, 5).

    The equity of each trial is the equity of its probabilities (an affine map), so the
    mean equity is the equity of the mean probabilities.
    """
    probs = np.asarray(probs, np.float64)
    eq = equity(probs)
    mean, se = probs.mean(axis=0), standard_error(probs)
    cf_mean = cf_se = None
    if cubeful is not None:
        cf_mean, cf_se = float(np.mean(cubeful)), float(standard_error(np.asarray(cubeful, np.float64)))
    return RolloutResult(_five(mean), _five(se), float(eq.mean()),
                         float(standard_error(eq)), len(probs), cf_mean, cf_se)


def _five(values: np.ndarray) -> tuple[float, float, float, float, float]:
    """The five probabilities (or their errors) as floats."""
    a, b, c, d, e = (float(v) for v in values)
    return a, b, c, d, e


def combined_z(a: float, a_se: float, b: float, b_se: float) -> float:
    """How many combined standard errors apart two independent estimates are."""
    spread = math.hypot(a_se, b_se)
    return abs(a - b) / spread if spread > 0 else (0.0 if a == b else math.inf)
