"""Self-play backends: what the learner asks of its workers, and the local backend.

A backend plays games away from the learner's process. The learner only calls
``publish(nets)`` (hand over the newest weights), ``get()`` (the next chunk of finished
games) and ``close()``, so the same loop trains on worker processes of this machine
(:class:`LocalWorkers`, the default) or on Ray actors across a cluster
(:mod:`bgzero.selfplay.ray_workers`).
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import sys
from typing import Protocol

import torch
import torch.multiprocessing as mp
from omegaconf import DictConfig, OmegaConf
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from bgzero.errors import BgzeroError
from bgzero.interrupts import follow_the_main_process, starting_workers
from bgzero.selfplay.build import self_player
from bgzero.selfplay.player import Trajectories


class Workers(Protocol):
    """A backend, started as ``Backend(cfg, learner_nets, seeds)`` with one worker per seed."""

    @staticmethod
    def auto_count(cfg: DictConfig) -> int:
        """How many workers ``selfplay.workers=auto`` means where this backend runs."""

    def publish(self, net: nn.Module) -> None:
        """Make the learner's current weights the ones the next games are played with."""

    def get(self) -> Trajectories:
        """The next chunk of finished games, from whichever worker has one."""

    def close(self) -> None:
        """Stop the workers; games still in flight are dropped."""


class WorkerDiedError(BgzeroError, RuntimeError):
    """A self-play worker process ended while the learner still needed it."""


def _die_with(parent: int) -> None:
    """Have the kernel end this process when its parent does (Linux); the loops also poll ``getppid``."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # it died before the line above ran
        os._exit(0)


def _worker(cfg_yaml: str, shared: torch.Tensor, version, lock, out, stop, seed: int, parent: int):
    """Self-play worker process: play chunks of games with the latest published weights.

    It stops when told to, and also when the learner (``parent``) is gone, however it ended:
    an orphan would otherwise play on forever, holding its memory.
    """
    _die_with(parent)
    follow_the_main_process()  # Ctrl-C reaches the whole group: the learner decides, and stops us
    cfg = OmegaConf.create(cfg_yaml)
    assert isinstance(cfg, DictConfig)  # the yaml of the training config, a mapping
    net, player = self_player(cfg, seed)
    seen = -1

    def running() -> bool:
        return not stop.is_set() and os.getppid() == parent

    while running():
        if version.value != seen:
            with lock:
                vector_to_parameters(shared.clone(), net.parameters())
                seen = version.value
        traj = player.play(cfg.selfplay.games_per_chunk)
        while running():
            try:
                out.put(traj, timeout=0.5)
                break
            except queue.Full:
                continue


class LocalWorkers:
    """Self-play worker processes sharing the learner's weights through shared memory."""

    @staticmethod
    def auto_count(cfg: DictConfig) -> int:
        """``selfplay.workers=auto``: one process per core."""
        return os.cpu_count() or 1

    def __init__(self, cfg: DictConfig, net: nn.Module, seeds: list[int]):
        ctx = mp.get_context("spawn")
        n = len(seeds)
        self.shared = parameters_to_vector(net.parameters()).detach().cpu().clone().share_memory_()
        self.version = ctx.Value("l", 0)
        self.lock = ctx.Lock()
        self.out = ctx.Queue(maxsize=2 * n)
        self.stop = ctx.Event()
        cfg_yaml = OmegaConf.to_yaml(cfg, resolve=True)
        self.procs = [ctx.Process(target=_worker, daemon=True,
                                  args=(cfg_yaml, self.shared, self.version, self.lock, self.out, self.stop, seed,
                                        os.getpid()))
                      for seed in seeds]
        with starting_workers():
            for p in self.procs:
                p.start()

    def publish(self, net: nn.Module) -> None:
        with self.lock:
            self.shared.copy_(parameters_to_vector(net.parameters()).detach())
            self.version.value += 1

    def get(self) -> Trajectories:
        while True:
            try:
                return self.out.get(timeout=5.0)
            except queue.Empty:
                dead = [p.exitcode for p in self.procs if not p.is_alive()]
                if dead:
                    raise WorkerDiedError(f"a self-play worker died (exit codes {dead}); "
                                          "resume from the last checkpoint with train.resume=.../last.pt") from None

    def close(self) -> None:
        self.stop.set()
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
