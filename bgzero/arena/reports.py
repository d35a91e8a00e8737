"""Strength reports: duplicate-match results kept as rows of a JSON file.

``bgzero-eval report=FILE`` appends one row per match (the agent, its opponent, the dice seed
and :meth:`~bgzero.arena.duplicate.MatchResult.as_dict`'s figures) and prints it as a line of
the markdown table the model cards quote; :func:`pooled_table` (``scripts/pool_reports.py``)
pools the rows of matches run in chunks on different seeds. The shipped
``checkpoints/*.report.json`` are such files.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import fields
from pathlib import Path

from bgzero.agents.specs import parse_spec
from bgzero.arena.duplicate import MatchResult, pooled
from bgzero.atomic import atomic_write_text
from bgzero.errors import ConfigError

HEADER = ("| bgzero agent | opponent | games | ppg ± 95% | win % | gammons for/against | games/s |\n"
          "|---|---|---|---|---|---|---|")
"""The head of the table whose lines :func:`line` makes."""
RESULT_FIELDS = tuple(f.name for f in fields(MatchResult))
"""A row's figures: :class:`~bgzero.arena.duplicate.MatchResult`'s fields."""


def record(agent: str, opponent: str, seed: int, result: MatchResult) -> dict:
    """A report's row: who played whom on which dice, and the match's figures."""
    return {"agent": str(agent), "opponent": str(opponent), "seed": seed, **result.as_dict()}


def read(path: str | Path) -> list[dict]:
    """The rows of the report at ``path`` (none if it does not exist yet); a file that is not a
    report is refused, so it is never overwritten."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConfigError(f"cannot read the report {path}: {e}; pass another report=") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ConfigError(f"{path} is not a report (a JSON list of rows); pass another report=")
    return rows


def append(path: str | Path, row: dict) -> list[dict]:
    """Add ``row`` to the report at ``path``, written atomically (the file is whole before and after)."""
    rows = read(path) + [row]
    atomic_write_text(path, json.dumps(rows, indent=2))
    return rows


def agent_name(spec: str) -> str:
    """How the table names an agent: a checkpoint's file name and ply (``reference.pt 0-ply``), else the spec."""
    name, arg, ply = parse_spec(spec)
    return f"{Path(arg).name} {ply}-ply" if name == "checkpoint" and arg else str(spec)


def line(row: dict) -> str:
    """A row as a line of :data:`HEADER`'s table."""
    r = MatchResult(**{k: row[k] for k in RESULT_FIELDS})
    return (f"| {agent_name(row['agent'])} | {row['opponent']} | {r.games} | {r.ppg:+.3f} ± {r.ci95:.3f} | "
            f"{100 * r.win_rate:.1f} | {100 * r.a_gammon_rate:.1f} / {100 * r.b_gammon_rate:.1f} | "
            f"{r.games_per_second:.1f} |")


# --------------------------------------------------------------------------- pooling chunks


def read_rows(paths: list[str | Path]) -> list[dict]:
    """Every row of the report files, each checked for the fields pooling needs."""
    rows = []
    for path in paths:
        try:
            records = json.loads(Path(path).read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ConfigError(f"cannot read report {path}: {e}") from None
        if not isinstance(records, list):
            raise ConfigError(f"{path} is not a report (expected a list of rows)")
        for i, row in enumerate(records):
            wanted = ("agent", "opponent", "seed", *RESULT_FIELDS)
            missing = [f for f in wanted if not isinstance(row, dict) or f not in row]
            if missing:
                raise ConfigError(f"row {i} of {path} lacks {', '.join(missing)}")
            rows.append(row)
    return rows


def pool_rows(rows: list[dict]) -> dict[tuple[str, str], tuple[MatchResult, list[int]]]:
    """Pooled result and seeds per (agent, opponent); a repeated seed is an error (the same dice counted twice)."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["agent"], row["opponent"]].append(row)
    out = {}
    for key, group in groups.items():
        seeds = [row["seed"] for row in group]
        repeated = sorted({s for s in seeds if seeds.count(s) > 1})
        if repeated:
            raise ConfigError(f"{key[0]} vs {key[1]}: seed {repeated[0]} appears twice; "
                              "the same dice would be counted twice")
        results = [MatchResult(**{f: row[f] for f in RESULT_FIELDS}) for row in group]
        out[key] = (pooled(results), sorted(seeds))
    return out


def pooled_table(paths: list[str | Path]) -> str:
    """The pooled row per agent and opponent of the reports at ``paths``, as a markdown table with its seeds."""
    lines = ["| bgzero agent | opponent | games | ppg ± 95% | win % | gammons for/against | seeds |",
             "|---|---|---|---|---|---|---|"]
    for (agent, opponent), (r, seeds) in pool_rows(read_rows(paths)).items():
        span = f"{seeds[0]} … {seeds[-1]}" if len(seeds) > 1 else str(seeds[0])
        lines.append(f"| {agent} | {opponent} | {r.games:,} | {r.ppg:+.3f} ± {r.ci95:.3f} | {100 * r.win_rate:.1f} | "
                     f"{100 * r.a_gammon_rate:.1f} / {100 * r.b_gammon_rate:.1f} | {span} ({len(seeds)}) |")
    return "\n".join(lines)
