"""Tesauro's pubeval: the public linear benchmark player, vectorised over batches.

pubeval scores each position reachable with the roll and plays the best one. It is the
customary fixed yardstick for backgammon programs, so it must score exactly as Tesauro's
``pubeval.c`` does; ``tests/test_pubeval.py`` checks that against a literal transcription
of the C code and against GNU Backgammon's own copy.

Encoding (from the MOVER's view, row 0 = the side that just moved): for each of the
mover's points 24..1 five inputs -- an opponent blot, one own checker, two or more, exactly
three, ``(n - 3) / 2`` for four or more -- then opponent checkers on the bar ``/ 2`` and
own checkers borne off ``/ 15``. Own bar checkers and opponent points are not inputs.
Which of the two weight vectors applies (race or contact) is decided on the position
BEFORE the move, as Tesauro prescribes, not on each candidate.
"""

from __future__ import annotations

import json
from importlib.resources import files

import numpy as np
from numba import njit

from bgzero.agents.base import Agent
from bgzero.engine.board import swap_sides
from bgzero.engine.classify import is_race
from bgzero.engine.movegen import MoveBatch
from bgzero.engine.segments import segment_argmax

ALL_OFF_SCORE = 99999999.0


def _load_weights() -> np.ndarray:
    """``(2, 122)`` float64: row 0 contact weights, row 1 race weights (index by race flag)."""
    data = json.loads(files("bgzero").joinpath("data/pubeval_weights.json").read_text())
    return np.array([data["contact_weights_wc"], data["race_weights_wr"]], dtype=np.float64)


_WEIGHTS = _load_weights()
_WEIGHTS.setflags(write=False)


@njit(cache=True)
def _scores(after, race, w):
    n = after.shape[0]
    out = np.empty(n, dtype=np.float64)
    for k in range(n):
        on_board = 0
        for c in range(25):
            on_board += after[k, 0, c]
        if on_board == 0:
            out[k] = ALL_OFF_SCORE
            continue
        wk = w[1] if race[k] else w[0]
        s = 0.0
        # Input block b is the mover's point 24 - b, i.e. its column 23 - b and the
        # opponent's column b.
        for b in range(24):
            m = after[k, 0, 23 - b]
            base = 5 * b
            if m == 0:
                if after[k, 1, b] == 1:
                    s += wk[base]
            elif m == 1:
                s += wk[base + 1]
            else:
                s += wk[base + 2]
                if m == 3:
                    s += wk[base + 3]
                elif m >= 4:
                    s += wk[base + 4] * ((m - 3) / 2.0)
        s += wk[120] * (after[k, 1, 24] / 2.0)
        s += wk[121] * ((15 - on_board) / 15.0)
        out[k] = s
    return out


def pubeval_scores(after: np.ndarray, race: np.ndarray) -> np.ndarray:
    """``(N,)`` float64 pubeval scores of ``(N, 2, 25)`` candidate positions.

    ``after`` must be from the MOVER's view (row 0 = the side that just moved). bgzero's
    move generator returns results with the sides already swapped (next side on roll in
    row 0), so swap them back (:func:`bgzero.engine.board.swap_sides`) before calling. ``race`` is
    the :func:`is_race` flag of the position BEFORE the move, repeated per candidate. A
    position with all the mover's checkers off scores 99999999, as in ``pubeval.c``.
    """
    after = np.ascontiguousarray(after, dtype=np.int8)
    race = np.ascontiguousarray(race, dtype=np.bool_)
    if after.ndim != 3 or after.shape[1:] != (2, 25):
        raise ValueError(f"after must have shape (N, 2, 25), got {after.shape}")
    if race.shape != after.shape[:1]:
        raise ValueError(f"race must have shape ({after.shape[0]},), got {race.shape}")
    return _scores(after, race, _WEIGHTS)


def pubeval_choose(before: np.ndarray, after: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``(B,)`` int64 index into ``after`` of pubeval's move for each position in ``before``.

    ``after[offsets[b]:offsets[b + 1]]`` are the candidates of ``before[b]``, from the
    MOVER's view (see :func:`pubeval_scores`). Ties go to the first candidate, as in
    ``pubeval.c``'s callers; a position without candidates gets -1. With
    :func:`bgzero.engine.movegen.generate`'s batch ``mb``:
    ``mb.results[pubeval_choose(boards, swap_sides(mb.results), mb.offsets)]``.
    """
    before = np.asarray(before)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    n_pos, n_cand = before.shape[0], np.shape(after)[0]
    if offsets.shape != (n_pos + 1,) or offsets[0] != 0 or offsets[-1] != n_cand or (np.diff(offsets) < 0).any():
        raise ValueError(
            f"offsets must be non-decreasing, shape ({n_pos + 1},), from 0 to {n_cand}; got {offsets!r}"
        )
    race = np.repeat(is_race(before), np.diff(offsets))
    return segment_argmax(pubeval_scores(after, race), offsets)


class PubevalAgent(Agent):
    """Plays the candidate pubeval scores highest (race weights chosen before the move).

    pubeval scores moves, not positions, so it has no view of the cube: it keeps the
    :class:`~bgzero.agents.base.Agent` defaults, never doubling and always taking.
    """

    name = "pubeval"

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        return pubeval_choose(boards, swap_sides(moves.results), moves.offsets)
