"""The dice and the end of a game: opening rolls, rolls, results, and games of random play in lockstep.

Dice come from an ``np.random.Generator`` (docs/rules.md sections 2 and 6); a game in
progress, with the cube, is :class:`bgzero.match.game.Game`. This module only knows who
won and by how much at a cube of 1.

Results are signed from the view of the side on roll of the board they are read from.
After the winner's last move the sides are swapped (as :func:`bgzero.engine.movegen.generate`
returns them), so the side on roll is the loser and the result is negative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from bgzero.engine import rowbits
from bgzero.engine.board import NUM_CHECKERS, START, validate
from bgzero.engine.movegen import generate
from bgzero.errors import GameTooLongError, InvalidPositionError

Dice = tuple[int, int]


ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], np.int8)
"""The 21 distinct rolls, smaller die first: what search, rollouts and luck average over."""
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0
"""Chance of each of the 21 rolls."""


MAX_TURNS = 10_000
"""Turns (lost turns included) after which a game is abandoned: the longest of 20,000 random
games took 363, so only players or a position that can never finish get here, and every loop
that plays games ends."""


def check_length(turns) -> None:
    """Abandon play, with :class:`GameTooLongError`, once a game still going has played
    :data:`MAX_TURNS` turns; ``turns`` is one count or one per game."""
    if np.size(turns) and int(np.max(turns)) >= MAX_TURNS:
        raise GameTooLongError(f"a game reached {MAX_TURNS:,} turns without ending and was abandoned: "
                               "no game of real play lasts that long, so a player or the position cannot finish")


# --------------------------------------------------------------------------- results


def game_results(boards, *, backgammon_counts_as_gammon: bool = False) -> np.ndarray:
    """Signed points of finished games, 0 where play goes on; shape ``boards.shape[:-2]``.

    Positive when the side on roll has borne off all 15 checkers, negative when the
    other side has. A backgammon scores 3, or 2 with ``backgammon_counts_as_gammon``.
    """
    boards = np.asarray(boards)
    if boards.shape[-2:] != (2, 25):
        raise InvalidPositionError(f"boards must have shape (..., 2, 25), got {boards.shape}")
    flat = np.ascontiguousarray(boards, np.int8).reshape(-1, 2, 25)  # the engine's boards are int8: one compiled kernel
    out = np.empty(len(flat), np.int8)
    both = _results_kernel(flat, 2 if backgammon_counts_as_gammon else 3, out)
    if both >= 0:
        where = tuple(int(i) for i in np.unravel_index(both, boards.shape[:-2]))
        raise InvalidPositionError(f"board {where} has both sides with all checkers borne off")
    return out.reshape(boards.shape[:-2])[()]  # a scalar for one board, as numpy's reductions give


@njit(cache=True, nogil=True)
def _results_kernel(boards, backgammon, out):
    """``out[k]``: board ``k``'s signed points; the index of the first board with both sides
    borne off, else -1. One pass a board: rollouts ask after every ply."""
    for k in range(boards.shape[0]):
        mine, theirs = rowbits.total(boards[k, 0]), rowbits.total(boards[k, 1])
        if mine == 0 and theirs == 0:
            return k
        if mine != 0 and theirs != 0:
            out[k] = 0
            continue
        loser = 1 if mine == 0 else 0
        points = 1
        if (theirs if loser else mine) == NUM_CHECKERS:
            in_winners_home = rowbits.above(boards[k, loser], 0) >> 18  # the winner's home board and the bar
            points = backgammon if in_winners_home else 2
        out[k] = points if loser else -points
    return -1


def game_result(board, *, backgammon_counts_as_gammon: bool = False) -> int:
    """:func:`game_results` for one board, checked with :func:`bgzero.engine.board.validate`."""
    return int(game_results(validate(board), backgammon_counts_as_gammon=backgammon_counts_as_gammon))


def is_game_over(boards) -> np.ndarray:
    """Whether either side has borne off all its checkers (rule 21), per board."""
    boards = np.asarray(boards)
    if boards.shape[-2:] != (2, 25):
        raise InvalidPositionError(f"boards must have shape (..., 2, 25), got {boards.shape}")
    return (boards.sum(axis=-1, dtype=np.int32) == 0).any(axis=-1)


# --------------------------------------------------------------------------- dice


def roll(rng: np.random.Generator) -> Dice:
    """Two dice for a turn after the opening (rule 6)."""
    d1, d2 = rng.integers(1, 7, size=2)
    return int(d1), int(d2)


def opening_roll(rng: np.random.Generator) -> tuple[int, Dice]:
    """``(first_player, (high, low))``: one die each, ties rolled again (rule 5).

    Player 0 rolls the first die of each pair; the higher die moves first and plays both
    numbers, so the opening roll is never a double.
    """
    while True:
        d0, d1 = roll(rng)
        if d0 != d1:
            return (0 if d0 > d1 else 1), (max(d0, d1), min(d0, d1))


def opening_rolls(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`opening_roll`: first players ``(n,)`` and dice ``(n, 2)``, player 0's die first.

    One draw per game among the 30 ordered pairs of different dice: the same distribution
    as rolling until the dice differ, without a loop.
    """
    pair = rng.choice(30, size=n)
    first = pair // 5 + 1
    second = pair % 5 + 1
    second = second + (second >= first)
    return (second > first).astype(np.int8), np.stack([first, second], axis=1).astype(np.int8)


