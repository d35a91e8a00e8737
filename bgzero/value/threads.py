"""torch's thread count, set only in a process that already uses torch.

Worker processes run their nets on one thread each (one core per worker, and results that
match across processes bit for bit). A process that plays without torch has nothing to
pin, and importing torch only to pin it would cost seconds, so nothing here imports it:
build the agents first, then pin.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager


def set_torch_threads(n: int) -> int | None:
    """Run torch on ``n`` threads if this process has imported it; the count before, or None."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    return before


@contextmanager
def torch_threads(n: int):
    """:func:`set_torch_threads` for the duration of a ``with`` block."""
    before = set_torch_threads(n)
    try:
        yield
    finally:
        if before is not None:
            set_torch_threads(before)
