"""Self-play on a Ray cluster (``selfplay.backend=ray``): workers as actors on any node.

The learner stays in the driver. Each publish puts the flat weight vector into Ray's object
store once; every chunk request carries the newest reference, so an actor reads the weights
from its node's shared memory once per chunk, whichever node it runs on. Each actor keeps
``selfplay.ray.in_flight`` requests queued so that it never waits for the learner. An actor
that crashes (its process killed, its node lost) is replaced by a fresh one on whatever
node has room; the run loses only the chunks that actor had in flight. An actor that
cannot even start stops the run: its replacements would not start either.

A learner that dies leaves no orphan here, so the actors need no ``getppid`` watch as local
workers do (their parent is a Ray worker pool, not the learner): they are not detached,
and Ray ends an actor when its owner, the driver, is gone; the Ray instance ``ray.init``
starts on this machine is fate-shared with the driver as well.
"""

from __future__ import annotations

import warnings

import numpy as np
import ray
import torch
from omegaconf import DictConfig, OmegaConf
from ray.exceptions import RayActorError
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from bgzero.selfplay.player import Trajectories
from bgzero.selfplay.workers import self_player


def connect(cfg: DictConfig) -> None:
    """Join the Ray instance ``selfplay.ray.address`` names (null: this machine's, started if none).

    The connection lasts as long as the process: Ray closes it at exit, and a second run
    in the same process reuses it.
    """
    if not ray.is_initialized():
        ray.init(address=cfg.selfplay.ray.address, include_dashboard=False)


@ray.remote
class SelfPlayActor:
    """One self-play worker: its own CPU nets, loaded with the weights each request brings."""

    def __init__(self, cfg_yaml: str, seed: int):
        cfg = OmegaConf.create(cfg_yaml)
        assert isinstance(cfg, DictConfig)  # the yaml of the training config, a mapping
        self.nets, self.player = self_player(cfg, seed)
        self.games = cfg.selfplay.games_per_chunk

    def play_chunk(self, weights: np.ndarray) -> Trajectories:
        vector_to_parameters(torch.tensor(weights), self.nets.parameters())  # a copy: store buffers are read-only
        return self.player.play(self.games)


class RayWorkers:
    """Self-play actors on a Ray cluster, fed weights through the object store."""

    @staticmethod
    def auto_count(cfg: DictConfig) -> int:
        """``selfplay.workers=auto``: as many actors as the cluster has CPUs for."""
        connect(cfg)
        return max(1, int(ray.cluster_resources().get("CPU", 1) // cfg.selfplay.ray.cpus_per_worker))

    def __init__(self, cfg: DictConfig, net: nn.Module, seeds: list[int]):
        connect(cfg)
        self.cfg_yaml = OmegaConf.to_yaml(cfg, resolve=True)
        self.ray_cfg = cfg.selfplay.ray
        self.seeds = seeds
        self.restarts = 0
        self.publish(net)
        self.actors: list = [None] * len(seeds)
        self.pending: dict = {}  # request -> (slot, actor it was sent to)
        for slot, seed in enumerate(seeds):
            self._start(slot, seed)

    def _start(self, slot: int, seed: int) -> None:
        self.actors[slot] = SelfPlayActor.options(  # type: ignore[attr-defined]  # added by @ray.remote
            num_cpus=self.ray_cfg.cpus_per_worker).remote(self.cfg_yaml, seed)
        for _ in range(self.ray_cfg.in_flight):
            self._request(slot)

    def _request(self, slot: int) -> None:
        actor = self.actors[slot]
        self.pending[actor.play_chunk.remote(self.weights)] = (slot, actor)

    def _replace(self, slot: int, error: RayActorError) -> None:
        if self.restarts >= self.ray_cfg.max_restarts:
            raise RuntimeError(f"self-play actors crashed {self.restarts + 1} times, more than "
                               f"selfplay.ray.max_restarts={self.ray_cfg.max_restarts}") from error
        self.restarts += 1
        warnings.warn(f"self-play actor {slot} died ({type(error).__name__}); starting a fresh one", stacklevel=2)
        ray.kill(self.actors[slot])  # in case it is only unreachable: never two actors in one slot
        self._start(slot, int(np.random.SeedSequence([self.seeds[slot], self.restarts]).generate_state(1)[0]))

    def publish(self, net: nn.Module) -> None:
        self.weights = ray.put(parameters_to_vector(net.parameters()).detach().cpu().numpy())

    def get(self) -> Trajectories:
        while True:
            [done], _ = ray.wait(list(self.pending), num_returns=1)
            slot, actor = self.pending.pop(done)
            try:
                traj = ray.get(done)
            except RayActorError as e:
                if e.actor_init_failed:  # a fresh actor would fail the same way
                    raise RuntimeError("a self-play actor failed to start; is the same bgzero installed "
                                       "on every node?") from e
                if actor is self.actors[slot]:  # its other lost requests find the slot already refilled
                    self._replace(slot, e)
                continue
            self._request(slot)
            return traj

    def close(self) -> None:
        for actor in self.actors:
            ray.kill(actor)
