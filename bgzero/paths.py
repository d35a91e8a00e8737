"""Where the package's own files are: the Hydra configs, the shipped checkpoints and data files.

In a built wheel they travel inside the package (``bgzero/configs``, ``bgzero/checkpoints``,
mapped there from the repository's top-level folders by ``pyproject.toml``); in a checkout
they are those top-level folders. Either way the commands find them from any directory.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    inside = _PACKAGE / name
    return inside if inside.is_dir() else _PACKAGE.parent / name


CONFIGS = _shipped("configs")
CHECKPOINTS = _shipped("checkpoints")
DATA = _PACKAGE / "data"
"""Data the package needs at run time (pubeval's weights, the match table, the move-error judge's scores)."""
