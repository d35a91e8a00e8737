"""Batched position evaluation, routed by position class.

* finished games: scored exactly from the result;
* bear-offs (both sides entirely in their home boards): exact, from the one-sided
  bear-off database;
* races (no contact left), when a race network is given: the race network;
* everything else: the contact network.

An evaluator may also carry a pruning net (``pruner``, :mod:`bgzero.value.pruning`): a small net
distilled from the contact net that search uses to rank replies cheaply before it
evaluates the best few with the contact net.
"""

from __future__ import annotations

import numpy as np
import torch

from bgzero.engine.bearoff.probs import bearoff_probs
from bgzero.engine.classify import BEAROFF, CONTACT, OVER, RACE, classify
from bgzero.engine.game import game_results
from bgzero.value.encode import get_encoder
from bgzero.value.net import ValueNet
from bgzero.value.probs import result_probs
from bgzero.value.pruning import PruningNet


class Evaluator:
    """Five probabilities for the side on roll of each board, before it rolls."""

    def __init__(self, net: ValueNet, encoder: str, race_net: ValueNet | None = None,
                 race_encoder: str = "race", exact_bearoff: bool = True,
                 pruner: PruningNet | None = None):
        self.net = net.eval()
        self.encoder = _checked_encoder(net, encoder)
        self.race_net = race_net.eval() if race_net is not None else None
        self.race_encoder = _checked_encoder(race_net, race_encoder) if race_net is not None else None
        self.exact_bearoff = exact_bearoff
        self.pruner = pruner

    def route(self, boards: np.ndarray) -> np.ndarray:
        """Which evaluator answers for each board (a class from :func:`classify`)."""
        cls = classify(boards)
        if not self.exact_bearoff:
            cls[cls == BEAROFF] = RACE
        if self.race_net is None:
            cls[cls == RACE] = CONTACT
        return cls

    @torch.inference_mode()
    def probs(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float32 probabilities for (N, 2, 25) boards."""
        cls = self.route(boards)
        if (cls == CONTACT).all():
            return self.net(torch.from_numpy(self.encoder(boards))).numpy()
        out = np.empty((len(boards), 5), np.float32)
        for which, fill in ((CONTACT, self.contact_probs), (RACE, self._race), (BEAROFF, bearoff_probs),
                            (OVER, lambda b: result_probs(game_results(b)))):
            mask = cls == which
            if mask.any():
                out[mask] = fill(boards[mask])
        return out

    @torch.inference_mode()
    def contact_probs(self, boards: np.ndarray) -> np.ndarray:
        """The contact network's (N, 5) answer, whatever the boards' class."""
        return self.net(torch.from_numpy(self.encoder(boards))).numpy()

    def _race(self, boards: np.ndarray) -> np.ndarray:
        return self.race_net(torch.from_numpy(self.race_encoder(boards))).numpy()


def _checked_encoder(net: ValueNet, name: str):
    encoder = get_encoder(name)
    if encoder.num_inputs != net.config.num_inputs:
        raise ValueError(f"encoder {name!r} gives {encoder.num_inputs} inputs, the net expects {net.config.num_inputs}")
    return encoder
