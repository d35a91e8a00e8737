"""``bgzero-play``: a person against any agent in the terminal, a match or a money session."""

import secrets
import sys

from omegaconf import DictConfig

from bgzero.agents.specs import make_agent, spec_name
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Play
from bgzero.match.files import check_suffix
from bgzero.match.record import MatchRecord
from bgzero.schema import check
from bgzero.ui.play import Hints, PlaySession
from bgzero.ui.render import ASCII, UNICODE


def run(cfg: DictConfig, stdin=sys.stdin, stdout=sys.stdout) -> MatchRecord:
    """Build the session ``cfg`` describes and play it on ``stdin``/``stdout``."""
    check(cfg, Play)
    styles = {"unicode": UNICODE, "ascii": ASCII}
    if cfg.save:
        check_suffix(cfg.save)  # before the session starts, not after the first game
    seed = secrets.randbits(128) % 10**9 if cfg.seed is None else cfg.seed  # 128 bits: SeedSequence's entropy
    session = PlaySession(
        make_agent(cfg.bot), bot_name=spec_name(str(cfg.bot)), name=str(cfg.name), length=cfg.length,
        games=cfg.games, jacoby=cfg.jacoby, seed=seed,
        hints=Hints.for_bot(str(cfg.bot), None if cfg.hint is None else str(cfg.hint), cfg.hint_moves),
        confirm=cfg.confirm, style=styles[cfg.board],
        colour=stdout.isatty() if cfg.colour == "auto" else cfg.colour,
        save=cfg.save, stdin=stdin, stdout=stdout)
    return session.run()


@command(*COMMANDS["play"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-play"):  # Ctrl-C at a prompt: one line and exit 130, as for every command
        run(cfg)


if __name__ == "__main__":
    main()
