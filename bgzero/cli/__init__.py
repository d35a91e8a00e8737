"""Thin command-line entry points (Hydra apps) over the library."""

from contextlib import contextmanager

from bgzero import paths
from bgzero.errors import BgzeroError

CONFIGS = str(paths.CONFIGS)
"""The Hydra configs, as an absolute path: console scripts run from anywhere."""


@contextmanager
def one_line_errors(prog: str):
    """Turn bgzero's own errors into a one-line message and exit status 1, not a traceback."""
    try:
        yield
    except BgzeroError as e:
        raise SystemExit(f"{prog}: {e}") from None
