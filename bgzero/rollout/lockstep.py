"""The lockstep rollout: many trials of many positions advanced together, one ply at a time.

Every live trial of a batch (any mix of positions and trial numbers) moves at once: one
move generation and one network forward per ply for all of them. All trials of a batch
start together, so they share the ply count: ply ``k`` is the ``k``-th roll of each game,
thrown by the rolled-out side when ``k`` is even.

Variance reduction, as gnubg does it: before each roll the judge finds, for each of the
21 rolls, the value of its best 0-ply play; the luck of the roll thrown is its value
minus the chance-weighted mean over the 21. Summed over the game from the rolled-out
side's view and subtracted from the outcome, it leaves the mean unchanged (each roll's
luck has mean zero) and removes most of the dice's noise. Positions are evaluated once
however many trials stand on them (all trials of a position share the first one).

A trial ends when its game does, at a position of the exact two-sided bear-off database
(its exact value), at the truncation ply (the judge's evaluation), or with the cube, on a
passed double.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from bgzero.cube import MatchState, after_take, drop_points, may_double, points_for
from bgzero.engine import rowbits
from bgzero.engine.bearoff.probs import bearoff_probs
from bgzero.engine.bearoff.two_sided import MAX_CHECKERS
from bgzero.engine.distinct import distinct_rows
from bgzero.engine.game import ROLL_WEIGHTS, ROLLS, check_length, game_results
from bgzero.engine.movegen import generate
from bgzero.errors import ConfigError
from bgzero.rollout.cubeful import estimated_value, finished_value
from bgzero.rollout.dice import DICE, TO_DISTINCT, trial_rolls
from bgzero.rollout.players import RolloutPlayer
from bgzero.value.probs import flip, result_probs

VR_SLICE = 64
"""Positions expanded over the 21 rolls together: ~27,000 candidates, whose encodings stay
a few tens of MB; larger slices only add memory traffic."""

MOVE_SLICE = 2048
"""Positions whose moves are generated and scored together on the roll thrown."""


@dataclass(frozen=True)
class RolloutSettings:
    """How to roll out; every field is checked by :meth:`check` before any work."""

    trials: int = 1296
    """Trials per position (at most; ``se`` or ``seconds`` may stop earlier)."""
    truncate: int | None = None
    """Plies after which a trial stops and the judge evaluates; ``None`` plays games out."""
    vr: bool = True
    """Variance reduction: subtract each roll's luck."""
    cubeful: bool = False
    """Play with the cube (the player's own cube decisions) and report cubeful equities."""
    seed: int = 0
    """Seed of the dice; the same seed gives the same numbers however the work is split."""
    database: bool = True
    """End a trial at a two-sided bear-off database position with its exact value."""
    se: float | None = None
    """Stop once every position's equity standard error (cubeful where cubeful) is at most this."""
    seconds: float | None = None
    """Stop after this many seconds, checked as each batch ends (the trials done are then machine-dependent)."""
    batch: int = 2592
    """Trials advanced together in one lockstep batch (the unit of work of a process)."""

    def check(self) -> RolloutSettings:
        if self.trials < 1:
            raise ConfigError(f"rollout trials={self.trials}: need at least 1")
        if self.truncate is not None and self.truncate < 1:
            raise ConfigError(f"rollout truncate={self.truncate}: give a number of plies >= 1, or null for none")
        if self.se is not None and not self.se > 0:
            raise ConfigError(f"rollout se={self.se}: a target standard error must be positive")
        if self.seconds is not None and not self.seconds > 0:
            raise ConfigError(f"rollout seconds={self.seconds}: a time budget must be positive")
        if self.batch < 1:
            raise ConfigError(f"rollout batch={self.batch}: need at least 1")
        if self.seed < 0:
            raise ConfigError(f"rollout seed={self.seed}: seeds are whole numbers >= 0")
        return self


def check_player(player: RolloutPlayer, settings: RolloutSettings) -> None:
    """Refuse a rollout the player cannot do, before any work."""
    if player.judge is None and (settings.vr or settings.truncate is not None):
        raise ConfigError(f"agent {player.agent.name!r} has no evaluation of its own: variance reduction and "
                          "truncation need a judge (judge=checkpoint:PATH), or set vr=false truncate=null")


@dataclass
class ChunkOutcome:
    """Per trial of a batch: the variance-reduced probabilities, and the cubeful value, for the root side."""

    probs: np.ndarray  # (M, 5) float64
    cubeful: np.ndarray | None  # (M,) float64


def flip_delta(delta: np.ndarray) -> np.ndarray:
    """A difference of probabilities seen by the other side (the linear part of :func:`flip`)."""
    return np.stack([-delta[..., 0], delta[..., 3], delta[..., 4], delta[..., 1], delta[..., 2]], axis=-1)


def equity_delta(delta: np.ndarray) -> np.ndarray:
    """The cubeless equity of a difference of probabilities (the linear part of :func:`equity`)."""
    return 2 * delta[..., 0] + delta[..., 1] - delta[..., 3] + delta[..., 2] - delta[..., 4]


