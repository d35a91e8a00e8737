"""``bgzero-rollout``: roll out a position (and the best plays of a roll), print the table, write JSON."""

import json

from omegaconf import DictConfig

from bgzero.arena.analysis import parse_dice, read_match, read_position
from bgzero.atomic import atomic_write_text
from bgzero.cli import hydra_main, one_line_errors
from bgzero.cube import MatchState, from_match_info
from bgzero.errors import ConfigError
from bgzero.rollout import PlayerSpec, RolloutSettings, rollout_document

_HEADER = "  win    w g   w bg   lose    l g   l bg"


def settings_from(cfg: DictConfig) -> RolloutSettings:
    """The rollout settings of a config, checked."""
    def whole(name):
        value = cfg[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"{name}={value!r} must be a whole number")
        return value

    return RolloutSettings(trials=whole("trials"), truncate=whole("truncate"), vr=bool(cfg.vr),
                           cubeful=bool(cfg.cubeful), seed=whole("seed"), database=bool(cfg.database),
                           se=cfg.se, seconds=cfg.seconds, batch=whole("batch")).check()


def run(cfg: DictConfig) -> dict:
    """Roll out ``cfg.position`` and return the JSON document (also written to ``cfg.output``)."""
    if cfg.position is None:
        raise ConfigError("no position: pass a gnubg Position ID, e.g. position=4HPwATDgc/ABMA")
    board = read_position(str(cfg.position))
    info = read_match(str(cfg.match)) if cfg.match is not None else None
    dice = parse_dice(cfg.dice) if cfg.dice is not None else None
    if dice is None and info is not None and info.dice != (0, 0):
        dice = info.dice
    if not isinstance(cfg.top, int) or cfg.top < 1:
        raise ConfigError(f"top={cfg.top!r} must be a whole number >= 1")
    settings = settings_from(cfg)
    state = from_match_info(info) if info is not None else MatchState()
    on_roll = info.dice_owner if info is not None else 0
    spec = PlayerSpec(str(cfg.agent), None if cfg.judge is None else str(cfg.judge), bool(cfg.prune),
                      bool(cfg.database))
    run_args = {"processes": cfg.processes, "backend": str(cfg.backend), "progress": bool(cfg.progress),
                    "ray_address": cfg.ray_address}
    if cfg.processes == 1 and cfg.backend == "local":
        spec = spec.build()  # one player for the position and its plays
    doc = {"position": str(cfg.position), "match": None if cfg.match is None else str(cfg.match),
           "agent": str(cfg.agent), "judge": cfg.judge, "settings": {
               k: getattr(settings, k) for k in ("trials", "truncate", "vr", "cubeful", "seed", "database", "se",
                                                 "seconds")}}
    doc.update(rollout_document(board, dice, spec, settings, state, on_roll, top=cfg.top, **run_args))
    if cfg.output is not None:
        atomic_write_text(cfg.output, json.dumps(doc, indent=1) + "\n")
    return doc


def report(doc: dict) -> str:
    """The rollout as a table, gnubg's order of probabilities."""
    cubeful = doc["settings"]["cubeful"]
    lines = [f"Rollout of {doc['position']}" + (f", Match ID {doc['match']}" if doc["match"] else "") +
             f" by {doc['agent']}: " + ", ".join(f"{k}={v}" for k, v in doc["settings"].items() if v is not None)]
    head = f"  {'':<18}{_HEADER}   cubeless ± se" + ("     cubeful ± se" if cubeful else "") + "  trials"

    def row(name, r):
        w, wg, wbg, lg, lbg = r["probs"]
        probs = "  ".join(f"{p:5.3f}" for p in (w, wg, wbg, 1 - w, lg, lbg))
        cf = f"  {r['cubeful_equity']:+7.3f} ± {r['cubeful_se']:.3f}" if cubeful else ""
        return f"  {name:<18}{probs}   {r['equity']:+7.3f} ± {r['equity_se']:.3f}{cf}  {r['trials']:6d}"

    lines.append(head)
    if "probs" in doc:
        lines.append(row("before the roll", doc))
    for m in doc.get("moves", []):
        lines.append(row(m["move"], m))
    return "\n".join(lines)


@hydra_main("rollout")
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-rollout"):
        print(report(run(cfg)))


if __name__ == "__main__":
    main()
