"""Batched legal-move generation: every distinct position a roll can lead to.

The primitive is "all positions after moving" (as in wildbg): for each of B boards and
rolls, the kernel returns every *distinct* legal resulting position once, with the sides
already swapped (the opponent on roll), plus one step sequence that makes it. The rules
are those of docs/rules.md sections 3-5:

* each die moves one checker; a checker using several dice must land legally in between;
* a point with two or more opposing checkers blocks, a single one is hit;
* checkers on the bar enter first, and a die that cannot enter is lost while any remain;
* doubles are four moves; as much of the roll as possible must be played, and when only
  one die of a non-double can be played, the larger one if it can;
* bearing off needs every checker home; exact dice bear off from their point, larger
  dice only from the highest occupied point.

A roll that cannot be played still yields one result: the unchanged position with the
sides swapped and an empty step list, so a game loop needs no special case.

The kernels, and what makes them fast, are in :mod:`bgzero.engine.movegen_kernels`; this module
checks inputs, sizes the outputs, and spreads large batches over threads.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bgzero.engine.board import START, board_problem
from bgzero.engine.movegen_kernels import (
    _BAD_BOARD,
    _BAD_DICE,
    _BAD_SHAPE,
    _FULL,
    _NOT_ONE,
    _SLAB_ROWS,
    _TABLE_BYTES,
    MAX_STEPS,
    _gen_batch,
    _gen_board,
    _gen_one,
)
from bgzero.errors import InvalidDiceError, InvalidPositionError


@dataclass(frozen=True, slots=True, weakref_slot=True)
class MoveBatch:
    """Results of :func:`generate` for a batch.

    ``results[offsets[b]:offsets[b+1]]`` are the distinct positions reachable from board
    ``b`` with its roll, sides swapped (the opponent on roll). ``steps[k]`` is one way to
    reach ``results[k]``: up to four ``(from, to)`` pairs in the mover's numbering, 25
    for the bar and 0 for off, padded with ``-1``.

    The arrays are the caller's own (no later call writes to them), but for ``B == 1``
    they are views into a slab shared with other single-position calls' results, which
    stays in memory while any of them is referenced.
    """

    results: np.ndarray  # (N, 2, 25) int8
    offsets: np.ndarray  # (B + 1,) int64
    steps: np.ndarray  # (N, 4, 2) int8

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def counts(self) -> np.ndarray:
        """Number of distinct results per input board."""
        return np.diff(self.offsets)

    def steps_of(self, k: int) -> list[tuple[int, int]]:
        """Result ``k``'s ``(from, to)`` steps without the ``-1`` padding, as Python ints."""
        return unpadded(self.steps[k])


def unpadded(steps: np.ndarray) -> list[tuple[int, int]]:
    """One move's ``(4, 2)`` steps as ``(from, to)`` Python ints, the ``-1`` rows that pad a
    shorter move dropped: the one place the padding is removed."""
    return [(a, b) for a, b in steps.tolist() if a >= 0]


_new = object.__new__
_set_results = MoveBatch.results.__set__
_set_offsets = MoveBatch.offsets.__set__
_set_steps = MoveBatch.steps.__set__


def _move_batch(results, offsets, steps) -> MoveBatch:
    """``MoveBatch(results, offsets, steps)`` without the frozen ``__init__``'s cost."""
    batch = _new(MoveBatch)
    _set_results(batch, results)
    _set_offsets(batch, offsets)
    _set_steps(batch, steps)
    return batch


def _new_slab():
    """(buffer, results view, steps view, offsets pairs view) of a fresh, empty slab."""
    rows = _SLAB_ROWS
    buf = np.empty(rows * 74 + _TABLE_BYTES + 64, np.int8)
    buf[rows * 74:] = 0  # hash table, next free row, working row
    return (buf, buf[:rows * 50].reshape(rows, 2, 25), buf[rows * 50:rows * 58].reshape(rows, MAX_STEPS, 2),
            buf[rows * 58:rows * 74].view(np.int64).reshape(rows, 2))


_SLAB = _new_slab()


def _input_error(boards, dice, b: int, err: int) -> Exception:
    if err == _BAD_DICE:
        return InvalidDiceError(f"dice[{b}] = {np.asarray(dice[b]).tolist()}: each die must be 1-6")
    if err == _BAD_BOARD:
        return InvalidPositionError(f"boards[{b}] = {np.asarray(boards[b]).tolist()}: {board_problem(boards[b]) or 'invalid'}")
    if np.ndim(boards) != 3 or np.shape(boards)[1:] != (2, 25):
        return InvalidPositionError(f"boards must have shape (B, 2, 25), got {np.shape(boards)}")
    return InvalidDiceError(f"dice must have shape ({np.shape(boards)[0]}, 2), got {np.shape(dice)}")


