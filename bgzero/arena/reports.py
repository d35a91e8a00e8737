"""Strength reports: duplicate-match results kept as rows of a JSON file.

``bgzero-eval report=FILE`` appends one row per match (the agent, its opponent, the dice seed
and :meth:`~bgzero.arena.duplicate.MatchResult.as_dict`'s figures) and prints it as a line of
the markdown table the model cards quote; ``scripts/pool_reports.py`` pools the rows of
matches run in chunks on different seeds. The shipped ``checkpoints/*.report.json`` are such files.
"""

from __future__ import annotations

import json
from pathlib import Path

from bgzero.agents.specs import parse_spec
from bgzero.arena.duplicate import MatchResult
from bgzero.atomic import atomic_write_text
from bgzero.errors import ConfigError

HEADER = ("| bgzero agent | opponent | games | ppg ± 95% | win % | gammons for/against | games/s |\n"
          "|---|---|---|---|---|---|---|")
"""The head of the table whose lines :func:`line` makes."""


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
    return f"{Path(arg).name} {ply}-ply" if name == "checkpoint" else str(spec)


def line(row: dict) -> str:
    """A row as a line of :data:`HEADER`'s table."""
    r = MatchResult(**{k: row[k] for k in MatchResult.__dataclass_fields__})
    return (f"| {agent_name(row['agent'])} | {row['opponent']} | {r.games} | {r.ppg:+.3f} ± {r.ci95:.3f} | "
            f"{100 * r.win_rate:.1f} | {100 * r.a_gammon_rate:.1f} / {100 * r.b_gammon_rate:.1f} | "
            f"{r.games_per_second:.1f} |")
