"""Benchmark bgzero's move generator against GNU Backgammon's and OpenSpiel's.

Prints two markdown tables, every figure measured in the same run as its peer (the
machines are shared and noisy: quote the ratios, not the absolute rates):

1. Move generation on positions sampled from seeded random play: positions/s and
   resulting positions/s of :func:`bgzero.engine.movegen.generate` for batch sizes 1, 64 and 4096
   on one thread (``threads=1``) and on all cores (``threads=0``), plus
   :func:`~bgzero.engine.movegen.legal_results`; next to a Python loop over ``gnubg_nn.moves``
   (gnubg's C generator, same positions) and over OpenSpiel's backgammon
   ``state.legal_actions()``. OpenSpiel cannot be set to an arbitrary backgammon position
   from Python (no ``SetState`` binding, no JSON state), so it runs on decision states
   from its own seeded random play; its "results" are legal actions (a double's turn is
   two decisions of two moves each, and actions are not deduplicated positions).
2. Random playouts: whole games, both sides choosing uniformly among the distinct results,
   many games advanced in lockstep with one ``generate`` call per ply for all of them
   (finished games are replaced by new ones; the rate is taken after a warm-up, in steady
   state); next to OpenSpiel playing uniform-random games in C++
   (``pyspiel.evaluate_bots`` with ``make_uniform_random_bot``, the fastest full-game loop
   OpenSpiel offers from Python) and in a Python ``apply_action`` loop.

Each figure is the best of ``--repeats`` timed passes, the passes of all rows interleaved.

    python scripts/bench_movegen.py --positions 20000 --seed 0
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

import numpy as np

from bgzero.engine import movegen
from bgzero.engine.board import START, to_gnubg
from bgzero.engine.movegen import generate, legal_results, warm_up

try:
    import gnubg_nn
except ImportError:  # the peers are optional
    gnubg_nn = None
try:
    import pyspiel
except ImportError:
    pyspiel = None


# --------------------------------------------------------------------------- random play


def roll(rng: np.random.Generator, first: np.ndarray) -> np.ndarray:
    """Dice for every game; a game's first roll is an opening roll (no doubles)."""
    dice = rng.integers(1, 7, size=(len(first), 2), dtype=np.int8)
    redo = first & (dice[:, 0] == dice[:, 1])
    while redo.any():
        dice[redo] = rng.integers(1, 7, size=(int(redo.sum()), 2), dtype=np.int8)
        redo = first & (dice[:, 0] == dice[:, 1])
    return dice


class Lockstep:
    """``n`` random games advanced together, one ``generate`` call per ply for all.

    After a move the result (sides swapped) is the next position; a game is over when the
    side that just moved has no checkers left, and it is replaced by a fresh game.
    """

    def __init__(self, n: int, seed: int, threads: int = 1):
        self.rng = np.random.default_rng(seed)
        self.threads = threads
        self.boards = np.repeat(START[None], n, axis=0)
        self.first = np.ones(n, bool)
        self.games = 0  # games finished
        self.plies = 0  # moves made, all games together

    def step(self) -> tuple[np.ndarray, np.ndarray]:
        """Play one ply in every game; returns the boards and dice it was played from."""
        boards, dice = self.boards, roll(self.rng, self.first)
        batch = generate(boards, dice, threads=self.threads)
        starts = batch.offsets[:-1]
        pick = starts + (self.rng.random(len(starts)) * (batch.offsets[1:] - starts)).astype(np.int64)
        after = batch.results[pick]
        over = after[:, 1].sum(axis=1) == 0
        self.games += int(over.sum())
        self.plies += len(boards)
        after[over] = START
        self.first = over
        self.boards = after
        return boards, dice


def sample_positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (board, dice) pairs from seeded random play (256 games, after a warm-up)."""
    play = Lockstep(256, seed)
    for _ in range(200):  # spread the games over all stages
        play.step()
    boards, dice = [], []
    while sum(len(b) for b in boards) < n:
        b, d = play.step()
        keep = play.rng.random(len(b)) < 0.25  # thin out consecutive plies of a game
        boards.append(b[keep])
        dice.append(d[keep])
    return np.concatenate(boards)[:n], np.concatenate(dice)[:n]


def openspiel_states(n: int, seed: int):
    """``n`` decision states (cloned) from OpenSpiel's own uniform-random play."""
    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    states = []
    while len(states) < n:
        state = game.new_initial_state()
        while not state.is_terminal() and len(states) < n:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                if rng.random() < 0.25:
                    states.append(state.clone())
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
    return states


