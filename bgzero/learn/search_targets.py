"""Fine-tuning a net on its own 2-ply evaluations (search-based targets).

A 0-ply net judges a position by its pattern alone; its 2-ply evaluation (each of the
opponent's 21 rolls answered by their best move, each answer judged at 1-ply) chooses
moves far better: on `bgzero-bench errors`' positions stage 1 of the strong agent loses 4.5 per
move at 0-ply and 1.8 at 2-ply.
What decides a move is how a turn's candidates compare with each other, so the contact
net learns the 2-ply *differences* between the candidates of a turn (each equity minus
its turn's mean): a shared offset between 0- and 2-ply values -- odd and even plies
differ systematically -- costs nothing, and fitting absolute values alone measured worse
for the choice of move. A small cross-entropy term toward the net's own starting outputs
keeps the absolute probabilities (gammons, the cube) where they were; over generations
they drift all the same (each anchors to the one before), and the cube and 1-ply search,
which compare positions across turns, get worse. ``calibrate`` adds a cross-entropy term
toward the labels' own probabilities, so the absolute level follows the teacher's search.

Candidates come from the checkpoint's own 0-ply self-play: the ``top`` best contact
results of every turn, the turns shuffled so that any prefix is a fair sample (the
labelling runs against a deadline). Labelling is the slow half, run in worker processes.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from bgzero.agents.search import evaluate_ply
from bgzero.atomic import atomic_write
from bgzero.engine.classify import CONTACT
from bgzero.engine.segments import segment_top_k
from bgzero.errors import ConfigError
from bgzero.interrupts import follow_the_main_process, started_executor
from bgzero.learn.td import td_loss
from bgzero.selfplay.player import lockstep_self_play
from bgzero.value.checkpoint import load_evaluator
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import ValueNet
from bgzero.value.probs import equity

_WORKER_EVALUATOR: Evaluator | None = None


def candidate_turns(evaluator: Evaluator, positions: int, seed: int, top: int = 8, games: int = 256,
                    explore: float = 0.1, classes: tuple[int, ...] = (CONTACT,)) -> tuple[np.ndarray, np.ndarray]:
    """About ``positions`` candidates and their turn numbers, turns in random order.

    Of each turn of :func:`bgzero.selfplay.player.lockstep_self_play` the ``top`` results by 0-ply
    equity for the mover whose class (:meth:`Evaluator.route`) is one of ``classes`` are kept.
    Whole turns only.
    """
    if positions < 1 or top < 2 or games < 1 or not 0 <= explore <= 1:
        raise ConfigError(f"candidates: positions >= 1, top >= 2, games >= 1, explore in [0, 1] "
                          f"(got {positions}, {top}, {games}, {explore})")
    rng = np.random.default_rng(seed)
    found, found_turns, total, turn = [], [], 0, 0
    for moves, probs, _ in lockstep_self_play(evaluator, rng, games, explore):
        keep = segment_top_k(-equity(probs), moves.offsets, top)
        keep &= np.isin(evaluator.route(moves.results), classes)
        found.append(moves.results[keep])
        found_turns.append(np.repeat(np.arange(turn, turn + games), np.diff(moves.offsets))[keep])
        total += int(keep.sum())
        turn += games
        if total >= positions:
            break
    boards, turns = np.concatenate(found), np.concatenate(found_turns)
    order = rng.permutation(turn)
    rank = np.empty(turn, np.int64)
    rank[order] = np.arange(turn)
    by_turn = np.argsort(rank[turns], kind="stable")
    return boards[by_turn], rank[turns][by_turn]


def load_worker(checkpoint: str) -> None:
    """A labelling worker's start: one thread, the checkpoint's evaluator kept for :func:`evaluate_job`."""
    global _WORKER_EVALUATOR
    follow_the_main_process()
    torch.set_num_threads(1)
    _WORKER_EVALUATOR = load_evaluator(checkpoint)


def evaluate_job(job: tuple[np.ndarray, int]) -> np.ndarray:
    """A labelling worker's answer: the ``(boards, ply)`` job's ply-ply probabilities."""
    boards, ply = job
    return evaluate_ply(_WORKER_EVALUATOR, boards, ply)


def ply_targets(checkpoint: str, boards: np.ndarray, ply: int, processes: int, chunk: int = 96,
                seconds: float | None = None, progress=None) -> np.ndarray:
    """(M, 5) ``ply``-ply probabilities of ``boards[:M]`` (side on roll, before rolling).

    M is ``len(boards)`` unless ``seconds`` ran out first: then the answer stops at the
    last chunk finished in order, so a fixed budget still returns a usable prefix.
    """
    if processes < 1 or chunk < 1 or ply < 0:
        raise ConfigError(f"targets: processes >= 1, chunk >= 1, ply >= 0 (got {processes}, {chunk}, {ply})")
    deadline = None if seconds is None else time.monotonic() + seconds
    jobs = [(boards[lo:lo + chunk], ply) for lo in range(0, len(boards), chunk)]
    out = []
    pool = started_executor(processes, load_worker, (str(checkpoint),))
    try:
        for probs in pool.map(evaluate_job, jobs):
            out.append(probs)
            if progress is not None:
                progress(len(probs))
            if deadline is not None and time.monotonic() > deadline:
                break
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return np.concatenate(out) if out else np.empty((0, 5), np.float32)


def file_sha256(path) -> str:
    """Hex SHA-256 of a file's bytes: ties a targets file to the candidates it labels."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_targets(path, targets: np.ndarray, ply: int, candidates) -> None:
    """Write the labels of a prefix of ``candidates`` (a file from :func:`candidate_turns`)."""
    atomic_write(path, lambda f: np.savez(f, targets=targets, ply=ply, candidates_sha256=file_sha256(candidates)), "wb")


