"""Check that bgzero.env's action encodings obey the rules exactly, and cross-check a playout with OpenSpiel.

On ``--positions`` positions met in random play, each with the roll played there and a fresh
roll (so twice as many position/roll pairs):

* checker encoding: following every masked step from the turn's start reaches exactly the
  distinct results of :func:`bgzero.engine.movegen.generate` (so every masked step belongs to
  a legal play, and every legal play can be reached), and no masked step leads to a state
  with nothing left to play before the play is complete;
* play encoding: the masks and the plays behind them, in the AEC/Gymnasium environments'
  :class:`~bgzero.env.table.Table` and in the vector environment, equal ``generate``'s lists.

Then ``--openspiel-games`` random games are played in OpenSpiel's backgammon and in the
engine on the same dice: at every turn the set of positions OpenSpiel's legal actions can
reach by the turn's end must equal ``generate``'s, and the game must end on the same ply with
the same points. (generate itself is checked against GNU Backgammon by
scripts/crosscheck_gnubg.py.) Prints one line per check; exits 1 on the first disagreement.

    python scripts/check_env_rules.py --positions 100000 --openspiel-games 200 --seed 0
"""

from __future__ import annotations

import argparse
import re
import sys
import time

import numpy as np

from bgzero.engine.game import game_results, random_positions
from bgzero.engine.movegen import generate
from bgzero.env.checker import generated_results, reachable_results
from bgzero.env.table import MAX_GAME_PLIES, PLAY_ACTIONS, Table
from bgzero.env.vector import BackgammonVectorEnv


class RulesMismatch(Exception):
    """An encoding's legal plays differ from generate's."""


def sample_pairs(positions: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions from random play, each with the roll met there and a fresh roll."""
    boards, dice = random_positions(positions, seed=seed, games=min(1024, max(1, positions // 10)), burn_in=50)
    fresh = np.random.default_rng([seed, 1]).integers(1, 7, (positions, 2)).astype(np.int8)
    return np.concatenate([boards, boards]), np.concatenate([dice, fresh])


def check_checker(boards: np.ndarray, dice: np.ndarray) -> int:
    """The checker encoding reaches exactly generate's plays; returns how many plays were compared."""
    got, want = reachable_results(boards, dice), generated_results(boards, dice)
    if not (np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])):
        got_set = {(int(o), r.tobytes()) for o, r in zip(*got)}
        want_set = {(int(o), r.tobytes()) for o, r in zip(*want)}
        b = min(o for o, _ in got_set ^ want_set)
        raise RulesMismatch(f"checker encoding, pair {b} (dice {dice[b].tolist()}): "
                            f"{len({r for o, r in got_set - want_set if o == b})} plays generate lacks, "
                            f"{len({r for o, r in want_set - got_set if o == b})} it cannot reach")
    return len(want[0])


def check_play(boards: np.ndarray, dice: np.ndarray) -> int:
    """The play encoding's masks and plays equal generate's lists, in the Table and the vector env."""
    batch = generate(boards, dice)
    table = Table()
    for b in range(len(boards)):
        table.board = boards[b].copy()
        table._turn(dice[b])
        lo, hi = batch.offsets[b], batch.offsets[b + 1]
        mask = table.mask()
        if not (mask[:hi - lo].all() and not mask[hi - lo:].any() and np.array_equal(table.afterstates(),
                                                                                        batch.results[lo:hi])):
            raise RulesMismatch(f"play encoding (Table), pair {b}: its {int(mask.sum())} actions are not generate's "
                                f"{hi - lo} plays in order")
    vec = BackgammonVectorEnv(num_envs=len(boards), opponent=None)
    vec.reset(seed=0)
    vec.boards[:], vec.dice[:] = boards, dice
    mask = vec._observe()["action_mask"]
    results, offsets = vec.afterstates()
    counts = batch.counts()
    if not (np.array_equal(mask, np.arange(PLAY_ACTIONS)[None] < counts[:, None])
            and np.array_equal(offsets, batch.offsets) and np.array_equal(results, batch.results)):
        raise RulesMismatch("play encoding (vector env): masks or plays differ from generate's lists")
    return int(counts.sum())


# ---------------------------------------------------------------------- OpenSpiel

def openspiel_board(state, on_roll: int) -> np.ndarray:
    """OpenSpiel's position as the engine's ``(2, 25)`` board, player ``on_roll`` in row 0.

    OpenSpiel's X (player 0) runs from position 0 (its 24-point) up, O from 23 down; the
    bar counts come from its text form, the one place its Python API shows them.
    """
    board = np.zeros((2, 25), np.int8)
    bar = re.search(r"^Bar:(.*)$", str(state), re.M).group(1)
    for row, player in enumerate((on_roll, 1 - on_roll)):
        for pos in range(24):
            board[row, 23 - pos if player == 0 else pos] = state.board(player, pos)
        board[row, 24] = bar.count("x" if player == 0 else "o")
    return board


