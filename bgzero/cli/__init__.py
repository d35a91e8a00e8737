"""Thin command-line entry points over the library: how a command ends, in one line and nothing half-written."""

import errno
import os
import signal
import sys
import threading
from contextlib import contextmanager

from bgzero.errors import BgzeroError, Interrupted, one_line


def reader_gone() -> None:
    """The reader of standard output went away (``| head``): send what is left to /dev/null, so that
    Python's own flush at exit cannot fail on the closed pipe too."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


WRITE_FAULTS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EROFS}
"""A full disk, a file-size limit or quota, a failing or read-only device: the disk's fault, not the code's."""


@contextmanager
def one_line_errors(prog: str):
    """Turn bgzero's own errors into a one-line message and exit status 1, not a traceback.

    ``kill`` (SIGTERM) becomes an exit through Python, so temporary files are removed and
    self-play workers stopped on the way out, as after an error. Ctrl-C (SIGINT) ends in one
    line and exit status 130, as a shell reports it: :class:`~bgzero.errors.Interrupted`'s
    message when the command saved something, else that nothing was written. A write the disk
    refuses (:data:`WRITE_FAULTS`) is one line naming the file. A value
    OmegaConf cannot resolve (``dice=${nope}``) is one line too, read where it is used.
    """
    def terminated(signum, frame):
        raise SystemExit(f"{prog}: stopped by {signal.Signals(signum).name}")

    faults: list[OSError] = []  # write faults of other threads (TensorBoard's writer), told by the main one

    def cannot_write(e: OSError) -> SystemExit:
        name = e.filename or next((f.filename for f in faults if f.filename), None)
        return SystemExit(f"{prog}: cannot write{f' {name}' if name else ''}: {e.strerror}")

    def thread_fault(args):
        if isinstance(args.exc_value, OSError) and args.exc_value.errno in WRITE_FAULTS:
            faults.append(args.exc_value)
        else:
            default_hook(args)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
    default_hook, threading.excepthook = threading.excepthook, thread_fault
    try:
        yield
    except Interrupted as e:
        _interrupted(f"{prog}: interrupted; {e}")
    except KeyboardInterrupt:
        _interrupted(f"{prog}: interrupted; no file was left half-written")
    except BgzeroError as e:
        raise SystemExit(f"{prog}: {e}") from None
    except BrokenPipeError:  # the reader stopped early (bgzero-hint ... | head): end quietly, as Python's docs advise
        reader_gone()
        raise SystemExit(1) from None
    except OSError as e:
        if e.errno not in WRITE_FAULTS:
            raise
        raise cannot_write(e) from None  # another library's writer (TensorBoard's); ours go through bgzero.atomic
    except Exception as e:
        omegaconf_errors = sys.modules.get("omegaconf.errors")
        if omegaconf_errors and isinstance(e, omegaconf_errors.OmegaConfBaseException):
            raise SystemExit(f"{prog}: {one_line(str(e))}") from None
        raise
    else:
        if faults:  # the work ended, but a background writer could not write: said, not swallowed
            raise cannot_write(faults[0])
    finally:
        threading.excepthook = default_hook


def _interrupted(message: str):
    print(message, file=sys.stderr, flush=True)
    raise SystemExit(130) from None
