"""A checkpoint's fields checked one by one, so a damaged or tampered file is refused in our words.

``torch.load(weights_only=True)`` only guarantees that no code ran: the dict it returns may
still hold a wrong encoder, extra net-config keys, a race net without its shape, counters
that are not counts, RNG states that cannot be restored, or NaN weights that would print
``+nan`` equities and pick an arbitrary move. Each is a :class:`CheckpointError` naming the
field.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch

from bgzero.errors import CheckpointError
from bgzero.value.encode import ENCODERS
from bgzero.value.net import NetConfig

_NET_KEYS = {f.name for f in dataclasses.fields(NetConfig)}
_NETS = (("", "model", "net_config", "encoder"), ("race_", "race_model", "race_net_config", "race_encoder"),
         ("prune_", "prune_model", "prune_net_config", None))


def check_fields(path, state: dict) -> None:
    """Every field a loader or a resume reads, checked for type and sense."""
    for prefix, model, config, encoder in _NETS:
        if model not in state:
            if config in state:
                raise CheckpointError(f"checkpoint {path} has {config} but no {model}")
            continue
        if config not in state:
            raise CheckpointError(f"checkpoint {path} has {model} but no {config}")
        net_config(path, state, config, state.get(encoder, "race" if prefix == "race_" else None) if encoder else None)
        _weights(path, model, state[model])
    for key in ("games", "positions"):
        if key in state and not (type(state[key]) is int and state[key] >= 0):
            raise CheckpointError(f"checkpoint {path}: {key}={_short(state[key])} is not a count of games or positions")
    if "wall_seconds" in state and not (isinstance(state["wall_seconds"], (int, float))
                                        and math.isfinite(state["wall_seconds"]) and state["wall_seconds"] >= 0):
        raise CheckpointError(f"checkpoint {path}: wall_seconds={_short(state['wall_seconds'])} is not a duration")
    if "exact_bearoff" in state and not isinstance(state["exact_bearoff"], bool):
        raise CheckpointError(f"checkpoint {path}: exact_bearoff={_short(state['exact_bearoff'])} is not true or false")
    if "rng" in state:
        try:
            np.random.PCG64().state = state["rng"]
        except (TypeError, ValueError, KeyError, AttributeError):
            raise CheckpointError(f"checkpoint {path}: its rng field is not a saved generator state") from None
    if "torch_rng" in state:
        rng = state["torch_rng"]
        if not (isinstance(rng, torch.Tensor) and rng.dtype == torch.uint8 and rng.shape == torch.get_rng_state().shape):
            raise CheckpointError(f"checkpoint {path}: its torch_rng field is not a saved torch generator state")
    if "optimizer" in state and not (isinstance(state["optimizer"], dict) and {"state", "param_groups"} <= set(state["optimizer"])):
        raise CheckpointError(f"checkpoint {path}: its optimizer field is not an optimizer's state")


def net_config(path, state: dict, key: str, encoder: str | None) -> NetConfig:
    """``state[key]`` as a :class:`NetConfig`: the right keys, sizes that fit ``encoder``."""
    raw = state[key]
    if not isinstance(raw, dict) or set(raw) - _NET_KEYS or "hidden" not in raw:
        extra = sorted(map(str, set(raw) - _NET_KEYS)) if isinstance(raw, dict) else []
        raise CheckpointError(f"checkpoint {path}: {key} is not a net shape"
                              + (f" (unknown keys {', '.join(extra)})" if extra else ""))
    hidden = raw["hidden"]
    if (not isinstance(hidden, (list, tuple)) or not hidden or not all(type(h) is int and h >= 1 for h in hidden)
            or type(raw.get("num_inputs", 1)) is not int or not isinstance(raw.get("activation", "relu"), str)):
        raise CheckpointError(f"checkpoint {path}: {key}={_short(raw)} is not a net shape")
    try:
        config = NetConfig(**raw)
    except Exception as e:  # noqa: BLE001 -- NetConfig's own check, in the checkpoint's terms
        raise CheckpointError(f"checkpoint {path}: {key} {e}") from None
    if encoder is not None:
        if not isinstance(encoder, str) or encoder not in ENCODERS:
            raise CheckpointError(f"checkpoint {path}: encoder {_short(encoder)} is not one of "
                                  f"{', '.join(sorted(ENCODERS))}")
        if ENCODERS[encoder].num_inputs != config.num_inputs:
            raise CheckpointError(f"checkpoint {path}: its encoder {encoder} gives {ENCODERS[encoder].num_inputs} "
                                  f"inputs, but {key} expects {config.num_inputs}")
    return config


def _weights(path, key: str, weights) -> None:
    if not isinstance(weights, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                                for k, v in weights.items()):
        raise CheckpointError(f"checkpoint {path}: {key} is not a set of named weight tensors")
    for name, tensor in weights.items():
        if not tensor.is_floating_point() or not torch.isfinite(tensor).all():
            raise CheckpointError(f"checkpoint {path}: {key} weight {name} holds NaN, infinite or non-float "
                                  "values; the file is damaged or the run diverged")


def _short(value, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


RESUME_FIELDS = ("positions", "rng", "torch_rng")


def check_resumable(path, state: dict) -> None:
    """A resume restores the counters and both generators: a checkpoint without them cannot continue a run."""
    missing = [k for k in RESUME_FIELDS if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {', '.join(missing)}, so a run cannot resume from it")
