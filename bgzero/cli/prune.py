"""``bgzero-prune``: add a distilled pruning net to a checkpoint (faster 1- and 2-ply search)."""

import sys
from dataclasses import asdict

import torch
from omegaconf import DictConfig

from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Prune
from bgzero.errors import ConfigError
from bgzero.learn.distill import distill
from bgzero.schema import check
from bgzero.value.checkpoint import load_checkpoint, load_evaluator, net_fields, save_checkpoint


def run(cfg: DictConfig) -> str:
    """Distil, store, and describe the result as printed."""
    check(cfg, Prune)
    if cfg.checkpoint is None:
        raise ConfigError("no checkpoint: pass checkpoint=PATH")
    torch.set_num_threads(1)
    state = load_checkpoint(cfg.checkpoint)
    net, report = distill(load_evaluator(cfg.checkpoint), positions=int(cfg.positions), hidden=int(cfg.hidden),
                          seed=int(cfg.seed), progress=sys.stderr.isatty())
    state.update(net_fields(net, "prune_"), prune_report=asdict(report))
    out = save_checkpoint(cfg.out or cfg.checkpoint, state)
    return (f"pruning net 198-{cfg.hidden}-5 fitted on {report.positions:,} positions: RMSE {report.rmse:.4f} "
            f"against the contact net; picks the contact net's own reply in {report.agreement:.1%} of "
            f"{report.pairs:,} held-out position-rolls; written to {out}")


@command(*COMMANDS["prune"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-prune"):
        print(run(cfg))


if __name__ == "__main__":
    main()
