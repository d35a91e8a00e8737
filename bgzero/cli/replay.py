"""``bgzero-replay FILE.mat|FILE.sgf [pace=0.5] ...``: watch a match file action by action.

``pace=enter`` waits for Enter between actions instead. The options are checked before the
match machinery (:mod:`bgzero.ui.replay`) is imported, so a mistyped setting answers at once.
"""

import os
import sys
import time

from omegaconf import DictConfig

from bgzero.cli import reader_gone
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS
from bgzero.errors import BgzeroError


@command(*COMMANDS["replay"], positional=("file",))
def main(cfg: DictConfig) -> None:
    """``bgzero-replay FILE.mat|FILE.sgf [pace=0.5] [board=unicode|ascii] [colour=auto|true|false] [jacoby=false]``."""
    if cfg.file is None:
        raise SystemExit("bgzero-replay: no match file: pass FILE.mat or FILE.sgf (--help lists the options)")
    if os.path.exists(cfg.file) and not os.path.isfile(cfg.file):  # a FIFO would block open() for good
        raise SystemExit(f"bgzero-replay: {cfg.file} is not a regular file; pass a .mat or .sgf match file")
    pace, sleep = (0.0, lambda _: input("")) if cfg.pace == "enter" else (float(cfg.pace), time.sleep)
    colour = sys.stdout.isatty() if cfg.colour == "auto" else cfg.colour
    from bgzero.ui.render import ASCII, UNICODE
    from bgzero.ui.replay import replay_mat

    try:
        replay_mat(cfg.file, pace, style=UNICODE if cfg.board == "unicode" else ASCII, colour=colour,
                   sleep=sleep, jacoby=cfg.jacoby)
    except BrokenPipeError:  # the reader went away (bgzero-replay FILE | head): stop quietly
        reader_gone()
        raise SystemExit(1) from None
    except OSError as e:
        raise SystemExit(f"bgzero-replay: cannot read {cfg.file}: {e.strerror or e}") from None
    except BgzeroError as e:
        raise SystemExit(f"bgzero-replay: {e}") from None
    except (KeyboardInterrupt, EOFError):
        raise SystemExit("") from None


if __name__ == "__main__":
    main()
