"""Batched position evaluation, routed by position class.

* finished games: scored exactly from the result;
* bear-offs (both sides entirely in their home boards): exact, from the one-sided
  bear-off database;
* races (no contact left), when a race network is given: the race network;
* everything else: the contact network.
"""

from __future__ import annotations

import numpy as np
import torch

from bgzero.bearoff import bearoff_probs, is_bearoff
from bgzero.encode import get_encoder
from bgzero.game import game_results
from bgzero.net import ValueNet, result_probs
from bgzero.pubeval import is_race

CONTACT, RACE, BEAROFF, OVER = range(4)


def classify(boards: np.ndarray) -> np.ndarray:
    """Position class per board: CONTACT, RACE, BEAROFF or OVER."""
    cls = np.full(len(boards), CONTACT, np.int8)
    if len(boards) == 0:
        return cls
    cls[is_race(boards)] = RACE
    cls[is_bearoff(boards)] = BEAROFF
    cls[game_results(boards) != 0] = OVER
    return cls


class Evaluator:
    """Five probabilities for the side on roll of each board, before it rolls."""

    def __init__(self, net: ValueNet, encoder: str, race_net: ValueNet | None = None,
                 race_encoder: str = "race", exact_bearoff: bool = True):
        self.net = net.eval()
        self.encoder = _checked_encoder(net, encoder)
        self.race_net = race_net.eval() if race_net is not None else None
        self.race_encoder = _checked_encoder(race_net, race_encoder) if race_net is not None else None
        self.exact_bearoff = exact_bearoff

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
        for which, fill in ((CONTACT, self._contact), (RACE, self._race), (BEAROFF, bearoff_probs),
                            (OVER, lambda b: result_probs(game_results(b)))):
            mask = cls == which
            if mask.any():
                out[mask] = fill(boards[mask])
        return out

    def _contact(self, boards: np.ndarray) -> np.ndarray:
        return self.net(torch.from_numpy(self.encoder(boards))).numpy()

    def _race(self, boards: np.ndarray) -> np.ndarray:
        return self.race_net(torch.from_numpy(self.race_encoder(boards))).numpy()


def _checked_encoder(net: ValueNet, name: str):
    encoder = get_encoder(name)
    if encoder.num_inputs != net.config.num_inputs:
        raise ValueError(f"encoder {name!r} gives {encoder.num_inputs} inputs, the net expects {net.config.num_inputs}")
    return encoder
