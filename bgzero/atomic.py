"""Atomic file writes: a temporary file in the target's directory, renamed over it.

A crash, a kill or an error while writing never leaves a half-written file under the
real name; readers see the old file or the complete new one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from bgzero.errors import OutputError, shown
from bgzero.paths import NAME_MAX, unusable_name


def _umasked_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_UMASKED_MODE = _umasked_mode()


def atomic_write(path: str | Path, write: Callable[[IO], object], mode: str = "w",
                 temp_name: str | None = None) -> Path:
    """Call ``write(f)`` on a temporary file opened with ``mode``, then rename it to ``path``.

    Any OSError on the way (a full disk, a name too long, no permission) is one
    :class:`~bgzero.errors.OutputError`, and the file ``path`` held before is left as it was.

    The temporary file is ``NAME.XXXXXXXX.tmp`` beside ``path``, NAME being ``path``'s name or
    ``temp_name`` (for a folder whose readers take any file whose name looks like theirs).
    """
    path = Path(path)
    if reason := unusable_name(path):
        raise OutputError(f"cannot write {shown(str(path))}: {reason}")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(temp_name or path.name), suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise _output_error(path, e) from None
    try:
        os.chmod(tmp, _UMASKED_MODE)  # mkstemp makes it owner-only; give it a normal file's mode
        try:  # a full disk (ENOSPC) or a file-size limit (EFBIG) shows in a write, the flush or the fsync
            encoding, newline = (None, None) if "b" in mode else ("utf-8", "")
            with os.fdopen(fd, mode, encoding=encoding, newline=newline) as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        except OutputError:
            raise
        except OSError as e:
            raise _output_error(path, e) from None
        try:
            os.replace(tmp, path)
        except OSError as e:
            raise _output_error(path, e) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _temp_prefix(name: str) -> str:
    """``NAME.``, cut so ``NAME.XXXXXXXX.tmp`` fits in a file name: a 250-byte name is a name like any other."""
    room = NAME_MAX - len(".XXXXXXXX.tmp")
    return name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore") + "."


def _output_error(path: Path, e: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {e.strerror or e}")


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write(path, lambda f: f.write(text))


def remove_temporaries(directory: str | Path) -> list[Path]:
    """Delete the temporary files (``NAME.XXXXXXXX.tmp``) that writes killed mid-way left in ``directory``.

    Only for a directory no other process is writing into (a run directory under its lock).
    """
    directory = Path(directory)
    if not directory.is_dir():
        return []
    stale = [p for p in directory.glob("*.*.tmp") if p.is_file()]
    for p in stale:
        p.unlink(missing_ok=True)
    return stale