def _integers(arr, error, what):
    """``arr`` as integers, or ``error`` when it holds anything else."""
    if arr.dtype.kind in "iu":
        return arr
    if arr.dtype.kind == "b" or (arr.dtype.kind == "f" and np.array_equal(arr, np.trunc(arr))):
        return arr.astype(np.int64)
    raise error(f"{what} must hold integers, got {arr.dtype} values")


def _coerce(boards, dice):
    """The general path's inputs: C-ordered int8 boards and int64 dice, shapes checked,
    board values that int8 cannot hold reported (the kernels check everything else)."""
    boards = _integers(np.asarray(boards), InvalidPositionError, "boards")
    dice = _integers(np.asarray(dice), InvalidDiceError, "dice")
    if boards.ndim != 3 or boards.shape[1:] != (2, 25):
        raise _input_error(boards, dice, 0, _BAD_SHAPE)
    if dice.shape != (boards.shape[0], 2):
        raise _input_error(boards, dice, 0, _BAD_SHAPE)
    if boards.dtype != np.int8:
        bad = ((boards < 0) | (boards > 15)).any(axis=(1, 2))
        if bad.any():
            raise _input_error(boards, dice, int(np.argmax(bad)), _BAD_BOARD)
    if dice.dtype not in (np.int8, np.int64):
        dice = dice.astype(np.int64)
    return np.ascontiguousarray(boards, dtype=np.int8), np.ascontiguousarray(dice)


_ROWS_PER_BOARD = 32  # first guess at the output size; it grows when a batch needs more


def _run(boards, dice, lo: int, hi: int, offsets):
    """Boards ``lo:hi`` into fresh arrays: (results, steps, rows); ``offsets[lo + 1:hi + 1]``
    count from this part's first row."""
    cap = _ROWS_PER_BOARD * (hi - lo) + 64
    res = np.empty((cap, 2, 25), np.int8)
    steps = np.empty((cap, MAX_STEPS, 2), np.int8)
    stop, n, err = _gen_batch(boards, dice, lo, hi, res, steps, offsets, 0)
    while stop < hi:
        if err != _FULL:
            raise _input_error(boards, dice, stop, err)
        cap = 2 * cap + 1024
        grown = np.empty((cap, 2, 25), np.int8)
        grown[:n] = res[:n]
        res = grown
        grown = np.empty((cap, MAX_STEPS, 2), np.int8)
        grown[:n] = steps[:n]
        steps = grown
        stop, n, err = _gen_batch(boards, dice, stop, hi, res, steps, offsets, n)
    return res, steps, n


def _generate_serial(boards, dice) -> MoveBatch:
    B = boards.shape[0]
    offsets = np.empty(B + 1, np.int64)
    offsets[0] = 0
    res, steps, n = _run(boards, dice, 0, B, offsets)
    # shrink in place to the rows used (no copy; nothing else refers to these arrays)
    res.resize((n, 2, 25), refcheck=False)
    steps.resize((n, MAX_STEPS, 2), refcheck=False)
    return _move_batch(res, offsets, steps)


_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_MIN_BOARDS_PER_THREAD = 256  # ~200 us of work: below this a thread costs more than it saves


