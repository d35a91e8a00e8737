"""``bgzero-league``: rate every checkpoint of a run; writes league.csv/json/png."""

import sys
from pathlib import Path

from omegaconf import DictConfig

from bgzero.arena.league import format_table, run_league, write_table
from bgzero.cli import hydra_main
from bgzero.config_check import LEAGUE, check, count_of_processes
from bgzero.errors import BgzeroError


@hydra_main("league")
def main(cfg: DictConfig) -> None:
    try:
        check(cfg, LEAGUE)
        processes = count_of_processes("processes", cfg.processes)
        table = run_league(cfg.run, cfg.limit, cfg.games_vs_pubeval, cfg.games_per_pair, cfg.seed, processes, cfg.ply,
                           progress=sys.stderr.isatty())
    except (FileNotFoundError, BgzeroError) as e:
        raise SystemExit(f"bgzero-league: {e}") from None
    png = write_table(table, cfg.out)
    print(format_table(table))
    print(f"written: {Path(cfg.out) / 'league.csv'}, {png}")


if __name__ == "__main__":
    main()