# --------------------------------------------------------------------------- timing


def best_of(rows: dict, repeats: int) -> dict:
    """Best time per row; rows are callables returning the work they did, timed in turn."""
    best = {name: (float("inf"), 0) for name in rows}
    for _ in range(repeats):
        for name, fn in rows.items():
            t = time.perf_counter()
            work = fn()
            t = time.perf_counter() - t
            if t < best[name][0]:
                best[name] = (t, work)
    return best


def bgzero_batches(boards, dice, size: int, threads: int):
    slices = [(boards[i:i + size], dice[i:i + size]) for i in range(0, len(boards), size)]

    def run():
        results = 0
        for b, d in slices:
            results += len(generate(b, d, threads=threads).results)
        return len(boards), results

    return run


def bgzero_legal_results(boards, dice):
    pairs = [(boards[i], (int(dice[i, 0]), int(dice[i, 1]))) for i in range(len(boards))]

    def run():
        results = 0
        for b, d in pairs:
            results += len(legal_results(b, d)[0])
        return len(pairs), results

    return run


def gnubg_loop(boards, dice):
    pairs = [(to_gnubg(b), int(d[0]), int(d[1])) for b, d in zip(boards, dice)]
    moves = gnubg_nn.moves

    def run():
        results = 0
        for b, d1, d2 in pairs:
            results += len(moves(b, d1, d2)) or 1  # () = the turn is lost: one result
        return len(pairs), results

    return run


def openspiel_loop(states):
    def run():
        results = 0
        for s in states:
            results += len(s.legal_actions())
        return len(states), results

    return run


def bgzero_playout(games: int, seed: int, threads: int, warm_plies: int, plies: int):
    def run():
        play = Lockstep(games, seed, threads)
        for _ in range(warm_plies):
            play.step()
        g0, p0 = play.games, play.plies
        t = time.perf_counter()
        for _ in range(plies):
            play.step()
        t = time.perf_counter() - t
        return t, play.games - g0, play.plies - p0

    return run


def openspiel_cpp_games(n: int, seed: int):
    game = pyspiel.load_game("backgammon")
    bots = [pyspiel.make_uniform_random_bot(0, seed), pyspiel.make_uniform_random_bot(1, seed + 1)]

    def run():
        t = time.perf_counter()
        for i in range(n):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
        return time.perf_counter() - t, n, None

    return run


