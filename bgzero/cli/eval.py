"""``bgzero-eval``: one agent against another, cubeless money, duplicate dice.

``report=FILE`` also appends the match's row to a strength report (:mod:`bgzero.arena.reports`),
the JSON the model cards' tables come from, and prints it as a line of that table.
"""

import json
from pathlib import Path

from omegaconf import DictConfig

from bgzero.agents.specs import checkpoint_file
from bgzero.arena import reports
from bgzero.arena.duplicate import play_duplicate_from_specs
from bgzero.atomic import atomic_write_text
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Evaluate
from bgzero.cli.tensorboard_events import tensorboard_installed, write_scalars
from bgzero.config_check import count_of_processes, distinct_files
from bgzero.errors import Interrupted
from bgzero.schema import check


def check_report(cfg: DictConfig) -> None:
    """``report=``, before any game: a file that is a report or none yet, and neither an agent's
    checkpoint nor the result the command writes."""
    if cfg.report is None:
        return
    distinct_files({"out": Path(cfg.out) / "result.json", "report": cfg.report},
                   {"a": checkpoint_file(cfg.a), "b": checkpoint_file(cfg.b)})
    reports.read(cfg.report)


def run(cfg: DictConfig) -> dict:
    check(cfg, Evaluate)
    processes = count_of_processes("processes", cfg.processes)
    check_report(cfg)
    out = Path(cfg.out)
    try:
        result = play_duplicate_from_specs(cfg.a, cfg.b, cfg.games, seed=cfg.seed, processes=processes,
                                           progress=cfg.progress)
    except Interrupted as e:  # Ctrl-C: the games finished so far, marked partial
        if e.partial is None:
            raise
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out / "result.json", json.dumps(
            {"a": cfg.a, "b": cfg.b, "seed": cfg.seed, "partial": True, **e.partial.as_dict()}, indent=2))
        raise Interrupted(f"{e}: {cfg.a} vs {cfg.b}: {e.partial} (partial, in {out / 'result.json'})") from None
    out.mkdir(parents=True, exist_ok=True)
    record = {"a": cfg.a, "b": cfg.b, "seed": cfg.seed, **result.as_dict()}
    atomic_write_text(out / "result.json", json.dumps(record, indent=2))
    print(f"{cfg.a} vs {cfg.b}: {result}")
    print(f"result: {out / 'result.json'}")
    if cfg.report is not None:
        row = reports.record(cfg.a, cfg.b, cfg.seed, result)
        reports.append(cfg.report, row)
        print(f"{reports.HEADER}\n{reports.line(row)}")
        print(f"report: {cfg.report}")
    if tensorboard_installed():
        write_scalars(out / "tb", {f"eval/{key}": record[key] for key in (
            "ppg", "ci95", "win_rate", "a_gammon_rate", "b_gammon_rate", "a_backgammon_rate", "b_backgammon_rate",
            "games_per_second")}, result.games)
    else:
        print("TensorBoard scalars skipped: TensorBoard comes with pip install 'bgzero[train]'")
    return record


@command(*COMMANDS["eval"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-eval"):
        run(cfg)


if __name__ == "__main__":
    main()
