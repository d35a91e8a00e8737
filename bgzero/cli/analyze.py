"""``bgzero-analyze``: the best move for every ``POSITION-ID DICE`` line of a file, as JSON lines;
or, with ``match=FILE|FOLDER``, every decision of a match judged and each player rated.

Positions are analysed in batches (one move generation and one batched search each). The
output is written to a temporary file beside the target and renamed only when every line
is done, so a file under the output name is always complete.
"""

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
from omegaconf import DictConfig

from bgzero.agents.specs import checkpoint_file
from bgzero.analysis.match import analyse_matches, format_rollouts, format_summary, merge_analyses, rollout_worst
from bgzero.analysis.position import best_moves, evaluator_from_spec
from bgzero.atomic import atomic_write, atomic_write_text
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Analyze
from bgzero.config_check import check_output_file, distinct_files
from bgzero.engine.parse import parse_dice, read_position_and_match
from bgzero.errors import BgzeroError, ConfigError, InvalidDiceError, InvalidPositionError
from bgzero.match.files import SUFFIXES, check_suffix, read_match_file
from bgzero.schema import check

EXAMPLE = "'4HPwATDgc/ABMA 31'"


class BadLineError(BgzeroError):
    """An input line that is not ``POSITION-ID DICE``, met with ``on_error=stop``."""


class Entry(NamedTuple):
    """One input line: a position and roll to analyse, or the error that makes it bad."""

    line: int
    position: str = ""
    board: np.ndarray | None = None
    dice: tuple[int, int] | None = None
    error: str | None = None


def run(cfg: DictConfig) -> dict:
    """Analyse ``cfg.input`` into ``cfg.output``; returns the counts it prints."""
    check(cfg, Analyze)
    if cfg.get("match") is not None:
        if cfg.input is not None:
            raise ConfigError("pass input=FILE (positions) or match=FILE|FOLDER (a match), not both")
        return run_match(cfg)
    if cfg.input is None:
        raise ConfigError(f"no input: pass input=FILE with one 'POSITION-ID DICE' per line, e.g. {EXAMPLE}")
    source = Path(cfg.input)
    if not source.is_file():
        what = "is a folder" if source.is_dir() else "does not exist"
        raise ConfigError(f"input {source} {what}; pass input=FILE with 'POSITION-ID DICE' lines "
                          "(match=FOLDER analyses a folder of matches)")
    out = check_output_file("output", cfg.output if cfg.output is not None else source.with_suffix(".jsonl"))
    distinct_files({"output": out}, {"input": source, "agent": checkpoint_file(cfg.agent)})
    evaluator, ply = evaluator_from_spec(cfg.agent)
    counts = {"positions": 0, "errors": 0}

    def write(f) -> None:
        with source.open(encoding="utf-8", errors="replace") as lines:
            entries = _entries(lines, stop=cfg.on_error == "stop", out=out)
            for batch in _batches(entries, cfg.batch_size):
                for record in _records(evaluator, ply, batch):
                    counts["errors" if "error" in record else "positions"] += 1
                    f.write(json.dumps(record) + "\n")

    atomic_write(out, write)  # on_error=stop raises inside: no output file is left
    skipped = f", {counts['errors']} bad lines skipped (reported above)" if counts["errors"] else ""
    print(f"{out}: {counts['positions']} positions{skipped}")
    return {"output": str(out), **counts}


def _entries(lines: Iterable[str], *, stop: bool, out: Path) -> Iterator[Entry]:
    """An entry per position line; a bad line stops, or is reported on stderr and passed on."""
    for number, text in enumerate(lines, 1):
        fields = text.split("#", 1)[0].split()
        if not fields:
            continue
        try:
            board, info = read_position_and_match(fields[0])
            if info is not None and (info.match_length or info.cube_value > 1 or info.cube_owner != -1):
                raise InvalidPositionError(f"{fields[0]} gives a match score or a cube: input= lines are analysed "
                                           "cubeless, for money; bgzero-hint POSITION:MATCH DICE plays for the score")
            if len(fields) == 1 and (info is None or info.dice == (0, 0)):
                raise InvalidDiceError(f"no dice after the Position ID; write 'POSITION-ID DICE', e.g. {EXAMPLE}")
            dice = parse_dice(" ".join(fields[1:])) if len(fields) > 1 else info.dice
        except BgzeroError as e:
            if stop:
                raise BadLineError(f"line {number}: {e}; fix the line, or pass on_error=skip to carry on"
                                   f" past bad lines ({out} not written)") from None
            print(f"bgzero-analyze: line {number}: {e}", file=sys.stderr)
            yield Entry(number, error=str(e))
        else:
            yield Entry(number, fields[0], board, dice)


