"""The cube inside a rollout: what a trial's end is worth to the rolled-out side, with the cube.

Money play counts points per unit of the starting cube; a match counts match-winning
chances through the match equity table and reports them as EMG, gnubg's normalised match
equity at the starting score and cube, so that cubeful results read alike in both.
Where a trial stops before the game ends (truncation, a bear-off database position) its
cubeful value is the cubeless estimate through Janowski's model with the cube life the
agents use (:func:`bgzero.agents.cube.cube_lives`), the arithmetic of the player's own
cube decisions.
"""

from __future__ import annotations

import numpy as np

from bgzero.agents.cube import cube_lives
from bgzero.cube import MatchState, award, match_winner, money_equity
from bgzero.cube.met import match_cubeful_mwc, mwc, mwc_to_emg


def match_mwc(state: MatchState, player: int) -> float:
    """``player``'s match-winning chance before the next game of ``state`` (1 or 0 once over)."""
    if state.over:
        return 1.0 if match_winner(state) == player else 0.0
    return mwc(state.away(player), state.away(1 - player), crawford=state.crawford)


def finished_value(state: MatchState, winner: int, points: int, root: MatchState, root_player: int) -> float:
    """A game won by ``winner`` for ``points`` in ``state``, for ``root_player`` in ``root``'s units."""
    if state.is_money:
        return (points if winner == root_player else -points) / root.cube.value
    return mwc_to_emg(match_mwc(award(state, winner, points), root_player), root, root_player)


def estimated_value(probs: np.ndarray, board: np.ndarray, state: MatchState, on_roll: int, root: MatchState,
                    root_player: int) -> float:
    """Cubeful value, for ``root_player``, of ``board`` with ``on_roll`` to roll holding ``probs``."""
    x = float(cube_lives(board[None])[0])
    probs = np.clip(probs, 0.0, 1.0)
    if state.is_money:
        value = money_equity(probs, state, on_roll, x) * state.cube.value / root.cube.value
        return value if on_roll == root_player else -value
    value = match_cubeful_mwc(probs, state, on_roll, x)
    return mwc_to_emg(value if on_roll == root_player else 1.0 - value, root, root_player)