def in_two_sided_database(boards: np.ndarray) -> np.ndarray:
    """Both sides home with at most the two-sided database's checkers each."""
    return _in_database(np.ascontiguousarray(boards, np.int8).reshape(-1, 2, 25), MAX_CHECKERS)


@njit(cache=True, nogil=True)
def _in_database(boards, most):
    out = np.empty(boards.shape[0], np.bool_)
    for k in range(boards.shape[0]):
        inside = True
        for side in range(2):
            row = boards[k, side]
            inside &= rowbits.above(row, 0) >> 6 == 0 and rowbits.total(row) <= most  # all home, few enough
        out[k] = inside
    return out


def _roll_values(player: RolloutPlayer, boards: np.ndarray, want_results: bool):
    """For each board and each of the 21 rolls: the mover's probabilities after its best 0-ply
    play, (U, 21, 5), and (when ``want_results``) that play's result, (U, 21, 2, 25)."""
    values = np.empty((len(boards), len(ROLLS), 5), np.float64)
    results = np.empty((len(boards), len(ROLLS), 2, 25), np.int8) if want_results else None
    for lo in range(0, len(boards), VR_SLICE):
        part = boards[lo:lo + VR_SLICE]
        moves = generate(np.repeat(part, len(ROLLS), axis=0), np.tile(ROLLS, (len(part), 1)))
        best, probs = player.judge.best(moves)
        values[lo:lo + len(part)] = flip(probs.astype(np.float64)).reshape(len(part), len(ROLLS), 5)
        if want_results:
            results[lo:lo + len(part)] = moves.results[best].reshape(len(part), len(ROLLS), 2, 25)
    return values, results


def _play(player: RolloutPlayer, boards: np.ndarray, rolls: np.ndarray, look: bool) -> tuple[np.ndarray, bool]:
    """The results of the player's moves for the rolls thrown (indices into :data:`DICE`),
    and whether to ``look`` for repeats at the next ply.

    A deterministic player plays each distinct board and roll once: early in a rollout many
    trials stand on the same position (all of them at its first roll). The trials soon part
    (by the sixth ply almost none meet), so once a ply finds under 1% of them repeated the
    rest of the batch stops looking. A player that draws its moves at random draws one for
    every trial, so the trials stay independent."""
    if not (player.greedy or player.agent.deterministic):
        return _play_each(player, boards, DICE[rolls]), False
    distinct = TO_DISTINCT[rolls]
    if not look:
        return _play_each(player, boards, ROLLS[distinct]), False
    first, inverse = distinct_rows(np.concatenate([boards.reshape(len(boards), 50), distinct[:, None].astype(np.int8)], axis=1))
    return _play_each(player, boards[first], ROLLS[distinct[first]])[inverse], len(first) < 0.99 * len(boards)


