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
from functools import lru_cache

import numpy as np

from bgzero.agents.cube import cube_lives
from bgzero.agents.search import (
    DEFAULT_FILTERS,
    ROLL_WEIGHTS,
    ROLLS,
    SEARCH_CHUNK,
    best_replies,
    choose_replies,
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
    normalised,
    pass_value,
)
from bgzero.cube.cubeful import no_double_values_at, normalised_values
from bgzero.engine.distinct import distinct_rows
from bgzero.engine.game import game_results
from bgzero.engine.movegen import generate
from bgzero.engine.segments import segment_argmax
from bgzero.value.evaluator import checker_play
from bgzero.value.probs import equity, flip


@lru_cache(maxsize=65536)
def _faced(state: MatchState, player: int) -> tuple[MatchState, ...]:
    """The cube states ``player`` on roll may play on in ``state``: as it is, and doubled and taken."""
    return (state, after_take(state, player)) if may_double(state, player) else (state,)


def _groups(ids: np.ndarray):
    """(id, indices) for each distinct value of ``ids``, indices in order."""
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    cuts = np.flatnonzero(np.diff(sorted_ids)) + 1
    for part in np.split(order, cuts):
        if len(part):
            yield int(ids[part[0]]), part


class _Keys:
    """The (cube states, side on roll) of the nodes of a search, interned as integers.

    A node's value is wanted in each of its cube states (``contexts``); every board of a
    key shares them, so values are an (n, width) array with column ``j`` for
    ``contexts[j]``, and the cube arithmetic runs once per key on the arrays of its boards.
    """

    def __init__(self) -> None:
        self.keys: list[tuple[tuple[MatchState, ...], int]] = []
        self._index: dict = {}
        self._child: dict[int, int] = {}

    def id(self, contexts: tuple[MatchState, ...], player: int) -> int:
        key = (tuple(contexts), int(player))
        if key not in self._index:
            self._index[key] = len(self.keys)
            self.keys.append(key)
        return self._index[key]

    def child(self, kid: int) -> int:
        """The key of the replies' nodes: the opponent on roll, in every state it may face."""
        if kid not in self._child:
            contexts, player = self.keys[kid]
            opp = 1 - player
            self._child[kid] = self.id(tuple(dict.fromkeys(t for s in contexts for t in _faced(s, opp))), opp)
        return self._child[kid]

    def width(self, kids: np.ndarray) -> int:
        return max((len(self.keys[k][0]) for k in np.unique(kids)), default=1)


def _proper_values(values: np.ndarray, columns: dict, state: MatchState, player: int) -> np.ndarray:
    """The value after the proper cube action (:func:`~bgzero.cube.proper_value`) over arrays: ``values[..., columns[s]]`` holds the no-double values in state ``s``."""
    no_double = values[..., columns[state]]
    if not may_double(state, player):
        return no_double
    return np.maximum(no_double, np.minimum(values[..., columns[after_take(state, player)]], pass_value(state, player)))


def _other_side(values: np.ndarray, state: MatchState) -> np.ndarray:
    return -values if state.is_money else 1.0 - values


