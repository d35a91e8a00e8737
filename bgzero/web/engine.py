"""The server's agents and its worker threads: every request's evaluation goes through here.

Agents are named only from the server's own list (``agents`` in ``configs/web.yaml``), so a
request can never make the server open a file by naming a checkpoint path. Each agent is
built once, on first use, and shared; a checkpoint's evaluator is loaded once for all its
plies. Evaluations run in a fixed pool of threads (torch and numba release the GIL), and
at most ``queue`` of them may wait: beyond that a request is refused at once with
:class:`BusyError` (HTTP 503) instead of piling up behind the others.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext

from bgzero.agents.base import Agent
from bgzero.agents.neural import NeuralAgent
from bgzero.agents.specs import make_agent, parse_spec
from bgzero.errors import BgzeroError, ConfigError
from bgzero.value.checkpoint import load_evaluator


class BusyError(BgzeroError):
    """Every worker is busy and the waiting line is full; the client should retry later."""


class Engine:
    """Agents by spec from an allow-list, built once, and a bounded pool that runs their work."""

    def __init__(self, agents: Sequence[str], workers: int = 2, queue: int = 256):
        if not agents:
            raise ConfigError("agents: the server needs at least one agent to offer")
        if workers < 1 or queue < 1:
            raise ConfigError(f"workers={workers}, queue={queue}: each must be at least 1")
        for spec in agents:
            parse_spec(spec)  # a malformed entry fails at start-up, not on the first request
        self.agents = tuple(str(a) for a in agents)
        self.queue = queue
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="bgzero-web")
        self._built: dict[str, Agent] = {}
        self._evaluators: dict[str, object] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._build_lock = threading.Lock()
        self._waiting = 0  # changed only on the event loop's thread

    def check(self, spec: str) -> str:
        """``spec`` if this server offers it, else a :class:`ConfigError` listing what it offers."""
        spec = str(spec).strip()
        if spec not in self.agents:
            raise ConfigError(f"agent {spec!r} is not offered here; choose one of {', '.join(self.agents)}")
        return spec

    def agent(self, spec: str) -> Agent:
        """The shared agent ``spec`` names (built on first use; call from a worker thread)."""
        spec = self.check(spec)
        with self._build_lock:
            if spec not in self._built:
                name, path, ply = parse_spec(spec)
                if name == "checkpoint":
                    if path not in self._evaluators:
                        self._evaluators[path] = load_evaluator(path)
                    self._built[spec] = NeuralAgent(self._evaluators[path], ply=ply, name=spec)
                else:
                    self._built[spec] = make_agent(spec)
                    self._locks[spec] = threading.Lock()  # gnubg's engine is global, random keeps a generator
            return self._built[spec]

    def evaluator(self, spec: str):
        """(evaluator, ply) of a network agent: the analyses need its probabilities."""
        agent = self.agent(spec)
        if not isinstance(agent, NeuralAgent):
            networks = [a for a in self.agents if parse_spec(a)[0] == "checkpoint"]
            raise ConfigError(f"agent {spec!r} has no network to analyse with; choose one of {', '.join(networks)}")
        return agent.evaluator, agent.ply

    def using(self, spec: str):
        """A context that serialises calls into an agent that keeps state; network agents need none."""
        self.agent(spec)
        return self._locks.get(self.check(spec)) or nullcontext()

    async def run(self, fn: Callable, *args):
        """``fn(*args)`` on a worker thread; :class:`BusyError` at once if the waiting line is full."""
        if self._waiting >= self.queue:
            raise BusyError(f"the server is busy ({self._waiting} requests waiting); try again shortly")
        self._waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)
        finally:
            self._waiting -= 1

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
