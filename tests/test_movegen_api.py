"""The public face of bgzero.engine.movegen: batching, output buffers, threads and bad input.

Correctness of the result sets is tested against gnubg (test_movegen_gnubg.py) and the
rules (test_rules.py); here every path through the Python side must give the same
arrays: batches that outgrow their first buffer, the one-position slab (including when it
fills up), threads, and inputs that need converting.
"""

import subprocess
import sys
from dataclasses import FrozenInstanceError

import numpy as np
import pytest

from bgzero.engine import movegen
from bgzero.engine.board import START, swap_sides
from bgzero.engine.movegen import MoveBatch, generate, legal_results
from bgzero.engine.notation import apply_steps
from bgzero.errors import InvalidDiceError, InvalidPositionError


def random_play(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (board, roll) pairs from 32 random games played in lockstep."""
    rng = np.random.default_rng(seed)
    boards = np.repeat(START[None], 32, axis=0)
    seen, rolls = [], []
    while sum(map(len, seen)) < n:
        dice = rng.integers(1, 7, size=(len(boards), 2))
        seen.append(boards)
        rolls.append(dice)
        batch = generate(boards, dice)
        counts = batch.counts()
        boards = batch.results[batch.offsets[:-1] + rng.integers(0, counts)]
        boards[boards[:, 1].sum(axis=1) == 0] = START  # the mover has won: a new game
    return np.concatenate(seen)[:n], np.concatenate(rolls)[:n].astype(np.int8)


BOARDS, DICE = random_play(600, 7)


def one_by_one(boards, dice) -> MoveBatch:
    """The batch rebuilt from single-position calls."""
    parts = [legal_results(b, (int(d[0]), int(d[1]))) for b, d in zip(boards, dice)]
    offsets = np.zeros(len(parts) + 1, np.int64)
    offsets[1:] = np.cumsum([len(r) for r, _ in parts])
    return MoveBatch(np.concatenate([r for r, _ in parts]), offsets, np.concatenate([s for _, s in parts]))


def assert_same(a: MoveBatch, b: MoveBatch) -> None:
    assert len(a) == len(b)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.results, b.results)
    np.testing.assert_array_equal(a.steps, b.steps)
    assert a.results.dtype == np.int8 and a.steps.dtype == np.int8 and a.offsets.dtype == np.int64


def test_batch_equals_one_by_one_and_steps_make_the_results():
    batch = generate(BOARDS, DICE)
    assert_same(batch, one_by_one(BOARDS, DICE))
    for b in range(0, len(BOARDS), 3):
        for k in range(batch.offsets[b], batch.offsets[b + 1]):
            np.testing.assert_array_equal(apply_steps(BOARDS[b], batch.steps_of(k)), batch.results[k])
    padded = batch.steps[:, :, 0] < 0
    assert (batch.steps[padded] == -1).all()
    assert (np.diff(padded.astype(int), axis=1) >= 0).all(), "padding only at the end"


def test_buffer_growth(monkeypatch):
    expected = one_by_one(BOARDS, DICE)
    monkeypatch.setattr(movegen, "_ROWS_PER_BOARD", 0)  # first buffer: 64 rows, grown many times
    assert_same(generate(BOARDS, DICE), expected)
    # natural growth: 1-1 and 2-2 from the start have 42 and 75 results, more than the
    # first buffer's share per board
    start = np.repeat(START[None], 40, axis=0)
    dice = np.tile([[1, 1], [2, 2]], (20, 1))
    monkeypatch.undo()
    batch = generate(start, dice)
    assert len(batch.results) > movegen._ROWS_PER_BOARD * len(start) + 64
    assert_same(batch, one_by_one(start, dice))


def test_threads_equal_one_thread(monkeypatch):
    expected = generate(BOARDS, DICE)
    assert_same(generate(BOARDS, DICE, threads=2), expected)
    assert_same(generate(BOARDS, DICE, threads=0), expected)
    monkeypatch.setattr(movegen, "_MIN_BOARDS_PER_THREAD", 1)  # split even tiny batches
    for threads in (2, 3, 7):
        assert_same(generate(BOARDS[:5], DICE[:5], threads=threads), generate(BOARDS[:5], DICE[:5]))
    monkeypatch.setattr(movegen, "_ROWS_PER_BOARD", 0)  # every thread's region overflows
    assert_same(generate(BOARDS, DICE, threads=3), expected)


def test_single_positions_on_a_small_slab(monkeypatch):
    expected = generate(BOARDS, DICE)
    monkeypatch.setattr(movegen, "_SLAB_ROWS", 16)  # fills every few calls; some boards need more
    monkeypatch.setattr(movegen, "_SLAB", movegen._new_slab())
    kept = []
    for b in range(len(BOARDS)):
        one = generate(BOARDS[b:b + 1], DICE[b:b + 1])
        results, steps = legal_results(BOARDS[b], DICE[b])
        rows = slice(expected.offsets[b], expected.offsets[b + 1])
        np.testing.assert_array_equal(one.offsets, [0, rows.stop - rows.start])
        for r, s in ((one.results, one.steps), (results, steps)):
            np.testing.assert_array_equal(r, expected.results[rows])
            np.testing.assert_array_equal(s, expected.steps[rows])
        kept.append((b, one.results, results))
    for b, r1, r2 in kept:  # later calls never wrote over earlier results
        rows = slice(expected.offsets[b], expected.offsets[b + 1])
        np.testing.assert_array_equal(r1, expected.results[rows])
        np.testing.assert_array_equal(r2, expected.results[rows])


def test_inputs_that_need_converting():
    expected = generate(BOARDS[:50], DICE[:50])
    variants = [
        (BOARDS[:50].astype(np.int64), DICE[:50]),
        (BOARDS[:50], DICE[:50].astype(np.int64)),
        (BOARDS[:50], DICE[:50].astype(np.uint8)),
        (BOARDS[:50], DICE[:50].astype(float)),
        (BOARDS[:50].tolist(), DICE[:50].tolist()),
        (np.asfortranarray(BOARDS[:50]), np.asfortranarray(DICE[:50])),
    ]
    for boards, dice in variants:
        assert_same(generate(boards, dice), expected)
    for b in range(3):
        one = generate(BOARDS[b:b + 1], DICE[b:b + 1])
        for board, dice in [(BOARDS[b].tolist(), DICE[b].tolist()), (BOARDS[b], np.array(DICE[b], np.int64)),
                            (BOARDS[b], tuple(DICE[b])), (swap_sides(swap_sides(BOARDS[b])), list(DICE[b]))]:
            results, steps = legal_results(board, dice)
            np.testing.assert_array_equal(results, one.results)
            np.testing.assert_array_equal(steps, one.steps)
            assert_same(generate([board], [dice]), one)
    strided = np.stack([BOARDS[:50], BOARDS[:50]], axis=1)[:, 0]  # not C-ordered
    assert_same(generate(strided, DICE[:50]), expected)
    readonly = BOARDS[:50].copy()
    readonly.setflags(write=False)
    assert_same(generate(readonly, DICE[:50]), expected)
    assert_same(generate(np.broadcast_to(START, (3, 2, 25)), np.array([[3, 1]] * 3)),
                generate(np.stack([START] * 3), np.array([[3, 1]] * 3)))


def test_empty_batch():
    for threads in (1, 0, 2):
        batch = generate(np.zeros((0, 2, 25), np.int8), np.zeros((0, 2), np.int8), threads=threads)
        assert len(batch) == 0
        assert batch.results.shape == (0, 2, 25) and batch.steps.shape == (0, 4, 2)
        np.testing.assert_array_equal(batch.offsets, [0])
        assert batch.counts().shape == (0,)


def bad_board(kind: str) -> np.ndarray:
    board = START.copy()
    if kind == "negative":
        board[1, 3] = -1
    elif kind == "sixteen":
        board[0, 7] += 1
    elif kind == "both":  # the mover's 1-point is the other side's 24-point, where it has 2
        board[0, 0] = 1
        board[0, 5] -= 1
    return board


@pytest.mark.parametrize("kind, words", [("negative", "negative checker count -1"),
                                         ("sixteen", "16 checkers"), ("both", "held by both sides")])
@pytest.mark.parametrize("size", [1, 5, 400])
def test_bad_boards_name_the_board(kind, words, size, monkeypatch):
    monkeypatch.setattr(movegen, "_MIN_BOARDS_PER_THREAD", 2)  # threads=2 really splits
    boards = np.repeat(START[None], size, axis=0)
    index = size // 2
    boards[index] = bad_board(kind)
    dice = np.full((size, 2), 3, np.int8)
    for threads in (1, 2):
        with pytest.raises(InvalidPositionError, match=rf"boards\[{index}\].*{words}"):
            generate(boards, dice, threads=threads)
    if size == 1:
        with pytest.raises(InvalidPositionError, match=words):
            legal_results(boards[0], (3, 1))


@pytest.mark.parametrize("size", [1, 5, 400])
@pytest.mark.parametrize("roll", [(0, 3), (3, 7), (-1, 2)])
def test_bad_dice_name_the_roll(size, roll, monkeypatch):
    monkeypatch.setattr(movegen, "_MIN_BOARDS_PER_THREAD", 2)
    boards = np.repeat(START[None], size, axis=0)
    dice = np.full((size, 2), 2, np.int64)
    index = size - 1
    dice[index] = roll
    for threads in (1, 2):
        with pytest.raises(InvalidDiceError, match=rf"dice\[{index}\] = \[{roll[0]}, {roll[1]}\]"):
            generate(boards, dice, threads=threads)
    with pytest.raises(InvalidDiceError, match="1-6"):
        legal_results(START, roll)


def test_values_int8_cannot_hold_and_non_integers():
    boards = np.repeat(START[None].astype(np.int64), 3, axis=0)
    boards[2, 0, 0] = 256  # would wrap to 0 in int8
    with pytest.raises(InvalidPositionError, match=r"boards\[2\]"):
        generate(boards, np.full((3, 2), 1))
    with pytest.raises(InvalidPositionError, match="integers"):
        generate(START[None] + 0.5, [[3, 1]])
    with pytest.raises(InvalidDiceError, match="integers"):
        generate(START[None], [[3.5, 1]])


@pytest.mark.parametrize("boards, dice, error", [
    (np.zeros((2, 2, 24), np.int8), np.ones((2, 2), np.int8), InvalidPositionError),
    (START, np.ones((2, 2), np.int8), InvalidPositionError),
    (np.stack([START, START]), np.ones((2, 3), np.int8), InvalidDiceError),
    (np.stack([START, START]), np.ones((3, 2), np.int8), InvalidDiceError),
    (START[None], np.ones(2, np.int8), InvalidDiceError),
])
def test_bad_shapes(boards, dice, error):
    with pytest.raises(error, match="shape"):
        generate(boards, dice)


def test_move_batch_is_frozen():
    batch = generate(START[None], np.array([[6, 5]]))
    assert isinstance(batch, MoveBatch) and len(batch) == 1
    with pytest.raises(FrozenInstanceError):
        batch.results = batch.results
    again = MoveBatch(batch.results, batch.offsets, batch.steps)
    assert again.results is batch.results and again.counts().tolist() == [len(batch.results)]


KERNELS = """
import sys, threading
import numpy as np
from bgzero.engine import movegen_kernels as k
from bgzero.engine.board import START
from bgzero.engine.movegen import generate
loaded = lambda: [len(getattr(k, name).signatures) for name in ("_gen_batch", "_gen_one", "_gen_board")]
print(loaded())
try:
    k._gen_board(START.astype(np.float64), np.array([3, 1]), np.zeros(100, np.int8))
except TypeError:
    print("TypeError")
print(loaded())
boards, dice = np.stack([START] * 3), np.array([[3, 1]] * 3, np.int8)
threads = [threading.Thread(target=generate, args=(boards, dice)) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(loaded())
try:
    k._gen_batch(boards.astype(np.float64), dice, 0, 3, boards.copy(), boards.copy(), np.zeros(4, np.int64), 0)
except TypeError:
    print("TypeError")
print(loaded())
"""


def test_the_entry_kernels_load_their_signatures_on_first_call_and_no_others():
    """A process loads only the kernels it calls; once called, a kernel has exactly its signatures."""
    done = subprocess.run([sys.executable, "-c", KERNELS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:6] == ["[0, 0, 0]", "TypeError", "[0, 0, 3]", "[2, 2, 3]", "TypeError", "[2, 2, 3]"]


def test_steps_of_gives_a_play_without_its_padding():
    from bgzero.engine.board import START

    moves = generate(START[None], np.array([[3, 1]], np.int8))
    plays = {tuple(sorted(moves.steps_of(k))) for k in range(len(moves.results))}
    assert ((6, 5), (8, 5)) in plays  # 8/5 6/5: two steps, the two -1 pads gone
    doubles = generate(START[None], np.array([[6, 6]], np.int8))
    assert all(len(doubles.steps_of(k)) == 4 for k in range(len(doubles.results)))
    assert all(isinstance(v, int) for k in range(len(moves.results)) for step in moves.steps_of(k) for v in step)
