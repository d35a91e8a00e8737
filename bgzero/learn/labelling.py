"""Labelling a candidates file by n-ply search, in chunks that survive a kill.

The slow half of a generation (:mod:`bgzero.learn.iterate`): on two cores it runs for hours,
longer than one stretch of work. The candidates file (from
:func:`bgzero.learn.search_targets.candidate_turns`) is cut into fixed chunks of
``chunk`` boards; each finished chunk is written at once as ``labels-NNNNN.npz`` with the
teacher, the ply and the candidates file's checksum, so a rerun labels only what is
missing and a chunk of another candidates file or teacher is refused, never mixed in.

Workers are local processes (``backend="local"``) or Ray actors (``backend="ray"``, on
whatever cluster ``ray.init`` joins). Either way the driver writes chunks in order, so
the labelled part of a run is always a prefix of the candidates file.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from bgzero.atomic import atomic_write
from bgzero.errors import ConfigError
from bgzero.learn.search_targets import evaluate_job, file_sha256, load_worker

JOB = 96  # boards a worker evaluates per request: big enough to batch the search, small enough to balance
BACKENDS = ("local", "ray")


def chunk_path(folder: Path, index: int) -> Path:
    return Path(folder) / f"labels-{index:05d}.npz"


def chunk_count(total: int, chunk: int) -> int:
    return -(-total // chunk)


def labelled_prefix(folder: Path, candidates: Path, teacher: str, ply: int, chunk: int) -> int:
    """How many chunks from the first are already labelled for this candidates file and teacher.

    A chunk made from other candidates, by another teacher or at another ply is an error:
    the folder belongs to a different labelling, and mixing them would train on wrong targets.
    """
    return _prefix(folder, file_sha256(candidates), teacher, ply, chunk)


def _prefix(folder: Path, sha: str, teacher: str, ply: int, chunk: int) -> int:
    done = 0
    while chunk_path(folder, done).exists():
        with np.load(chunk_path(folder, done)) as f:
            made = (str(f["candidates_sha256"]), str(f["teacher"]), int(f["ply"]), int(f["chunk"]))
        if made != (sha, str(teacher), ply, chunk):
            raise ConfigError(f"{chunk_path(folder, done)} labels other candidates or another teacher "
                              f"({made[1]} at {made[2]}-ply, chunks of {made[3]}); use a fresh folder")
        done += 1
    return done


def load_labels(folder: Path, chunks: int) -> np.ndarray:
    """The targets of the first ``chunks`` chunks, concatenated: (M, 5) float32."""
    parts = []
    for i in range(chunks):
        with np.load(chunk_path(folder, i)) as f:
            parts.append(f["targets"])
    return np.concatenate(parts) if parts else np.empty((0, 5), np.float32)


def label(teacher: str, candidates: Path, folder: Path, *, ply: int = 2, processes: int = 2, chunk: int = 10_000,
          backend: str = "local", deadline: float | None = None, ray_address: str | None = None,
          limit: int | None = None, progress: Callable[[int], None] | None = None) -> int:
    """Label the first ``limit`` (default: all) of the candidates' boards, rounded up to whole
    chunks, at ``ply`` with checkpoint ``teacher``, until done or ``deadline`` (``time.monotonic()``);
    returns the number of boards labelled so far, counting earlier runs."""
    if backend not in BACKENDS:
        raise ConfigError(f"labelling.backend={backend!r}: expected one of {', '.join(BACKENDS)}")
    if processes < 1 or chunk < JOB or ply < 0:
        raise ConfigError(f"labelling: processes >= 1, chunk >= {JOB}, ply >= 0 (got {processes}, {chunk}, {ply})")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with np.load(candidates) as f:
        boards = f["boards"]
    if limit is not None:
        boards = boards[:chunk_count(limit, chunk) * chunk]
    total = chunk_count(len(boards), chunk)
    sha = file_sha256(candidates)
    done = _prefix(folder, sha, teacher, ply, chunk)
    if done >= total or (deadline is not None and time.monotonic() > deadline):
        return min(done * chunk, len(boards))
    start = done * chunk
    jobs = [boards[lo:min(lo + JOB, len(boards), (lo // chunk + 1) * chunk)]
            for lo in _job_starts(start, len(boards), chunk)]
    pending: list[np.ndarray] = []
    index, filled = done, 0
    workers = _ray_results if backend == "ray" else _local_results
    for probs in workers(teacher, jobs, ply, processes, ray_address):
        pending.append(probs)
        filled += len(probs)
        if progress is not None:
            progress(len(probs))
        if filled == min(chunk, len(boards) - index * chunk):
            targets = np.concatenate(pending).astype(np.float32)
            atomic_write(chunk_path(folder, index), lambda f: np.savez(  # called before atomic_write returns
                f, targets=targets, teacher=str(teacher), ply=ply, chunk=chunk, candidates_sha256=sha), "wb")
            pending, filled, index = [], 0, index + 1
            if deadline is not None and time.monotonic() > deadline:
                break
    return min(index * chunk, len(boards))


def _job_starts(start: int, end: int, chunk: int) -> Iterator[int]:
    """Job starts that never straddle a chunk boundary."""
    lo = start
    while lo < end:
        yield lo
        lo = min(lo + JOB, (lo // chunk + 1) * chunk)


def _local_results(teacher, jobs, ply, processes, _address) -> Iterator[np.ndarray]:
    """Results of ``jobs`` in order, from ``processes`` spawned worker processes.

    At most a few jobs per worker are in flight, so memory stays flat however long the list."""
    from collections import deque
    from concurrent.futures import Future

    from bgzero.interrupts import started_executor

    load_worker(teacher)  # compiles the kernels and builds the bear-off tables once, before the workers load them
    evaluate_job((jobs[0][:4], ply))
    if processes == 1:
        for boards in jobs:
            yield evaluate_job((boards, ply))
        return
    pool = started_executor(processes, load_worker, (teacher,))
    try:
        queue: deque[Future[np.ndarray]] = deque()
        ahead = iter(jobs)
        for boards in ahead:
            queue.append(pool.submit(evaluate_job, (boards, ply)))
            if len(queue) >= 4 * processes:
                yield queue.popleft().result()
        while queue:
            yield queue.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _ray_results(teacher, jobs, ply, processes, address) -> Iterator[np.ndarray]:
    """Results of ``jobs`` in order, from ``processes`` Ray actors, each holding the teacher."""
    import ray
    from ray.util import ActorPool

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False)

    @ray.remote
    class Labeller:
        def __init__(self, path: str):
            load_worker(path)

        def evaluate(self, boards: np.ndarray, ply: int) -> np.ndarray:
            return evaluate_job((boards, ply))

    actors = [Labeller.remote(teacher) for _ in range(processes)]  # type: ignore[attr-defined]  # added by @ray.remote
    try:
        yield from ActorPool(actors).map(lambda actor, boards: actor.evaluate.remote(boards, ply), jobs)
    finally:
        for actor in actors:
            ray.kill(actor)
