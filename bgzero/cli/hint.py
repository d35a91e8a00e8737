"""``bgzero-hint``: gnubg's ``hint`` for one position: ranked moves, or evaluation and cube action."""

import sys

from omegaconf import DictConfig

from bgzero.arena.analysis import (
    CubeAnalysis,
    PositionEvaluation,
    RankedMove,
    cube_analysis,
    evaluate_position,
    evaluator_from_spec,
    parse_dice,
    rank_moves,
    read_match,
    read_position_and_match,
)
from bgzero.cli import hydra_main, one_line_errors, positional_args
from bgzero.config_check import HINT, check
from bgzero.engine.ids import board_from_position_id, match_id
from bgzero.errors import ConfigError

_PROBS_HEADER = "  win    w g   w bg   lose    l g   l bg"


def run(cfg: DictConfig) -> str:
    """The hint report for ``cfg`` (position, dice, match, agent), as printed."""
    check(cfg, HINT)
    if cfg.position is None:
        raise ConfigError("no position: pass a gnubg Position ID, e.g. position=4HPwATDgc/ABMA")
    board, info = read_position_and_match(str(cfg.position))  # Hydra reads an all-digit ID as an int
    info = read_match(str(cfg.match)) if cfg.match is not None else info  # an XGID carries its own
    dice = parse_dice(cfg.dice) if cfg.dice is not None else None
    if dice is None and info is not None and info.dice != (0, 0):
        dice = info.dice  # the Match ID records a roll: hint that roll's moves, as gnubg does
    evaluator, ply = evaluator_from_spec(cfg.agent)
    trials = cfg.get("rollout")
    lines = [f"Position ID {cfg.position}" + (f", Match ID {match_id(info)}: {_describe_match(info)}" if info else "")]
    if dice is not None:
        lines.append(f"{dice[0]}{dice[1]} to play, {cfg.agent} at {ply}-ply, cubeless equities for the mover")
        ranked = rank_moves(evaluator, board, dice, ply)
        rolled = _rollouts([board_from_position_id(m.result) for m in ranked[:cfg.get("rollout_top", 5)]],
                           cfg, trials, flipped=True) if trials else []
        lines += _moves_table(ranked, rolled)
    else:
        lines += _evaluation(evaluate_position(evaluator, board, ply), cfg.agent,
                             _rollouts([board], cfg, trials, flipped=False)[0] if trials else None)
        if info is not None:
            lines += _cube(cube_analysis(evaluator, board, info, ply), info)
    return "\n".join(lines)


def _rollouts(boards, cfg: DictConfig, trials: int, flipped: bool):
    """Cubeless rollouts of ``boards`` by the hint's agent (plays: seen by their mover)."""
    import numpy as np

    from bgzero.rollout import RolloutSettings, make_player, rollout_positions

    results = rollout_positions(np.stack(boards), make_player(str(cfg.agent)),
                                RolloutSettings(trials=trials, seed=cfg.get("rollout_seed", 0)))
    return [r.flipped() for r in results] if flipped else results


def _probs(probs) -> str:
    """gnubg's order: the win chances, then the loss chances (loss = 1 - win)."""
    win, wg, wbg, lg, lbg = probs
    return "  ".join(f"{p:5.3f}" for p in (win, wg, wbg, 1 - win, lg, lbg))


def _moves_table(moves: list[RankedMove], rolled=()) -> list[str]:
    """The ranked plays; with rollouts, the first ``len(rolled)`` get the rollout's equity, error and win chance."""
    width = max(9, *(len(m.move) for m in moves))
    best = moves[0].equity
    extra = f"   rollout ± se    win  ({rolled[0].trials} trials)" if rolled else ""
    rows = [f"  # ply  {'move':<{width}}   equity    diff  {_PROBS_HEADER}{extra}"]
    for rank, m in enumerate(moves, 1):
        diff = f"{m.equity - best:+7.3f}" if rank > 1 else " " * 7
        move = m.move or "(no move)"  # a roll that cannot be played
        rollout = _rollout_cell(rolled[rank - 1]) if rank <= len(rolled) else ""
        rows.append(f"{rank:3d} {m.ply:3d}  {move:<{width}}  {m.equity:+7.3f} {diff}  {_probs(m.probs)}{rollout}")
    return rows


def _rollout_cell(r) -> str:
    return f"  {r.equity:+7.3f} ± {r.equity_se:.3f}  {r.probs[0]:5.3f}"


def _evaluation(ev: PositionEvaluation, agent: str, rolled=None) -> list[str]:
    rows = [f"Evaluation for the side on roll, before it rolls ({agent} at {ev.ply}-ply)",
            f"  {_PROBS_HEADER}   cubeless equity",
            f"  {_probs(ev.probs)}   {ev.equity:+.3f}"]
    if rolled is not None:
        rows.append(f"  {_probs(rolled.probs)}   {rolled.equity:+.3f} ± {rolled.equity_se:.3f}  "
                    f"rollout, {rolled.trials} trials")
    return rows


def _cube(cube: CubeAnalysis, info) -> list[str]:
    """The three equities with each one's cost against the proper action, as gnubg lists them."""
    head = f"Cube analysis for player {cube.player} ({cube.kind}, cube life x = {cube.x:.3f})"
    if cube.decision is None:
        return [head, f"  no cube action: {cube.reason}"]
    d = cube.decision
    rows = [head + ", normalised equities (double, pass = +1)"]
    for name, value in (("No double", d.equities.no_double), ("Double, take", d.equities.double_take),
                        ("Double, pass", d.equities.double_pass)):
        rows.append(f"  {name:<14}{value:+7.3f}  ({value - d.equity:+.3f})")
    rows.append(f"Proper cube action: {d.action.capitalize()}")
    if info.double_offered:
        rows.append(f"Player {info.turn} has been doubled: {d.response}")
    return rows


def _describe_match(info) -> str:
    n, (s0, s1) = info.match_length, info.score
    game = f"{n}-point match, score {s0}-{s1}" if n else "money game"
    owner = "centred" if info.cube_owner == -1 else f"owned by player {info.cube_owner}"
    crawford = ", Crawford game" if info.crawford else ""
    return f"{game}{crawford}, cube {info.cube_value} {owner}, player {info.dice_owner} on roll"


@hydra_main("hint")
def _main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-hint"):
        print(run(cfg))


def main() -> None:
    """``bgzero-hint [POSITION [DICE]] [key=value ...]``: positional arguments as gnubg takes them."""
    sys.argv = positional_args(sys.argv, ("position", "dice"))
    _main()


if __name__ == "__main__":
    main()
