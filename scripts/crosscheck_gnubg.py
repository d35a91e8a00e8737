"""Cross-check bgzero's move generator against GNU Backgammon on many (position, roll) pairs.

The fast test (tests/test_movegen_gnubg.py) runs the same comparison on 24,000 pairs; this
script scales it up to catch rare positions. Positions come from random play; for each one
the set of distinct results of ``bgzero.engine.movegen.generate`` must equal the set that
``gnubg_nn.moves`` returns (an empty answer there means the turn is lost, which bgzero
returns as the unchanged position with the sides swapped).

    python scripts/crosscheck_gnubg.py --pairs 1000000 --seed 0
"""

from __future__ import annotations

import argparse
import sys

import gnubg_nn
import numpy as np
from tqdm import tqdm

from bgzero.engine.board import swap_sides, to_gnubg
from bgzero.engine.game import random_positions
from bgzero.engine.ids import position_id
from bgzero.engine.movegen import generate


def gnubg_results(board: np.ndarray, d1: int, d2: int) -> set[bytes]:
    """gnubg's distinct results as our swapped boards' bytes (its keys decode to [opp, me])."""
    keys = gnubg_nn.moves(to_gnubg(board), d1, d2)
    if not keys:
        return {swap_sides(board).tobytes()}
    return {bytes(opp + me) for opp, me in map(gnubg_nn.board_from_position_key, keys)}


def disagreements(boards: np.ndarray, dice: np.ndarray):
    """Yield ``(index, missing, extra, repeated)`` for each pair where the sets differ.

    ``missing`` are gnubg's results bgzero lacks, ``extra`` the reverse, ``repeated``
    how many results bgzero returned more than once.
    """
    batch = generate(boards, dice)
    flat = batch.results.reshape(len(batch.results), 50)
    for b in range(len(boards)):
        rows = [row.tobytes() for row in flat[batch.offsets[b]:batch.offsets[b + 1]]]
        ours = set(rows)
        theirs = gnubg_results(boards[b], int(dice[b, 0]), int(dice[b, 1]))
        if ours != theirs or len(rows) != len(ours):
            yield b, theirs - ours, ours - theirs, len(rows) - len(ours)


def _describe(raw: bytes) -> str:
    """Position ID of a swapped result, read back with the mover on roll."""
    return position_id(swap_sides(np.frombuffer(raw, np.int8).reshape(2, 25)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000, help="(position, roll) pairs to compare")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random games that supply positions")
    parser.add_argument("--chunk", type=int, default=50_000, help="pairs compared per generate call")
    parser.add_argument("--show", type=int, default=5, help="disagreements to print in full")
    args = parser.parse_args(argv)

    boards, dice = random_positions(args.pairs, args.seed)
    found = []
    count = 0
    with tqdm(total=args.pairs, unit="pair", smoothing=0.05) as bar:
        for start in range(0, args.pairs, args.chunk):
            chunk = slice(start, start + args.chunk)
            for b, missing, extra, repeated in disagreements(boards[chunk], dice[chunk]):
                count += 1
                if len(found) < args.show:
                    found.append((position_id(boards[start + b]), dice[start + b].tolist(), missing, extra, repeated))
            bar.update(len(boards[chunk]))
            bar.set_postfix(disagreements=count)

    print(f"{count} disagreements in {args.pairs} pairs (seed {args.seed})")
    for pid, roll, missing, extra, repeated in found:
        print(f"  {pid} roll {roll}: gnubg only {sorted(map(_describe, missing))}, "
              f"bgzero only {sorted(map(_describe, extra))}, repeated {repeated}")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