def openspiel_turns(state, mover: int) -> dict[bytes, list[int]]:
    """Every position OpenSpiel lets ``mover`` reach by the end of the turn (the opponent in
    row 0, as generate returns results), each with one action sequence that reaches it."""
    ends, stack = {}, [(state, [])]
    while stack:
        s, path = stack.pop()
        for action in s.legal_actions():
            child = s.child(action)
            if child.is_terminal() or child.is_chance_node() or child.current_player() != mover:
                ends.setdefault(openspiel_board(child, 1 - mover).tobytes(), path + [action])
            else:
                stack.append((child, path + [action]))
    return ends


def crosscheck_openspiel(games: int, seed: int) -> int:
    """Play ``games`` random games in both on the same dice; returns the turns compared."""
    import pyspiel

    game = pyspiel.load_game("backgammon(scoring_type=full_scoring)")
    rng = np.random.default_rng([seed, 2])
    turns = 0
    for g in range(games):
        state = game.new_initial_state()
        outcomes = [a for a, _ in state.chance_outcomes()]
        state.apply_action(int(rng.choice(outcomes)))  # the opening roll: who starts and both dice
        for _ in range(MAX_GAME_PLIES):  # see MAX_GAME_PLIES: the game's end breaks out
            mover = state.current_player()
            board = openspiel_board(state, mover)
            dice = [int(c) for c in re.search(r"^Dice: (\d)(\d)", str(state), re.M).groups()]
            batch = generate(board[None], np.array([dice]))
            ours = {r.tobytes(): r for r in batch.results}
            theirs = openspiel_turns(state, mover)
            if set(ours) != set(theirs):
                raise RulesMismatch(f"OpenSpiel game {g}, turn {turns}, dice {dice}: {len(set(theirs) - set(ours))} "
                                    f"plays generate lacks, {len(set(ours) - set(theirs))} OpenSpiel lacks")
            pick = sorted(ours)[int(rng.integers(len(ours)))]
            for action in theirs[pick]:
                state.apply_action(action)
            turns += 1
            points = -int(game_results(ours[pick]))  # what the mover won
            if state.is_terminal() != (points != 0) or (points and state.returns()[mover] != points):
                raise RulesMismatch(f"OpenSpiel game {g}, turn {turns}: it ends {state.is_terminal()} "
                                    f"with {state.returns()}, the engine scores the mover {points}")
            if points:
                break
            rolls = {state.action_to_string(a)[-3:-1]: a for a, _ in state.chance_outcomes()}
            d = rng.integers(1, 7, 2)
            state.apply_action(rolls[f"{d[0]}{d[1]}"])
        else:
            raise RulesMismatch(f"OpenSpiel game {g} did not end in {MAX_GAME_PLIES:,} turns")
    return turns


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100_000, help="positions; each is checked with two rolls")
    parser.add_argument("--openspiel-games", type=int, default=200, help="random games cross-checked (0: skip)")
    parser.add_argument("--chunk", type=int, default=5000, help="positions per batch")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.positions < 1 or args.chunk < 1 or args.openspiel_games < 0:
        parser.error("--positions and --chunk must be at least 1, --openspiel-games at least 0")
    try:
        t0 = time.perf_counter()
        boards, dice = sample_pairs(args.positions, args.seed)
        plays_checker = plays_play = 0
        for lo in range(0, len(boards), args.chunk):
            b, d = boards[lo:lo + args.chunk], dice[lo:lo + args.chunk]
            plays_checker += check_checker(b, d)
            plays_play += check_play(b, d)
        print(f"checker encoding: {len(boards):,} position/roll pairs, {plays_checker:,} plays, all equal "
              f"generate's ({time.perf_counter() - t0:.0f} s)")
        print(f"play encoding: {len(boards):,} pairs, {plays_play:,} plays, Table and vector env equal generate's")
        if args.openspiel_games:
            t0 = time.perf_counter()
            turns = crosscheck_openspiel(args.openspiel_games, args.seed)
            print(f"OpenSpiel: {args.openspiel_games} random games, {turns:,} turns on the same dice: every turn's "
                  f"plays and every game's end and points equal ({time.perf_counter() - t0:.0f} s)")
    except RulesMismatch as err:
        print(f"MISMATCH: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
