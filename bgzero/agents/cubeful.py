"""Cubeful n-ply search: checker play and cube decisions for the score, in gnubg's manner.

A node is a position, its side on roll before rolling, in a cube state. At 0 ply its value
is Janowski's (:func:`bgzero.cube.cubeful.no_double_value`, the cube life by position class
as :func:`bgzero.agents.cube.cube_lives` gives it, from the set gnubg uses for a search of
that depth, :func:`bgzero.cube.gnubg_efficiency`); at n ply it is the average over the 21
rolls of the value after the side's best reply, where the opponent, now on roll, first
takes its proper cube action (no double, or double and the best answer), valued at n-1
ply. So cube decisions are taken at every node of the search, and decisions at depth see
market losers and the too-good window. Values are money points or MWC
(:mod:`bgzero.cube.cubeful`), so nodes at different cube values compare directly.

Replies inside the search are chosen as in the cubeless search (:func:`bgzero.agents.search.best_replies`,
0-ply cubeless equity; gnubg chooses them by 0-ply cubeful equity), so the tree is built and
evaluated by the network once and then valued for every cube state met in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bgzero.agents.cube import cube_lives
from bgzero.agents.search import (
    DEFAULT_FILTERS,
    ROLL_WEIGHTS,
    ROLLS,
    SEARCH_CHUNK,
    best_replies,
    evaluate_ply,
    filter_candidates,
)
from bgzero.cube import (
    CubeDecision,
    CubeEfficiency,
    CubeEquities,
    MatchState,
    after_take,
    decide,
    gnubg_efficiency,
    may_beaver,
    may_double,
    no_double_value,
    normalised,
    other_side,
    pass_value,
    proper_value,
)
from bgzero.engine.game import game_results
from bgzero.engine.movegen import generate
from bgzero.engine.segments import segment_argmax
from bgzero.value.probs import equity, flip


def _faced(state: MatchState, player: int) -> list[MatchState]:
    """The cube states ``player`` on roll may play on in ``state``: as it is, and doubled and taken."""
    return [state, after_take(state, player)] if may_double(state, player) else [state]


def _proper(values: dict, state: MatchState, player: int) -> float:
    """``player``'s value in ``state`` after its proper cube action, from its no-double values by state."""
    if not may_double(state, player):
        return values[state]
    return proper_value(values[state], values[after_take(state, player)], pass_value(state, player))


