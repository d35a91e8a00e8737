"""The "checker" action encoding: one checker moved by one die per action, as pgx numbers them.

Action ``a = 6 * s + (die - 1)`` with ``s`` = 0 the pass, 1 the bar, 2-25 the mover's points
24 down to 1 (point ``26 - s``), so the mover's board column is ``25 - s``: pgx's 156 actions,
number for number. The pass is legal only when no step is.

A whole play is a sequence of single legal steps that uses as many dice as the roll allows
(``need``, found at the turn's start); of a non-double of which only one die can be played, the
larger if it can. So a step is masked in exactly when it is legal on its own and the dice left
after it can still play ``need - 1`` more steps, and when only one die is to be played, it is
that die. The turn ends when ``need`` steps are made. tests/test_env.py and
scripts/check_env_rules.py check that the plays reachable this way are :func:`generate`'s.

The kernels loop over the batch in numba: a vector environment's step calls :func:`masks` and
:func:`start_turns` once each (its own kernel makes the steps, as :func:`step` does). They test a
die's legal steps on bit masks, the mover's occupied columns and the points open to it, with the
move generator's ``_sources``, and search the dice still to play in place on the board.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgzero.engine.movegen import generate
from bgzero.engine.movegen_kernels import _sources
from bgzero.engine.rowbits import lowest

CHECKER_ACTIONS = 156
PASS = 0


@njit(cache=True)
def _apply(board, c, d):
    """Move the checker (it must be a legal step); a blot on the landing point goes to the bar."""
    board[0, c] -= 1
    to = c + 1 - d
    if to >= 1:
        if board[1, 24 - to] == 1:
            board[1, 24 - to] = 0
            board[1, 24] += 1
        board[0, to - 1] += 1


@njit(cache=True)
def _bits(board):
    """The mover's occupied columns (bit 24 the bar) and the columns it may land on (the other
    side has fewer than two checkers there): the bit masks :func:`_sources` takes. Hitting a
    blot leaves its point open, so the second mask holds for the whole turn."""
    occ = np.int64(0)
    open_mask = np.int64(0)
    for c in range(25):
        if board[0, c] > 0:
            occ |= np.int64(1) << c
        if c < 24 and board[1, 23 - c] < 2:
            open_mask |= np.int64(1) << c
    return occ, open_mask


@njit(cache=True)
def _most(mine, occ, open_mask, left, want):
    """How many of the dice in ``left`` (0 = used) can be played in some order, capped at ``want``:
    the mover's counts ``mine`` (a board's row 0) with occupied columns ``occ``. ``mine`` and
    ``left`` are changed while searching and restored before returning."""
    best = 0
    for j in range(4):
        d = left[j]
        if d == 0:
            continue
        seen = False
        for i in range(j):
            if left[i] == d:
                seen = True
        if seen:
            continue
        src = _sources(occ, open_mask << d, d)
        if src == 0:
            continue
        if want == 1:
            return 1
        left[j] = 0
        while src:
            c = lowest(src)
            src &= src - 1
            to = c - d  # the landing column, < 0 bears off
            mine[c] -= 1
            after = occ if mine[c] else occ & ~(np.int64(1) << c)
            if to >= 0:
                mine[to] += 1
                after |= np.int64(1) << to
            got = 1 + _most(mine, after, open_mask, left, want - 1)
            if to >= 0:
                mine[to] -= 1
            mine[c] += 1
            if got == want:
                left[j] = d
                return want
            if got > best:
                best = got
        left[j] = d
    return best


@njit(cache=True)
def start_turns(boards, dice, rows, left, need, only):
    """For each board in ``rows``, just rolled ``dice``: the dice to play, how many steps the
    play takes, and the die a play of one step must use (0 when either may)."""
    for r in rows:
        d1, d2 = dice[r, 0], dice[r, 1]
        if d1 == d2:
            left[r, :] = d1
        else:
            left[r, 0], left[r, 1], left[r, 2], left[r, 3] = d1, d2, 0, 0
        occ, open_mask = _bits(boards[r])
        need[r] = _most(boards[r, 0], occ, open_mask, left[r], 4 if d1 == d2 else 2)
        only[r] = 0
        if need[r] == 1 and d1 != d2:
            high = max(d1, d2)
            only[r] = high if _sources(occ, open_mask << high, high) else min(d1, d2)


@njit(cache=True)
def masks(boards, left, need, only, out):
    """``out[b]``: the legal checker actions of board ``b`` mid-turn (the pass alone when none).

    A step from column ``c`` by die ``d`` is action ``6 * (25 - c) + d - 1``; it is masked in when
    it is legal (:func:`_sources` has ``c`` for ``d``) and the dice left after it can still make
    ``need - 1`` steps. tests/test_env.py compares these masks with a step-by-step reference."""
    out[:] = 0
    for b in range(boards.shape[0]):
        if need[b] == 0:
            out[b, PASS] = 1
            continue
        mine, dice = boards[b, 0], left[b]
        occ, open_mask = _bits(boards[b])
        for j in range(4):
            d = dice[j]
            if d == 0 or (only[b] != 0 and d != only[b]):
                continue
            seen = False
            for i in range(j):
                if dice[i] == d:
                    seen = True
            if seen:
                continue
            src = _sources(occ, open_mask << d, d)
            if need[b] > 1:
                dice[j] = 0
            while src:
                c = lowest(src)
                src &= src - 1
                ok = need[b] == 1
                if not ok:  # the step, the search after it, the step taken back
                    to = c - d
                    mine[c] -= 1
                    after = occ if mine[c] else occ & ~(np.int64(1) << c)
                    if to >= 0:
                        mine[to] += 1
                        after |= np.int64(1) << to
                    ok = _most(mine, after, open_mask, dice, need[b] - 1) == need[b] - 1
                    if to >= 0:
                        mine[to] -= 1
                    mine[c] += 1
                if ok:
                    out[b, 6 * (25 - c) + d - 1] = 1
            dice[j] = d


@njit(cache=True)
def step_row(boards, left, need, only, r, a):
    """Play checker action ``a`` on board ``r`` (masked in: the caller checks). A pass ends the
    turn; else one die is used and ``need`` drops by one."""
    if a < 6:
        need[r] = 0
        return
    d = a % 6 + 1
    _apply(boards[r], 25 - a // 6, d)
    for j in range(4):
        if left[r, j] == d:
            left[r, j] = 0
            break
    need[r] -= 1
    only[r] = 0


@njit(cache=True)
def step(boards, left, need, only, actions, rows):
    """:func:`step_row` for each board in ``rows``."""
    for r in rows:
        step_row(boards, left, need, only, r, actions[r])


def reachable_results(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every play the checker encoding can reach from each board and roll, found by following
    every masked action breadth first: ``(origin, result)`` pairs, sides swapped as
    :func:`bgzero.engine.movegen.generate` returns them, each distinct pair once, sorted.
    Raises if a masked step leads to a state with dice still to play and no step masked in.

    What the exact-rules checks compare with ``generate``'s lists."""
    boards = np.ascontiguousarray(boards, np.int8)
    n = len(boards)
    origin = np.arange(n)
    left, need, only = np.zeros((n, 4), np.int8), np.zeros(n, np.int64), np.zeros(n, np.int8)
    start_turns(boards, np.asarray(dice, np.int8), origin, left, need, only)
    found_origin, found = [], []
    for _ in range(4):  # each pass makes one step in every state; a turn is at most four (a double's)
        if not len(origin):
            break
        mask = np.zeros((len(origin), CHECKER_ACTIONS), np.int8)
        masks(boards, left, need, only, mask)
        stuck = int((~mask.any(axis=1)).sum())
        if stuck:
            raise RuntimeError(f"{stuck} mid-turn states have no legal step: a masked step led off every legal play")
        row, action = np.nonzero(mask)
        boards, left, need, only, origin = (boards[row].copy(), left[row].copy(), need[row].copy(),
                                            only[row].copy(), origin[row])
        step(boards, left, need, only, action.astype(np.int64), np.arange(len(row)))
        done = need == 0
        found_origin.append(origin[done])
        found.append(boards[done][:, ::-1])
        live = ~done
        boards, left, need, only, origin = boards[live], left[live], need[live], only[live], origin[live]
        key = np.concatenate([origin.astype(">i8").view(np.uint8).reshape(-1, 8), boards.reshape(-1, 50).view(np.uint8),
                              np.sort(left, axis=1).view(np.uint8)], axis=1)
        _, first = np.unique(key, axis=0, return_index=True)  # one copy of each partial state
        boards, left, need, only, origin = boards[first], left[first], need[first], only[first], origin[first]
    if len(origin):
        raise RuntimeError(f"{len(origin)} states still mid-turn after four steps: need went wrong")
    return _distinct(np.concatenate(found_origin), np.concatenate(found))


def _distinct(origin: np.ndarray, results: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``(origin, result)`` pairs, sorted by origin then result bytes."""
    key = np.concatenate([origin.astype(">i8").view(np.uint8).reshape(-1, 8),
                          np.ascontiguousarray(results, np.int8).reshape(-1, 50).view(np.uint8)], axis=1)
    key = np.unique(key, axis=0)
    return key[:, :8].copy().view(">i8").ravel().astype(np.int64), key[:, 8:].copy().view(np.int8).reshape(-1, 2, 25)


def generated_results(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`generate`'s results as the same sorted ``(origin, result)`` pairs."""
    batch = generate(np.ascontiguousarray(boards, np.int8), np.asarray(dice, np.int64))
    return _distinct(np.repeat(np.arange(len(boards)), batch.counts()), batch.results)
