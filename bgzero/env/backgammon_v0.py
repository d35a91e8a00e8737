"""PettingZoo AEC backgammon: two agents, dice rolled inside, whole plays or checker steps as actions."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from bgzero.env.table import Table, observation_space


def env(**kwargs) -> "raw_env":
    """The environment, as PettingZoo's classic games name their constructor."""
    return raw_env(**kwargs)


class raw_env(AECEnv):
    """``reward="money"`` scores the points won (gammons 2, backgammons 3), ``"win"`` scores +-1.

    In the checker encoding the side on roll acts once per step until its play is complete.
    An illegal action ends the game, the offender losing 3 points (1 with ``reward="win"``) and
    ``infos[agent]["illegal_action"]`` set; ``illegal="raise"`` raises instead.
    """

    metadata = {"name": "bgzero_backgammon_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, encoder: str = "tesauro198", reward: str = "money", action_encoding: str = "play",
                 illegal: str = "lose", render_mode: str | None = None):
        super().__init__()
        self.table = Table(encoder, reward, action_encoding, illegal)
        self.possible_agents = ["player_0", "player_1"]
        self.render_mode = render_mode
        self._obs_space = observation_space(encoder, action_encoding)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.table.actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.table.reset(self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.table.player]

    def observe(self, agent):
        obs = self.table.observe()
        if agent != self.agent_selection:
            obs["action_mask"] = np.zeros(self.table.actions, np.int8)
        return obs

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        if self.table.play(action):
            win = self.table.points
            self.rewards = {a: (win if a == agent else -win) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
            if self.table.illegal_action:
                self.infos[agent]["illegal_action"] = True
        else:
            self.agent_selection = self.agents[self.table.player]
        self._accumulate_rewards()

    def render(self):
        from bgzero.engine.board import render_ascii
        return render_ascii(self.table.board)

    def close(self):
        pass
