"""``bgzero-export``: a training checkpoint's play file, which plays without torch."""

from pathlib import Path

from omegaconf import DictConfig

from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Export
from bgzero.errors import ConfigError
from bgzero.schema import check
from bgzero.value.checkpoint import load_evaluator, located, read_checkpoint, save_play
from bgzero.value.playfile import SUFFIX


def run(cfg: DictConfig) -> str:
    """Read and check the checkpoint, write its play file, and read that back as an agent would."""
    check(cfg, Export)
    if cfg.checkpoint is None:
        raise ConfigError("no checkpoint: pass checkpoint=PATH.pt")
    source = located(cfg.checkpoint)
    out = Path(cfg.out) if cfg.out is not None else source.with_suffix(SUFFIX)
    if out.suffix != SUFFIX:
        raise ConfigError(f"out={out} must end in {SUFFIX}, the play file's format")
    state = read_checkpoint(source)
    save_play(out, state)
    load_evaluator(out)
    return f"play file of {source} written to {out} ({out.stat().st_size / 1e6:.1f} MB); play it as checkpoint:{out}"


@command(*COMMANDS["export"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-export"):
        print(run(cfg))


if __name__ == "__main__":
    main()
