"""n-ply search over a batched evaluator, with gnubg-style move filters.

An n-ply evaluation of a position (side on roll, before it rolls) averages, over the 21
distinct rolls, the value after that side's best reply chosen at 0-ply and evaluated at
(n-1)-ply. Choosing a move at n-ply scores every candidate result at 0-ply, then level by
level keeps the best ``k`` within ``margin`` equity of the best (gnubg's move filters) and
re-scores the survivors one ply deeper, up to n. Every level is one
batched move-generator call and one batched forward for all positions at once. When the
evaluator carries a pruning net, the replies inside the search are ranked by it first and
only the best few per roll are scored by the contact net (:func:`best_replies`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgzero.engine.classify import CONTACT
from bgzero.engine.distinct import distinct_rows
from bgzero.engine.game import ROLL_WEIGHTS, ROLLS, game_results
from bgzero.engine.movegen import generate
from bgzero.engine.segments import segment_argmax, segment_top_k
from bgzero.value.evaluator import checker_play
from bgzero.value.probs import equity, flip


@dataclass(frozen=True)
class MoveFilter:
    """Keep at most ``keep`` candidates within ``margin`` equity of the best."""

    keep: int = 8
    margin: float = 0.16


DEFAULT_FILTERS = (MoveFilter(8, 0.16), MoveFilter(2, 0.04))  # gnubg's "normal" filters


SEARCH_CHUNK = 48
"""Positions expanded together at one level: 48 x 21 rolls x ~20 replies keeps a level's
arrays within the CPU caches; bigger batches only add memory traffic."""


def evaluate_ply(evaluator, boards: np.ndarray, ply: int) -> np.ndarray:
    """(N, 5) probabilities of ``boards`` (side on roll, before rolling) at ``ply``."""
    if ply == 0 or len(boards) == 0:
        return evaluator.probs(boards)
    if len(boards) > SEARCH_CHUNK:
        return np.concatenate([evaluate_ply(evaluator, boards[lo:lo + SEARCH_CHUNK], ply)
                               for lo in range(0, len(boards), SEARCH_CHUNK)])
    out = np.empty((len(boards), 5), np.float32)
    live = game_results(boards) == 0
    if (~live).any():
        out[~live] = evaluator.probs(boards[~live])
    if not live.any():
        return out
    live_boards = boards[live]
    n = len(live_boards)
    rolled = np.repeat(live_boards, len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (n, 1))
    moves = generate(rolled, dice)
    replies = moves.results[best_replies(evaluator, moves)]
    reply_probs = flip(evaluate_ply(evaluator, replies, ply - 1))  # back to the roller's view
    out[live] = (reply_probs.reshape(n, len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
    return out


PRUNE_KEEP = 5
"""Replies per roll that the contact net re-scores when a pruning net ranks them first."""


def best_replies(evaluator, moves, keep: int = PRUNE_KEEP, prune: bool = True, repeats: bool = True) -> np.ndarray:
    """Global index of the side on roll's 0-ply choice in each segment of ``moves``, as
    :func:`choose_replies` finds it, without scoring a segment of one candidate: a forced
    move (a quarter of a rollout's turns, mostly a checker that cannot enter) has no choice to make.

    ``repeats``: look for boards that several segments reach, to score each once. The 21
    rolls of a position often do; the rolls of distinct positions almost never (0.4% in a
    rollout), and there the search costs more than it saves."""
    return _choose(evaluator, moves, keep, prune, want_probs=False, repeats=repeats)[0]


def choose_replies(evaluator, moves, keep: int = PRUNE_KEEP, prune: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's 0-ply choice (global index) and its (K, 5) probabilities (opponent on roll).

    With a pruning net (and ``prune``), contact candidates of a segment longer than ``keep``
    are ranked by it and only its top ``keep`` go to the contact net (gnubg's pruning);
    races and bear-offs are cheap and always evaluated exactly as at 0-ply. The
    probabilities come back because variance reduction needs them and they were computed
    on the way.
    """
    best, probs = _choose(evaluator, moves, keep, prune, want_probs=True, repeats=True)
    assert probs is not None  # want_probs
    return best, probs


def _choose(evaluator, moves, keep: int, prune: bool, want_probs: bool,
            repeats: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`choose_replies` (``want_probs``) and :func:`best_replies`; ``repeats`` as there."""
    results, offsets = moves.results, moves.offsets
    counts = np.diff(offsets)
    scored = None if want_probs or (counts > 1).all() else np.repeat(counts > 1, counts)  # None: every candidate
    score = np.full(len(results), -np.inf, np.float32)  # a forced move keeps -inf: its segment's argmax all the same
    probs = np.empty((len(results), 5), np.float32)  # filled where a candidate is scored exactly
    if not prune or evaluator.pruner is None:
        rows = slice(None) if scored is None else scored
        exact = evaluator.probs(results[rows])
        probs[rows], score[rows] = exact, -equity(exact)
        best = segment_argmax(score, offsets)
        return best, probs[best] if want_probs else None
    cls = evaluator.route(results)
    contact = cls == CONTACT
    if scored is not None:
        contact &= scored
    other = np.flatnonzero(~contact if scored is None else ~contact & scored)
    if other.size:
        exact = evaluator.probs(results[other], cls[other])
        probs[other], score[other] = exact, -equity(exact)
    if contact.any():
        ranked = contact & np.repeat(counts > keep, counts)  # a segment of ``keep`` or fewer goes to the contact net whole
        rows = np.flatnonzero(ranked)
        if rows.size:
            score[rows] = -evaluator.pruner.equities(results, None if rows.size == len(results) else rows)
        rescore = np.flatnonzero(contact & segment_top_k(score, offsets, keep))
        score[contact] = -np.inf
        shortlist = results[rescore]
        if repeats:
            first, inverse = distinct_rows(shortlist)
            exact = evaluator.contact_probs(shortlist[first])[inverse]
        else:
            exact = evaluator.contact_probs(shortlist)
        probs[rescore], score[rescore] = exact, -equity(exact)
    best = segment_argmax(score, offsets)
    return best, probs[best] if want_probs else None


def analyse_moves(evaluator, moves, ply: int, filters=DEFAULT_FILTERS) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of every candidate (opponent on roll) and the ply each was scored at."""
    probs = evaluator.probs(moves.results)
    depth = np.zeros(len(moves.results), np.int64)
    alive = np.arange(len(moves.results))
    owner = np.repeat(np.arange(len(moves.offsets) - 1), np.diff(moves.offsets))
    for level in range(1, ply + 1):
        flt = filters[min(level - 1, len(filters) - 1)]
        alive = filter_candidates(-equity(probs[alive]), owner[alive], alive, flt)
        probs[alive] = evaluate_ply(evaluator, moves.results[alive], level)
        depth[alive] = level
    return probs, depth


def choose_moves(evaluator, moves, ply: int, filters=DEFAULT_FILTERS) -> np.ndarray:
    """Global index of the best candidate per position at ``ply``; at 0 ply the evaluator's mover
    chooses (:func:`~bgzero.value.evaluator.checker_play`)."""
    probs, depth = analyse_moves(checker_play(evaluator, ply), moves, ply, filters)
    score = np.where(depth == ply, -equity(probs), -np.inf)
    return segment_argmax(score, moves.offsets)


def filter_candidates(score: np.ndarray, owner: np.ndarray, idx: np.ndarray, flt: MoveFilter) -> np.ndarray:
    """Indices (from ``idx``) of each owner's top ``keep`` candidates within ``margin``."""
    order = np.lexsort((-score, owner))
    score, owner, idx = score[order], owner[order], idx[order]
    first = np.r_[0, np.flatnonzero(np.diff(owner)) + 1]
    rank = np.arange(len(owner)) - np.repeat(first, np.diff(np.r_[first, len(owner)]))
    best = np.repeat(score[first], np.diff(np.r_[first, len(owner)]))
    keep = (rank < flt.keep) & (score >= best - flt.margin)
    return np.sort(idx[keep])
