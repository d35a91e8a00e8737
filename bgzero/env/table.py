"""One game as an environment sees it: whose turn, the dice, the legal actions, the score.

Two action encodings (docs/env.md):

* "play": action ``i`` picks the ``i``-th distinct result of :func:`bgzero.engine.movegen.generate`
  for the board and roll. ``PLAY_ACTIONS`` = 3060 is a proven bound: on a double each of at
  most 15 checkers takes k_i steps with sum k_i <= 4, and the result is a function of
  (k_1..k_15), so there are at most C(18, 4) = 3060 results; a non-double has at most
  15 * 15 + 15 + 30. A roll that cannot be played has one action, 0, the pass.
* "checker": one checker by one die per action, pgx's 156 actions (:mod:`bgzero.env.checker`).

An action the mask excludes ends the game as a loss for the side that chose it
(``illegal="lose"``, as PettingZoo's classic games do, so that Gymnasium's ``check_env`` and
unmasked learners run), or raises :class:`IllegalMoveError` (``illegal="raise"``).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from bgzero.engine.board import START
from bgzero.engine.game import game_results, opening_roll, roll
from bgzero.engine.movegen import legal_results
from bgzero.env import checker
from bgzero.errors import ConfigError, IllegalMoveError
from bgzero.value.encode import get_encoder

PLAY_ACTIONS = 3060
CHECKER_ACTIONS = checker.CHECKER_ACTIONS
ENCODINGS = {"play": PLAY_ACTIONS, "checker": CHECKER_ACTIONS}
REWARDS = ("money", "win")
ILLEGAL = ("lose", "raise")
MOST_POINTS = 3  # a backgammon: the illegal-action penalty, so no legal play ever scores worse
MAX_GAME_PLIES = 10_000
"""The bound on loops that play games to their end (examples/, scripts/check_env_rules.py): a game
has no length limit in the rules and ends with probability 1, so such a loop needs one. The longest
of 200,000 uniformly random games (bgzero's vector env, seed 0, 2026-12-04) took 500 plies (mean 96);
a loop that reaches 10,000 raises rather than running on, and means a bug or a policy that never
ends its games."""


def check_options(reward: str, action_encoding: str, illegal: str) -> None:
    """One-line errors for the options every environment shares, before any work."""
    for name, value, valid in (("reward", reward, REWARDS), ("action_encoding", action_encoding, tuple(ENCODINGS)),
                               ("illegal", illegal, ILLEGAL)):
        if value not in valid:
            raise ConfigError(f"unknown {name} {value!r}; valid: {', '.join(valid)}")


def illegal_penalty(reward: str) -> int:
    """Points an illegal action loses: the most a game can lose."""
    return MOST_POINTS if reward == "money" else 1


def observation_space(encoder: str, action_encoding: str = "play") -> spaces.Dict:
    """Encoder features of the board from the side on roll, its roll, and the legal-action mask;
    the checker encoding adds the dice still to play mid-turn."""
    n = get_encoder(encoder).num_inputs
    fields: dict[str, spaces.Space] = {
        "observation": spaces.Box(-np.inf, np.inf, (n,), np.float32),
        "dice": spaces.Box(1, 6, (2,), np.int8),
        "action_mask": spaces.Box(0, 1, (ENCODINGS[action_encoding],), np.int8),
    }
    if action_encoding == "checker":
        fields["dice_left"] = spaces.Box(0, 6, (4,), np.int8)
    return spaces.Dict(fields)


class Table:
    """A cubeless game between players 0 and 1, its dice from the generator given to :meth:`reset`.

    ``board`` has ``player`` on roll; in the checker encoding it is the board mid-turn, the
    steps made so far on it. ``points`` is what the last mover won when the game ended.
    """

    winner: int | None  # the player who won, once the game has ended

    def __init__(self, encoder: str = "tesauro198", reward: str = "money", action_encoding: str = "play",
                 illegal: str = "lose"):
        check_options(reward, action_encoding, illegal)
        self.encoder = get_encoder(encoder)
        self.reward = reward
        self.action_encoding = action_encoding
        self.actions = ENCODINGS[action_encoding]
        self.illegal = illegal
        self.rng = np.random.default_rng()

    def reset(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.player, dice = opening_roll(rng)
        self.board = START.copy()
        self.winner, self.points, self.illegal_action = None, 0, False
        self._turn(dice)

    def _turn(self, dice) -> None:
        self.dice = np.array(dice, np.int8)
        if self.action_encoding == "play":
            results, _ = legal_results(self.board, self.dice)
            self.results = results.copy()
            return
        self._left, self._need, self._only = np.zeros((1, 4), np.int8), np.zeros(1, np.int64), np.zeros(1, np.int8)
        checker.start_turns(self.board[None], self.dice[None], np.zeros(1, np.int64), self._left, self._need, self._only)
        self._mask = np.zeros((1, CHECKER_ACTIONS), np.int8)
        checker.masks(self.board[None], self._left, self._need, self._only, self._mask)

    def mask(self) -> np.ndarray:
        if self.action_encoding == "checker":
            return self._mask[0].copy()
        mask = np.zeros(PLAY_ACTIONS, np.int8)
        mask[:len(self.results)] = 1
        return mask

    def observe(self) -> dict:
        obs = {"observation": self.encoder(self.board[None])[0], "dice": self.dice.copy(), "action_mask": self.mask()}
        if self.action_encoding == "checker":
            obs["dice_left"] = np.sort(self._left[0])[::-1].copy()
        return obs

    def afterstates(self) -> np.ndarray:
        """The legal plays' results, the opponent on roll: what a value-based agent scores."""
        if self.action_encoding == "checker":
            raise ConfigError("afterstates() needs action_encoding='play': the checker encoding plays one step at a time")
        return self.results

    def legal(self, action) -> bool:
        a = int(action)
        return 0 <= a < self.actions and bool(self.mask()[a])

    def play(self, action) -> bool:
        """Play ``action`` for the side on roll; True when the game ended (``points`` then says how).

        In the checker encoding a step that leaves dice to play keeps the same side on roll.
        """
        if not self.legal(action):
            legal = np.flatnonzero(self.mask())
            if self.illegal == "raise":
                raise IllegalMoveError(f"action {action} is not legal here: legal actions are {legal.tolist()}")
            self.winner, self.points, self.illegal_action = self.player ^ 1, -illegal_penalty(self.reward), True
            return True
        if self.action_encoding == "play":
            self.board = self.results[int(action)].copy()
        else:
            board = self.board[None].copy()
            checker.step(board, self._left, self._need, self._only, np.array([int(action)]), np.zeros(1, np.int64))
            if self._need[0] > 0:
                self.board = board[0]
                checker.masks(board, self._left, self._need, self._only, self._mask)
                return False
            self.board = board[0, ::-1].copy()
        return self._moved()

    def play_result(self, result: np.ndarray) -> bool:
        """End the turn with a whole play's result (sides swapped), as an agent outside the
        encoding chose it from :func:`generate`; True when the game ended."""
        self.board = np.array(result, np.int8)
        return self._moved()

    def _moved(self) -> bool:
        loss = int(game_results(self.board))
        if loss:
            self.winner = self.player
            self.points = 1 if self.reward == "win" else -loss
            return True
        self.player ^= 1
        self._turn(roll(self.rng))
        return False
