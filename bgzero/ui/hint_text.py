"""Hint tables in gnubg's words and columns: ranked plays, a position's evaluation and the cube action.

One formatter for every place a person reads a hint: ``bgzero-hint``, the terminal game's
``hint`` (:mod:`bgzero.ui.play`) and the web API's cube answer (:func:`proper_action`), so the
same decision is never worded two ways.
"""

from __future__ import annotations

from bgzero.analysis.position import CubeAnalysis, PositionEvaluation, RankedMove
from bgzero.cube import DOUBLE_BEAVER, DOUBLE_PASS, DOUBLE_TAKE, TOO_GOOD, emg_to_mwc
from bgzero.engine.ids import MatchInfo

PROBS_HEADER = "  win    w g   w bg   lose    l g   l bg"
"""The columns of :func:`probs_columns`."""


def probs_columns(probs) -> str:
    """Five probabilities in gnubg's columns: the win chances, then the loss chances (loss = 1 - win).

    A variance-reduced rollout can put a chance a hair below zero; it prints as 0.000, not -0.000.
    """
    win, wg, wbg, lg, lbg = (float(p) for p in probs)
    return "  ".join(f"{p if round(p, 3) else 0.0:5.3f}" for p in (win, wg, wbg, 1 - win, lg, lbg))


def moves_table(moves: list[RankedMove], rolled=()) -> list[str]:
    """gnubg's columns; a play scored shallower than the best is compared at its own depth. With
    rollouts, the first ``len(rolled)`` plays get the rollout's equity, error and win chance."""
    width = max(9, *(len(m.move) for m in moves))
    match = moves[0].mwc is not None
    extra = f"   rollout ± se    win  ({rolled[0].trials} trials, cubeless money)" if rolled else ""
    rows = [f"  # ply  {'move':<{width}}   equity    diff  {'   MWC  ' if match else ''}{PROBS_HEADER}{extra}"]
    for rank, m in enumerate(moves, 1):
        diff = f"{m.diff if m.diff else -0.0:+7.3f}" if rank > 1 else " " * 7  # a tie prints -0.000, as in gnubg
        mwc = f"{100 * m.mwc:6.2f}%  " if match and m.mwc is not None else ""
        move = m.move or "(no move)"  # a roll that cannot be played
        rollout = rollout_cell(rolled[rank - 1]) if rank <= len(rolled) else ""
        rows.append(f"{rank:3d} {m.ply:3d}  {move:<{width}}  {m.equity:+7.3f} {diff}  {mwc}"
                    f"{probs_columns(m.probs)}{rollout}")
    return rows


def rollout_cell(r) -> str:
    """A rolled-out play's equity, its standard error and its win chance."""
    return f"  {r.equity:+7.3f} ± {r.equity_se:.3f}  {r.probs[0]:5.3f}"


def evaluation_lines(ev: PositionEvaluation, agent: str, rolled=None) -> list[str]:
    """A position's probabilities and cubeless equity before the roll, and its rollout's if given."""
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


def cube_lines(cube: CubeAnalysis, info: MatchInfo) -> list[str]:
    """gnubg's layout: the three equities, the proper one first, each with its cost, then the proper
    action; with a double offered in ``info``, the answer of the side doubled."""
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
