"""Thin command-line entry points (Hydra apps) over the library."""

import re
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


_OVERRIDE = re.compile(r"[+~]*[A-Za-z_][\w.]*=")


def positional_args(argv: list[str], names: tuple[str, ...]) -> list[str]:
    """gnubg's habit, ``bgzero-hint 4HPwATDgc/ABMA 31``: bare arguments become ``names[k]=VALUE``.

    Hydra takes only ``key=value``; a bare argument (or an XGID, whose ``XGID=`` is no key)
    fills the next of ``names``, quoted so ``:`` and ``=`` pass Hydra's grammar.
    """
    out, free = argv[:1], list(names)
    for arg in argv[1:]:
        bare = not arg.startswith("-") and (not _OVERRIDE.match(arg) or arg.upper().startswith("XGID="))
        if bare and free:
            out.append(f"{free.pop(0)}='{arg}'")
        else:
            out.append(arg)
    return out
