"""``bgzero-serve``: serve an agent as gnubg's external player, or play a gnubg-refereed match."""

import logging
from pathlib import Path

from omegaconf import DictConfig

from bgzero.agents.specs import make_agent
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Serve
from bgzero.gnubg.refereed import RefereedMatch, play_refereed
from bgzero.gnubg.serve import ExternalPlayer, Server
from bgzero.schema import check


def run(cfg: DictConfig) -> RefereedMatch | None:
    """Serve until stopped, or with ``referee.match`` set play that match and return gnubg's result."""
    check(cfg, Serve)
    agent = make_agent(cfg.agent)
    ref = cfg.referee
    if ref.match is not None:
        result = play_refereed(agent, int(ref.match), Path(ref.sgf), ply=int(ref.ply), seed=ref.seed,
                               gnubg=str(ref.gnubg), timeout=float(ref.timeout))
        print(report(result, cfg.agent, int(ref.ply)))
        return result
    server = Server(ExternalPlayer(agent, gnubg_scores=cfg.gnubg_scores), str(cfg.host), cfg.port, cfg.connections,
                    idle_timeout=cfg.idle_timeout)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        logging.getLogger("bgzero.gnubg.serve").info("stopped")
    return None


def report(result: RefereedMatch, agent: str, ply: int) -> str:
    """gnubg's verdict and the record check, as printed."""
    score = ", ".join(f"{name} {points}" for name, points in result.score.items())
    outcome = f"{result.winner} won the match" if result.complete else "the match did not finish"
    check = (f"all {result.moves_checked} bgzero moves found in gnubg's record" if not result.mismatches
             else f"{len(result.mismatches)} bgzero answers differ from gnubg's record:\n  "
             + "\n  ".join(result.mismatches))
    return (f"{result.length}-point match refereed by gnubg, bgzero ({agent}) against gnubg at {ply}-ply\n"
            f"gnubg's score after {_games(result.games_played)}: {score}; {outcome}\n"
            f"saved to {result.sgf}: {_games(len(result.record.games))}; {check}")


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


@command(*COMMANDS["serve"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-serve"):
        check(cfg, Serve)  # log_level among them, before logging is set up with it
        logging.basicConfig(level=str(cfg.log_level).upper(), format="%(asctime)s %(levelname)s %(message)s")
        result = run(cfg)
    if result is not None and (result.mismatches or not result.complete):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
