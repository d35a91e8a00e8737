"""Fine-tune a checkpoint's contact net on its own 2-ply evaluations (bgzero/learn/search_targets.py).

The data are pairs of files from ``scripts/make_search_targets.py``, given as
``--data CANDIDATES:TARGETS`` (repeatable): each targets file labels a prefix of its
candidates file, whose checksum it records and which is checked here. The contact net
learns the targets' differences between the candidates of each turn
(:func:`bgzero.learn.search_targets.rank_fine_tune`), after ``--widen`` more hidden units are
added to it (:func:`bgzero.value.net.widened`: the 2-ply differences need more capacity than
self-play filled the net with); a fresh pruning net is then distilled
from it for 1- and 2-ply search, and the checkpoint is written to ``--out``.

    python scripts/search_finetune.py checkpoints/strong_td.pt --out runs/strong_search.pt --widen 768 \\
        --data runs/search/candidates0.npz:runs/search/targets0.npz \\
        --data runs/search/candidates1.npz:runs/search/targets1.npz
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from dataclasses import asdict

import numpy as np

from bgzero.errors import ConfigError
from bgzero.learn.distill import distill
from bgzero.learn.search_targets import load_labelled, rank_fine_tune
from bgzero.value.checkpoint import load_checkpoint, load_evaluator, net_fields, save_checkpoint
from bgzero.value.net import widened


def data_pairs(specs: list[str]) -> list[tuple[str, str]]:
    """``CANDIDATES:TARGETS`` arguments as path pairs."""
    pairs = []
    for spec in specs:
        candidates, sep, targets = spec.partition(":")
        if not sep:
            raise ConfigError(f"--data {spec!r}: expected CANDIDATES:TARGETS")
        pairs.append((candidates, targets))
    return pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--out", required=True, help="checkpoint to write")
    ap.add_argument("--data", action="append", required=True, metavar="CANDIDATES:TARGETS")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--widen", type=int, default=0, help="hidden units to add to the contact net first")
    ap.add_argument("--anchor", type=float, default=0.1, help="weight of the pull toward the starting outputs")
    ap.add_argument("--prune-positions", type=int, default=300_000, help="self-play candidates for the pruning net")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    try:
        boards, turns, targets = load_labelled(data_pairs(args.data))
    except (ConfigError, OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        sys.exit(f"search_finetune: {exc}")
    print(f"{len(boards):,} labelled candidates of {len(np.unique(turns)):,} turns")
    state = load_checkpoint(args.checkpoint)
    evaluator = load_evaluator(args.checkpoint, frozen=False)  # its net is trained further
    if args.widen:
        evaluator.net = widened(evaluator.net, args.widen, args.seed)
    start = time.time()
    history = rank_fine_tune(evaluator.net, evaluator.encoder, boards, turns, targets, epochs=args.epochs,
                             lr=args.lr, anchor=args.anchor, seed=args.seed)
    print(f"turn-centred squared error per epoch: {', '.join(f'{h:.6f}' for h in history)} "
          f"({time.time() - start:.0f} s)")
    evaluator.pruner = None
    prune, report = distill(evaluator, positions=args.prune_positions, seed=args.seed)
    state.pop("optimizer", None)  # the TD optimizer's moments no longer fit the fine-tuned (maybe wider) net
    if "net" in state.get("config", {}):  # the run config the file records describes the net it holds
        state["config"]["net"]["hidden"] = evaluator.net.config_dict()["hidden"]
    state.update(net_fields(evaluator.net), **net_fields(prune, "prune_"), prune_report=asdict(report),
                 search_finetune={"from": str(args.checkpoint), "data": args.data, "positions": len(boards),
                                  "widen": args.widen, "epochs": args.epochs, "lr": args.lr, "anchor": args.anchor, "seed": args.seed})
    print(f"written to {save_checkpoint(args.out, state)}")


if __name__ == "__main__":
    main()
