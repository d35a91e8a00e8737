"""Gymnasium single-agent backgammon: the learner against any agent spec (random, pubeval, strong, gnubg@0, a checkpoint)."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from bgzero.agents.specs import make_agent
from bgzero.engine.movegen import generate
from bgzero.env.table import Table, check_options, observation_space


class BackgammonEnv(gymnasium.Env):
    """The learner is player 0; the opponent's turns are played inside :meth:`step`, whole plays
    chosen by the agent the spec names, whatever the learner's encoding.

    The reward, at the game's end only, is the learner's points (``reward="money"``) or +-1 (``"win"``).
    An illegal action ends the episode with -3 (-1 with ``"win"``) and ``info["illegal_action"]``,
    or raises with ``illegal="raise"``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponent: str = "random", encoder: str = "tesauro198", reward: str = "money",
                 action_encoding: str = "play", illegal: str = "lose", render_mode: str | None = None):
        check_options(reward, action_encoding, illegal)
        self.opponent = make_agent(opponent)
        self.table = Table(encoder, reward, action_encoding, illegal)
        self.observation_space = observation_space(encoder, action_encoding)
        self.action_space = spaces.Discrete(self.table.actions)
        self.render_mode = render_mode

    def action_masks(self) -> np.ndarray:
        """The legal actions, by the name sb3-contrib's MaskablePPO asks for."""
        return self.table.mask().astype(bool)

    def afterstates(self) -> np.ndarray:
        return self.table.afterstates()

    def _opponent_moves(self) -> bool:
        """Play the opponent's turn if it is on roll; True when the game ended.

        One turn, not a loop: a whole play either ends the game or passes the roll
        (:meth:`Table.play_result`), so after it the learner is on roll and nothing here can run on."""
        t = self.table
        if t.player != 1:
            return False
        moves = generate(t.board[None], t.dice[None].astype(np.int64))
        return t.play_result(moves.results[int(self.opponent.choose(t.board[None], t.dice[None], moves)[0])])

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if hasattr(self.opponent, "rng"):  # a random opponent draws from the episode's seed too
            self.opponent.rng = np.random.default_rng(self.np_random.integers(2**63))
        self.table.reset(self.np_random)
        self._opponent_moves()
        return self.table.observe(), {}

    def step(self, action):
        t = self.table
        mover = t.player
        ended = t.play(action)
        if not ended and t.player != mover:
            ended = self._opponent_moves()
        reward = float((1 if t.winner == 0 else -1) * abs(t.points)) if ended else 0.0
        return t.observe(), reward, ended, False, ({"illegal_action": True} if t.illegal_action else {})

    def render(self):
        from bgzero.engine.board import render_ascii
        return render_ascii(self.table.board)
