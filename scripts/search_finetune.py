"""Fine-tune a checkpoint's contact net on its own 1-ply evaluations (bgzero/search_targets.py).

Positions are the contact candidates of the checkpoint's 0-ply self-play (seeded, with a
little exploration); their 1-ply evaluations are computed in ``--processes`` workers and
kept in ``--targets`` (an .npz reused by later runs with the same file); the contact net
is then trained on them and written, with a fresh pruning net, to ``--out``.

    python scripts/search_finetune.py checkpoints/strong.pt --positions 300000 --out runs/strong_1ply.pt
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from bgzero.atomic import atomic_write
from bgzero.checkpoint import load_checkpoint, load_evaluator, save_checkpoint
from bgzero.distill import distill, self_play_candidates
from bgzero.net import equity
from bgzero.search_targets import fine_tune, one_ply_targets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--out", required=True, help="checkpoint to write")
    ap.add_argument("--positions", type=int, default=300_000)
    ap.add_argument("--targets", type=Path, default=None, help="npz of positions and 1-ply targets (made if missing)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    torch.set_num_threads(1)

    state = load_checkpoint(args.checkpoint)
    evaluator = load_evaluator(args.checkpoint)
    if args.targets is not None and args.targets.exists():
        data = np.load(args.targets)
        boards, targets = data["boards"], data["targets"]
        print(f"{len(boards):,} positions and 1-ply targets from {args.targets}")
    else:
        start = time.time()
        boards, zero_ply, _ = self_play_candidates(evaluator, args.positions, args.seed)
        with tqdm(total=len(boards), unit="pos", desc="1-ply targets") as bar:
            targets = one_ply_targets(args.checkpoint, boards, args.processes, progress=bar.update)
        print(f"{len(boards):,} positions, 1-ply targets in {time.time() - start:.0f} s; mean |1-ply - 0-ply| "
              f"equity {np.abs(equity(targets) - equity(zero_ply)).mean():.4f}")
        if args.targets is not None:
            atomic_write(args.targets, lambda f: np.savez(f, boards=boards, targets=targets), "wb")

    history = fine_tune(evaluator.net, evaluator.encoder, boards, targets, epochs=args.epochs, lr=args.lr,
                        seed=args.seed)
    print("loss per epoch: " + ", ".join(f"{h:.4f}" for h in history))
    evaluator.pruner = None
    prune, report = distill(evaluator, seed=args.seed)
    state.update(model=evaluator.net.state_dict(), prune_model=prune.state_dict(),
                 prune_net_config=prune.config_dict(), prune_report=asdict(report),
                 search_finetune={"from": str(args.checkpoint), "positions": len(boards), "epochs": args.epochs,
                                  "lr": args.lr, "seed": args.seed})
    print(f"written to {save_checkpoint(args.out, state)}")


if __name__ == "__main__":
    main()