def _no_double(evaluator, boards: np.ndarray, kids: np.ndarray, keys: _Keys, ply: int,
               efficiency: CubeEfficiency, known: np.ndarray | None = None,
               distinct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """For each board, its key's side on roll: its value not doubling now in each of its key's states.

    Returns those values ((n, width): column ``j`` for the key's ``j``-th state, NaN past
    its last) and the cubeless probabilities at ``ply``. ``efficiency`` gives the leaves
    their cube life: the whole search's, not the depth left. ``known``: at 0 ply, the
    boards' probabilities, already evaluated (the replies a parent chose them by).
    ``distinct``: no (board, key) comes twice; else a node met again (the rolls a side
    dances with, replies that transpose) is searched once, as its values are its own.
    """
    n = len(boards)
    if ply > 0 and not distinct and n > 1:
        rows = np.concatenate([np.ascontiguousarray(boards, np.int8).reshape(n, -1),
                               kids.astype(np.int32).view(np.int8).reshape(n, 4)], axis=1)
        first, inverse = distinct_rows(rows)
        if len(first) < n:
            values, probs = _no_double(evaluator, boards[first], kids[first], keys, ply, efficiency, distinct=True)
            return values[inverse], probs[inverse]
    if n > SEARCH_CHUNK and ply > 0:
        parts = [_no_double(evaluator, boards[lo:lo + SEARCH_CHUNK], kids[lo:lo + SEARCH_CHUNK], keys, ply,
                            efficiency, distinct=True) for lo in range(0, n, SEARCH_CHUNK)]
        width = max(part[0].shape[1] for part in parts)
        values = np.full((n, width), np.nan)
        lo = 0
        for part in parts:
            values[lo:lo + len(part[0]), :part[0].shape[1]] = part[0]
            lo += len(part[0])
        return values, np.concatenate([part[1] for part in parts])
    leaf = np.ones(n, bool) if ply == 0 else game_results(boards) != 0  # a finished game is exact at 0 ply
    values = np.full((n, keys.width(kids)), np.nan)
    probs = np.empty((n, 5), np.float64)
    if leaf.any():
        idx = np.flatnonzero(leaf)
        probs[idx] = evaluator.probs(boards[idx]) if known is None or ply > 0 else known[idx]
        lives = np.asarray(cube_lives(boards[idx], efficiency), np.float64)
        for kid, sel in _groups(kids[idx]):
            contexts, player = keys.keys[kid]
            rows = idx[sel]
            values[rows, :len(contexts)] = no_double_values_at(probs[rows], contexts, player, lives[sel])
    idx = np.flatnonzero(~leaf)
    if not len(idx):
        return values, probs
    rolled = np.repeat(boards[idx], len(ROLLS), axis=0)
    replies = generate(rolled, np.tile(ROLLS, (len(idx), 1)))
    if ply == 1:  # the replies are leaves: keep the probabilities they were chosen by
        best, known = choose_replies(evaluator, replies)
    else:
        best, known = best_replies(evaluator, replies), None
    replies = replies.results[best]
    child_of = {int(k): keys.child(int(k)) for k in np.unique(kids[idx])}
    child_kids = np.repeat(np.array([child_of[int(k)] for k in kids[idx]], np.int64), len(ROLLS))
    child_values, child_probs = _no_double(evaluator, replies, child_kids, keys, ply - 1, efficiency, known)
    probs[idx] = (flip(child_probs).reshape(len(idx), len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
    child_values = child_values.reshape(len(idx), len(ROLLS), -1)
    for kid, sel in _groups(kids[idx]):
        contexts, player = keys.keys[kid]
        opp = 1 - player
        columns = {s: j for j, s in enumerate(keys.keys[child_of[kid]][0])}
        rolls = child_values[sel]
        for j, state in enumerate(contexts):
            after = _other_side(_proper_values(rolls, columns, state, opp), state)
            # the weighted sum over the rolls, added in order (an accumulation is sequential), as Python's sum
            values[idx[sel], j] = np.add.accumulate(after * ROLL_WEIGHTS, axis=1)[:, -1]
    return values, probs


def _top_values(evaluator, boards: np.ndarray, kids: np.ndarray, keys: _Keys,
                ply: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_no_double` at the top of a search, through the evaluator's memo of searched nodes if it
    keeps one (:attr:`~bgzero.value.memo.MemoEvaluator.nodes`).

    An analysis searches a played move's result for its judgement and then, the same
    board with the same side on roll in the same cube states at the same depth, for the
    next cube decision; a node's values depend on it alone, so they are kept and reused.
    """
    nodes = getattr(evaluator, "nodes", None)
    if nodes is None or ply == 0:
        return _no_double(evaluator, boards, kids, keys, ply, gnubg_efficiency(ply))
    rows = np.ascontiguousarray(boards, np.int8).reshape(len(boards), -1)
    names = [(rows[i].tobytes(), keys.keys[k], ply) for i, k in enumerate(kids.tolist())]
    missing = [i for i, name in enumerate(names) if name not in nodes]
    if missing:
        todo = np.array(missing, np.int64)
        values, probs = _no_double(evaluator, boards[todo], kids[todo], keys, ply, gnubg_efficiency(ply))
        for j, i in enumerate(missing):
            nodes[names[i]] = (values[j, :len(names[i][1][0])].copy(), probs[j].copy())
    values, probs = np.full((len(boards), keys.width(kids)), np.nan), np.empty((len(boards), 5))
    for i, name in enumerate(names):
        v, probs[i] = nodes[name]
        values[i, :len(v)] = v
    return values, probs


def cube_values_at(evaluator, boards: np.ndarray, states: Sequence[MatchState], players,
                   ply: int) -> tuple[list[CubeEquities], np.ndarray]:
    """No double, double/take and double/pass values (money points or MWC) of each board's side on roll, at ``ply``.

    Every double must be legal. Also returns the cubeless probabilities at ``ply``.
    """
    players = np.asarray(players, np.int64).reshape(len(boards))
    keys = _Keys()
    kids = np.array([keys.id(_faced(s, int(p)), int(p)) for s, p in zip(states, players)], np.int64)
    values, probs = _top_values(evaluator, boards, kids, keys, ply)
    return [CubeEquities(float(v[0]), float(v[1]), pass_value(s, int(p)))
            for v, s, p in zip(values, states, players)], probs


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


def _results_values(evaluator, results: np.ndarray, pairs: list | None, pair_of: np.ndarray | None, ply: int):
    """Movers' values and normalised scores of ``results`` (opponent on roll) at ``ply``, and the probabilities.

    ``pairs`` lists the (state, mover) of the candidates, ``pair_of`` each candidate's index
    in it; ``pairs`` ``None``: cubeless equities.
    """
    if pairs is None:
        probs = evaluate_ply(evaluator, results, ply)
        value = -equity(probs)
        return value, value, probs
    assert pair_of is not None  # given with pairs
    keys = _Keys()
    pair_kid = np.array([keys.id(_faced(s, 1 - m), 1 - m) for s, m in pairs], np.int64)
    values, probs = _top_values(evaluator, results, pair_kid[pair_of], keys, ply)
    value, score = np.empty(len(results)), np.empty(len(results))
    for q, sel in _groups(pair_of):
        state, mover = pairs[q]
        columns = {s: j for j, s in enumerate(_faced(state, 1 - mover))}
        value[sel] = _other_side(_proper_values(values[sel], columns, state, 1 - mover), state)
        score[sel] = normalised_values(value[sel], state, mover)
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
    boards = len(moves.offsets) - 1
    owner = np.repeat(np.arange(boards), np.diff(moves.offsets))
    movers = np.asarray(players, np.int64).reshape(boards)
    if states is None:
        pairs, cand_pairs = None, None
    else:
        index: dict = {}
        board_pair = np.array([index.setdefault((s, int(p)), len(index)) for s, p in zip(states, movers)], np.int64)
        pairs, cand_pairs = list(index), board_pair[owner]
    levels = np.full((m, ply + 1), np.nan)
    value, levels[:, 0], probs = _results_values(evaluator, moves.results, pairs, cand_pairs, 0)
    value, probs = np.asarray(value, np.float64).copy(), np.asarray(probs, np.float64).copy()
    depth = np.zeros(m, np.int64)
    alive = np.arange(m)
    for level in range(1, ply + 1):
        flt = filters[min(level - 1, len(filters) - 1)]
        alive = filter_candidates(levels[alive, level - 1], owner[alive], alive, flt)
        if keep is not None:
            alive = np.union1d(alive, keep)
        value[alive], levels[alive, level], probs[alive] = _results_values(
            evaluator, moves.results[alive], pairs, None if cand_pairs is None else cand_pairs[alive], level)
        depth[alive] = level
    return MoveScores(value, levels, depth, probs)


def choose_for_score(evaluator, moves, states: Sequence[MatchState], players, ply: int,
                     filters=DEFAULT_FILTERS) -> np.ndarray:
    """Global index of each position's best candidate for its score and cube, at ``ply``; at 0 ply
    the evaluator's mover chooses (:func:`~bgzero.value.evaluator.checker_play`)."""
    scores = score_moves(checker_play(evaluator, ply), moves, states, players, ply, filters)
    return segment_argmax(np.where(scores.depth == ply, scores.value, -np.inf), moves.offsets)
