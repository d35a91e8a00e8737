"""``bgzero-hint``: gnubg's ``hint`` for one position: ranked moves, or evaluation and cube action."""

from dataclasses import replace

from omegaconf import DictConfig

from bgzero.analysis.position import (
    cube_analysis,
    equity_label,
    evaluate_position,
    evaluator_from_spec,
    match_context,
    rank_moves,
)
from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Hint
from bgzero.cube import from_match_info
from bgzero.engine.ids import board_from_position_id, match_id, position_id
from bgzero.engine.parse import parse_dice, read_match_id, read_position_and_match
from bgzero.errors import ConfigError
from bgzero.schema import check
from bgzero.ui.hint_text import cube_lines, evaluation_lines, moves_table


def run(cfg: DictConfig) -> str:
    """The hint report for ``cfg`` (position, dice, match, agent), as printed."""
    check(cfg, Hint)
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
        lines += moves_table(ranked, rolled)
    else:
        lines += evaluation_lines(evaluate_position(evaluator, board, ply), cfg.agent,
                             _rollouts([board], cfg, trials, flipped=False)[0] if trials else None)
        if info is not None:
            lines += cube_lines(cube_analysis(evaluator, board, info, ply), info)
    return "\n".join(lines)


def _rollouts(boards, cfg: DictConfig, trials: int, flipped: bool):
    """Cubeless rollouts of ``boards`` by the hint's agent (plays: seen by their mover)."""
    import numpy as np

    from bgzero.rollout import RolloutSettings, make_player, rollout_positions

    results = rollout_positions(np.stack(boards), make_player(str(cfg.agent)),
                                RolloutSettings(trials=trials, seed=cfg.get("rollout_seed", 0)))
    return [r.flipped() for r in results] if flipped else results


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


@command(*COMMANDS["hint"], positional=("position", "dice"))
def main(cfg: DictConfig) -> None:
    """``bgzero-hint [POSITION [DICE]] [key=value ...]``: positional arguments as gnubg takes them."""
    with one_line_errors("bgzero-hint"):
        print(run(cfg))


if __name__ == "__main__":
    main()
