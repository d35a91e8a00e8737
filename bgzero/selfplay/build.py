"""Nets, evaluator and agent from a training config: the one recipe the learner and every worker share.

The learner and the self-play workers (local processes or Ray actors) must build the same
networks from the same config, or published weights would not fit; so the recipe lives
here, below both.
"""

from __future__ import annotations

import torch
from omegaconf import DictConfig
from torch import nn

from bgzero.agents.neural import NeuralAgent
from bgzero.selfplay.player import SelfPlayer
from bgzero.value.encode import get_encoder
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import NetConfig, ValueNet


def build_nets(cfg: DictConfig) -> nn.ModuleDict:
    """The contact network and, when ``net.race`` is set, a separate race network."""
    nets = nn.ModuleDict({"contact": ValueNet(NetConfig(num_inputs=get_encoder(cfg.encoder.name).num_inputs,
                                                        hidden=list(cfg.net.hidden), activation=cfg.net.activation))})
    if cfg.net.race:
        nets["race"] = ValueNet(NetConfig(num_inputs=get_encoder("race").num_inputs,
                                          hidden=list(cfg.net.race.hidden), activation=cfg.net.race.activation))
    return nets


def make_evaluator(nets: nn.ModuleDict, cfg: DictConfig) -> Evaluator:
    return Evaluator(nets["contact"], cfg.encoder.name, race_net=nets["race"] if "race" in nets else None,
                     exact_bearoff=cfg.net.exact_bearoff)


def self_play_agent(evaluator: Evaluator, cfg: DictConfig, seed: int) -> NeuralAgent:
    """The 0-ply agent self-play games are played with, exploring as ``cfg.selfplay`` says."""
    return NeuralAgent(evaluator, cfg.selfplay.epsilon, seed=seed, explore_top=cfg.selfplay.explore_top)


def self_player(cfg: DictConfig, seed: int) -> tuple[nn.ModuleDict, SelfPlayer]:
    """A worker's own CPU nets and the player that uses them; the backend loads weights into the nets."""
    torch.set_num_threads(1)
    nets = build_nets(cfg)
    agent = self_play_agent(make_evaluator(nets, cfg), cfg, seed)
    return nets, SelfPlayer(agent, cfg.selfplay.parallel_games, seed=seed)
