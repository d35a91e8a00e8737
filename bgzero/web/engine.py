"""The server's agents and its worker threads: every request's evaluation goes through here.

Agents are named only from the server's own list (``bgzero-web agents=``), so a
request can never make the server open a file by naming a checkpoint path. Each agent is
built once, on first use, and shared; a checkpoint's evaluator is loaded once for all its
plies. Short evaluations run on one :class:`~bgzero.web.workers.Pool` (torch and numba
release the GIL), long work (rollouts, watched matches, uploads) on another, each with a
bounded waiting line: beyond it a request is refused at once with :class:`BusyError` (HTTP 503).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager

from bgzero.agents.base import Agent
from bgzero.agents.neural import NeuralAgent
from bgzero.agents.specs import make_agent, parse_spec
from bgzero.errors import BgzeroError, ConfigError
from bgzero.value.checkpoint import load_evaluator
from bgzero.value.evaluator import Evaluator
from bgzero.web.workers import BusyError, Pool

__all__ = ["BusyError", "Engine"]


class Engine:
    """Agents by spec from an allow-list, built once, and two bounded pools that run their work."""

    def __init__(self, agents: Sequence[str], workers: int = 2, queue: int = 256, long_workers: int = 1,
                 long_queue: int = 4):
        if not agents:
            raise ConfigError("agents: the server needs at least one agent to offer")
        for spec in agents:
            parse_spec(spec)  # a malformed entry fails at start-up, not on the first request
        self.agents = tuple(str(a) for a in agents)
        self.short = Pool("short", workers, queue)
        self.long = Pool("long", long_workers, long_queue)
        self._built: dict[str, Agent] = {}
        self._evaluators: dict[str, Evaluator] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._build_lock = threading.Lock()

    def check(self, spec: str) -> str:
        """``spec`` if this server offers it, else a :class:`ConfigError` listing what it offers."""
        spec = str(spec).strip()
        if spec not in self.agents:
            raise ConfigError(f"agent {spec!r} is not offered here; choose one of {', '.join(self.agents)}")
        return spec

    def load_all(self) -> None:
        """Build every offered agent now, so that one that cannot load (a missing checkpoint,
        gnubg without its engine) stops the server at start, not a visitor's first request."""
        for spec in self.agents:
            try:
                self.agent(spec)
            except BgzeroError as e:
                raise ConfigError(f"agents: {spec!r} cannot be loaded: {e}") from None

    def agent(self, spec: str) -> Agent:
        """The shared agent ``spec`` names (built on first use; call from a worker thread)."""
        spec = self.check(spec)
        with self._build_lock:
            if spec not in self._built:
                name, path, ply = parse_spec(spec)
                if name == "checkpoint" and path:  # else make_agent says a checkpoint needs its file
                    if path not in self._evaluators:
                        self._evaluators[path] = load_evaluator(path)
                    self._built[spec] = NeuralAgent(self._evaluators[path], ply=ply, name=spec)
                else:
                    self._built[spec] = make_agent(spec)
                    if not isinstance(self._built[spec], NeuralAgent):  # gnubg's engine is global, random keeps a generator
                        self._locks[spec] = threading.Lock()
            return self._built[spec]

    def evaluator(self, spec: str):
        """(evaluator, ply) of a network agent: the analyses need its probabilities."""
        agent = self.agent(spec)
        if not isinstance(agent, NeuralAgent):
            networks = [a for a in self.agents if parse_spec(a)[0] == "checkpoint"]
            raise ConfigError(f"agent {spec!r} has no network to analyse with; choose one of {', '.join(networks)}")
        return agent.evaluator, agent.ply

    @contextmanager
    def using(self, *specs: str) -> Iterator[None]:
        """Hold the agents that keep state (network agents need no lock) for the block: each
        distinct one once, and always in one order (by spec), so that neither one request
        (an agent against itself) nor two (a against b beside b against a) can deadlock."""
        for spec in specs:
            self.agent(spec)
        with ExitStack() as held:
            for spec in sorted({self.check(s) for s in specs}):
                if spec in self._locks:
                    held.enter_context(self._locks[spec])
            yield

    async def run(self, fn: Callable, *args):
        """``fn(*args)`` on a short-work thread; :class:`BusyError` at once if its waiting line is full."""
        return await self.short.run(fn, *args)

    async def run_long(self, fn: Callable, *args):
        """``fn(*args)`` on a long-work thread (rollouts, whole matches), beside the short requests."""
        return await self.long.run(fn, *args)

    def submit_long(self, fn: Callable, *args):
        """``fn(*args)`` queued for a long-work thread: its future, or :class:`BusyError` at once."""
        return self.long.submit(fn, *args)

    def close(self) -> None:
        self.short.close()
        self.long.close()
