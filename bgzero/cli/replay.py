"""``bgzero-replay FILE.mat|FILE.sgf [pace=0.5] ...``: watch a match file action by action.

``pace=enter`` waits for Enter between actions instead. The arguments are checked before
the match machinery (:mod:`bgzero.ui.replay`) is imported, so ``--help`` and a mistyped
setting answer at once.
"""

import argparse
import math
import os
import sys
import time

from bgzero.cli import reader_gone
from bgzero.errors import BgzeroError

_BOOLS = {"true": True, "false": False}
"""As every other command spells a flag: ``jacoby=yes`` or ``1`` is refused there too."""


def main(argv: list[str] | None = None) -> None:
    """``bgzero-replay FILE.mat|FILE.sgf [pace=0.5] [board=unicode|ascii] [colour=auto|true|false] [jacoby=false]``."""
    parser = argparse.ArgumentParser(prog="bgzero-replay", description=main.__doc__)
    parser.add_argument("file", help="a .mat or .sgf match file (gnubg's 'save match' or 'export match mat', bgzero-match, bgzero-play)")
    parser.add_argument("settings", nargs="*", default=[], metavar="key=value",
                        help="pace=SECONDS or pace=enter, board=unicode|ascii, colour=auto|true|false, jacoby=BOOL")
    args = parser.parse_args(argv)
    opts = {"pace": "0.5", "board": "unicode", "colour": "auto", "jacoby": "false"}
    for item in args.settings:
        key, eq, value = item.partition("=")
        if not eq or key not in opts:
            parser.error(f"{item!r}: expected one of {', '.join(k + '=...' for k in opts)}")
        opts[key] = value.strip().lower()
    if opts["board"] not in ("unicode", "ascii") or opts["colour"] not in ("auto", "true", "false"):
        parser.error(f"board={opts['board']}, colour={opts['colour']}: board is unicode or ascii, "
                     "colour auto, true or false")
    if opts["jacoby"] not in _BOOLS:
        parser.error(f"jacoby={opts['jacoby']}: true or false (a money .mat's Jacoby rule)")
    if opts["pace"] == "enter":
        pace, sleep = 0.0, lambda _: input("")
    else:
        try:
            pace, sleep = float(opts["pace"]), time.sleep
        except ValueError:
            pace = math.nan
        if not 0 <= pace <= 3600:  # also refuses nan and inf
            parser.error(f"pace={opts['pace']}: seconds between actions (0 to 3600), or enter")
    if os.path.exists(args.file) and not os.path.isfile(args.file):  # a FIFO would block open() for good
        raise SystemExit(f"bgzero-replay: {args.file} is not a regular file; pass a .mat or .sgf match file")
    colour = sys.stdout.isatty() if opts["colour"] == "auto" else opts["colour"] == "true"
    from bgzero.ui.render import ASCII, UNICODE
    from bgzero.ui.replay import replay_mat

    try:
        replay_mat(args.file, pace, style=UNICODE if opts["board"] == "unicode" else ASCII, colour=colour,
                   sleep=sleep, jacoby=_BOOLS[opts["jacoby"]])
    except BrokenPipeError:  # the reader went away (bgzero-replay FILE | head): stop quietly
        reader_gone()
        raise SystemExit(1) from None
    except OSError as e:
        raise SystemExit(f"bgzero-replay: cannot read {args.file}: {e.strerror or e}") from None
    except BgzeroError as e:
        raise SystemExit(f"bgzero-replay: {e}") from None
    except (KeyboardInterrupt, EOFError):
        raise SystemExit("") from None


if __name__ == "__main__":
    main()
