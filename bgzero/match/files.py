"""A match file in either of gnubg's formats, chosen by its suffix: ``.sgf`` (gnubg's own) or ``.mat``."""

from __future__ import annotations

from pathlib import Path

from bgzero.errors import ConfigError
from bgzero.match.mat import read_mat, write_mat
from bgzero.match.record import MatchRecord
from bgzero.match.sgf import read_sgf, write_sgf

SUFFIXES = (".mat", ".sgf")


def check_suffix(path) -> Path:
    """``path``, refused before any work unless it ends in ``.mat`` or ``.sgf``."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise ConfigError(f"{path}: a match file must end in .mat or .sgf")
    return path


def read_match_file(path, *, jacoby: bool = False) -> MatchRecord:
    """The match in ``path`` (``jacoby``: a money .mat's rule, which that format does not record)."""
    path = check_suffix(path)
    return read_sgf(path) if path.suffix.lower() == ".sgf" else read_mat(path, jacoby=jacoby)


def write_match_file(path, record: MatchRecord, comments: tuple[str, ...] = ()) -> Path:
    """Write ``record`` to ``path`` in the format its suffix names (SGF keeps no comments)."""
    path = check_suffix(path)
    return write_sgf(path, record) if path.suffix.lower() == ".sgf" else write_mat(path, record, comments)


