"""Position analysis for ``bgzero-hint`` and ``bgzero-analyze``: ranked moves, evaluations, cube actions.

Pure functions over an :class:`~bgzero.value.evaluator.Evaluator`; nothing here prints. Moves
are scored with :func:`bgzero.agents.cubeful.score_moves` (at 0 ply by the evaluator's mover
where it has one, :func:`~bgzero.value.evaluator.checker_play`), whose probabilities are for the
result with the *opponent* on roll; they are flipped here so every number a caller sees
is from the mover's side, as gnubg's ``hint`` shows them. Without a match state moves are
ranked by cubeless money equity (``2w - 1 + wg - lg + wbg - lbg``); with one, by the cubeful
search of :mod:`bgzero.agents.cubeful`: cubeful money equity, or in a match the
match-winning chance (shown as EMG and MWC), as the agents play.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bgzero.agents.cube import cube_lives
from bgzero.agents.cubeful import cube_decisions, score_moves
from bgzero.agents.search import DEFAULT_FILTERS, evaluate_ply
from bgzero.agents.specs import AGENTS, SHIPPED, parse_spec
from bgzero.cube import CubeDecision, MatchState, from_match_info, gnubg_efficiency, may_double
from bgzero.engine.classify import PositionClass, classify
from bgzero.engine.ids import MAX_CUBE, GameState, MatchInfo, position_id
from bgzero.engine.movegen import generate
from bgzero.engine.notation import check_dice, format_steps
from bgzero.engine.parse import check_position
from bgzero.errors import ConfigError
from bgzero.value.checkpoint import load_evaluator
from bgzero.value.evaluator import checker_play
from bgzero.value.probs import equity, flip


@dataclass(frozen=True)
class RankedMove:
    """One legal play, scored for the side that makes it."""

    move: str  # gnubg notation; "" when the roll cannot be played
    equity: float  # what it is ranked by, for the mover: cubeless, cubeful (per cube) or EMG
    probs: tuple[float, float, float, float, float]  # (w, wg, wbg, lg, lbg) for the mover, cubeless
    ply: int  # depth it was scored at: the move filters stop weak plays early
    result: str  # Position ID after the play (opponent on roll, as gnubg writes it)
    diff: float = 0.0  # against the best play's equity at this play's depth: never above 0
    mwc: float | None = None  # in a match, the match-winning chance


@dataclass(frozen=True)
class PositionEvaluation:
    """The side on roll's chances before it rolls."""

    probs: tuple[float, float, float, float, float]
    equity: float  # cubeless money equity
    ply: int


@dataclass(frozen=True)
class CubeAnalysis:
    """The cube action of ``player`` (gnubg's side on roll), or why there is none.

    ``decision`` holds the three normalised equities (no double, double/take,
    double/pass = +1) and the action; it is ``None`` when ``player`` may not double, with
    ``reason`` saying why.
    """

    player: int
    evaluation: PositionEvaluation
    kind: PositionClass  # contact, race or bearoff: what sets the cube life x
    x: float
    decision: CubeDecision | None
    reason: str | None
    state: MatchState  # the score and cube it was decided at


def evaluator_from_spec(spec: str):
    """(evaluator, ply) for an agent spec; analysis needs a network's probabilities, so only checkpoints."""
    name, path, ply = parse_spec(spec)
    if name not in AGENTS:
        raise ConfigError(f"unknown agent {name!r} in {spec!r}; analysis takes a network: "
                          f"checkpoint:PATH[@PLY] or a shipped one ({', '.join(SHIPPED)})")
    if name != "checkpoint" or not path:
        raise ConfigError(f"agent {spec!r}: analysis needs a trained network; use checkpoint:PATH[@PLY]")
    return load_evaluator(path), ply


def match_context(info: MatchInfo | None) -> tuple[MatchState | None, int]:
    """The score and cube a Match ID gives (``None`` without one: cubeless money) and the player on roll."""
    return (None, 0) if info is None else (from_match_info(info), info.dice_owner)


def equity_label(state: MatchState | None) -> str:
    """What the ranking's equities are, in gnubg's words."""
    if state is None:
        return "cubeless equity"
    return "cubeful equity" if state.is_money else "EMG (MWC)"