def roll_dice(rng: np.random.Generator, n: int, opening: np.ndarray) -> np.ndarray:
    """(n, 2) int8 dice for ``n`` games in lockstep; rows flagged ``opening`` get an opening roll."""
    dice = rng.integers(1, 7, size=(n, 2), dtype=np.int8)
    if opening.any():
        dice[opening] = opening_rolls(rng, int(opening.sum()))[1]
    return dice


# --------------------------------------------------------------------------- many games


@dataclass(frozen=True)
class RandomGames:
    """Outcomes of :func:`play_random_games`.

    ``points`` are signed from player 0's view (player 0 rolls the first opening die);
    ``plies`` counts turns played, lost turns included.
    """

    points: np.ndarray
    plies: np.ndarray


def _random_plies(boards: np.ndarray, dice: np.ndarray, rng: np.random.Generator, threads: int) -> np.ndarray:
    """One uniformly random distinct result per board, sides swapped."""
    batch = generate(boards, dice, threads=threads)
    picks = batch.offsets[:-1] + (rng.random(len(batch)) * batch.counts()).astype(np.int64)
    return batch.results[picks]


def play_random_games(n: int, seed=None, *, threads: int = 1) -> RandomGames:
    """Play ``n`` random-vs-random games in lockstep, one :func:`generate` call a ply.

    Each side picks uniformly among the distinct results; seeded, so benchmarks and tests
    compare like with like.
    """
    rng = np.random.default_rng(seed)
    player, dice = opening_rolls(rng, n)
    boards = np.broadcast_to(START, (n, 2, 25)).copy()
    points = np.zeros(n, np.int8)
    plies = np.zeros(n, np.int32)
    live = np.arange(n)
    while live.size:
        boards[live] = _random_plies(boards[live], dice, rng, threads)
        plies[live] += 1
        loss = game_results(boards[live])  # the side now on roll has lost
        over = loss != 0
        done = live[over]
        points[done] = np.where(player[done] == 0, -loss[over], loss[over])
        player[live] ^= 1
        live = live[~over]
        check_length(plies[live])
        dice = rng.integers(1, 7, size=(live.size, 2))
    return RandomGames(points, plies)


def random_positions(n: int, seed=None, *, games: int = 1024, burn_in: int = 200,
                     threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions met in random play and the roll played there: ``(n, 2, 25)``, ``(n, 2)``.

    ``games`` games run in lockstep and a finished one starts afresh. Every game first
    plays ``burn_in`` plies unrecorded (about two games), so that the sample covers
    openings, contact, races and bear-offs in the proportions random play visits them
    rather than only the first plies of ``games`` fresh games.
    """
    rng = np.random.default_rng(seed)
    games = max(1, min(games, n))
    boards = np.broadcast_to(START, (games, 2, 25)).copy()
    dice = opening_rolls(rng, games)[1]
    out_boards = np.empty((n, 2, 25), np.int8)
    out_dice = np.empty((n, 2), np.int8)
    filled = -burn_in * games
    while filled < n:
        if filled >= 0:
            take = min(games, n - filled)
            out_boards[filled:filled + take] = boards[:take]
            out_dice[filled:filled + take] = dice[:take]
        filled += games
        boards = _random_plies(boards, dice, rng, threads)
        dice = rng.integers(1, 7, size=(games, 2))
        over = np.flatnonzero(is_game_over(boards))
        boards[over] = START
        dice[over] = opening_rolls(rng, over.size)[1]
    return out_boards, out_dice
