"""The environments' fast mask kernels against straightforward reference computations.

The checker encoding's kernels (:mod:`bgzero.env.checker`) work on bit masks and search in place;
the reference here is the rule written out in plain Python on copied boards: a step is legal
alone (landing on an open point, bar first, bearing off only with every checker home, a larger
die only from the highest point), and it is masked in when the dice left after it can still make
``need - 1`` steps. The play encoding's mask is compared with ``arange(3060) < count``.
"""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.vector import AutoresetMode  # noqa: E402

from bgzero.engine.game import random_positions  # noqa: E402
from bgzero.engine.movegen import generate  # noqa: E402
from bgzero.env import checker  # noqa: E402
from bgzero.env.table import PLAY_ACTIONS  # noqa: E402
from bgzero.env.vector import BackgammonVectorEnv, _prefix_masks  # noqa: E402


def legal(board, c, d):
    """Can the mover (row 0) move a checker from column ``c`` (24 the bar) by ``d`` pips?"""
    if board[0][c] == 0 or (board[0][24] > 0 and c != 24):
        return False
    to = c + 1 - d  # the landing point; 0 or less bears off
    if to >= 1:
        return board[1][24 - to] < 2
    if any(board[0][k] > 0 for k in range(6, 25)):
        return False
    return to == 0 or not any(board[0][k] > 0 for k in range(c + 1, 6))


def moved(board, c, d):
    """A copy of ``board`` after the step (the hit blot to the bar)."""
    board = [list(board[0]), list(board[1])]
    board[0][c] -= 1
    to = c + 1 - d
    if to >= 1:
        if board[1][24 - to] == 1:
            board[1][24 - to], board[1][24] = 0, board[1][24] + 1
        board[0][to - 1] += 1
    return board


def most_steps(board, dice, cap):
    """The most of ``dice`` (a list) that can be played one after another, at most ``cap``."""
    if cap == 0:
        return 0
    best = 0
    for j, d in enumerate(dice):
        for c in range(25):
            if legal(board, c, d):
                best = max(best, 1 + most_steps(moved(board, c, d), dice[:j] + dice[j + 1:], cap - 1))
                if best == cap:
                    return cap
    return best


def reference_turn(board, d1, d2):
    """(dice to play, need, only) for a turn's start, as the docs say."""
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    need = most_steps(board, dice, len(dice))
    only = 0
    if need == 1 and d1 != d2:
        high = max(d1, d2)
        only = high if any(legal(board, c, high) for c in range(25)) else min(d1, d2)
    return dice, need, only


def reference_mask(board, dice, need, only):
    """The mask, and how many steps legal alone it leaves out (they lead off every full play)."""
    mask = np.zeros(checker.CHECKER_ACTIONS, np.int8)
    if need == 0:
        mask[checker.PASS] = 1
        return mask, 0
    dead_ends = 0
    for j, d in enumerate(sorted(set(dice))):
        if only and d != only:
            continue
        rest = list(dice)
        rest.remove(d)
        for c in range(25):
            if legal(board, c, d):
                if most_steps(moved(board, c, d), rest, need - 1) == need - 1:
                    mask[6 * (25 - c) + d - 1] = 1
                else:
                    dead_ends += 1
    return mask, dead_ends


def test_checker_masks_equal_the_reference_through_whole_turns():
    """4,000 positions and rolls from random play, each followed through its turn by random masked
    steps: the turn start (dice, need, only) and every mid-turn mask equal the reference's."""
    boards, dice = random_positions(2000, seed=21, games=200, burn_in=30)
    fresh = np.random.default_rng(21).integers(1, 7, (len(boards), 2)).astype(np.int8)
    boards = np.ascontiguousarray(np.concatenate([boards, boards]), np.int8)
    dice = np.ascontiguousarray(np.concatenate([dice, fresh]), np.int8)
    n = len(boards)
    left, need, only = np.zeros((n, 4), np.int8), np.zeros(n, np.int64), np.zeros(n, np.int8)
    checker.start_turns(boards, dice, np.arange(n), left, need, only)
    rng = np.random.default_rng(5)
    seen = {"bar": 0, "bear-off": 0, "only": 0, "double mid-turn": 0, "blocked": 0, "dead end": 0}
    for b in range(n):
        board = boards[b].tolist()
        want_dice, want_need, want_only = reference_turn(board, int(dice[b, 0]), int(dice[b, 1]))
        assert (sorted(left[b][left[b] > 0].tolist()), int(need[b]), int(only[b])) == \
            (sorted(want_dice), want_need, want_only), f"turn start of pair {b}"
        seen["only"] += want_only != 0
        seen["blocked"] += want_need < len(want_dice)
        for step in range(5):
            board = boards[b].tolist()
            mask = np.zeros((1, checker.CHECKER_ACTIONS), np.int8)
            checker.masks(boards[b:b + 1], left[b:b + 1], need[b:b + 1], only[b:b + 1], mask)
            assert boards[b].tolist() == board, "masks changed the board"
            still = [int(d) for d in left[b] if d > 0]
            want, dead_ends = reference_mask(board, still, int(need[b]), int(only[b]))
            assert np.array_equal(mask[0], want), \
                f"pair {b}, step {step}: board {board}, dice left {still}, need {int(need[b])}"
            seen["dead end"] += dead_ends
            seen["bar"] += board[0][24] > 0
            seen["bear-off"] += all(board[0][k] == 0 for k in range(6, 25)) and need[b] > 0
            seen["double mid-turn"] += step > 0 and len(set(still)) == 1 and need[b] > 0
            if need[b] == 0:
                break
            action = int(rng.choice(np.flatnonzero(mask[0])))
            checker.step(boards, left, need, only, np.full(n, action, np.int64), np.array([b]))
    assert min(seen.values()) >= 10, seen  # the sample reaches every rule the kernels special-case


def test_play_masks_are_the_legal_counts_prefix():
    """The kernel's masks equal ``arange(3060) < count`` (action 0 alone in a restarting row), and a
    vector env's masks on random positions equal generate's counts."""
    boards, dice = random_positions(400, seed=4, games=80, burn_in=20)
    moves = generate(boards, dice)
    counts = moves.counts()
    done = np.random.default_rng(4).random(len(boards)) < 0.2
    mask = np.full((len(boards), PLAY_ACTIONS), 7, np.int8)
    _prefix_masks(moves.offsets, done, mask)
    want = (np.arange(PLAY_ACTIONS)[None, :] < np.where(done, 1, counts)[:, None]).astype(np.int8)
    assert np.array_equal(mask, want) and counts.max() > 100

    env = BackgammonVectorEnv(len(boards), opponent=None, autoreset_mode=AutoresetMode.NEXT_STEP)
    env.reset(seed=0)
    env.boards[:], env.dice[:] = boards, dice
    obs = env._observe()
    assert np.array_equal(obs["action_mask"], (np.arange(PLAY_ACTIONS)[None, :] < counts[:, None]).astype(np.int8))