def _no_double(evaluator, boards: np.ndarray, players: np.ndarray, contexts: Sequence[list[MatchState]],
               ply: int, efficiency: CubeEfficiency) -> tuple[list[dict], np.ndarray]:
    """For each board, ``players[i]`` on roll: its value not doubling now in each state of ``contexts[i]``.

    Returns those values (a dict by state per board) and the cubeless probabilities at ``ply``.
    ``efficiency`` gives the leaves their cube life: the whole search's, not the depth left.
    """
    n = len(boards)
    if n > SEARCH_CHUNK and ply > 0:
        parts = [_no_double(evaluator, boards[lo:lo + SEARCH_CHUNK], players[lo:lo + SEARCH_CHUNK],
                            contexts[lo:lo + SEARCH_CHUNK], ply, efficiency) for lo in range(0, n, SEARCH_CHUNK)]
        return [v for part in parts for v in part[0]], np.concatenate([part[1] for part in parts])
    leaf = np.ones(n, bool) if ply == 0 else game_results(boards) != 0  # a finished game is exact at 0 ply
    values: list[dict] = [{} for _ in range(n)]
    probs = np.empty((n, 5), np.float64)
    if leaf.any():
        idx = np.flatnonzero(leaf)
        probs[idx] = evaluator.probs(boards[idx])
        lives = cube_lives(boards[idx], efficiency)
        for i, p, x in zip(idx, probs[idx], lives):
            values[i] = {s: no_double_value(p, s, int(players[i]), float(x)) for s in contexts[i]}
    idx = np.flatnonzero(~leaf)
    if not len(idx):
        return values, probs
    rolled = np.repeat(boards[idx], len(ROLLS), axis=0)
    replies = generate(rolled, np.tile(ROLLS, (len(idx), 1)))
    replies = replies.results[best_replies(evaluator, replies)]
    faced = [list(dict.fromkeys(t for s in contexts[i] for t in _faced(s, 1 - int(players[i])))) for i in idx]
    child_players = np.repeat(1 - players[idx], len(ROLLS))
    child_values, child_probs = _no_double(evaluator, replies, child_players,
                                           [f for f in faced for _ in ROLLS], ply - 1, efficiency)
    probs[idx] = (flip(child_probs).reshape(len(idx), len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
    for k, i in enumerate(idx):
        opp = 1 - int(players[i])
        rolls = child_values[k * len(ROLLS):(k + 1) * len(ROLLS)]
        values[i] = {s: float(sum(w * other_side(_proper(v, s, opp), s) for w, v in zip(ROLL_WEIGHTS, rolls)))
                     for s in contexts[i]}
    return values, probs


def cube_values_at(evaluator, boards: np.ndarray, states: Sequence[MatchState], players,
                   ply: int) -> tuple[list[CubeEquities], np.ndarray]:
    """No double, double/take and double/pass values (money points or MWC) of each board's side on roll, at ``ply``.

    Every double must be legal. Also returns the cubeless probabilities at ``ply``.
    """
    players = np.asarray(players, np.int64).reshape(len(boards))
    contexts = [_faced(s, int(p)) for s, p in zip(states, players)]
    values, probs = _no_double(evaluator, boards, players, contexts, ply, gnubg_efficiency(ply))
    return [CubeEquities(v[c[0]], v[c[1]], pass_value(c[0], int(p)))
            for v, c, p in zip(values, contexts, players)], probs


def cube_decisions(evaluator, boards: np.ndarray, states: Sequence[MatchState], players,
                   ply: int) -> tuple[list[CubeDecision], np.ndarray]:
    """gnubg's cube decision (normalised equities, double/pass = +1) for each board at ``ply``, and its probabilities."""
    values, probs = cube_values_at(evaluator, boards, states, players, ply)
    decisions = []
    for v, s, p, pr in zip(values, states, np.asarray(players).reshape(len(boards)), probs):
        p = int(p)
        eq = CubeEquities(normalised(v.no_double, s, p), normalised(v.double_take, s, p), 1.0)  # pass is +1 by definition
        decisions.append(decide(eq, wins_gammons=pr[1] > 0, beaver_allowed=may_beaver(s, p)))
    return decisions, probs


@dataclass(frozen=True)
class MoveScores:
    """Every candidate of a :class:`~bgzero.engine.movegen.MoveBatch`, scored for its mover.

    ``value``: money points or MWC at the depth reached (``None`` states: cubeless equity);
    ``levels[:, d]``: the normalised score at depth ``d`` (NaN where not scored so deep);
    ``depth``: the deepest level reached; ``probs``: cubeless probabilities at that depth,
    opponent on roll (as the move generator's results are).
    """

    value: np.ndarray
    levels: np.ndarray
    depth: np.ndarray
    probs: np.ndarray

    @property
    def score(self) -> np.ndarray:
        """The normalised score at the depth reached: cubeful equity per cube, EMG, or cubeless equity."""
        return self.levels[np.arange(len(self.depth)), self.depth]


def _results_values(evaluator, results: np.ndarray, states, movers: np.ndarray, ply: int):
    """Movers' values and normalised scores of ``results`` (opponent on roll) at ``ply``, and the probabilities."""
    if states is None:
        probs = evaluate_ply(evaluator, results, ply)
        value = -equity(probs)
        return value, value, probs
    opps = 1 - movers
    contexts = [_faced(s, int(o)) for s, o in zip(states, opps)]
    values, probs = _no_double(evaluator, results, opps, contexts, ply, gnubg_efficiency(ply))
    value = np.array([other_side(_proper(v, s, int(o)), s) for v, s, o in zip(values, states, opps)])
    score = np.array([normalised(x, s, int(m)) for x, s, m in zip(value, states, movers)])
    return value, score, probs


def score_moves(evaluator, moves, states: Sequence[MatchState] | None, players, ply: int,
                filters=DEFAULT_FILTERS, keep=None) -> MoveScores:
    """Score every candidate for the score and cube of its position, up to ``ply`` with gnubg's move filters.

    ``states[b]`` and ``players[b]`` are board ``b``'s match state and mover; with ``states``
    ``None`` the scores are cubeless equities (and ``players`` only need the right length). Each level keeps the best candidates by the
    previous level's normalised score and re-scores them one ply deeper. ``keep`` (global
    candidate indices) pass every filter: an analysis scores the played move at the full
    ply, as gnubg adds it to its move list, so its loss compares like with like.
    """
    m = len(moves.results)
    owner = np.repeat(np.arange(len(moves.offsets) - 1), np.diff(moves.offsets))
    cand_states = None if states is None else [states[o] for o in owner]
    cand_movers = np.asarray(players, np.int64).reshape(len(moves.offsets) - 1)[owner]
    levels = np.full((m, ply + 1), np.nan)
    value, levels[:, 0], probs = _results_values(evaluator, moves.results, cand_states, cand_movers, 0)
    value, probs = np.asarray(value, np.float64).copy(), np.asarray(probs, np.float64).copy()
    depth = np.zeros(m, np.int64)
    alive = np.arange(m)
    for level in range(1, ply + 1):
        flt = filters[min(level - 1, len(filters) - 1)]
        alive = filter_candidates(levels[alive, level - 1], owner[alive], alive, flt)
        if keep is not None:
            alive = np.union1d(alive, keep)
        sub_states = None if cand_states is None else [cand_states[i] for i in alive]
        value[alive], levels[alive, level], probs[alive] = _results_values(
            evaluator, moves.results[alive], sub_states, cand_movers[alive], level)
        depth[alive] = level
    return MoveScores(value, levels, depth, probs)


def choose_for_score(evaluator, moves, states: Sequence[MatchState], players, ply: int,
                     filters=DEFAULT_FILTERS) -> np.ndarray:
    """Global index of each position's best candidate for its score and cube, at ``ply``."""
    scores = score_moves(evaluator, moves, states, players, ply, filters)
    return segment_argmax(np.where(scores.depth == ply, scores.value, -np.inf), moves.offsets)
