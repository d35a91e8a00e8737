"""One game as an environment sees it: whose turn, the dice, the legal whole plays, the score.

The "play" encoding: action ``i`` picks the ``i``-th distinct result of
:func:`bgzero.engine.movegen.generate` for the board and roll. ``PLAY_ACTIONS`` = 3060 is
a proven bound (docs/env.md): on a double each of at most 15 checkers takes k_i steps
with sum k_i <= 4, and the result is a function of (k_1..k_15), so there are at most
C(18, 4) = 3060 results; a non-double has at most 15 * 15 + 15 + 30. A roll that cannot
be played has one action, 0, the pass.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from bgzero.engine.board import START
from bgzero.engine.game import game_results, opening_roll, roll
from bgzero.engine.movegen import legal_results
from bgzero.errors import ConfigError, IllegalMoveError
from bgzero.value.encode import get_encoder

PLAY_ACTIONS = 3060
REWARDS = ("money", "win")


def observation_space(encoder: str) -> spaces.Dict:
    """Encoder features of the board from the side on roll, its roll, and the legal-action mask."""
    n = get_encoder(encoder).num_inputs
    return spaces.Dict({
        "observation": spaces.Box(-np.inf, np.inf, (n,), np.float32),
        "dice": spaces.Box(1, 6, (2,), np.int8),
        "action_mask": spaces.Box(0, 1, (PLAY_ACTIONS,), np.int8),
    })


class Table:
    """A cubeless game between players 0 and 1, its dice from the generator given to :meth:`reset`."""

    def __init__(self, encoder: str = "tesauro198", reward: str = "money"):
        if reward not in REWARDS:
            raise ConfigError(f"unknown reward {reward!r}; valid: {', '.join(REWARDS)}")
        self.encoder = get_encoder(encoder)
        self.reward = reward
        self.rng = np.random.default_rng()

    def reset(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.player, dice = opening_roll(rng)
        self.board = START.copy()
        self.winner, self.points = None, 0
        self._turn(dice)

    def _turn(self, dice) -> None:
        self.dice = np.array(dice, np.int8)
        results, _ = legal_results(self.board, self.dice)
        self.results = results.copy()

    def mask(self) -> np.ndarray:
        mask = np.zeros(PLAY_ACTIONS, np.int8)
        mask[:len(self.results)] = 1
        return mask

    def observe(self) -> dict:
        return {"observation": self.encoder(self.board[None])[0], "dice": self.dice.copy(), "action_mask": self.mask()}

    def afterstates(self) -> np.ndarray:
        """The legal plays' results, the opponent on roll: what a value-based agent scores."""
        return self.results

    def play(self, action: int) -> bool:
        """Play whole play ``action`` for the side on roll; True when it ended the game."""
        if not 0 <= int(action) < len(self.results):
            raise IllegalMoveError(f"action {action} is not legal: {len(self.results)} plays, indices 0-{len(self.results) - 1}")
        self.board = self.results[int(action)].copy()
        loss = int(game_results(self.board))
        if loss:
            self.winner = self.player
            self.points = 1 if self.reward == "win" else -loss
            return True
        self.player ^= 1
        self._turn(roll(self.rng))
        return False