def _batches(entries: Iterator[Entry], size: int) -> Iterator[list[Entry]]:
    """Runs of entries holding ``size`` positions each (bad lines ride along, in order)."""
    batch, positions = [], 0
    for entry in entries:
        batch.append(entry)
        positions += entry.error is None
        if positions == size:
            yield batch
            batch, positions = [], 0
    if batch:
        yield batch


def _records(evaluator, ply: int, batch: list[Entry]) -> list[dict]:
    """The output lines of a batch, in input order."""
    good = [e for e in batch if e.error is None]
    best = iter(best_moves(evaluator, np.stack([e.board for e in good]), np.array([e.dice for e in good], np.int8),
                           ply) if good else [])
    records = []
    for e in batch:
        if e.error is not None:
            records.append({"line": e.line, "error": e.error})
            continue
        m = next(best)
        records.append({"line": e.line, "position": e.position, "dice": list(e.dice), "move": m.move,
                        "equity": round(m.equity, 6), "probs": [round(p, 6) for p in m.probs], "result": m.result})
    return records


def match_files(path: Path) -> list[Path]:
    """The match files to analyse: ``path`` itself, or every .mat and .sgf in the folder (one per name)."""
    if path.is_dir():
        files = {}
        for f in sorted(path.iterdir()):
            if f.suffix.lower() in SUFFIXES:
                files.setdefault(f.stem, f)  # match_0001.mat and match_0001.sgf are one match
        if not files:
            raise ConfigError(f"match={path}: the folder holds no .mat or .sgf files")
        return list(files.values())
    if not path.is_file():
        raise ConfigError(f"match={path} does not exist; pass a .mat or .sgf file, or a folder of them")
    return [check_suffix(path)]


def run_match(cfg: DictConfig) -> dict:
    """Judge every decision of ``cfg.match`` (one file, or a folder: totals per player); JSON and HTML out."""
    source = Path(str(cfg.match))
    files = match_files(source)
    out = check_output_file("output", cfg.output if cfg.output is not None else (
        source / "analysis.json" if source.is_dir() else source.with_suffix(".analysis.json")))
    if out.suffix.lower() in SUFFIXES or out.resolve() in {f.resolve() for f in files}:
        raise ConfigError(f"output {out} would overwrite a match file; pass output=REPORT.json")
    html = check_output_file("html", cfg.html) if cfg.get("html") else None
    distinct_files({"output": out, "html": html},
                   {"agent": checkpoint_file(cfg.agent), **{f"match ({f.name})": f for f in files}})
    evaluator, ply = evaluator_from_spec(cfg.agent)
    records = [(f, read_match_file(f, jacoby=bool(cfg.get("jacoby", False)))) for f in files]  # all read first
    if cfg.get("jacoby") and any(r.length for _, r in records):
        played = next(f for f, r in records if r.length)
        raise ConfigError(f"jacoby=true is for money sessions; {played} is a match, "
                          "which never plays by the Jacoby rule")
    analyses = analyse_matches(evaluator, [r for _, r in records], ply, luck_ply=int(cfg.luck_ply),
                               agent=str(cfg.agent), sources=[str(f) for f, _ in records], progress=bool(cfg.progress),
                               batch=int(cfg.batch_size))
    player = None if cfg.get("player") is None else str(cfg.player)
    result = analyses[0] if len(analyses) == 1 and player is None else merge_analyses(analyses, player)
    if not result.players:
        raise ConfigError(f"player={player!r} plays in none of the {len(files)} matches")
    result.agent, result.ply = str(cfg.agent), ply
    rolled = []
    if cfg.get("rollout") is not None:
        if len(records) != 1:
            raise ConfigError(f"rollout={cfg.rollout}: roll out the worst plays of one match file, not a folder")
        rolled = rollout_worst(result, str(cfg.agent), int(cfg.rollout), int(cfg.rollout_worst), int(cfg.rollout_seed))
    atomic_write_text(out, json.dumps({**result.as_dict(), **({"rollouts": rolled} if rolled else {})}, indent=1))
    print(format_summary(result))
    if rolled:
        print("\n" + format_rollouts(rolled, records[0][1].names))
    print(f"\n{len(files)} match{'es' * (len(files) != 1)} analysed by {cfg.agent} at {ply}-ply; details: {out}")
    if html is not None:
        from bgzero.ui.report import write_report  # the report draws boards: matplotlib only when asked

        write_report(html, result, records[0][1].names if len(records) == 1 else None)
        print(f"report: {html}")
    return result.as_dict(decisions=False)


@command(*COMMANDS["analyze"], positional=("match",))
def main(cfg: DictConfig) -> None:
    """``bgzero-analyze [FILE] [key=value ...]``: a bare .mat or .sgf file (or folder) is ``match=``."""
    with one_line_errors("bgzero-analyze"):
        run(cfg)


if __name__ == "__main__":
    main()
