"""``bgzero-export``: a training checkpoint's play file, which plays without torch; with ``mover=``,
the role split's pair (another checkpoint's nets choose checker plays at 0 ply)."""

from pathlib import Path

from omegaconf import DictConfig

from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Export
from bgzero.errors import ConfigError
from bgzero.schema import check
from bgzero.value.checkpoint import (
    load_checkpoint,
    load_evaluator,
    located,
    read_checkpoint,
    save_checkpoint,
    save_play,
    with_mover,
)
from bgzero.value.playfile import SUFFIX


def run(cfg: DictConfig) -> str:
    """Read and check the checkpoint (and the mover), write the file, and read that back as an agent would."""
    check(cfg, Export)
    if cfg.checkpoint is None:
        raise ConfigError("no checkpoint: pass checkpoint=PATH.pt")
    source = located(cfg.checkpoint)
    mover = None if cfg.mover is None else located(cfg.mover)
    out = Path(cfg.out) if cfg.out is not None else source.with_suffix(SUFFIX)
    formats = (SUFFIX, ".pt") if mover is not None else (SUFFIX,)
    if out.suffix not in formats:
        raise ConfigError(f"out={out} must end in {' or '.join(formats)}"
                          + ("" if mover is not None else ", the play file's format"))
    if any(out.resolve() == path.resolve() for path in (source, mover) if path is not None):
        raise ConfigError(f"out={out} names an input; write the export to a new file")
    read, save = (read_checkpoint, save_play) if out.suffix == SUFFIX else (load_checkpoint, save_checkpoint)
    state = read(source)
    if mover is not None:
        state = with_mover(state, read(mover))
    save(out, state)
    load_evaluator(out)
    what = "play file" if out.suffix == SUFFIX else "checkpoint"
    pair = "" if mover is None else f" with {mover}'s nets for 0-ply checker play"
    return (f"{what} of {source}{pair} written to {out} ({out.stat().st_size / 1e6:.1f} MB); "
            f"play it as checkpoint:{out}")


@command(*COMMANDS["export"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-export"):
        print(run(cfg))


if __name__ == "__main__":
    main()
