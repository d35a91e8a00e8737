"""Worker processes follow their main process: its Ctrl-C and its death.

A terminal sends SIGINT to the whole process group: each worker would print its own
``KeyboardInterrupt`` traceback and die mid-task; instead a worker ignores SIGINT and the main
process, which gets it too, decides what is kept and stops the workers (a pool's
``terminate``, the self-play workers' stop event). A main process killed outright (``kill -9``,
the out-of-memory killer) stops no one, so each worker watches for it and exits.

A Ctrl-C while workers start would reach a worker still importing, before it can ignore SIGINT,
and print its traceback: the main process starts them :func:`starting_workers`, with SIGINT
blocked, which they inherit until :func:`follow_the_main_process` ignores it.
"""

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

PARENT_POLL_SECONDS = 0.2
"""How often a worker looks whether its main process is still there: it then exits within this."""


def follow_the_main_process(*_) -> None:
    """A pool's ``initializer`` (any arguments are ignored): SIGINT no longer interrupts this
    process, and it exits once the process that started it is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by starting_workers; one pending is dropped
    parent = multiprocessing.parent_process()
    parent_pid = parent.pid if parent is not None else os.getppid()  # the starter, even if already gone

    def watch() -> None:
        if os.getppid() == parent_pid:  # fork, spawn: the starter is our parent, until it dies
            while os.getppid() == parent_pid:
                time.sleep(PARENT_POLL_SECONDS)
        elif parent is not None:  # forkserver: our parent is the fork server; the starter's pipe end closes as it dies
            multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="bgzero-main-process-watch", daemon=True).start()


@contextmanager
def starting_workers() -> Iterator[None]:
    """Start worker processes inside this. They begin with SIGINT blocked (a signal mask survives
    fork and exec); here a Ctrl-C waits until every worker is started, then raises: one cut short
    in its start would have read half its instructions and printed an ``EOFError`` traceback."""
    # The first pool's semaphores start multiprocessing's resource tracker, which blocks and then
    # *unblocks* SIGINT around its own start, undoing the block below for every worker after it:
    # start it first (CPython's multiprocessing.resource_tracker; tests/test_interrupts.py fails
    # without this).
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()
    main = threading.current_thread() is threading.main_thread()  # only it handles signals (a server's threads do not)
    caught = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True)) if main else None  # another thread may take it
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a pending one is caught now
        if main:
            signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _started() -> None:
    """A no-op task: its answer says a worker has run its initializer."""


def started_executor(processes: int, initializer, initargs=()) -> ProcessPoolExecutor:
    """A spawn-context :class:`ProcessPoolExecutor` whose ``processes`` workers have all started,
    :func:`starting_workers`; the executor would otherwise start them one by one as work is
    submitted, outside that guard. ``initializer`` must call :func:`follow_the_main_process`."""
    pool = None
    try:
        with starting_workers():  # a Ctrl-C meanwhile is raised as the block ends
            pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=initializer, initargs=initargs)
            for started in [pool.submit(_started) for _ in range(processes)]:
                started.result()
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    return pool
