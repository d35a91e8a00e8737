"""Rollouts: what a position is worth, by playing it out many times, many positions at once.

:func:`rollout_positions` rolls out positions before the roll; :func:`rollout_plays` the
best candidate plays of a position and roll, all with the same dice (common random
numbers). Both run in lockstep (:mod:`bgzero.rollout.lockstep`) over batches that any
number of processes or Ray actors share out without changing a number
(:mod:`bgzero.rollout.parallel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bgzero.cube import MatchState
from bgzero.engine.movegen import generate
from bgzero.engine.notation import check_dice, format_steps
from bgzero.errors import ConfigError
from bgzero.rollout.lockstep import RolloutSettings
from bgzero.rollout.parallel import PlayerSpec, rollout
from bgzero.rollout.players import RolloutPlayer, make_player
from bgzero.rollout.result import RolloutResult
from bgzero.value.probs import equity

__all__ = ["PlayerSpec", "RolledPlay", "RolloutPlayer", "RolloutResult", "RolloutSettings", "make_player",
           "rollout", "rollout_document", "rollout_plays", "rollout_positions"]


def rollout_positions(boards: np.ndarray, player: RolloutPlayer | PlayerSpec, settings: RolloutSettings,
                      states: Sequence[MatchState] | None = None, root_players: Sequence[int] | None = None,
                      **run) -> list[RolloutResult]:
    """Roll out positions (side on roll, before it rolls); ``run``: processes, backend, progress."""
    return rollout(boards, player, settings, states, root_players, **run)


@dataclass(frozen=True)
class RolledPlay:
    """One candidate play, in gnubg notation, and its rollout from the mover's side."""

    move: str
    result: RolloutResult


def rollout_plays(board: np.ndarray, dice, player: RolloutPlayer | PlayerSpec, settings: RolloutSettings,
                  top: int = 5, state: MatchState | None = None, player_on_roll: int = 0, ranker=None,
                  with_position: bool = False, **run) -> tuple[RolloutResult | None, list[RolledPlay]]:
    """Roll out the ``top`` best plays of ``dice`` from ``board``, best first by rollout equity.

    The candidates are ranked at 0 ply by ``ranker`` (anything with ``probs``; the player's
    judge by default); each play's rollout starts with the opponent on roll, and all share
    the same dice. Cubeful rollouts order them by cubeful equity. With ``with_position``
    the position before the roll is rolled out in the same lockstep run, and its result
    comes first (else ``None``).
    """
    if top < 1:
        raise ConfigError(f"top={top}: roll out at least one play")
    board = np.asarray(board, np.int8)
    moves = generate(board[None], np.array([check_dice(dice)], np.int8))
    if ranker is None:
        ranker = (player.build() if isinstance(player, PlayerSpec) else player).judge
    order = np.arange(len(moves.results))
    if ranker is not None and len(order) > 1:
        order = np.argsort(equity(ranker.probs(moves.results)), kind="stable")  # best for the mover first
    order = order[:top]
    roots = moves.results[order]
    on_roll = [1 - player_on_roll] * len(order)
    if with_position:
        roots, on_roll = np.concatenate([board[None], roots]), [player_on_roll] + on_roll
    states = [state] * len(roots) if state is not None else None
    results = rollout(roots, player, settings, states, on_roll, **run)
    position = results.pop(0) if with_position else None
    plays = [RolledPlay(format_steps(board, moves.steps_of(k)), r.flipped())
             for k, r in zip(order.tolist(), results)]
    key = (lambda p: -p.result.cubeful_equity) if settings.cubeful else (lambda p: -p.result.equity)
    return position, sorted(plays, key=key)


def rollout_document(board: np.ndarray, dice, player: RolloutPlayer | PlayerSpec, settings: RolloutSettings,
                     state: MatchState | None = None, player_on_roll: int = 0, top: int = 5, **run) -> dict:
    """A position's rollout before the roll, and with ``dice`` its ``top`` plays too, as JSON-ready data.

    ``probs``, ``equity``, ``equity_se`` (and ``cubeful_equity``, ``cubeful_se`` when cubeful),
    ``trials``; with dice, ``dice`` and ``moves``, each with its ``move`` in gnubg notation.
    What ``bgzero-rollout`` writes and ``/api/rollout`` answers.
    """
    state = state if state is not None else MatchState()
    if dice is None:
        return rollout_positions(np.asarray(board)[None], player, settings, [state], [player_on_roll], **run)[0].as_dict()
    position, plays = rollout_plays(board, dice, player, settings, top=top, state=state,
                                    player_on_roll=player_on_roll, with_position=True, **run)
    assert position is not None  # with_position
    return {**position.as_dict(), "dice": list(dice),
            "moves": [{"move": p.move or "(no move)", **p.result.as_dict()} for p in plays]}
