"""Thin command-line entry points (Hydra apps) over the library."""

import signal
import threading
from contextlib import contextmanager

from bgzero import paths
from bgzero.errors import BgzeroError

CONFIGS = str(paths.CONFIGS)
"""The Hydra configs, as an absolute path: console scripts run from anywhere."""


@contextmanager
def one_line_errors(prog: str):
    """Turn bgzero's own errors into a one-line message and exit status 1, not a traceback.

    ``kill`` (SIGTERM) becomes an exit through Python, so temporary files are removed and
    self-play workers stopped on the way out, as after an error.
    """
    def terminated(signum, frame):
        raise SystemExit(f"{prog}: stopped by {signal.Signals(signum).name}")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    except BgzeroError as e:
        raise SystemExit(f"{prog}: {e}") from None
