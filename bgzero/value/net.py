"""The value network: five probabilities of a position, consistent by construction.

The network answers "how good is this position for the side on roll, before it rolls"
with GNU Backgammon's five cumulative probabilities

    (win, win gammon, win backgammon, lose gammon, lose backgammon)

where gammons include backgammons. Consistency (P(bg) <= P(gammon) <= P(win) on each
side) holds by construction: the network predicts a win probability and, for each side,
the conditional chances that a win is a gammon and that a gammon is a backgammon.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import torch
from torch import nn

from bgzero.errors import ConfigError
from bgzero.value.netconfig import NetConfig
from bgzero.value.probs import NUM_OUTPUTS

_ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "elu": nn.ELU}  # NetConfig's ACTIVATIONS


class ValueNet(nn.Module):
    """MLP from encoded positions to the five cumulative probabilities."""

    def __init__(self, config: NetConfig):
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        width = config.num_inputs
        for h in config.hidden:
            layers += [nn.Linear(width, h), _ACTIVATIONS[config.activation]()]
            width = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, NUM_OUTPUTS)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """Raw head outputs: win, gammon|win, bg|gammon-win, gammon|loss, bg|gammon-loss."""
        return self.head(self.body(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return probs_from_logits(self.logits(x))

    def config_dict(self) -> dict:
        return asdict(self.config)

    def weights(self) -> dict[str, np.ndarray]:
        """The weights as numpy arrays, as the torch-free inference nets take them."""
        return {k: v.detach().cpu().numpy().copy() for k, v in self.state_dict().items()}


def widened(net: ValueNet, extra: int, seed: int = 0) -> ValueNet:
    """A copy of one-hidden-layer ``net`` with ``extra`` more hidden units, computing the same function.

    The new units start with random incoming weights (half the default scale) and zero
    outgoing ones (Net2Net): training can give them work without the net first forgetting
    what it knows, which is how fine-tuning on search targets adds capacity to a trained net.
    """
    if len(net.config.hidden) != 1 or extra < 1:
        raise ConfigError(f"widening needs one hidden layer and extra >= 1 (got hidden={net.config.hidden}, "
                          f"extra={extra})")
    width = net.config.hidden[0]
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        wide = ValueNet(NetConfig(num_inputs=net.config.num_inputs, hidden=[width + extra],
                                  activation=net.config.activation))
    with torch.no_grad():
        wide.body[0].weight[:width] = net.body[0].weight
        wide.body[0].bias[:width] = net.body[0].bias
        wide.body[0].weight[width:] *= 0.5
        wide.head.weight.zero_()
        wide.head.weight[:, :width] = net.head.weight
        wide.head.bias.copy_(net.head.bias)
    return wide.train(net.training)


def probs_from_logits(logits: torch.Tensor) -> torch.Tensor:
    """The five cumulative probabilities from the conditional logits (consistent by construction)."""
    s = torch.sigmoid(logits)
    win = s[..., 0]
    wg = win * s[..., 1]
    wbg = wg * s[..., 2]
    lg = (1 - win) * s[..., 3]
    lbg = lg * s[..., 4]
    return torch.stack([win, wg, wbg, lg, lbg], dim=-1)
