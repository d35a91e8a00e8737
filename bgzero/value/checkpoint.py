"""Checkpoints: one dict with everything a run needs to continue, written atomically.

A checkpoint holds the model and optimizer state, the run's config, the encoder name, the
net's shape, counters and RNG states. It is written to a temporary file in the same
directory and renamed over the target, so a crash never leaves a half-written file under
the real name. Every writer fills the same fields (:func:`net_fields` for each network) and
both :func:`save_checkpoint` and :func:`load_checkpoint` check them one by one:
``torch.load(weights_only=True)`` only guarantees that no code ran, and the dict may still
hold a wrong encoder, extra net-config keys, a race net without its shape, counters that
are not counts, RNG states that cannot be restored, or NaN weights that would print
``+nan`` equities and pick an arbitrary move. Each is a :class:`CheckpointError` naming
the field.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from pathlib import Path

import numpy as np
import torch

from bgzero import paths
from bgzero.atomic import atomic_write
from bgzero.errors import CheckpointError, ConfigError, shown
from bgzero.value.encode import ENCODERS
from bgzero.value.evaluator import Evaluator
from bgzero.value.frozen import FrozenNet
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.pruning import PruningNet

FORMAT = "bgzero-checkpoint-v1"
_REQUIRED = ("format", "model", "net_config", "encoder", "games")


def net_fields(net: ValueNet, prefix: str = "") -> dict:
    """A network's two entries, ``{prefix}model`` and ``{prefix}net_config``; prefixes ``""``, ``race_``, ``prune_``."""
    return {f"{prefix}model": net.state_dict(), f"{prefix}net_config": net.config_dict()}


def save_checkpoint(path: str | Path, state: dict) -> Path:
    """Check ``state`` as a loader would, then write it (plus the format tag) to ``path`` atomically."""
    check_fields(path, state)
    return atomic_write(path, lambda f: torch.save({"format": FORMAT, **state}, f), mode="wb")


def located(path: str | Path) -> Path:
    """``path``, or the shipped file when ``checkpoints/...`` is not in the current
    directory, so the shipped agents (the CLIs' default) work from any directory."""
    path = Path(path)
    if not path.is_file() and not path.is_absolute() and path.parts[:1] == ("checkpoints",):
        shipped = paths.CHECKPOINTS.joinpath(*path.parts[1:])
        if shipped.is_file():
            return shipped
    return path


def load_checkpoint(path: str | Path) -> dict:
    """Read and check a checkpoint; raises :class:`CheckpointError` naming the problem."""
    path = located(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        if "unsupported global" in str(e).lower():  # weights_only refused an object: nothing in it ran
            raise CheckpointError(f"checkpoint {path} holds objects other than weights and plain values; "
                                  "it is not a bgzero checkpoint and was not loaded") from None
        raise CheckpointError(f"checkpoint {path} is truncated, damaged or not a bgzero checkpoint "
                              "(not a file torch.save wrote)") from None
    except Exception:  # noqa: BLE001 -- a foreign file makes torch fail in any number of ways
        raise CheckpointError(f"checkpoint {path} is truncated, damaged or not a bgzero checkpoint "
                              "(not a file torch.save wrote)") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a bgzero checkpoint (expected format {FORMAT!r})")
    missing = [k for k in _REQUIRED if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {', '.join(missing)}")
    check_fields(path, state)
    return state


def _build_net(path, state: dict, prefix: str) -> ValueNet:
    net = ValueNet(NetConfig(**state[f"{prefix}net_config"]))
    try:
        net.load_state_dict(state[f"{prefix}model"])
    except RuntimeError as e:
        raise CheckpointError(f"checkpoint {path}: weights do not fit its net config ({str(e).splitlines()[0]})") from None
    return net.eval()


def load_net(path: str | Path) -> tuple[ValueNet, str]:
    """The contact network and its encoder name from a checkpoint."""
    state = load_checkpoint(path)
    return _build_net(path, state, ""), state["encoder"]


def load_evaluator(path: str | Path, frozen: bool = True) -> Evaluator:
    """An :class:`~bgzero.value.evaluator.Evaluator` with every network a checkpoint holds.

    ``frozen``: the nets as :class:`~bgzero.value.frozen.FrozenNet` s (fast, fixed weights);
    ``False`` gives torch nets, for a caller that trains ``evaluator.net`` further.
    """
    state = load_checkpoint(path)
    encoders = {"": state["encoder"], "race_": state.get("race_encoder", "race")}
    def build(prefix):
        if not frozen:
            return _build_net(path, state, prefix)
        return _from_numpy(path, state, prefix, lambda cfg, w: FrozenNet(cfg, w, encoders[prefix]))

    race = build("race_") if "race_model" in state else None
    prune = _from_numpy(path, state, "prune_", PruningNet) if "prune_model" in state else None
    return Evaluator(build(""), encoders[""], race_net=race, race_encoder=encoders["race_"],
                     exact_bearoff=state.get("exact_bearoff", True), pruner=prune)


def _from_numpy(path, state: dict, prefix: str, make):
    """``make(config, weights)`` with a net's config and its weights as numpy arrays."""
    weights = {name: np.asarray(w) for name, w in state[f"{prefix}model"].items()}
    try:
        return make(NetConfig(**state[f"{prefix}net_config"]), weights)
    except ConfigError as e:
        raise CheckpointError(f"checkpoint {path}: {prefix}model: {e}") from None


# --------------------------------------------------------------------------- fields


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
            raise CheckpointError(f"checkpoint {path}: {key}={shown(state[key])} is not a count of games or positions")
    if "wall_seconds" in state and not (isinstance(state["wall_seconds"], (int, float))
                                        and math.isfinite(state["wall_seconds"]) and state["wall_seconds"] >= 0):
        raise CheckpointError(f"checkpoint {path}: wall_seconds={shown(state['wall_seconds'])} is not a duration")
    if "exact_bearoff" in state and not isinstance(state["exact_bearoff"], bool):
        raise CheckpointError(f"checkpoint {path}: exact_bearoff={shown(state['exact_bearoff'])} is not true or false")
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
        raise CheckpointError(f"checkpoint {path}: {key}={shown(raw)} is not a net shape")
    try:
        config = NetConfig(**raw)
    except Exception as e:  # noqa: BLE001 -- NetConfig's own check, in the checkpoint's terms
        raise CheckpointError(f"checkpoint {path}: {key} {e}") from None
    if encoder is not None:
        if not isinstance(encoder, str) or encoder not in ENCODERS:
            raise CheckpointError(f"checkpoint {path}: encoder {shown(encoder)} is not one of "
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


RESUME_FIELDS = ("positions", "rng", "torch_rng")


def check_resumable(path, state: dict) -> None:
    """A resume restores the counters and both generators: a checkpoint without them cannot continue a run."""
    missing = [k for k in RESUME_FIELDS if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {', '.join(missing)}, so a run cannot resume from it")