def load_labelled(pairs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boards, turn numbers (distinct across files) and targets of every labelled candidate
    of ``(candidates, targets)`` file pairs; a pair whose checksum differs is refused, and a
    turn the labelling cut short is left out."""
    boards, turns, targets, next_turn = [], [], [], 0
    for candidates_path, targets_path in pairs:
        labels = np.load(targets_path)
        if str(labels["candidates_sha256"]) != file_sha256(candidates_path):
            raise ConfigError(f"{targets_path} was not made from {candidates_path} (checksums differ)")
        candidates = np.load(candidates_path)
        all_turns, labelled = candidates["turns"], labels["targets"]  # each npz access reads the file again
        n = len(labelled)
        last = all_turns[n - 1] if n else -1
        whole = all_turns[:n] < last if n < len(all_turns) else slice(None)  # whole turns only
        boards.append(candidates["boards"][:n][whole])
        turns.append(all_turns[:n][whole] + next_turn)
        targets.append(labelled[whole])
        next_turn += int(all_turns.max()) + 1
    return np.concatenate(boards), np.concatenate(turns), np.concatenate(targets)


def turn_centred(values: torch.Tensor, turn_index: torch.Tensor, turns: int) -> torch.Tensor:
    """Each value minus the mean of its turn's values (``turn_index`` in ``0..turns-1``)."""
    sums = torch.zeros(turns, dtype=values.dtype).index_add(0, turn_index, values)
    counts = torch.zeros(turns, dtype=values.dtype).index_add(0, turn_index, torch.ones_like(values))
    return values - (sums / counts)[turn_index]


def rank_fine_tune(net: ValueNet, encoder, boards: np.ndarray, turns: np.ndarray, targets: np.ndarray, *,
                   epochs: int = 3, lr: float = 1e-4, anchor: float = 0.1, calibrate: float = 0.0,
                   turns_per_batch: int = 48, seed: int = 0, progress: str | None = None) -> list[float]:
    """Adam on the squared error of turn-centred equities, plus ``anchor`` x cross-entropy
    toward the net's own starting outputs and ``calibrate`` x cross-entropy toward the targets. ``boards`` sorted by ``turns``; turns with a
    single candidate carry no comparison and are dropped. Returns the mean centred error
    per epoch (in equity², before the anchor term). ``progress``: a progress bar's label, or None."""
    if not isinstance(net, torch.nn.Module):
        raise ConfigError("fine-tuning trains a torch net; load the evaluator with load_evaluator(path, frozen=False)")
    if epochs < 1 or turns_per_batch < 1 or not lr > 0 or anchor < 0 or calibrate < 0:
        raise ConfigError(f"fine-tuning needs epochs, turns_per_batch, lr > 0 and anchor, calibrate >= 0 "
                          f"(got {epochs}, {turns_per_batch}, {lr}, {anchor}, {calibrate})")
    if np.any(np.diff(turns) < 0):
        raise ValueError("boards must be sorted by turn")
    _, starts, counts = np.unique(turns, return_index=True, return_counts=True)
    starts, counts = starts[counts >= 2], counts[counts >= 2]
    x = torch.from_numpy(encoder(boards))
    target_probs = torch.from_numpy(np.ascontiguousarray(targets, np.float32))
    target_equity = equity(target_probs)
    with torch.inference_mode():  # in slices: the hidden layer of millions of boards at once fills memory
        start_probs = torch.cat([net.eval()(x[lo:lo + 65536]) for lo in range(0, len(x), 65536)]) if anchor else None
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    history = []
    net.train()
    batches = -(-len(starts) // turns_per_batch)
    bar = tqdm(total=epochs * batches, desc=progress, unit="batch", disable=progress is None, mininterval=2)
    for _ in range(epochs):
        errors = []
        order = rng.permutation(len(starts))
        for lo in range(0, len(order), turns_per_batch):
            pick = order[lo:lo + turns_per_batch]
            rows = torch.from_numpy(np.concatenate([np.arange(s, s + c) for s, c in zip(starts[pick], counts[pick])]))
            turn_index = torch.from_numpy(np.repeat(np.arange(len(pick)), counts[pick]))
            probs = net(x[rows])
            error = (turn_centred(equity(probs), turn_index, len(pick))
                     - turn_centred(target_equity[rows], turn_index, len(pick))).pow(2).mean()
            loss = error
            if start_probs is not None:  # anchor > 0
                loss = loss + anchor * td_loss(probs, start_probs[rows])
            if calibrate:
                loss = loss + calibrate * td_loss(probs, target_probs[rows])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            errors.append(error.item())
            bar.update()
        history.append(float(np.mean(errors)))
        bar.set_postfix(error=f"{history[-1]:.6f}")
    bar.close()
    net.eval()
    return history
