"""Play files: a checkpoint's nets in safetensors, for players who never train.

A training checkpoint (``.pt``) is a pickle that only torch reads, and importing torch costs
seconds and a large install. A play file (``.safetensors``) holds what playing reads and
nothing more: each net's weights as named arrays (``model/fc.0.weight``, ``race_model/...``,
``prune_model/...``), and the checkpoint's other plain fields (net shapes, encoders, counters,
the training config) as JSON in the file's metadata under ``bgzero``. The optimizer and the
generators' states stay in the ``.pt``: a play file cannot resume training. The safetensors
format runs no code on reading and checks its own header.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bgzero.atomic import atomic_write
from bgzero.errors import CheckpointError

SUFFIX = ".safetensors"
NETS = ("model", "race_model", "prune_model", "mover_model", "mover_race_model")
TRAINING_ONLY = ("optimizer", "rng", "torch_rng")
"""Fields a play file leaves out: they resume a run, and play reads none of them."""


def is_play_file(path: str | Path) -> bool:
    return Path(path).suffix == SUFFIX


def play_state(state: dict) -> tuple[dict[str, np.ndarray], dict]:
    """A checkpoint's fields split into a play file's named arrays and its JSON fields."""
    arrays = {f"{net}/{name}": np.ascontiguousarray(value, np.float32)  # numpy, or a state dict's CPU tensors
              for net in NETS if net in state for name, value in state[net].items()}
    plain = {key: value for key, value in state.items() if key not in NETS and key not in TRAINING_ONLY}
    return arrays, plain


def write_play(path: str | Path, state: dict) -> Path:
    """Write ``state`` (a checkpoint's fields, numpy or torch weights) as a play file, atomically."""
    from safetensors.numpy import save

    arrays, plain = play_state(state)
    try:
        metadata = json.dumps(plain, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"cannot write play file {path}: a field is not plain JSON ({e})") from None
    data = save(arrays, metadata={"bgzero": metadata})
    return atomic_write(path, lambda f: f.write(data), mode="wb")


def read_play(path: str | Path) -> dict:
    """A play file's fields, each net's weights a dict of numpy arrays; one-line :class:`CheckpointError`\\ s."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            metadata = f.metadata() or {}
            arrays = {key: f.get_tensor(key) for key in f.keys()}
        state = json.loads(metadata["bgzero"])
        if not isinstance(state, dict) or set(state) & set(NETS):
            raise ValueError("its metadata is not a set of plain fields")
    except (SafetensorError, OSError, KeyError, ValueError):
        raise CheckpointError(f"play file {path} is truncated, damaged or not a bgzero play file") from None
    for key, array in arrays.items():
        net, _, name = key.partition("/")
        if net not in NETS or not name:
            raise CheckpointError(f"play file {path}: tensor {key!r} belongs to no net ({', '.join(NETS)})")
        state.setdefault(net, {})[name] = array
    return state
