"""Checkpoints: one dict with everything a run needs to continue, written atomically.

A checkpoint holds the model and optimizer state, the run's config, the encoder name, the
net's shape, counters and RNG states. It is written to a temporary file in the same
directory and renamed over the target, so a crash never leaves a half-written file under
the real name. Every writer fills the same fields (:func:`net_fields` for each network) and
both :func:`save_checkpoint` and :func:`read_checkpoint` check them one by one: the readers
(torch's ``weights_only`` unpickler, safetensors) only guarantee that no code ran, and the dict may still
hold a wrong encoder, extra net-config keys, a race net without its shape, weights that
do not fit it, counters that are not counts, RNG states that cannot be restored, or NaN
weights that would print ``+nan`` equities and pick an arbitrary move. Each is a
:class:`CheckpointError` naming the field.

Two files hold a checkpoint: the training checkpoint (``.pt``, written by ``torch.save``,
read by torch) and the play file (``.safetensors``, :mod:`bgzero.value.playfile`), which
holds the nets without the optimizer and reads without torch. :func:`read_checkpoint`
reads either and gives numpy arrays, which is all that playing needs; the shipped agents are
play files, so a player who never trains needs no torch.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
import sys
from pathlib import Path

import numpy as np

from bgzero import paths
from bgzero.atomic import atomic_write
from bgzero.engine.board import START
from bgzero.errors import CheckpointError, shown
from bgzero.value.encode import ENCODERS
from bgzero.value.evaluator import Evaluator
from bgzero.value.frozen import FrozenNet
from bgzero.value.netconfig import NetConfig, weight_shapes
from bgzero.value.playfile import is_play_file, read_play, write_play
from bgzero.value.pruning import PruningNet

FORMAT = "bgzero-checkpoint-v1"
_REQUIRED = ("format", "model", "net_config", "encoder", "games")


def net_fields(net, prefix: str = "") -> dict:
    """A :class:`~bgzero.value.net.ValueNet`'s two entries, ``{prefix}model`` and ``{prefix}net_config``;
    prefixes ``""``, ``race_``, ``prune_``."""
    return {f"{prefix}model": net.state_dict(), f"{prefix}net_config": net.config_dict()}


def save_checkpoint(path: str | Path, state: dict) -> Path:
    """Check ``state`` as a loader would, then write it (plus the format tag) to ``path`` atomically."""
    import torch

    check_fields(path, state)
    return atomic_write(path, lambda f: torch.save({"format": FORMAT, **state}, f), mode="wb")


def save_play(path: str | Path, state: dict) -> Path:
    """Check ``state`` as a loader would, then write its play file (the nets, no optimizer) to ``path`` atomically."""
    check_fields(path, state)
    return write_play(path, {**state, "format": FORMAT})


def located(path: str | Path) -> Path:
    """``path``, or the shipped file when ``checkpoints/...`` is not in the current
    directory, so the shipped agents (the CLIs' default) work from any directory."""
    path = Path(path)
    if reason := paths.unusable_name(path):
        raise CheckpointError(f"checkpoint {shown(str(path))} cannot exist: {reason}")
    if not path.is_file() and not path.is_absolute() and path.parts[:1] == ("checkpoints",):
        shipped = paths.CHECKPOINTS.joinpath(*path.parts[1:])
        if shipped.is_file():
            return shipped
    return path


def read_checkpoint(path: str | Path) -> dict:
    """Read and check a checkpoint, its tensors as numpy arrays, without torch; raises :class:`CheckpointError`."""
    path = located(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    state = read_play(path) if is_play_file(path) else _read_pt(path)
    if not isinstance(state, dict) or not isinstance(state.get("format"), str) or state["format"] != FORMAT:
        raise CheckpointError(f"{path} is not a bgzero checkpoint (expected format {FORMAT!r})")
    missing = [k for k in _REQUIRED if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {', '.join(missing)}")
    check_fields(path, state)
    return state


def _read_pt(path: Path) -> dict:
    """A training checkpoint by torch's ``weights_only`` unpickler (plain values and tensors,
    nothing that runs), its tensors as numpy arrays."""
    try:
        import torch
    except ImportError:
        raise CheckpointError(f"checkpoint {path} is a training checkpoint (.pt), which needs torch: "
                              f"pip install 'bgzero[train]', or play its play file "
                              f"(bgzero-export checkpoint={path})") from None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 -- a damaged or foreign file fails zipfile or pickle in any number of ways
        if isinstance(e, pickle.UnpicklingError) and "Unsupported global" in str(e):
            raise CheckpointError(f"checkpoint {path} holds objects other than weights and plain values; "
                                  "it is not a bgzero checkpoint and was not loaded") from None
        raise CheckpointError(f"checkpoint {path} is truncated, damaged or not a bgzero checkpoint "
                              "(not a file torch.save wrote)") from None
    return _mapped(state, torch.Tensor, _array)


def _mapped(value, kind: type, convert):
    """``value`` with every ``kind`` inside it (dicts, lists, tuples) replaced by ``convert`` of it;
    dicts and lists in place, so a state dict keeps its type and its ``_metadata``."""
    if isinstance(value, kind):
        return convert(value)
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = _mapped(item, kind, convert)
    elif isinstance(value, list):
        value[:] = (_mapped(item, kind, convert) for item in value)
    elif isinstance(value, tuple):
        return tuple(_mapped(item, kind, convert) for item in value)
    return value


def load_checkpoint(path: str | Path) -> dict:
    """:func:`read_checkpoint` with torch tensors, as training resumes from them and tools rewrite them."""
    import torch

    return _mapped(read_checkpoint(path), np.ndarray, torch.from_numpy)


def _build_net(state: dict, prefix: str):
    """A torch :class:`~bgzero.value.net.ValueNet` from a read checkpoint's (checked) numpy weights."""
    import torch

    from bgzero.value.net import ValueNet

    net = ValueNet(NetConfig(**state[f"{prefix}net_config"]))
    net.load_state_dict({k: torch.from_numpy(v) for k, v in state[f"{prefix}model"].items()})
    return net.eval()


def load_net(path: str | Path):
    """The contact :class:`~bgzero.value.net.ValueNet` and its encoder name from a checkpoint."""
    state = read_checkpoint(path)
    return _build_net(state, ""), state["encoder"]


def load_evaluator(path: str | Path, frozen: bool = True) -> Evaluator:
    """An :class:`~bgzero.value.evaluator.Evaluator` with every network a checkpoint holds.

    ``frozen``: the nets as :class:`~bgzero.value.frozen.FrozenNet` s (fast, fixed weights, no
    torch); ``False`` gives torch nets, for a caller that trains ``evaluator.net`` further.
    """
    state = read_checkpoint(path)
    encoders = {"": state["encoder"], "race_": state.get("race_encoder", "race"),
                "mover_": state.get("mover_encoder"), "mover_race_": state.get("mover_race_encoder", "race")}

    def build(prefix):
        if not frozen:
            return _build_net(state, prefix)
        return FrozenNet(NetConfig(**state[f"{prefix}net_config"]), state[f"{prefix}model"], encoders[prefix])

    def evaluator_of(prefix, pruner, mover=None):
        """The nets under ``prefix`` ("" or "mover_"); a mover without its own race net uses the main one.
        Both rank with the one pruning net (a rollout's 0-ply choices): it only ranks, and the
        mover is a fine-tune of the nets it was distilled from."""
        race_prefix = f"{prefix}race_" if f"{prefix}race_model" in state else "race_"
        race = build(race_prefix) if f"{race_prefix}model" in state else None
        return Evaluator(build(prefix), encoders[prefix], race_net=race, race_encoder=encoders[race_prefix],
                         exact_bearoff=state.get("exact_bearoff", True), pruner=pruner, mover=mover)

    pruner = (PruningNet(NetConfig(**state["prune_net_config"]), state["prune_model"]) if "prune_model" in state
              else None)
    mover = evaluator_of("mover_", pruner) if "mover_model" in state else None
    evaluator = evaluator_of("", pruner, mover)
    _probe(path, evaluator)
    if mover is not None:
        _probe(path, mover)
    return evaluator


def with_mover(state: dict, mover: dict) -> dict:
    """``state`` whose checker plays at 0 ply are chosen by ``mover``'s contact and race nets (the role split).

    Both are read checkpoints; ``mover``'s own mover, optimizer and counters are not taken."""
    combined = {key: value for key, value in state.items() if key not in MOVER_FIELDS}
    for source, target in (("", "mover_"), ("race_", "mover_race_")):
        if f"{source}model" in mover:
            combined[f"{target}model"] = mover[f"{source}model"]
            combined[f"{target}net_config"] = mover[f"{source}net_config"]
            combined[f"{target}encoder"] = mover.get(f"{source}encoder", "race" if source else None)
    return combined


def _probe_boards() -> np.ndarray:
    """The starting position (the contact net) and a race of 15 checkers each on the 10-point (the race net)."""
    race = np.zeros((2, 25), np.int8)
    race[:, 9] = 15
    return np.stack([START, race])


def _probe(path, evaluator: Evaluator) -> None:
    """Refuse nets whose weights are finite but absurd (1e30): their probabilities come out NaN
    or outside 0-1, and every hint and rollout with them would print nonsense."""
    unusable = f"checkpoint {path}: its weights are unusable (the run diverged): its nets give"
    try:
        probs = np.asarray(evaluator.probs(_probe_boards()), np.float64)
    except ArithmeticError as e:  # the compiled head divides by a sum that overflowed to inf
        raise CheckpointError(f"{unusable} {type(e).__name__} on the starting position, not probabilities") from None
    wrong = ~(np.isfinite(probs) & (probs >= -1e-6) & (probs <= 1 + 1e-6)).all(axis=1)
    if wrong.any():
        where = ("the starting position", "a race")[int(np.argmax(wrong))]
        raise CheckpointError(f"{unusable} {np.round(probs[wrong][0], 3).tolist()} on {where}, not probabilities")


# --------------------------------------------------------------------------- fields


_NET_KEYS = {f.name for f in dataclasses.fields(NetConfig)}
_NETS = (("", "model", "net_config", "encoder"), ("race_", "race_model", "race_net_config", "race_encoder"),
         ("prune_", "prune_model", "prune_net_config", None),
         ("mover_", "mover_model", "mover_net_config", "mover_encoder"),
         ("mover_race_", "mover_race_model", "mover_race_net_config", "mover_race_encoder"))
MOVER_FIELDS = tuple(key for prefix, *keys in _NETS if prefix.startswith("mover_") for key in keys)
"""The role split's fields: the nets that choose checker plays at 0 ply (:func:`with_mover`)."""


def check_fields(path, state: dict) -> None:
    """Every field a loader or a resume reads, checked for type and sense."""
    for prefix, model, config, encoder in _NETS:
        if model not in state:
            if config in state:
                raise CheckpointError(f"checkpoint {path} has {config} but no {model}")
            continue
        if config not in state:
            raise CheckpointError(f"checkpoint {path} has {model} but no {config}")
        if prefix == "mover_" and encoder not in state:
            raise CheckpointError(f"checkpoint {path} has {model} but no {encoder}")
        shape = net_config(path, state, config, state.get(encoder, "race" if prefix.endswith("race_") else None)
                           if encoder else None)
        _weights(path, model, state[model], shape)
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
        rng = _array(state["torch_rng"])
        if rng is None or rng.dtype != np.uint8 or rng.ndim != 1:  # its length is torch's to check, on resume
            raise CheckpointError(f"checkpoint {path}: its torch_rng field is not a saved torch generator state")
    if "optimizer" in state and not (isinstance(state["optimizer"], dict) and {"state", "param_groups"} <= set(state["optimizer"])):
        raise CheckpointError(f"checkpoint {path}: its optimizer field is not an optimizer's state")
    if "mover_race_model" in state and "mover_model" not in state:
        raise CheckpointError(f"checkpoint {path} has mover_race_model but no mover_model")


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


def _array(value) -> np.ndarray | None:
    """``value`` as a numpy array if it is one or a torch tensor, else None; a process that
    never imported torch holds no tensors, so this never imports it."""
    if isinstance(value, np.ndarray):
        return value
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        return value.float().numpy() if value.dtype == torch.bfloat16 else value.numpy()
    return None


def _weights(path, key: str, weights, config: NetConfig) -> None:
    """Named float tensors, all finite, of the shapes ``config`` gives them."""
    given = {k: _array(v) for k, v in weights.items()} if isinstance(weights, dict) else {}
    if not given or not all(isinstance(k, str) and v is not None for k, v in given.items()):
        raise CheckpointError(f"checkpoint {path}: {key} is not a set of named weight tensors")
    arrays = {k: v for k, v in given.items() if v is not None}  # all of them, as checked
    expected = weight_shapes(config)
    found = {k: tuple(v.shape) for k, v in arrays.items()}
    if found != expected:
        wrong = sorted(set(found) ^ set(expected)) or [k for k in expected if found[k] != expected[k]]
        name = wrong[0]
        detail = (f"{name} is {found[name]}, expected {expected[name]}" if name in found and name in expected
                  else f"missing {name}" if name in expected else f"unexpected {name}")
        raise CheckpointError(f"checkpoint {path}: weights do not fit its net config ({key}: {detail})")
    for name, array in arrays.items():
        if not np.issubdtype(array.dtype, np.floating) or not np.isfinite(array).all():
            raise CheckpointError(f"checkpoint {path}: {key} weight {name} holds NaN, infinite or non-float "
                                  "values; the file is damaged or the run diverged")


RESUME_FIELDS = ("positions", "rng", "torch_rng")


def check_resumable(path, state: dict) -> None:
    """A resume restores the counters and both generators: a checkpoint without them cannot continue a run."""
    import torch

    missing = [k for k in RESUME_FIELDS if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {', '.join(missing)}, so a run cannot resume from it")
    if tuple(state["torch_rng"].shape) != tuple(torch.get_rng_state().shape):
        raise CheckpointError(f"checkpoint {path}: its torch_rng field is not a saved torch generator state")
