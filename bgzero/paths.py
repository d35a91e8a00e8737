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


NAME_MAX = 255
"""The longest file or folder name, in bytes, that Linux's, macOS's and Windows' usual filesystems take."""


def unusable_name(path: str | Path) -> str | None:
    """Why ``path`` cannot name a file (a part of it over :data:`NAME_MAX` bytes), or None.

    Checked before a path is touched: ``Path.exists`` itself raises ``ENAMETOOLONG`` on such a name.
    """
    for part in Path(path).parts:
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > NAME_MAX:
            return f"a name in it is {size} bytes long, over the {NAME_MAX} a filesystem takes"
    return None
