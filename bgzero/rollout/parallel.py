"""Running a rollout: fixed batches of trials, here, in local processes, or on Ray actors.

The trials of all positions are laid out trial-major (trial 0 of every position, then
trial 1, ...) and cut into batches of ``settings.batch``. A batch is the unit of work: its
composition, and so every number it produces, depends only on the settings, never on
the number of processes or on which one ran it; results are taken in batch order. A
stopping rule (target standard error, time budget) is checked after each batch in that
order, so a rollout stopped by its standard error is as reproducible as one of a fixed
trial count. Positions advance together: a time budget stops them all at about the same
number of trials.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import overload

import numpy as np
from tqdm import tqdm

from bgzero.cube import MatchState
from bgzero.errors import ConfigError, Interrupted
from bgzero.interrupts import follow_the_main_process, starting_workers
from bgzero.rollout.lockstep import ChunkOutcome, RolloutSettings, check_player, run_chunk
from bgzero.rollout.players import RolloutPlayer, make_player
from bgzero.rollout.result import RolloutResult, standard_error, summarise
from bgzero.value.probs import equity
from bgzero.value.threads import set_torch_threads, torch_threads

BACKENDS = ("local", "ray")
Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class PlayerSpec:
    """A rollout player by name, so that each worker process can build its own."""

    agent: str
    judge: str | None = None
    prune: bool = True
    database: bool = True

    def build(self) -> RolloutPlayer:
        return make_player(self.agent, self.judge, self.prune, self.database)


@dataclass(frozen=True)
class Job:
    """Everything a batch needs besides the player."""

    roots: np.ndarray
    settings: RolloutSettings
    states: tuple[MatchState, ...] | None = None
    root_players: tuple[int, ...] | None = None


class Batches(Sequence[tuple[int, int]]):
    """Item ranges ``[lo, hi)`` of the trial-major layout (item ``k``: trial ``k // positions``
    of position ``k % positions``), each made when asked: a plan of a billion one-trial batches
    costs nothing before the first one runs, so ``seconds=`` or ``se=`` stop it in time."""

    def __init__(self, positions: int, trials: int, batch: int):
        self.total, self.batch = positions * trials, batch
        self._starts = range(0, self.total, batch)

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, int] | list[tuple[int, int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        lo = self._starts[index]
        return lo, min(lo + self.batch, self.total)


def run_batch(player: RolloutPlayer, job: Job, index: int, lo: int, hi: int) -> ChunkOutcome:
    """Batch ``index`` (items ``lo:hi``) of ``job``; an agent with its own randomness draws it
    from the seed and the batch, so its choices do not depend on who runs which batch."""
    if hasattr(player.agent, "rng"):
        player.agent.rng = np.random.default_rng([job.settings.seed, index])
    items = np.arange(lo, hi)
    p = len(job.roots)
    return run_chunk(player, job.roots, items % p, items // p, job.settings,
                     list(job.states) if job.states else None, list(job.root_players) if job.root_players else None)


_WORKER: RolloutPlayer | None = None


PRELOAD = ["bgzero.rollout.parallel"]
"""What a fork server imports once, for every worker it forks: the rollout engine and its players."""


def start_method(platform: str, torch_loaded: bool, threads: int) -> str:
    """How worker processes start: ``fork`` where it is safe, else ``forkserver`` (Linux), else ``spawn``.

    A spawned worker starts Python, imports bgzero and loads numba's kernels (~1.5 s), most of
    a short rollout; a forked one has them already. Forking is safe only on Linux, from a
    process running no other thread (a fork copies locks other threads hold; tqdm's monitor,
    which only wakes to check bars, is not counted: workers draw none) and without torch
    loaded (its thread pool does not survive a fork). Elsewhere (the web app's threads, a
    training run's torch) a fork server, started once with :data:`PRELOAD` imported, forks each
    pool's workers: CPython's advice where fork is unsafe, 0.3-0.8 s a pool quicker than spawn and
    0.4-0.7 s slower than a fork (``scripts/bench_start_method.py``, docs/benchmarks.md). Either
    way a worker builds its player from the spec, so the numbers are the same.
    """
    if platform != "linux":
        return "spawn"
    return "fork" if not torch_loaded and threads == 1 else "forkserver"


def _init_worker(spec: PlayerSpec) -> None:
    global _WORKER
    follow_the_main_process()
    _WORKER = spec.build()
    set_torch_threads(1)  # batches always run on one thread: results then match across processes bit for bit


def _work(args) -> ChunkOutcome:
    job, index, lo, hi = args
    assert _WORKER is not None  # built by _init_worker, the pool's initializer
    return run_batch(_WORKER, job, index, lo, hi)


def _local(player, job: Job, plan: Batches, processes: int) -> Iterator[ChunkOutcome]:
    if processes == 1:
        with torch_threads(1):
            for index, (lo, hi) in enumerate(plan):
                yield run_batch(player, job, index, lo, hi)
        return
    threads = sum(t is not tqdm.monitor for t in threading.enumerate())
    ctx = mp.get_context(start_method(sys.platform, "torch" in sys.modules, threads))
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(PRELOAD)  # read when the server starts: once a process
    workers = min(processes, len(plan))
    with starting_workers():
        pool = ctx.Pool(workers, initializer=_init_worker, initargs=(player,))
    with pool:
        tasks = ((job, i, lo, hi) for i, (lo, hi) in enumerate(plan))
        pending = deque(pool.apply_async(_work, (task,)) for task in islice(tasks, 2 * workers))
        while pending:  # two batches queued per worker: Pool.imap would queue the whole plan at once
            outcome = pending.popleft().get()
            pending.extend(pool.apply_async(_work, (task,)) for task in islice(tasks, 1))
            yield outcome


def _ray(player: PlayerSpec, job: Job, plan: Batches, processes: int,
         address: str | None) -> Iterator[ChunkOutcome]:
    try:
        import ray
    except ImportError:
        raise ConfigError("backend=ray needs Ray: pip install -e '.[distributed]'") from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)

    @ray.remote(num_cpus=1)
    class RolloutActor:
        def __init__(self, spec):
            self.player = spec.build()
            set_torch_threads(1)

        def run(self, job, index, lo, hi):
            return run_batch(self.player, job, index, lo, hi)

    actors = [RolloutActor.remote(player)  # type: ignore[attr-defined]  # added by @ray.remote
              for _ in range(min(processes, len(plan)))]
    job_ref = ray.put(job)
    pending = {}
    submitted = 0
    try:
        for index in range(len(plan)):
            while submitted < len(plan) and submitted < index + 2 * len(actors):  # two batches queued per actor
                lo, hi = plan[submitted]
                pending[submitted] = actors[submitted % len(actors)].run.remote(job_ref, submitted, lo, hi)
                submitted += 1
            yield ray.get(pending.pop(index))
    finally:
        for actor in actors:
            ray.kill(actor)


def rollout(roots: np.ndarray, player: RolloutPlayer | PlayerSpec, settings: RolloutSettings,
            states: Sequence[MatchState] | None = None, root_players: Sequence[int] | None = None,
            processes: int = 1, backend: str = "local", ray_address: str | None = None,
            progress: bool | Progress = False) -> list[RolloutResult]:
    """Roll out each of ``roots`` (side on roll, before it rolls); one result per root.

    ``progress``: ``True`` for a progress bar, or a function told ``(trials done, trials in
    all, worst standard error)`` after every batch (the web app streams it).

    ``states`` / ``root_players`` give each root's match state and the player on roll
    (cubeful rollouts; default money, centred cube, player 0). More than one process, or
    Ray, needs the player as a :class:`PlayerSpec` (each worker builds its own).
    """
    settings = settings.check()
    roots = np.ascontiguousarray(roots, np.int8).reshape(-1, 2, 25)
    if processes < 1:
        raise ConfigError(f"processes={processes}: need at least 1")
    if backend not in BACKENDS:
        raise ConfigError(f"backend={backend!r}: choose one of {', '.join(BACKENDS)}")
    if (processes > 1 or backend == "ray") and not isinstance(player, PlayerSpec):
        raise ConfigError("several processes or Ray need the player by name (a PlayerSpec), to build one in each")
    for given, what in ((states, "states"), (root_players, "root_players")):
        if given is not None and len(given) != len(roots):
            raise ConfigError(f"{what}: {len(given)} given for {len(roots)} positions")
    if isinstance(player, PlayerSpec) and processes == 1 and backend == "local":
        player = player.build()
    check_player(player.build() if isinstance(player, PlayerSpec) else player, settings)  # fail here, not in workers
    job = Job(roots, settings, tuple(states) if states is not None else None,
              tuple(int(p) for p in root_players) if root_players is not None else None)
    plan = Batches(len(roots), settings.trials, settings.batch)
    if backend == "ray":
        assert isinstance(player, PlayerSpec)  # checked above
        runs = _ray(player, job, plan, processes, ray_address)
    else:
        runs = _local(player, job, plan, processes)
    return _collect(runs, plan, len(roots), settings, progress)


def _collect(runs: Iterator[ChunkOutcome], plan, positions: int, settings: RolloutSettings,
             progress: bool | Progress) -> list[RolloutResult]:
    """Take batches in order until the trials are done or a stopping rule is met."""
    probs: list[list[np.ndarray]] = [[] for _ in range(positions)]
    cubeful: list[list[np.ndarray]] = [[] for _ in range(positions)]
    start = time.perf_counter()
    total, done = positions * settings.trials, 0
    with tqdm(total=total, unit="trial", disable=progress is not True, dynamic_ncols=True) as bar:
        try:
            for (lo, hi), outcome in zip(plan, runs):
                owner = np.arange(lo, hi) % positions
                for r in np.unique(owner).tolist():
                    probs[r].append(outcome.probs[owner == r])
                    if outcome.cubeful is not None:
                        cubeful[r].append(outcome.cubeful[owner == r])
                worst = _worst_se(probs, cubeful, settings.cubeful)
                bar.update(hi - lo)
                bar.set_postfix_str(f"se {worst:.4f}")
                done += hi - lo
                if callable(progress):
                    progress(done, total, worst)
                if settings.se is not None and worst <= settings.se:
                    break
                if settings.seconds is not None and time.perf_counter() - start >= settings.seconds:
                    break
        except KeyboardInterrupt:  # Ctrl-C: say how far it got (a partial rollout is no result to save)
            raise Interrupted(f"{done:,} of {total:,} trials were done; no result was written") from None
        finally:
            close = getattr(runs, "close", None)
            if close is not None:
                close()
    return [summarise(np.concatenate(p), np.concatenate(c) if settings.cubeful else None)
            for p, c in zip(probs, cubeful)]


def _worst_se(probs, cubeful, use_cubeful: bool) -> float:
    """The largest equity standard error over positions (cubeful where cubeful); inf before two trials."""
    worst = 0.0
    for p, c in zip(probs, cubeful):
        if not p:
            return math.inf
        values = np.concatenate(c) if use_cubeful else equity(np.concatenate(p))
        worst = max(worst, float(standard_error(values)) if len(values) >= 2 else math.inf)
    return worst
