"""``bgzero-bench``: the benchmarks' tables, one subcommand each.

``bgzero-bench errors ...`` prints the move-error table (:mod:`bgzero.judge.errors_bench`);
``bgzero-bench cube ...`` the cube decisions against gnubg's (:mod:`bgzero.gnubg.cube_bench`). The options after the
subcommand are ``key=value``, as every command's.
"""

import sys

from omegaconf import DictConfig, ListConfig, OmegaConf

from bgzero.cli import one_line_errors
from bgzero.cli.launch import BENCH_USAGE, bench_subcommand
from bgzero.cli.options import command, wants_help
from bgzero.cli.schemas import COMMANDS, BenchCube, BenchErrors
from bgzero.schema import check


def _listed(value) -> list:
    """One value or a list of them, as a list."""
    if not isinstance(value, ListConfig):
        return [value]
    values = OmegaConf.to_container(value)
    assert isinstance(values, list)  # a ListConfig's container is a list
    return values


def run_errors(cfg: DictConfig) -> list:
    """``bgzero-bench errors``: print the move-error table; returns its rows (agent, losses, seconds)."""
    from bgzero.judge.errors_bench import report

    check(cfg, BenchErrors)
    return report([str(a) for a in _listed(cfg.agent)], judge=cfg.judge, judge_file=cfg.judge_file,
                  positions=cfg.positions, seed=cfg.seed, ref_plies=cfg.ref_plies, cache=cfg.cache,
                  workers=0 if cfg.workers == "auto" else cfg.workers, worst_n=cfg.worst)


def run_cube(cfg: DictConfig) -> None:
    """``bgzero-bench cube``: print the cube benchmark's tables."""
    from bgzero.gnubg.cube_bench import report

    check(cfg, BenchCube)
    report(str(cfg.checkpoint), positions=cfg.positions, seed=cfg.seed, plies=_listed(cfg.ply),
           reference=cfg.reference, show_misses=cfg.misses, gnubg_probs=cfg.gnubg_probs)


@command(*COMMANDS["bench errors"])
def errors(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-bench errors"):
        run_errors(cfg)


@command(*COMMANDS["bench cube"])
def cube(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-bench cube"):
        run_cube(cfg)


SUBCOMMANDS = {"errors": errors, "cube": cube}


def main(argv: list[str] | None = None) -> None:
    """Run the subcommand ``argv[1]`` (``sys.argv`` by default) on the options after it."""
    argv = list(sys.argv if argv is None else argv)
    name = bench_subcommand(argv[1:])
    if name is None:
        if wants_help(argv[1:]):
            print(BENCH_USAGE)
            return
        raise SystemExit(BENCH_USAGE)
    sys.argv = [argv[0], *argv[2:]]  # the subcommand's own options
    SUBCOMMANDS[name]()


if __name__ == "__main__":
    main()
