"""Checkpoints: one dict with everything a run needs to continue, written atomically.

A checkpoint holds the model and optimizer state, the run's config, the encoder name, the
net's shape, counters and RNG states. It is written to a temporary file in the same
directory and renamed over the target, so a crash never leaves a half-written file under
the real name.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import torch

from bgzero import paths
from bgzero.atomic import atomic_write
from bgzero.errors import CheckpointError
from bgzero.value.checkpoint_check import check_fields
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import NetConfig, ValueNet

FORMAT = "bgzero-checkpoint-v1"
_REQUIRED = ("format", "model", "net_config", "encoder", "games")


def save_checkpoint(path: str | Path, state: dict) -> Path:
    """Write ``state`` (plus the format tag) to ``path`` atomically."""
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


def load_evaluator(path: str | Path) -> Evaluator:
    """An :class:`~bgzero.value.evaluator.Evaluator` with every network a checkpoint holds."""
    state = load_checkpoint(path)
    race = _build_net(path, state, "race_") if "race_model" in state else None
    prune = _build_net(path, state, "prune_") if "prune_model" in state else None
    return Evaluator(_build_net(path, state, ""), state["encoder"], race_net=race,
                     race_encoder=state.get("race_encoder", "race"), exact_bearoff=state.get("exact_bearoff", True),
                     prune_net=prune)
