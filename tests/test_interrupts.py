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


def _pid(_=None) -> int:
    import os

    return os.getpid()


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_exit_soon_after_their_main_process_is_killed_however_they_were_started(method, tmp_path):
    """Under forkserver a worker's parent is the fork server, not its main process: watching for
    a new parent, as under fork and spawn, kept it alive for good; it watches the main process's pipe."""
    import os
    import subprocess
    import sys
    import time

    code = (f"import multiprocessing, time\nfrom bgzero.interrupts import follow_the_main_process\n"
            f"from tests.test_interrupts import _pid\n"
            f"if __name__ == '__main__':\n"
            f"    pool = multiprocessing.get_context({method!r}).Pool(2, initializer=follow_the_main_process)\n"
            f"    pids = set()\n"
            f"    while len(pids) < 2:\n"
            f"        pids |= set(pool.map_async(_pid, range(8)).get(timeout=60))\n"
            f"    print(*pids, flush=True)\n"
            f"    time.sleep(600)\n")
    script = tmp_path / "main.py"
    script.write_text(code)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[1], start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    try:
        workers = [int(pid) for pid in proc.stdout.readline().split()]
        assert len(workers) == 2
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) for pid in workers) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) for pid in workers)
    finally:
        import contextlib

        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return "Z"
