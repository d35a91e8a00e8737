"""Fine-tuning a net on its own 1-ply evaluations (search-based targets).

A 0-ply net judges a position by its pattern alone; its 1-ply evaluation (the average over
the 21 rolls of the value after the best reply) plays clearly better. Training the
contact net to reproduce its 1-ply values on the positions its move choice compares --
every contact candidate of its own 0-ply self-play -- moves some of that search into the
net, as gnubg does with rollout targets and TD-Leaf with deeper search, at the cheapest
depth. The 1-ply targets use the checkpoint's pruning net when it has one and come from
worker processes; the loss is the TD learner's cross-entropy (:func:`bgzero.td.td_loss`).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import torch

from bgzero.checkpoint import load_evaluator
from bgzero.errors import ConfigError
from bgzero.evaluator import Evaluator
from bgzero.net import ValueNet
from bgzero.search import evaluate_ply
from bgzero.td import td_loss

_WORKER_EVALUATOR: Evaluator | None = None


def _load(checkpoint: str) -> None:
    global _WORKER_EVALUATOR
    torch.set_num_threads(1)
    _WORKER_EVALUATOR = load_evaluator(checkpoint)


def _one_ply(boards: np.ndarray) -> np.ndarray:
    return evaluate_ply(_WORKER_EVALUATOR, boards, 1)


def one_ply_targets(checkpoint: str, boards: np.ndarray, processes: int, chunk: int = 2000,
                    progress=None) -> np.ndarray:
    """(N, 5) 1-ply probabilities of ``boards`` (side on roll, before rolling) by ``checkpoint``."""
    if processes < 1:
        raise ConfigError(f"processes={processes}; use 1 or more")
    parts = [boards[lo:lo + chunk] for lo in range(0, len(boards), chunk)]
    with ProcessPoolExecutor(processes, mp_context=get_context("spawn"), initializer=_load,
                             initargs=(str(checkpoint),)) as pool:
        out = []
        for probs in pool.map(_one_ply, parts):
            out.append(probs)
            if progress is not None:
                progress(len(probs))
    return np.concatenate(out) if out else np.empty((0, 5), np.float32)


def fine_tune(net: ValueNet, encoder, boards: np.ndarray, targets: np.ndarray, *, epochs: int = 2,
              lr: float = 1e-4, batch: int = 256, seed: int = 0) -> list[float]:
    """Minibatch Adam on ``td_loss(net(encoder(boards)), targets)``; the mean loss per epoch."""
    if epochs < 1 or batch < 1 or not lr > 0:
        raise ConfigError(f"fine-tuning needs epochs, batch and lr > 0 (got {epochs}, {batch}, {lr})")
    generator = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(encoder(boards))
    t = torch.from_numpy(np.ascontiguousarray(targets, np.float32))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    history = []
    net.train()
    for _ in range(epochs):
        losses = []
        for idx in torch.randperm(len(x), generator=generator).split(batch):
            loss = td_loss(net(x[idx]), t[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        history.append(float(np.mean(losses)))
    net.eval()
    return history
