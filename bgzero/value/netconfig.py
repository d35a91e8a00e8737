"""The shape of a value network, without torch: checkpoints and inference read it, only training builds the net."""

from __future__ import annotations

from dataclasses import dataclass, field

from bgzero.errors import ConfigError
from bgzero.value.probs import NUM_OUTPUTS

ACTIVATIONS = ("relu", "sigmoid", "tanh", "elu")
"""The hidden activations a :class:`~bgzero.value.net.ValueNet` can have."""


@dataclass
class NetConfig:
    """Shape of a :class:`~bgzero.value.net.ValueNet`."""

    num_inputs: int = 198
    """Length of the encoder's input vector (set from the encoder, not by hand)."""
    hidden: list[int] = field(default_factory=lambda: [128])
    """Hidden layer widths; gnubg's contact net is one layer of 128."""
    activation: str = "relu"
    """Hidden activation: relu, sigmoid (TD-Gammon), tanh or elu."""

    def __post_init__(self):
        self.hidden = [int(h) for h in self.hidden]
        if self.activation not in ACTIVATIONS:
            raise ConfigError(f"net.activation={self.activation!r}; choose one of {sorted(ACTIVATIONS)}")
        if self.num_inputs < 1 or any(h < 1 for h in self.hidden):
            raise ConfigError(f"net sizes must be positive: inputs={self.num_inputs}, hidden={self.hidden}")


def weight_shapes(config: NetConfig) -> dict[str, tuple[int, ...]]:
    """The name and shape of each weight of a ``config`` net, in the order ``ValueNet.state_dict()`` has them.

    Hidden layer ``i`` is ``body.{2i}`` (its activation is ``body.{2i+1}``, which has no weights),
    then ``head``: the layout every checkpoint stores and every torch-free net reads.
    """
    shapes: dict[str, tuple[int, ...]] = {}
    width = config.num_inputs
    for i, h in enumerate(config.hidden):
        shapes |= {f"body.{2 * i}.weight": (h, width), f"body.{2 * i}.bias": (h,)}
        width = h
    return shapes | {"head.weight": (NUM_OUTPUTS, width), "head.bias": (NUM_OUTPUTS,)}
