"""``bgzero-match``: agent A against agent B in matches or money sessions with the cube; .mat or .sgf transcripts."""

import json
import os
from pathlib import Path

import hydra
from omegaconf import DictConfig

from bgzero.arena.match import play_matches_from_specs, summarise_matches
from bgzero.arena.matchfiles import write_match_file
from bgzero.atomic import atomic_write_text
from bgzero.cli import CONFIGS, one_line_errors
from bgzero.errors import ConfigError
from bgzero.ui.replay import show_match


FORMATS = {"mat": (".mat",), "sgf": (".sgf",), "both": (".mat", ".sgf")}


def _count(cfg: DictConfig, key: str, least: int) -> int:
    value = cfg[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ConfigError(f"{key}={value!r} must be a whole number >= {least}")
    return value


def run(cfg: DictConfig) -> dict:
    processes = os.cpu_count() or 1 if cfg.processes == "auto" else cfg.processes
    if not isinstance(processes, int) or processes < 1:
        raise ConfigError(f"processes={cfg.processes!r}; use auto or a count >= 1")
    length, games = _count(cfg, "length", 0), _count(cfg, "games", 1)
    matches, shard = _count(cfg, "matches", 1), _count(cfg, "shard", 1)
    formats = FORMATS.get(str(cfg.format))
    if formats is None:
        raise ConfigError(f"format={cfg.format!r}; use mat, sgf or both")
    records, seconds = play_matches_from_specs(cfg.a, cfg.b, matches, length=length, games=games, jacoby=bool(cfg.jacoby),
                                        seed=cfg.seed, processes=processes, shard=shard, progress=cfg.progress)
    out = Path(cfg.out)
    comment = f"bgzero-match a={cfg.a} b={cfg.b} seed={cfg.seed} shard={shard}"
    for i, record in enumerate(records, 1):
        for suffix in formats:
            write_match_file(out / f"match_{i:04d}{suffix}", record, comments=(f"{comment} match {i}",))
        if cfg.show:
            print(f"\n===== match {i} of {len(records)} =====")
            show_match(record, pace=float(cfg.pace))
    summary = summarise_matches(records, seconds)
    result = {"a": cfg.a, "b": cfg.b, "seed": cfg.seed, "shard": shard, "jacoby": bool(cfg.jacoby),
              **summary.as_dict()}
    atomic_write_text(out / "result.json", json.dumps(result, indent=2))
    kind = f"{length}-point matches" if length else f"money sessions of {games} games"
    print(f"{cfg.a} vs {cfg.b}, {kind}: {summary}")
    print(f"transcripts and result: {out}")
    return result


@hydra.main(version_base="1.3", config_path=CONFIGS, config_name="match")
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-match"):
        run(cfg)


if __name__ == "__main__":
    main()
