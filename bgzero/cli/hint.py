"""``bgzero-hint``: gnubg's ``hint`` for one position: ranked moves, or evaluation and cube action."""

import sys
from dataclasses import replace

from omegaconf import DictConfig

from bgzero.analysis.position import (
    CubeAnalysis,
    PositionEvaluation,
    RankedMove,
    cube_analysis,
    equity_label,
    evaluate_position,
    evaluator_from_spec,
    match_context,
    rank_moves,
)
from bgzero.cli import PROBS_HEADER, hydra_main, one_line_errors, positional_args, probs_columns
from bgzero.config_check import HINT, check
from bgzero.cube import DOUBLE_BEAVER, DOUBLE_PASS, DOUBLE_TAKE, TOO_GOOD, emg_to_mwc, from_match_info
from bgzero.engine.ids import board_from_position_id, match_id, position_id
from bgzero.engine.parse import parse_dice, read_match_id, read_position_and_match
from bgzero.errors import ConfigError


def run(cfg: DictConfig) -> str:
    """The hint report for ``cfg`` (position, dice, match, agent), as printed."""
    check(cfg, HINT)
    if cfg.position is None:
        raise ConfigError("no position: pass a gnubg Position ID, e.g. position=4HPwATDgc/ABMA")
    board, info = read_position_and_match(str(cfg.position))  # Hydra reads an all-digit ID as an int
    info = read_match_id(str(cfg.match)) if cfg.match is not None else info  # an XGID carries its own
    dice = parse_dice(cfg.dice) if cfg.dice is not None else None
    if dice is None and info is not None and info.dice != (0, 0):
        dice = info.dice  # the Match ID records a roll: hint that roll's moves, as gnubg does
    elif dice is not None and info is not None and not info.double_offered:
        info = replace(info, dice=dice)  # the Match ID printed records the roll hinted
    evaluator, ply = evaluator_from_spec(cfg.agent)
    trials = cfg.get("rollout")
    lines = [f"Position ID {position_id(board)}" + (f", Match ID {match_id(info)}: {_describe_match(info)}" if info else "")]
    if dice is not None:
        state, player = match_context(info)
        lines.append(f"{dice[0]}{dice[1]} to play, {cfg.agent} at {ply}-ply, {equity_label(state)} for the mover")
        ranked = rank_moves(evaluator, board, dice, ply, state=state, player=player)
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


def _moves_table(moves: list[RankedMove], rolled=()) -> list[str]:
    """gnubg's columns; a play scored shallower than the best is compared at its own depth. With
    rollouts, the first ``len(rolled)`` plays get the rollout's equity, error and win chance."""
    width = max(9, *(len(m.move) for m in moves))
    match = moves[0].mwc is not None
    extra = f"   rollout ± se    win  ({rolled[0].trials} trials, cubeless money)" if rolled else ""
    rows = [f"  # ply  {'move':<{width}}   equity    diff  {'   MWC  ' if match else ''}{PROBS_HEADER}{extra}"]
    for rank, m in enumerate(moves, 1):
        diff = f"{m.diff if m.diff else -0.0:+7.3f}" if rank > 1 else " " * 7  # a tie prints -0.000, as in gnubg
        mwc = f"{100 * m.mwc:6.2f}%  " if match else ""
        move = m.move or "(no move)"  # a roll that cannot be played
        rollout = _rollout_cell(rolled[rank - 1]) if rank <= len(rolled) else ""
        rows.append(f"{rank:3d} {m.ply:3d}  {move:<{width}}  {m.equity:+7.3f} {diff}  {mwc}"
                    f"{probs_columns(m.probs)}{rollout}")
    return rows


def _rollout_cell(r) -> str:
    return f"  {r.equity:+7.3f} ± {r.equity_se:.3f}  {r.probs[0]:5.3f}"


def _evaluation(ev: PositionEvaluation, agent: str, rolled=None) -> list[str]:
    rows = [f"Evaluation for the side on roll, before it rolls ({agent} at {ev.ply}-ply)",
            f"  {PROBS_HEADER}   cubeless equity",
            f"  {probs_columns(ev.probs)}   {ev.equity:+.3f}"]
    if rolled is not None:
        rows.append(f"  {probs_columns(rolled.probs)}   {rolled.equity:+.3f} ± {rolled.equity_se:.3f}  "
                    f"rollout, {rolled.trials} trials")
    return rows


_ORDER = {DOUBLE_TAKE: ("Double, take", "Double, pass", "No double"),
          DOUBLE_BEAVER: ("Double, take", "Double, pass", "No double"),
          DOUBLE_PASS: ("Double, pass", "Double, take", "No double")}


def _cube(cube: CubeAnalysis, info) -> list[str]:
    """gnubg's layout: the three equities, the proper one first, each with its cost, then the proper action."""
    head = f"Cube analysis for player {cube.player} ({cube.kind}, cube life x = {cube.x:.3f})"
    if cube.decision is None:
        return [head, f"  no cube action: {cube.reason}"]
    d, state, match = cube.decision, cube.state, not cube.state.is_money
    unit = "EMG, MWC in brackets" if match else "per cube"
    rows = [head + f", {cube.evaluation.ply}-ply", f"Cubeful equities ({unit}; double, pass = +1):"]
    equities = {"No double": d.equities.no_double, "Double, take": d.equities.double_take,
                "Double, pass": d.equities.double_pass}
    for rank, name in enumerate(_ORDER.get(d.action, ("No double", "Double, pass", "Double, take")), 1):
        value = equities[name]
        mwc = f" ({100 * emg_to_mwc(value, state, cube.player):6.2f}%)" if match else ""
        cost = f"  ({value - d.equity:+.3f})" if rank > 1 else ""
        rows.append(f"{rank}. {name:<14}{value:+7.3f}{mwc}{cost}")
    rows.append(f"Proper cube action: {proper_action(d, redouble=state.cube.value > 1)}")
    if info.double_offered:
        rows.append(f"Player {info.turn} has been doubled: {d.response}")
    return rows


def proper_action(decision, redouble: bool = False) -> str:
    """gnubg's words for the doubler's proper action and the taker's answer, e.g. "Too good to double, pass"."""
    word = "redouble" if redouble else "double"
    doubler = {TOO_GOOD: f"Too good to {word}", DOUBLE_TAKE: word.capitalize(), DOUBLE_PASS: word.capitalize(),
               DOUBLE_BEAVER: word.capitalize()}.get(decision.action, f"No {word}")
    return f"{doubler}, {decision.response}"


def _describe_match(info) -> str:
    """The score as gnubg's "X-away, Y-away", saying whose is whose."""
    owner = "centred" if info.cube_owner == -1 else f"owned by player {info.cube_owner}"
    cube = f"cube {info.cube_value} {owner}, player {info.dice_owner} on roll"
    n, score = info.match_length, info.score
    if not n:
        return f"money game{' with the Jacoby rule' if info.jacoby else ''}, {cube}"
    state = from_match_info(info)
    crawford = (", Crawford game" if state.crawford else ", double match point" if state.away(0) == state.away(1) == 1
                else ", post-Crawford" if state.post_crawford else "")
    aways = ", ".join(f"player {p} {n - score[p]}-away" for p in (0, 1))
    return f"{n}-point match, {aways} (score {score[0]}-{score[1]}){crawford}, {cube}"


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
