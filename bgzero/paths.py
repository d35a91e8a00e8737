"""Where the package's own files are: the Hydra configs and the shipped checkpoints.

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