def _play_each(player: RolloutPlayer, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """The player's moves for each board and its dice, in slices of :data:`MOVE_SLICE`."""
    out = np.empty_like(boards)
    for lo in range(0, len(boards), MOVE_SLICE):
        b, d = boards[lo:lo + MOVE_SLICE], dice[lo:lo + MOVE_SLICE]
        moves = generate(b, d)
        out[lo:lo + len(b)] = moves.results[player.choose(b, d, moves)]
    return out


class _Cube:
    """The cube state of every trial of a batch, and what ended trials are worth with it."""

    def __init__(self, states: list[MatchState], root_players: list[int], root_idx: np.ndarray):
        self.roots = [states[r] for r in root_idx]
        self.root_players = [root_players[r] for r in root_idx]
        self.states = list(self.roots)
        self.values = np.zeros(len(root_idx))

    def on_roll(self, items: np.ndarray, ply: int) -> list[int]:
        return [self.root_players[i] if ply % 2 == 0 else 1 - self.root_players[i] for i in items.tolist()]

    def turn(self, player: RolloutPlayer, items: np.ndarray, boards: np.ndarray, ply: int) -> np.ndarray:
        """Doubles and answers before the roll; returns the positions in ``items`` of passed doubles."""
        on_roll = self.on_roll(items, ply)
        ready = [k for k, (i, p) in enumerate(zip(items.tolist(), on_roll)) if may_double(self.states[i], p)]
        if not ready:
            return np.empty(0, np.int64)
        ready = np.array(ready)
        states = [self.states[i] for i in items[ready].tolist()]
        doublers = np.array([on_roll[k] for k in ready.tolist()])
        doubled = np.asarray(player.agent.double_decision(boards[ready], states, doublers), bool)
        if not doubled.any():
            return np.empty(0, np.int64)
        ready, states, doublers = ready[doubled], [s for s, d in zip(states, doubled) if d], doublers[doubled]
        takes = np.asarray(player.agent.take_decision(boards[ready], states, doublers), bool)
        passed = []
        for k, state, doubler, take in zip(ready.tolist(), states, doublers.tolist(), takes.tolist()):
            i = int(items[k])
            if take:
                self.states[i] = after_take(state, doubler)
            else:
                self.values[i] = finished_value(state, doubler, drop_points(state), self.roots[i],
                                                self.root_players[i])
                passed.append(k)
        return np.array(passed, np.int64)

    def scale(self, items: np.ndarray) -> np.ndarray:
        """Each trial's stake now, in units of its starting cube (to weigh its cubeless luck)."""
        return np.array([self.states[i].cube.value / self.roots[i].cube.value for i in items.tolist()])

    def game_over(self, items: np.ndarray, results: np.ndarray, ply: int) -> None:
        """Trials whose mover at ``ply`` has just borne off; ``results`` for the loser now on roll."""
        for i, mover, kind in zip(items.tolist(), self.on_roll(items, ply), (-results).tolist()):
            state = self.states[i]
            points = points_for(kind, state.cube.value, jacoby=state.jacoby_active)
            self.values[i] = finished_value(state, mover, points, self.roots[i], self.root_players[i])

    def estimate(self, items: np.ndarray, boards: np.ndarray, probs: np.ndarray, on_roll: list[int]) -> None:
        """Trials stopped before the end: ``probs`` for the side on roll of ``boards``."""
        for k, (i, p) in enumerate(zip(items.tolist(), on_roll)):
            self.values[i] = estimated_value(probs[k], boards[k], self.states[i], p, self.roots[i],
                                             self.root_players[i])


def run_chunk(player: RolloutPlayer, roots: np.ndarray, root_idx: np.ndarray, trial_idx: np.ndarray,
              settings: RolloutSettings, states: list[MatchState] | None = None,
              root_players: list[int] | None = None) -> ChunkOutcome:
    """Roll out trials ``trial_idx`` of positions ``roots[root_idx]`` (side on roll before rolling).

    ``states`` and ``root_players`` (per root: the match state and the player on roll)
    matter only with ``settings.cubeful``. Returns per trial the variance-reduced
    probabilities of the root's side on roll, and the cubeful value when cubeful.
    """
    n = len(root_idx)
    boards = roots[root_idx].astype(np.int8, copy=True)
    value = np.zeros((n, 5))
    luck = np.zeros((n, 5))
    cube_luck = np.zeros(n)
    cube = _Cube(states or [MatchState()] * len(roots), root_players or [0] * len(roots), root_idx) \
        if settings.cubeful else None
    live = np.arange(n)
    ply = 0
    look = True  # for repeated boards and rolls (:func:`_play`)

    def finish(items, probs_on_roll, on_roll_is_root):
        value[items] = probs_on_roll if on_roll_is_root else flip(probs_on_roll)

    while live.size:
        mover_is_root = ply % 2 == 0
        if cube is not None:
            passed = cube.turn(player, live, boards[live], ply)
            if passed.size:
                finish(live[passed], player.judge.probs(boards[live[passed]]).astype(np.float64), mover_is_root)
                live = np.delete(live, passed)
                if not live.size:
                    break
        b = boards[live]
        rolls = trial_rolls(settings.seed, trial_idx[live], ply)
        nxt = None
        if settings.vr:
            first, inverse = distinct_rows(b)
            values, plays = _roll_values(player, b[first], player.greedy)
            mean = (values * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
            thrown = TO_DISTINCT[rolls]
            delta = values[inverse, thrown] - mean[inverse]
            delta = delta if mover_is_root else flip_delta(delta)
            luck[live] += delta
            if cube is not None:
                cube_luck[live] += equity_delta(delta) * cube.scale(live)
            if player.greedy:
                nxt = plays[inverse, thrown]
        if nxt is None:
            nxt, look = _play(player, b, rolls, look)
        boards[live] = nxt
        results = game_results(nxt)  # for the side now on roll, the mover's opponent
        over = results != 0
        if over.any():
            finish(live[over], result_probs(results[over]).astype(np.float64), not mover_is_root)
            if cube is not None:
                cube.game_over(live[over], results[over], ply)
        stop = ~over & in_two_sided_database(nxt) if settings.database else np.zeros(len(live), bool)
        if settings.truncate is not None and ply + 1 >= settings.truncate:
            stop = ~over
        if stop.any():
            probs = (bearoff_probs(nxt[stop]) if settings.truncate is None or ply + 1 < settings.truncate
                     else _truncated_probs(player, nxt[stop], settings.database))
            finish(live[stop], probs.astype(np.float64), not mover_is_root)
            if cube is not None:
                cube.estimate(live[stop], nxt[stop], probs, cube.on_roll(live[stop], ply + 1))
        live = live[~(over | stop)]
        ply += 1
        if live.size:
            check_length(ply)
    final = value - luck
    return ChunkOutcome(final, cube.values - cube_luck if cube is not None else None)


def _truncated_probs(player: RolloutPlayer, boards: np.ndarray, database: bool) -> np.ndarray:
    """The value where a trial is truncated: exact in the two-sided database, else the judge's."""
    probs = np.empty((len(boards), 5))
    exact = in_two_sided_database(boards) if database else np.zeros(len(boards), bool)
    if exact.any():
        probs[exact] = bearoff_probs(boards[exact])
    if (~exact).any():
        probs[~exact] = player.judge.probs(boards[~exact])
    return probs

