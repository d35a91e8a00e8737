"""Gymnasium single-agent backgammon: the learner against any agent spec (random, pubeval, strong, gnubg@0, a checkpoint)."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from bgzero.agents.specs import make_agent
from bgzero.engine.movegen import generate
from bgzero.env.table import PLAY_ACTIONS, Table, observation_space


class BackgammonEnv(gymnasium.Env):
    """The learner is player 0; the opponent's turns are played inside :meth:`step`.

    The reward, at the game's end only, is the learner's points (``reward="money"``) or +-1 (``"win"``).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponent: str = "random", encoder: str = "tesauro198", reward: str = "money",
                 render_mode: str | None = None):
        self.opponent = make_agent(opponent)
        self.table = Table(encoder, reward)
        self.observation_space = observation_space(encoder)
        self.action_space = spaces.Discrete(PLAY_ACTIONS)
        self.render_mode = render_mode

    def action_masks(self) -> np.ndarray:
        """The legal actions, by the name sb3-contrib's MaskablePPO asks for."""
        return self.table.mask().astype(bool)

    def afterstates(self) -> np.ndarray:
        return self.table.afterstates()

    def _opponent_moves(self) -> bool:
        """Play the opponent's turns until the learner is on roll; True when the game ended."""
        while self.table.player == 1:
            t = self.table
            moves = generate(t.board[None], t.dice[None].astype(np.int64))
            if t.play(int(self.opponent.choose(t.board[None], t.dice[None], moves)[0])):
                return True
        return False

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if hasattr(self.opponent, "rng"):  # a random opponent draws from the episode's seed too
            self.opponent.rng = np.random.default_rng(self.np_random.integers(2**63))
        self.table.reset(self.np_random)
        self._opponent_moves()
        return self.table.observe(), {}

    def step(self, action):
        ended = self.table.play(action)
        sign = 1
        if not ended:
            ended = self._opponent_moves()
            sign = -1
        reward = float(sign * self.table.points) if ended else 0.0
        return self.table.observe(), reward, ended, False, {}

    def render(self):
        from bgzero.engine.board import render_ascii
        return render_ascii(self.table.board)
