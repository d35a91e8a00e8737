"""``bgzero-match``: agent A against agent B in matches or money sessions with the cube; .mat or .sgf transcripts."""

import json
import re
import time
from pathlib import Path

from omegaconf import DictConfig

from bgzero.agents.specs import make_agent
from bgzero.atomic import atomic_write_text
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Match
from bgzero.config_check import count_of_processes
from bgzero.errors import ConfigError, Interrupted
from bgzero.match.files import write_match_file
from bgzero.match.runner import play_matches_from_specs, summarise_matches
from bgzero.schema import check
from bgzero.ui.replay import show_match

FORMATS = {"mat": (".mat",), "sgf": (".sgf",), "both": (".mat", ".sgf")}
_WRITTEN = re.compile(r"match_\d{4,}\.(?:mat|sgf)|result\.json", re.ASCII)
"""The files a run writes in ``out=``: an earlier run's would mix with this one's (its match_0002.mat
beside a result.json of one match), so they are refused, or removed with ``overwrite=true``."""


def earlier_run(out: Path) -> list[Path]:
    """The files of an earlier ``bgzero-match`` run in ``out``."""
    return sorted(p for p in out.iterdir() if _WRITTEN.fullmatch(p.name) and p.is_file()) if out.is_dir() else []


def refuse_earlier_run(cfg: DictConfig) -> list[Path]:
    """Refuse an ``out=`` holding an earlier run, unless ``overwrite=true``; returns that run's files."""
    earlier = earlier_run(Path(cfg.out))
    if earlier and not cfg.overwrite:
        more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
        raise ConfigError(f"out={cfg.out} holds an earlier bgzero-match run ({earlier[0].name}{more}); pass another "
                          "out=, or overwrite=true to replace that run")
    return earlier


def run(cfg: DictConfig) -> dict:
    check(cfg, Match)
    processes = count_of_processes("processes", cfg.processes)
    earlier = refuse_earlier_run(cfg)
    for spec in (cfg.a, cfg.b):  # a mistyped agent is refused before an earlier run's files are removed
        make_agent(spec)
    for path in earlier:  # overwrite=true: that run's files go, the user's stay
        path.unlink()
    length, games, matches, shard = cfg.length, cfg.games, cfg.matches, cfg.shard
    formats = FORMATS[cfg.format]
    out = Path(cfg.out)
    comment = f"bgzero-match a={cfg.a} b={cfg.b} seed={cfg.seed} shard={shard}"

    done, started = [], time.perf_counter()

    def publish(i: int, record) -> None:
        """Save and show each match as its shard finishes, not after the last one."""
        done.append(record)
        for suffix in formats:
            write_match_file(out / f"match_{i:04d}{suffix}", record, comments=(f"{comment} match {i}",))
        if cfg.show:
            print(f"\n===== match {i} of {matches} =====")
            show_match(record, pace=float(cfg.pace))

    try:
        records, seconds = play_matches_from_specs(cfg.a, cfg.b, matches, length=length, games=games,
                                                   jacoby=bool(cfg.jacoby), seed=cfg.seed, processes=processes,
                                                   shard=shard, progress=cfg.progress and not cfg.show,
                                                   on_record=publish)
    except KeyboardInterrupt:  # Ctrl-C: the matches saved so far, and their result marked partial
        if not done:
            raise Interrupted(f"none of the {matches} matches was finished; nothing was written") from None
        summary = summarise_matches(done, time.perf_counter() - started)
        atomic_write_text(out / "result.json", json.dumps(
            {"a": cfg.a, "b": cfg.b, "seed": cfg.seed, "shard": shard, "jacoby": bool(cfg.jacoby), "partial": True,
             **summary.as_dict()}, indent=2))
        raise Interrupted(f"{len(done)} of {matches} matches were finished: {summary} (partial, in {out})") from None
    summary = summarise_matches(records, seconds)
    result = {"a": cfg.a, "b": cfg.b, "seed": cfg.seed, "shard": shard, "jacoby": bool(cfg.jacoby),
              **summary.as_dict()}
    atomic_write_text(out / "result.json", json.dumps(result, indent=2))
    kind = f"{length}-point matches" if length else f"money sessions of {games} games"
    print(f"{cfg.a} vs {cfg.b}, {kind}: {summary}")
    print(f"transcripts and result: {out}")
    return result


@command(*COMMANDS["match"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-match"):
        run(cfg)


if __name__ == "__main__":
    main()