def _generate_parallel(boards, dice, threads: int) -> MoveBatch:
    """Split the batch into ``threads`` runs of boards, each writing its own region of
    one output; the regions are then moved together (the first stays where it is)."""
    global _POOL, _POOL_SIZE
    if _POOL is None or _POOL_SIZE < threads:
        _POOL = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="movegen")
        _POOL_SIZE = threads
    B = boards.shape[0]
    offsets = np.empty(B + 1, np.int64)
    offsets[0] = 0
    bounds = [B * i // threads for i in range(threads + 1)]
    rows = [0]
    for i in range(threads):
        rows.append(rows[-1] + _ROWS_PER_BOARD * (bounds[i + 1] - bounds[i]) + 64)
    res = np.empty((rows[-1], 2, 25), np.int8)
    steps = np.empty((rows[-1], MAX_STEPS, 2), np.int8)

    def work(i):
        lo, hi = bounds[i], bounds[i + 1]
        stop, n, err = _gen_batch(boards, dice, lo, hi, res[rows[i]:rows[i + 1]], steps[rows[i]:rows[i + 1]],
                                  offsets, 0)
        if stop == hi:
            return n, None
        if err != _FULL:
            raise _input_error(boards, dice, stop, err)
        return n, (stop, *_run(boards, dice, stop, hi, offsets))  # the rest, in its own arrays

    parts = list(_POOL.map(work, range(threads)))
    total = 0
    for i, (n, rest) in enumerate(parts):
        lo, hi = bounds[i], bounds[i + 1]
        if rest is None:
            offsets[lo + 1:hi + 1] += total
        else:
            offsets[lo + 1:rest[0] + 1] += total
            offsets[rest[0] + 1:hi + 1] += total + n
        total += n + (0 if rest is None else rest[3])
    if any(rest is not None for _, rest in parts):  # some run outgrew its region: concatenate
        pieces = []
        for i, (n, rest) in enumerate(parts):
            pieces.append((res[rows[i]:rows[i] + n], steps[rows[i]:rows[i] + n]))
            if rest is not None:
                pieces.append((rest[1][:rest[3]], rest[2][:rest[3]]))
        return _move_batch(np.concatenate([p[0] for p in pieces]), offsets, np.concatenate([p[1] for p in pieces]))
    at = 0
    for i, (n, _) in enumerate(parts):
        if at != rows[i]:
            res[at:at + n] = res[rows[i]:rows[i] + n]
            steps[at:at + n] = steps[rows[i]:rows[i] + n]
        at += n
    res.resize((total, 2, 25), refcheck=False)
    steps.resize((total, MAX_STEPS, 2), refcheck=False)
    return _move_batch(res, offsets, steps)


def _generate_one(boards, dice):
    """B == 1 into the slab (a fresh one when it is full), or None for the batch path."""
    global _SLAB
    for _ in range(2):
        slab = _SLAB
        try:
            code = _gen_one(boards, dice, slab[0])
        except (TypeError, ValueError):
            return None
        if code >= 0:
            start = code & 0xFFFFFFFF
            end = code >> 32
            return _move_batch(slab[1][start:end], slab[3][start], slab[2][start:end])
        if code != -_FULL:
            return None
        if slab is _SLAB:
            _SLAB = _new_slab()
    return None


def generate(boards, dice, *, threads: int = 1) -> MoveBatch:
    """All distinct legal results for each board and roll (see the module docstring).

    ``boards`` is ``(B, 2, 25)`` in the side-on-roll convention of :mod:`bgzero.engine.board`
    and ``dice`` is ``(B, 2)``. With ``threads > 1`` a large batch is split across
    threads (the kernel releases the GIL); ``threads=0`` means one per CPU. Bad input
    raises :class:`InvalidPositionError` or :class:`InvalidDiceError` naming the index.

    The fast path wants C-ordered int8 boards and int8 or int64 dice; anything else
    that holds the right integers is converted first.
    """
    slab = _SLAB  # the common single-position case first, written out
    try:
        code = _gen_one(boards, dice, slab[0])
    except (TypeError, ValueError):  # not C-ordered int8 boards with int8/int64 dice
        boards, dice = _coerce(boards, dice)
        code = -_FULL if len(boards) == 1 else -_NOT_ONE
    if code >= 0:
        start = code & 0xFFFFFFFF
        end = code >> 32
        return _move_batch(slab[1][start:end], slab[3][start], slab[2][start:end])
    if code == -_FULL:
        batch = _generate_one(boards, dice)
        if batch is not None:
            return batch
    try:
        return _generate_batch(boards, dice, threads)
    except (TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, (InvalidPositionError, InvalidDiceError)):
            raise
    boards, dice = _coerce(boards, dice)
    return _generate_batch(boards, dice, threads)


def _generate_batch(boards, dice, threads: int) -> MoveBatch:
    if threads != 1:
        if threads == 0:
            threads = os.cpu_count() or 1
        if threads > 1 and boards.shape[0] >= _MIN_BOARDS_PER_THREAD * threads:
            return _generate_parallel(boards, dice, threads)
    return _generate_serial(boards, dice)


def legal_results(board, dice) -> tuple[np.ndarray, np.ndarray]:
    """Results (sides swapped) and step lists for one board and one roll.

    The arrays are views into a slab shared with other single-position results (see
    :class:`MoveBatch`); no later call writes to them.
    """
    slab = _SLAB
    try:
        code = _gen_board(board, dice, slab[0])
    except (TypeError, ValueError):
        code = -1
    if code >= 0:
        start = code & 0xFFFFFFFF
        end = code >> 32
        return slab[1][start:end], slab[2][start:end]
    board = np.asarray(board)
    batch = generate(board.reshape((1,) + board.shape), np.asarray(dice).reshape(1, -1))
    return batch.results, batch.steps


def warm_up() -> None:
    """Load the compiled kernels (from numba's cache) and run each entry point once.

    The kernels have fixed signatures, each loaded on its entry point's first call; this
    makes sure the first timed call pays nothing more.
    """

    for roll in ([[3, 1]], [[2, 2]]):
        generate(START[None], np.array(roll, np.int8))
        generate(START[None], np.array(roll, np.int64))
        generate(np.stack([START, START]), np.array(roll * 2))
    legal_results(START, (3, 1))
    legal_results(START, np.array([3, 1]))
