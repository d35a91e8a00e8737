"""One training at a time per run directory.

Two runs writing into one directory would overwrite each other's checkpoints, ``last.pt``
and ``result.json`` without a word. A run holds an exclusive ``flock`` on ``.lock`` in
its directory for as long as it lives; the kernel drops the lock when the process ends,
however it ends, so a killed run never leaves a stale lock behind. Holding the lock also
makes it safe to delete the temporary files a killed run's atomic writes left.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from bgzero.atomic import remove_temporaries
from bgzero.errors import BgzeroError

LOCK_NAME = ".lock"


class RunLockedError(BgzeroError):
    """Another live process is training in the same run directory."""


class RunLock:
    """``with RunLock(out_dir):`` holds ``out_dir`` for this process; :class:`RunLockedError` if taken."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise RunLockedError(f"{self.directory} is in use by another training (pid {holder}); "
                                 "wait for it, or pass train.out_dir=ANOTHER_DIR") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        for sub in (self.directory, self.directory / "checkpoints"):
            remove_temporaries(sub)  # left by a run killed while writing; no one else writes here now
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None
