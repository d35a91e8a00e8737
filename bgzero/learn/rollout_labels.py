"""Truncated rollouts in place of the search labels, for the turns where search chooses worst.

A 2-ply label is cheap and mostly right; where a turn's best plays are close it often picks
the wrong one. Truncated rollouts choose better (``scripts/compare_labellers.py``: 144 trials
cut at 11 plies lose 0.58 x1000 a move against 2-ply's 1.29) at about 50 times the cost, so a
generation rolls out only the best ``top`` candidates of the turns whose best two labels are
within ``close`` (or every turn of a class, ``close=None``), in chunks of turns that survive a
kill, as :mod:`bgzero.learn.labelling` does for the search labels.

The rollouts replace those candidates' labels shifted to keep the labels' mean over them: the
fine-tuning learns differences within a turn, so the rolled-out candidates are ordered by the
rollouts while the turn's other candidates keep their place from the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgzero.atomic import atomic_write
from bgzero.engine.classify import PositionClass, classify
from bgzero.errors import ConfigError
from bgzero.rollout import PlayerSpec, RolloutSettings, rollout_positions
from bgzero.value.probs import equity

TURNS_PER_CHUNK = 256  # what a kill can lose: about two minutes of two cores


@dataclass(frozen=True)
class RolloutLabelling:
    """Which turns are rolled out, and how; a chunk made with other settings is refused."""

    player: str             # checkpoint that plays the rollouts at 0 ply
    trials: int = 144
    truncate: int = 11
    top: int = 3            # best candidates of a turn (by the search labels) rolled out
    close: float | None = 0.02  # a turn qualifies when its best two labels are this close; None: every turn
    classes: tuple[str, ...] = ("contact", "race")


def chosen_turns(boards: np.ndarray, turns: np.ndarray, targets: np.ndarray, how: RolloutLabelling) -> list[np.ndarray]:
    """The rows to roll out, one array per qualifying turn, in the candidates' order.

    ``boards``, ``turns`` and ``targets`` are the labelled candidates (turns contiguous), the
    targets from the side on roll after each play, so the mover's equity is minus theirs.
    A turn's class is its best candidate's.
    """
    mover = -equity(targets)
    classes = classify(boards)
    wanted = np.array([PositionClass[c.upper()] for c in how.classes])
    starts = np.r_[0, np.flatnonzero(np.diff(turns)) + 1, len(turns)]
    out = []
    for lo, hi in zip(starts[:-1], starts[1:]):
        if hi - lo < 2:
            continue
        order = lo + np.argsort(-mover[lo:hi], kind="stable")
        if classes[order[0]] not in wanted:
            continue
        if how.close is not None and mover[order[0]] - mover[order[1]] > how.close:
            continue
        out.append(order[:how.top])
    return out


def chunk_path(folder: Path, index: int) -> Path:
    return Path(folder) / f"rollouts-{index:05d}.npz"


def _settings_of(how: RolloutLabelling, sha: str) -> str:
    return repr(sorted((asdict(how) | {"candidates_sha256": sha}).items()))


def finished_chunks(folder: Path, how: RolloutLabelling, sha: str) -> int:
    """How many chunks from the first are rolled out already; a chunk of other settings is an error."""
    done, mine = 0, _settings_of(how, sha)
    while chunk_path(folder, done).exists():
        with np.load(chunk_path(folder, done)) as f:
            made = str(f["settings"])
        if made != mine:
            raise ConfigError(f"{chunk_path(folder, done)} was rolled out with other settings or candidates "
                              f"({made}); use a fresh folder")
        done += 1
    return done


def roll_out(boards: np.ndarray, chosen: list[np.ndarray], folder: Path, how: RolloutLabelling, sha: str, *,
             seed: int, processes: int = 2, deadline: float | None = None,
             progress: Callable[[int], None] | None = None) -> int:
    """Roll out the ``chosen`` rows of ``boards`` (a candidates file whose checksum is ``sha``),
    chunk by chunk, until done or ``deadline``; returns the turns rolled out so far, counting
    earlier runs. Every play of a chunk meets the same dice (chunk ``k``'s seed is ``seed + k``)."""
    if how.trials < 1 or how.truncate < 1 or how.top < 2 or (how.close is not None and how.close < 0):
        raise ConfigError(f"labelling.rollout: trials, truncate >= 1, top >= 2, close >= 0 or null "
                          f"(got {how.trials}, {how.truncate}, {how.top}, {how.close})")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    total = -(-len(chosen) // TURNS_PER_CHUNK)
    index = finished_chunks(folder, how, sha)
    player = PlayerSpec(f"checkpoint:{how.player}@0")
    while index < total and not (deadline is not None and time.monotonic() > deadline):
        group = chosen[index * TURNS_PER_CHUNK:(index + 1) * TURNS_PER_CHUNK]
        rows = np.concatenate(group)
        results = rollout_positions(boards[rows], player, RolloutSettings(trials=how.trials, truncate=how.truncate,
                                                                         seed=seed + index),
                                    processes=processes)
        probs = np.array([r.probs for r in results], np.float32)
        se = np.array([r.equity_se for r in results], np.float32)
        atomic_write(chunk_path(folder, index), lambda f: np.savez(
            f, rows=rows, turn_sizes=np.array([len(g) for g in group]), probs=probs, equity_se=se,
            settings=_settings_of(how, sha)), "wb")
        index += 1
        if progress is not None:
            progress(len(group))
    return min(index * TURNS_PER_CHUNK, len(chosen))


def with_rollouts(targets: np.ndarray, folder: Path, chunks: int) -> tuple[np.ndarray, int]:
    """``targets`` with the first ``chunks`` chunks' rollouts in place, each turn's rolled-out
    candidates shifted to keep their labels' mean; and the number of turns replaced."""
    targets = targets.copy()
    replaced = 0
    for i in range(chunks):
        with np.load(chunk_path(folder, i)) as f:
            rows, sizes, probs = f["rows"], f["turn_sizes"], f["probs"]
        for part, rolled in zip(np.split(rows, np.cumsum(sizes)[:-1]), np.split(probs, np.cumsum(sizes)[:-1])):
            if part.max() >= len(targets):
                continue  # a turn beyond the labels this fine-tuning uses
            shifted = rolled + (targets[part].mean(axis=0) - rolled.mean(axis=0))
            targets[part] = np.clip(shifted, 0.0, 1.0)
            replaced += 1
    return targets, replaced
