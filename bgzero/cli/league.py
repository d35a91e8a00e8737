"""``bgzero-league``: rate every checkpoint of a run; writes league.csv/json/png."""

import sys
from pathlib import Path

from omegaconf import DictConfig

from bgzero.arena.league import format_table, run_league, write_table
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, League
from bgzero.config_check import count_of_processes
from bgzero.errors import ConfigError
from bgzero.schema import check


@command(*COMMANDS["league"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-league"):
        check(cfg, League)
        processes = count_of_processes("processes", cfg.processes)
        if not Path(str(cfg.run)).is_dir():
            raise ConfigError(f"run={cfg.run} is not a folder; pass a training run's folder (its checkpoints/ are rated)")
        try:
            table = run_league(cfg.run, cfg.limit, cfg.games_vs_pubeval, cfg.games_per_pair, cfg.seed, processes,
                               cfg.ply, progress=sys.stderr.isatty())
        except FileNotFoundError as e:
            raise ConfigError(str(e)) from None
        png = write_table(table, cfg.out)
    print(format_table(table))
    print(f"written: {Path(cfg.out) / 'league.csv'}, {png}")


if __name__ == "__main__":
    main()
