"""Batched position evaluation: the network for live positions, exact scores for finished ones."""

from __future__ import annotations

import numpy as np
import torch

from bgzero.encode import get_encoder
from bgzero.game import game_results
from bgzero.net import ValueNet, result_probs


class Evaluator:
    """Five probabilities for the side on roll of each board, before it rolls.

    Finished games (one side has borne off everything) are scored exactly from the
    result, never by the network.
    """

    def __init__(self, net: ValueNet, encoder: str):
        self.net = net.eval()
        self.encoder = get_encoder(encoder)
        if self.encoder.num_inputs != net.config.num_inputs:
            raise ValueError(f"encoder {encoder!r} gives {self.encoder.num_inputs} inputs, net expects {net.config.num_inputs}")

    @torch.inference_mode()
    def probs(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float32 probabilities for (N, 2, 25) boards."""
        points = game_results(boards)
        out = np.empty((len(boards), 5), np.float32)
        live = points == 0
        if live.all():
            return self.net(torch.from_numpy(self.encoder(boards))).numpy()
        if live.any():
            out[live] = self.net(torch.from_numpy(self.encoder(boards[live]))).numpy()
        out[~live] = result_probs(points[~live])
        return out
