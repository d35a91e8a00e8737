"""``bgzero-rollout``: roll out a position (and the best plays of a roll), print the table, write JSON."""

import json

from omegaconf import DictConfig

from bgzero.agents.specs import checkpoint_file
from bgzero.atomic import atomic_write_text
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Rollout
from bgzero.config_check import distinct_files
from bgzero.cube import MatchState, from_match_info
from bgzero.engine.ids import match_id, position_id
from bgzero.engine.parse import parse_dice, read_match_id, read_position_and_match
from bgzero.errors import ConfigError
from bgzero.rollout import PlayerSpec, RolloutPlayer, RolloutSettings, rollout_document
from bgzero.schema import check
from bgzero.ui.hint_text import PROBS_HEADER, probs_columns


def settings_from(cfg: DictConfig) -> RolloutSettings:
    """The rollout settings of a config, checked."""
    check(cfg, Rollout)
    return RolloutSettings(trials=cfg.trials, truncate=cfg.truncate, vr=cfg.vr, cubeful=cfg.cubeful, seed=cfg.seed,
                           database=cfg.database, se=cfg.se, seconds=cfg.seconds, batch=cfg.batch).check()


def run(cfg: DictConfig) -> dict:
    """Roll out ``cfg.position`` and return the JSON document (also written to ``cfg.output``)."""
    if cfg.position is None:
        raise ConfigError("no position: pass a gnubg Position ID, e.g. position=4HPwATDgc/ABMA")
    board, info = read_position_and_match(str(cfg.position))  # PositionID:MatchID and XGIDs carry a match
    info = read_match_id(str(cfg.match)) if cfg.match is not None else info
    dice = parse_dice(cfg.dice) if cfg.dice is not None else None
    if dice is None and info is not None and info.dice != (0, 0):
        dice = info.dice
    settings = settings_from(cfg)
    state = from_match_info(info) if info is not None else MatchState()
    on_roll = info.dice_owner if info is not None else 0
    spec = PlayerSpec(str(cfg.agent), None if cfg.judge is None else str(cfg.judge), bool(cfg.prune),
                      bool(cfg.database))
    run_args = {"processes": cfg.processes, "backend": str(cfg.backend), "progress": bool(cfg.progress),
                    "ray_address": cfg.ray_address}
    player: PlayerSpec | RolloutPlayer = spec
    if cfg.processes == 1 and cfg.backend == "local":
        player = spec.build()  # one player for the position and its plays
    doc = {"position": position_id(board), "match": None if info is None else match_id(info),
           "agent": str(cfg.agent), "judge": cfg.judge, "settings": {
               k: getattr(settings, k) for k in ("trials", "truncate", "vr", "cubeful", "seed", "database", "se",
                                                 "seconds")}}
    distinct_files({"output": cfg.output}, {"agent": checkpoint_file(cfg.agent), "judge": checkpoint_file(cfg.judge)})
    doc.update(rollout_document(board, dice, player, settings, state, on_roll, top=cfg.top, **run_args))
    if cfg.output is not None:
        atomic_write_text(cfg.output, json.dumps(doc, indent=1) + "\n")
    return doc


def report(doc: dict) -> str:
    """The rollout as a table, gnubg's order of probabilities."""
    cubeful = doc["settings"]["cubeful"]
    settings = ", ".join(f"{k}={v}" for k, v in doc["settings"].items() if v is not None)
    lines = [f"Rollout of {doc['position']}" + (f", Match ID {doc['match']}" if doc["match"] else "") +
             f" by {doc['agent']}" + (f", judged by {doc['judge']}" if doc.get("judge") else "") +
             f": {settings} (the trials column: those done)"]
    head = f"  {'':<18}{PROBS_HEADER}   cubeless ± se" + ("     cubeful ± se" if cubeful else "") + "  trials"

    def row(name, r):
        probs = probs_columns(r["probs"])
        cf = f"  {r['cubeful_equity']:+7.3f} ± {r['cubeful_se']:.3f}" if cubeful else ""
        return f"  {name:<18}{probs}   {r['equity']:+7.3f} ± {r['equity_se']:.3f}{cf}  {r['trials']:6d}"

    lines.append(head)
    if "probs" in doc:
        lines.append(row("before the roll", doc))
    for m in doc.get("moves", []):
        lines.append(row(m["move"], m))
    return "\n".join(lines)


@command(*COMMANDS["rollout"])
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-rollout"):
        print(report(run(cfg)))


if __name__ == "__main__":
    main()
