"""Distilling a pruning net (:mod:`bgzero.value.pruning`) from a checkpoint's contact net.

The pruning net learns the contact net's five probabilities on the positions search will
ask it to rank: every contact candidate of every turn of the contact net's own 0-ply
self-play (with a little exploration). Its quality is measured as search uses it: how
often the pruned reply (pruning net ranks, contact net re-scores the top few) is the
contact net's own 0-ply reply, on held-out positions and all 21 rolls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from bgzero.agents.search import best_replies
from bgzero.engine.classify import CONTACT
from bgzero.engine.game import ROLLS
from bgzero.engine.movegen import generate
from bgzero.engine.segments import segment_argmax
from bgzero.errors import ConfigError
from bgzero.selfplay.player import lockstep_self_play
from bgzero.value.encode import get_encoder
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.probs import equity
from bgzero.value.pruning import PRUNE_ENCODER, PruningNet


@dataclass(frozen=True)
class DistillReport:
    """How well a pruning net stands in for the contact net on held-out positions."""

    positions: int
    """Training positions (contact candidates from self-play)."""
    rmse: float
    """Root mean squared error of its five probabilities against the contact net's."""
    agreement: float
    """Share of held-out (position, roll) pairs whose pruned reply equals the full 0-ply one."""
    pairs: int
    """Held-out (position, roll) pairs the agreement was measured on."""


def self_play_candidates(evaluator: Evaluator, positions: int, seed: int, games: int = 256,
                         explore: float = 0.1, progress: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contact candidates (as search meets them) and their contact-net probabilities.

    Every contact candidate of every turn of :func:`bgzero.selfplay.player.lockstep_self_play` is kept. Also
    returns the boards the games passed through (for a held-out check). ``progress``: a bar
    of the positions found, on stderr (the self-play is most of ``bgzero-prune``'s time).
    """
    found, targets, visited, total = [], [], [], 0
    bar = tqdm(total=positions, unit="pos", desc="self-play", disable=not progress, dynamic_ncols=True)
    for moves, probs, boards in lockstep_self_play(evaluator, np.random.default_rng(seed), games, explore):
        contact = evaluator.route(moves.results) == CONTACT
        found.append(moves.results[contact])
        targets.append(probs[contact])
        total += int(contact.sum())
        bar.update(min(int(contact.sum()), positions - bar.n))
        visited.append(boards[evaluator.route(boards) == CONTACT])
        if total >= positions:
            break
    bar.close()
    return np.concatenate(found)[:positions], np.concatenate(targets)[:positions], np.concatenate(visited)


def train_pruning_net(boards: np.ndarray, targets: np.ndarray, hidden: int = 16, epochs: int = 6,
                      batch: int = 1024, lr: float = 3e-3, seed: int = 0) -> ValueNet:
    """A ``198-hidden-5`` net fitted by mean squared error to ``targets`` for ``boards``."""
    if hidden < 1 or epochs < 1 or batch < 1 or not lr > 0:
        raise ConfigError(f"pruning net: hidden, epochs, batch and lr must be positive (got {hidden}, {epochs}, "
                          f"{batch}, {lr})")
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    encoder = get_encoder(PRUNE_ENCODER)
    x = torch.from_numpy(encoder(boards))
    y = torch.from_numpy(np.ascontiguousarray(targets, np.float32))
    net = ValueNet(NetConfig(num_inputs=encoder.num_inputs, hidden=[hidden]))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs * ((len(x) + batch - 1) // batch))
    for _ in range(epochs):
        for idx in torch.randperm(len(x), generator=generator).split(batch):
            loss = torch.nn.functional.mse_loss(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    return net.eval()


def reply_agreement(evaluator: Evaluator, boards: np.ndarray) -> tuple[float, int]:
    """Share of (board, roll) pairs, all 21 rolls of each board, where the pruned reply is
    the contact net's own 0-ply choice."""
    rolled = np.repeat(boards, len(ROLLS), axis=0)
    moves = generate(rolled, np.tile(ROLLS, (len(boards), 1)))
    pruned = best_replies(evaluator, moves)
    full = segment_argmax(-equity(evaluator.probs(moves.results)), moves.offsets)
    return float(np.mean(pruned == full)), len(rolled)


def distill(evaluator: Evaluator, positions: int = 300_000, hidden: int = 16, seed: int = 0,
            holdout: int = 500, progress: bool = False) -> tuple[ValueNet, DistillReport]:
    """Train a pruning net for ``evaluator``'s contact net and measure it.

    The evaluator is left as it was; attach the result with
    ``evaluator.pruner = PruningNet.of(net)`` or store it in the checkpoint (``bgzero-prune``).
    ``progress``: a bar of the self-play, on stderr.
    """
    if positions < 1000:
        raise ConfigError(f"pruning net: positions={positions} is too few to fit a pruning net; use >= 1000")
    boards, targets, _ = self_play_candidates(evaluator, positions, seed, progress=progress)
    net = train_pruning_net(boards, targets, hidden=hidden, seed=seed)
    held_boards, held_targets, held_visited = self_play_candidates(evaluator, min(20_000, positions), seed + 1)
    with torch.inference_mode():
        pred = net(torch.from_numpy(get_encoder(PRUNE_ENCODER)(held_boards))).numpy()
    rmse = float(np.sqrt(np.mean((pred - held_targets) ** 2)))
    previous, evaluator.pruner = evaluator.pruner, PruningNet.of(net)
    try:
        rng = np.random.default_rng(seed + 2)
        sample = held_visited[rng.choice(len(held_visited), size=min(holdout, len(held_visited)), replace=False)]
        agreement, pairs = reply_agreement(evaluator, sample)
    finally:
        evaluator.pruner = previous
    return net, DistillReport(positions=len(boards), rmse=rmse, agreement=agreement, pairs=pairs)
