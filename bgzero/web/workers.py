"""A fixed pool of worker threads with a bounded waiting line, awaited from the event loop.

The server has two (:class:`~bgzero.web.engine.Engine`): one for short requests and one for
long work (rollouts, watched matches, uploads analysed), so that the long never wait in front
of the short. A request beyond ``workers`` running and ``queue`` waiting is refused at once
with :class:`BusyError` (HTTP 503) instead of piling up. The threads are daemons: work stuck
in an agent, or a rollout still running, never keeps the process alive once the server has
stopped, so SIGTERM ends it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future

from bgzero.errors import BgzeroError, ConfigError


class BusyError(BgzeroError):
    """Every worker is busy and the waiting line is full (or the server is stopping); retry later."""


class Pool:
    """``workers`` daemon threads taking work in order; at most ``queue`` more may wait."""

    def __init__(self, name: str, workers: int, queue_size: int):
        if workers < 1 or queue_size < 1:
            raise ConfigError(f"{name}: workers={workers}, queue={queue_size}: each must be at least 1")
        self.name, self.workers, self.queue = name, workers, queue_size
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._pending = 0  # submitted and not finished, running or waiting
        self._count = threading.Lock()
        self._closed = False
        for k in range(workers):
            threading.Thread(target=self._serve, name=f"{name}-{k}", daemon=True).start()

    @property
    def pending(self) -> int:
        """Work submitted and not yet finished (running or waiting)."""
        return self._pending

    def _serve(self) -> None:
        while (item := self._work.get()) is not None:
            future, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue  # its client went away while it waited
            try:
                future.set_result(fn(*args))
            except BaseException as e:  # noqa: BLE001 - handed to the awaiting request, which reraises it
                future.set_exception(e)

    def _finished(self, _future: Future) -> None:
        with self._count:
            self._pending -= 1

    async def run(self, fn: Callable, *args):
        """``fn(*args)`` on a worker; :class:`BusyError` at once if the line is full. If the caller is
        cancelled while the work waits, the work is dropped; once running, it runs to its end."""
        with self._count:
            if self._closed:
                raise BusyError("the server is stopping")
            if self._pending >= self.workers + self.queue:
                raise BusyError(f"the server is busy ({self._pending - self.workers} {self.name} requests waiting); "
                                "try again shortly")
            self._pending += 1
        future: Future = Future()
        future.add_done_callback(self._finished)
        self._work.put((future, fn, args))
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """Refuse new work, drop what waits, and let the threads end once their current work does."""
        with self._count:
            self._closed = True
        while True:
            try:
                item = self._work.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        for _ in range(self.workers):
            self._work.put(None)