def openspiel_python_games(n: int, seed: int):
    game = pyspiel.load_game("backgammon")

    def run():
        rng = random.Random(seed)
        decisions = 0
        t = time.perf_counter()
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(outcomes, probs)[0])
                else:
                    actions = state.legal_actions()
                    state.apply_action(actions[rng.randrange(len(actions))])
                    decisions += 1
        return time.perf_counter() - t, n, decisions

    return run


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=20000, help="positions sampled from random play")
    ap.add_argument("--single", type=int, default=5000, help="positions for the one-at-a-time rows")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=5, help="timed passes per row (best is kept)")
    ap.add_argument("--lockstep", type=int, default=2048, help="games advanced together in the playout")
    ap.add_argument("--plies", type=int, default=300, help="timed plies of the playout (after as many warm-up plies)")
    ap.add_argument("--openspiel-games", type=int, default=300, help="games per OpenSpiel playout pass")
    args = ap.parse_args()

    warm_up()
    cores = os.cpu_count() or 1
    boards, dice = sample_positions(args.positions, args.seed)
    single = slice(0, min(args.single, args.positions))

    rows = {}
    for threads in (1, 0):
        rows[("generate", 1, threads)] = bgzero_batches(boards[single], dice[single], 1, threads)
        for size in (64, 4096):
            rows[("generate", size, threads)] = bgzero_batches(boards, dice, size, threads)
    rows[("legal_results", 1, 1)] = bgzero_legal_results(boards[single], dice[single])
    if gnubg_nn is not None:
        rows[("gnubg", 1, 1)] = gnubg_loop(boards, dice)
        rows[("gnubg", 1, 1, "single")] = gnubg_loop(boards[single], dice[single])
    if pyspiel is not None:
        rows[("openspiel", 1, 1)] = openspiel_loop(openspiel_states(args.positions, args.seed))
    timed = best_of(rows, args.repeats)

    def rate(key):
        t, (n, results) = timed[key]
        return n / t, results / t

    gnubg_rate = rate(("gnubg", 1, 1))[0] if gnubg_nn is not None else None
    gnubg_single = rate(("gnubg", 1, 1, "single"))[0] if gnubg_nn is not None else None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# bgzero.engine.movegen benchmark\n\n{platform.processor() or platform.machine()}, {cores} cores, "
          f"load average {load:.1f}; {args.positions:,} positions from seeded random play (seed {args.seed}), "
          f"one-at-a-time rows on the first {single.stop:,}; best of {args.repeats} passes.\n")
    print("| generator | batch | threads | positions/s | results/s | vs gnubg loop |")
    print("|---|---:|---|---:|---:|---:|")
    for key in rows:
        if len(key) == 4:
            continue
        name, size, threads = key
        pos, res = rate(key)
        ref = gnubg_single if name in ("generate", "legal_results") and size == 1 else gnubg_rate
        ratio = f"{pos / ref:.2f}x" if ref else "-"
        label = {"generate": "bgzero `generate`", "legal_results": "bgzero `legal_results`",
                 "gnubg": "gnubg_nn.moves (C), Python loop",
                 "openspiel": "OpenSpiel `legal_actions()`, Python loop, own states"}[name]
        thr = "1" if threads == 1 else f"0 (all {cores})"
        if name in ("gnubg", "openspiel"):
            thr = "1"
        print(f"| {label} | {size} | {thr} | {pos:,.0f} | {res:,.0f} | {ratio} |")
    if gnubg_nn is not None:
        print(f"\nOne-at-a-time rows (batch 1) are compared with the gnubg loop over the same "
              f"{single.stop:,} positions ({gnubg_single:,.0f}/s). gnubg's results count a lost turn "
              f"as one result, as bgzero does; OpenSpiel's are legal actions.")
    if cores > 1:
        print(f"threads=0 splits a batch only when it has at least {movegen._MIN_BOARDS_PER_THREAD} boards "
              f"a thread, so batches of 1 and 64 run on one thread there.")

    # playouts
    plays = {}
    for threads in (1, 0):
        plays[("bgzero", threads)] = bgzero_playout(args.lockstep, args.seed, threads, args.plies, args.plies)
    if pyspiel is not None:
        plays[("openspiel-c++", 1)] = openspiel_cpp_games(args.openspiel_games, args.seed)
        plays[("openspiel-python", 1)] = openspiel_python_games(max(1, args.openspiel_games // 3), args.seed)
    best = {}
    for _ in range(max(1, args.repeats // 2)):
        for key, fn in plays.items():
            t, games, plies = fn()
            if key not in best or games / t > best[key][1] / best[key][0]:
                best[key] = (t, games, plies)
    ref = best[("openspiel-c++", 1)][1] / best[("openspiel-c++", 1)][0] if pyspiel is not None else None
    print("\n| random playout | threads | games/s | moves/s | vs OpenSpiel C++ |")
    print("|---|---|---:|---:|---:|")
    for key, (t, games, plies) in best.items():
        name, threads = key
        label = {"bgzero": f"bgzero, {args.lockstep} games in lockstep, one `generate` a ply",
                 "openspiel-c++": "OpenSpiel `evaluate_bots`, uniform random bots (C++)",
                 "openspiel-python": "OpenSpiel `apply_action(random legal)`, Python loop"}[name]
        thr = "1" if threads == 1 else f"0 (all {cores})"
        moves = f"{plies / t:,.0f}" if plies else "-"
        ratio = f"{games / t / ref:.1f}x" if ref else "-"
        print(f"| {label} | {thr} | {games / t:,.0f} | {moves} | {ratio} |")
    print("\nbgzero's moves are turns (a double is one); OpenSpiel's Python-loop moves are its decisions "
          "(a double is two).")


if __name__ == "__main__":
    main()
