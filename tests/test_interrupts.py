"""Workers started inside ``starting_workers`` cannot be cut short by a Ctrl-C while they import."""

import multiprocessing
import signal
from pathlib import Path

import pytest

from bgzero.interrupts import started_executor, starting_workers

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")


def _sigint_blocked() -> bool:
    """Whether SIGINT is in this process's blocked set (a worker asks before its initializer unblocks it)."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("SigBlk"))
    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def _nothing() -> None:
    pass


def test_a_pools_workers_start_with_sigint_blocked():
    # the first pool of a process also starts multiprocessing's resource tracker, which used to
    # unblock SIGINT in the main process as it started, so every worker began unguarded
    with starting_workers():
        pool = multiprocessing.get_context("spawn").Pool(2)
    try:
        assert pool.apply(_sigint_blocked) is True
    finally:
        pool.terminate()
    assert _sigint_blocked() is False  # and the main process takes Ctrl-C again afterwards


def test_an_executors_workers_have_all_started_when_it_is_returned():
    pool = started_executor(2, _nothing)
    try:
        assert len(multiprocessing.active_children()) >= 2  # started, not left to start one by one as work comes
        assert pool.submit(_sigint_blocked).result() is True  # _nothing left SIGINT blocked
    finally:
        pool.shutdown()