def rank_moves(evaluator, board, dice, ply: int = 0, filters=DEFAULT_FILTERS, state: MatchState | None = None,
               player: int = 0) -> list[RankedMove]:
    """Every distinct legal play of ``dice`` from ``board``, best first, for ``player`` in ``state``.

    Plays scored at the full ``ply`` come first (gnubg's order), each group by equity. A
    play the filters dropped at a shallower depth is compared with the best play's equity
    at that same depth, so its difference is never positive.
    """
    board = check_position(board)
    moves = generate(board[None], np.array([check_dice(dice)], np.int8))
    scores = score_moves(checker_play(evaluator, ply), moves, None if state is None else [state], [player], ply,
                         filters)
    order = np.lexsort((-scores.score, -scores.depth))
    best = order[0]
    return [replace(_ranked(board, moves, scores, k, state),
                    diff=float(scores.levels[k, scores.depth[k]] - scores.levels[best, scores.depth[k]]))
            for k in order.tolist()]


def best_moves(evaluator, boards: np.ndarray, dice: np.ndarray, ply: int = 0,
               filters=DEFAULT_FILTERS) -> list[RankedMove]:
    """The play :func:`rank_moves` (cubeless) puts first, for each of a batch of boards and rolls.

    One move generation and one batched search for the whole batch; only the chosen
    plays are formatted. ``boards`` must come from :func:`check_position`.
    """
    moves = generate(boards, dice)
    scores = score_moves(checker_play(evaluator, ply), moves, None, np.zeros(len(boards), np.int64), ply, filters)
    owner = np.repeat(np.arange(len(moves)), moves.counts())
    order = np.lexsort((-scores.score, -scores.depth, owner))
    first = order[moves.offsets[:-1]]  # each position's candidates are contiguous, best first
    return [_ranked(boards[b], moves, scores, k, None) for b, k in enumerate(first.tolist())]


def evaluate_position(evaluator, board, ply: int = 0) -> PositionEvaluation:
    """The side on roll's five probabilities and cubeless equity at ``ply``, before it rolls."""
    board = check_position(board)
    probs = evaluate_ply(evaluator, board[None], ply)[0]
    return PositionEvaluation(_floats(probs), float(equity(probs)), ply)


def cube_analysis(evaluator, board, match_info: MatchInfo, ply: int = 0) -> CubeAnalysis:
    """The cube action for the side on roll of a Position ID + Match ID, before it rolls.

    gnubg writes the Position ID from the view of the player holding the dice
    (``match_info.dice_owner``), also while the opponent answers a double, so ``board``
    is used as it is and that player is the doubler. Money play when ``match_length`` is
    0, else the Kazaross-XG2 match equities. The decision is the agents' own: the cubeful
    search of :func:`bgzero.agents.cubeful.cube_decisions` at ``ply``; ``x`` is the cube
    life Janowski's model gives this position at the leaves of a search ``ply`` deep
    (:func:`bgzero.agents.cube.cube_lives`, :func:`bgzero.cube.gnubg_efficiency`).
    """
    board = check_position(board)
    player = match_info.dice_owner
    state = from_match_info(match_info)
    kind, x = PositionClass(classify(board[None])[0]), float(cube_lives(board[None], gnubg_efficiency(ply))[0])
    reason = _no_double_reason(match_info, state, player)
    if reason:
        return CubeAnalysis(player, evaluate_position(evaluator, board, ply), kind, x, None, reason, state)
    decisions, probs = cube_decisions(evaluator, board[None], [state], [player], ply)
    evaluation = PositionEvaluation(_floats(probs[0]), float(equity(probs[0])), ply)
    return CubeAnalysis(player, evaluation, kind, x, decisions[0], None, state)


def _ranked(board: np.ndarray, moves, scores, k: int, state: MatchState | None) -> RankedMove:
    steps = moves.steps_of(k)
    mwc = None if state is None or state.is_money else float(scores.value[k])
    return RankedMove(format_steps(board, steps), float(scores.score[k]), _floats(flip(scores.probs[k])),
                      int(scores.depth[k]), position_id(moves.results[k]), mwc=mwc)


def _floats(probs) -> tuple[float, float, float, float, float]:
    return tuple(float(p) for p in probs)


def _no_double_reason(info: MatchInfo, state, player: int) -> str | None:
    """Why ``player`` may not double now, in words; ``None`` when it may."""
    if info.game_state != GameState.PLAYING:
        return f"the Match ID says no game is being played ({info.game_state.name.lower()})"
    if info.dice != (0, 0):
        return f"player {player} has already rolled {info.dice[0]}{info.dice[1]}"
    if may_double(state, player):
        return None
    if state.cube.owner == 1 - player:
        return f"player {1 - player} owns the cube"
    if state.crawford:
        return "this is the Crawford game"
    if 2 * state.cube.value > MAX_CUBE:
        return "the cube is at its maximum"
    return f"winning this game at cube {state.cube.value} already wins the match for player {player}"
