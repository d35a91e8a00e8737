"""Label a checkpoint's self-play candidates with its own n-ply evaluations (bgzero/learn/search_targets.py).

The slow half of search-target fine-tuning, made to run on a bigger machine against a
fixed budget: ``--candidates`` (made here and kept if missing) holds whole turns in random
order, and the workers label a prefix of it in ``--seconds``; ``--out`` gets that prefix's
targets (float32, (M, 5)) and the candidates file's checksum, so a later fine-tune pairs them
with the right boards. ``scripts/search_finetune.py`` trains on the result.

    python scripts/make_search_targets.py checkpoints/strong_td.pt --candidates runs/search/candidates0.npz \
        --positions 500000 --ply 2 --processes 16 --seconds 430 --out runs/search/targets0.npz
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from bgzero.agents.search import evaluate_ply
from bgzero.atomic import atomic_write
from bgzero.engine.bearoff import one_sided as bearoff
from bgzero.engine.bearoff import two_sided as bearoff_twosided
from bgzero.errors import BgzeroError
from bgzero.learn.search_targets import candidate_turns, ply_targets, save_targets
from bgzero.value.checkpoint import load_evaluator


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--candidates", type=Path, required=True, help="npz of boards and turns (made if missing)")
    ap.add_argument("--out", type=Path, required=True, help="npz of the labelled prefix's targets")
    ap.add_argument("--positions", type=int, default=600_000, help="candidates to make when the file is missing")
    ap.add_argument("--top", type=int, default=8, help="best contact candidates kept per turn")
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seconds", type=float, default=None, help="labelling budget; a prefix is returned")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)

    try:
        evaluator = load_evaluator(args.checkpoint)
    except (BgzeroError, OSError) as exc:
        sys.exit(f"make_search_targets: {exc}")
    if not args.candidates.exists():
        boards, turns = candidate_turns(evaluator, args.positions, args.seed, args.top)
        atomic_write(args.candidates, lambda f: np.savez_compressed(f, boards=boards, turns=turns), "wb")
        print(f"{len(boards):,} candidates of {len(np.unique(turns)):,} turns written to {args.candidates}")
    data = np.load(args.candidates)
    boards = data["boards"]
    start = time.time()
    evaluate_ply(evaluator, boards[:4], args.ply)  # compile the kernels and build both bear-off
    bearoff.get_database()                          # tables once, before the workers load them
    bearoff_twosided.get_database()
    print(f"kernels ready in {time.time() - start:.0f} s; labelling {len(boards):,} candidates at {args.ply}-ply "
          f"with {args.processes} processes", flush=True)
    done = [0]

    def progress(n: int) -> None:
        done[0] += n
        if done[0] % 10_000 < n:  # a line per 10,000
            print(f"{done[0]:,} labelled, {done[0] / (time.time() - start):.0f}/s", flush=True)

    targets = ply_targets(args.checkpoint, boards, args.ply, args.processes, seconds=args.seconds, progress=progress)
    elapsed = time.time() - start
    save_targets(args.out, targets, args.ply, args.candidates)
    print(f"{len(targets):,} of {len(boards):,} candidates labelled in {elapsed:.0f} s "
          f"({len(targets) / elapsed:.0f}/s); written to {args.out}")


if __name__ == "__main__":
    main()
