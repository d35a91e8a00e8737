"""``bgzero-league``: rate every checkpoint of a run; writes league.csv/json/png."""

import os
from pathlib import Path

import hydra
from omegaconf import DictConfig

from bgzero.arena.league import format_table, run_league, write_table
from bgzero.cli import CONFIGS
from bgzero.errors import BgzeroError, ConfigError


@hydra.main(version_base="1.3", config_path=CONFIGS, config_name="league")
def main(cfg: DictConfig) -> None:
    try:
        processes = os.cpu_count() or 1 if cfg.processes == "auto" else int(cfg.processes)
        if cfg.limit < 1:
            raise ConfigError(f"limit={cfg.limit} must be at least 1")
        table = run_league(cfg.run, cfg.limit, cfg.games_vs_pubeval, cfg.games_per_pair, cfg.seed, processes, cfg.ply)
    except (FileNotFoundError, BgzeroError) as e:
        raise SystemExit(f"bgzero-league: {e}") from None
    png = write_table(table, cfg.out)
    print(format_table(table))
    print(f"written: {Path(cfg.out) / 'league.csv'}, {png}")


if __name__ == "__main__":
    main()
