"""A match analysed as a player reads gnubg's ``analyse match``: every decision judged, each player rated.

Each game of a :class:`~bgzero.arena.match.MatchRecord` is replayed; at every checker play
the agent ranks the legal plays (:func:`judge_play`) and at every turn where the side on
roll may double it weighs the cube (:func:`judge_cube`), both through
:mod:`bgzero.arena.analysis`, so their equities are the ones ``bgzero-hint`` shows.
Errors are in normalised equity (the cube at 1); gnubg's marks use its thresholds
(doubtful 0.04, bad 0.08, very bad 0.16) and its rating labels its error-rate bands.

* **Error rates** are mEMG per decision (1000 x mean equity lost): checker play over the
  unforced moves, cube over the cube decisions that count -- every double and take, and
  every turn without a double where doubling was right or cost under 0.16 (gnubg's "close").
* **PR**, XG's convention: mean equity lost over all those decisions x 500.
* **Luck** of a roll: the equity after its best play minus the mean over the 21 rolls (the
  15 non-doubles for an opening roll), scored at 0-ply as gnubg's luck analysis is, times
  the cube in points. The luck-adjusted result takes each side's luck out of its points.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

import numpy as np
from tqdm import tqdm

from bgzero.arena.analysis import best_moves, cube_analysis, rank_moves
from bgzero.arena.match import DOUBLE, MOVE, MatchGame, MatchRecord
from bgzero.cube import TAKE, MatchState, after_take, may_double, to_match_info
from bgzero.engine.board import START
from bgzero.engine.game import ROLL_WEIGHTS, ROLLS, game_results
from bgzero.engine.ids import board_from_position_id, match_id, position_id
from bgzero.engine.notation import parse_move

MARKS = ((0.16, "very bad"), (0.08, "bad"), (0.04, "doubtful"))  # gnubg's arSkillLevel
RATINGS = ((0.005, "Supernatural"), (0.010, "World class"), (0.015, "Expert"), (0.020, "Advanced"),
           (0.025, "Intermediate"), (0.030, "Casual player"), (0.035, "Beginner"))  # else "Awful!"
CLOSE_CUBE = 0.16  # a turn without a double counts as a cube decision when doubling costs less
_OPENING = np.where(ROLLS[:, 0] == ROLLS[:, 1], 0.0, 2.0) / 30.0  # an opening roll is never a double


@dataclass(frozen=True)
class Decision:
    """One judged decision. ``kind`` is ``checker``, ``double`` (the side on roll's cube
    action, doubled or not) or ``take`` (the answer); equities for the one who decides."""

    game: int
    turn: int  # the action's number in its game, from 1
    player: int
    kind: str
    position: str  # Position ID before the decision, from the side on roll (the doubler for a take)
    match_id: str
    dice: tuple[int, int] | None
    played: str
    best: str
    equity_lost: float
    mark: str  # "", "doubtful", "bad" or "very bad"
    forced: bool = False
    counted: bool = True  # part of the error rates (unforced plays, cube decisions that count)
    error: str = ""  # "missed double", "wrong double", "wrong take" or "wrong pass"
    luck: float | None = None  # checker plays: the roll's luck, normalised equity
    cube: int = 1


@dataclass
class PlayerStats:
    """One player's totals over one or more matches."""

    name: str
    checker_decisions: int = 0
    checker_error: float = 0.0
    cube_decisions: int = 0
    cube_error: float = 0.0
    marks: dict = field(default_factory=lambda: {m: 0 for _, m in MARKS})
    missed_doubles: int = 0
    wrong_doubles: int = 0
    wrong_takes: int = 0
    wrong_passes: int = 0
    luck: float = 0.0  # points: each roll's luck times the cube
    points: int = 0  # points won minus points lost
    games: int = 0
    decisions: list = field(default_factory=list)
    opponent_luck: float = 0.0

    @property
    def checker_error_rate(self) -> float:
        return 1000 * self.checker_error / max(self.checker_decisions, 1)

    @property
    def cube_error_rate(self) -> float:
        return 1000 * self.cube_error / max(self.cube_decisions, 1)

    @property
    def error_rate(self) -> float:
        """mEMG per decision, checker and cube together (gnubg's overall rate)."""
        return 1000 * (self.checker_error + self.cube_error) / max(self.checker_decisions + self.cube_decisions, 1)

    @property
    def pr(self) -> float:
        return self.error_rate / 2

    @property
    def rating(self) -> str:
        rate = self.error_rate / 1000
        return next((label for top, label in RATINGS if rate < top), "Awful!")

    @property
    def luck_adjusted(self) -> float:
        """Points won minus lost, with this player's luck taken out and the opponent's put back."""
        return self.points - self.luck + self.opponent_luck

    def add(self, d: Decision) -> None:
        self.decisions.append(d)
        if d.luck is not None:
            self.luck += d.luck * d.cube
        if not d.counted:
            return
        if d.kind == "checker":
            self.checker_decisions += 1
            self.checker_error += d.equity_lost
        else:
            self.cube_decisions += 1
            self.cube_error += d.equity_lost
        if d.mark:
            self.marks[d.mark] += 1
        for name in ("missed double", "wrong double", "wrong take", "wrong pass"):
            if d.error == name:
                attr = name.replace(" ", "_") + ("es" if name.endswith("pass") else "s")
                setattr(self, attr, getattr(self, attr) + 1)

    def merge(self, other: PlayerStats) -> None:
        """Add ``other``'s totals (the same player in another match)."""
        for name in ("checker_decisions", "checker_error", "cube_decisions", "cube_error", "missed_doubles",
                     "wrong_doubles", "wrong_takes", "wrong_passes", "luck", "points", "games", "opponent_luck"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mark in self.marks:
            self.marks[mark] += other.marks[mark]
        self.decisions += other.decisions

    def as_dict(self, decisions: bool = True) -> dict:
        out = {"name": self.name, "checker_error_rate": round(self.checker_error_rate, 2),
               "cube_error_rate": round(self.cube_error_rate, 2), "error_rate": round(self.error_rate, 2),
               "pr": round(self.pr, 2), "rating": self.rating, "luck": round(self.luck, 4),
               "luck_adjusted_points": round(self.luck_adjusted, 4), "points": self.points, "games": self.games,
               "checker_decisions": self.checker_decisions, "cube_decisions": self.cube_decisions,
               "marks": dict(self.marks), "missed_doubles": self.missed_doubles, "wrong_doubles": self.wrong_doubles,
               "wrong_takes": self.wrong_takes, "wrong_passes": self.wrong_passes}
        if decisions:
            out["decisions"] = [decision_dict(d) for d in self.decisions]
        return out


@dataclass
class MatchAnalysis:
    """The analysis of one match (or, merged, of many): per player, in the record's order."""

    length: int
    players: list[PlayerStats]
    agent: str = ""
    ply: int = 0
    sources: list = field(default_factory=list)

    def as_dict(self, decisions: bool = True) -> dict:
        return {"length": self.length, "agent": self.agent, "ply": self.ply, "sources": self.sources,
                "players": [p.as_dict(decisions) for p in self.players]}


def mark(lost: float) -> str:
    """gnubg's mark for an error of ``lost`` normalised equity."""
    return next((name for top, name in MARKS if lost >= top), "")


def judge_play(evaluator, board, dice, played_board, state: MatchState, player: int, ply: int):
    """(best, played) :class:`~bgzero.arena.analysis.RankedMove` of a checker play, and the count of plays.

    The one place a checker play is judged: it ranks as ``bgzero-hint`` does, so a
    match-aware ranking there is a match-aware judgment here.
    """
    ranked = rank_moves(evaluator, board, dice, ply, state=state, player=player)
    target = position_id(played_board)
    played = next(m for m in ranked if m.result == target)
    return ranked[0], played, len(ranked)


def judge_cube(evaluator, board, state: MatchState, player: int, ply: int):
    """The :class:`~bgzero.cube.CubeDecision` for ``player`` on roll at ``board``, before the roll (or ``None``)."""
    return cube_analysis(evaluator, board, to_match_info(state, on_roll=player), ply).decision


def analyse_match(evaluator, record: MatchRecord, ply: int = 0, *, agent: str = "", progress: bool = False,
                  source: str = "") -> MatchAnalysis:
    """Judge every checker play and cube decision of both players of ``record``."""
    players = [PlayerStats(name) for name in record.names]
    games = list(enumerate(record.games, 1))
    for number, game in tqdm(games, desc=source or "games", unit="game", disable=not progress, leave=False):
        decisions = _judge_game(evaluator, record, number, game, ply)
        for d in decisions:
            players[d.player].add(d)
        for p in (0, 1):
            players[p].games += 1
            players[p].points += game.points if game.winner == p else -game.points
    for p in (0, 1):
        players[p].opponent_luck = players[1 - p].luck
    return MatchAnalysis(record.length, players, agent, ply, [source] if source else [])


def merge_analyses(analyses: Iterable[MatchAnalysis], player: str | None = None) -> MatchAnalysis:
    """Totals per player name over many matches (``player``: that one only)."""
    by_name: dict[str, PlayerStats] = {}
    sources, length = [], 0
    for a in analyses:
        sources += a.sources
        length = a.length
        for p in a.players:
            if player is None or p.name == player:
                by_name.setdefault(p.name, PlayerStats(p.name)).merge(p)
    return MatchAnalysis(length, list(by_name.values()), sources=sources)


def _judge_game(evaluator, record: MatchRecord, number: int, game: MatchGame, ply: int) -> list[Decision]:
    state = MatchState(record.length, game.score, crawford=game.crawford, jacoby=record.jacoby)
    board, out, luck_at = START, [], []
    actions = game.actions
    for k, action in enumerate(actions):
        player = action.player
        if action.kind == MOVE:
            before_double = k == 0 or actions[k - 1].kind not in (TAKE,)
            if k > 0 and before_double and may_double(state, player):  # the turn began without a double
                out += _cube_decisions(evaluator, board, state, player, ply, number, k, doubled=False)
            after = parse_move(board, action.dice, " ".join(f"{s}/{d}" for s, d in action.steps))
            best, played, count = judge_play(evaluator, board, action.dice, after, state, player, ply)
            lost = max(0.0, best.equity - played.equity)
            forced = count <= 1
            out.append(Decision(number, k + 1, player, "checker", position_id(board),
                                match_id(to_match_info(state, on_roll=player, dice=action.dice)), action.dice,
                                played.move, best.move, lost, "" if forced else mark(lost), forced, not forced,
                                cube=state.cube.value))
            luck_at.append((len(out) - 1, board, action.dice, k == 0))
            board = after
        elif action.kind == DOUBLE:
            answer = actions[k + 1].kind if k + 1 < len(actions) else TAKE
            out += _cube_decisions(evaluator, board, state, player, ply, number, k, doubled=True, answer=answer)
            if answer == TAKE:
                state = after_take(state, player)
    _add_luck(evaluator, out, luck_at)
    return out


def _cube_decisions(evaluator, board, state, player, ply, number, k, *, doubled, answer=None) -> list[Decision]:
    """The doubler's decision (and, after a double, the taker's) at the start of a turn."""
    decision = judge_cube(evaluator, board, state, player, ply)
    if decision is None:
        return []
    e = decision.equities
    doubled_value = min(e.double_take, e.double_pass)
    proper = max(e.no_double, doubled_value)
    pid, mid = position_id(board), match_id(to_match_info(state, on_roll=player))
    best = "double" if doubled_value >= e.no_double else "no double"
    lost = max(0.0, proper - (doubled_value if doubled else e.no_double))
    counted = doubled or doubled_value - e.no_double > -CLOSE_CUBE
    error = ("wrong double" if doubled else "missed double") if lost > 0 else ""
    out = [Decision(number, k + 1, player, "double", pid, mid, None, "double" if doubled else "no double", best,
                    lost, mark(lost) if counted else "", counted=counted, error=error, cube=state.cube.value)]
    if doubled:
        took = answer == TAKE
        taker_lost = max(0.0, (e.double_take if took else e.double_pass) - doubled_value)
        right = "take" if e.double_take <= e.double_pass else "pass"
        out.append(Decision(number, k + 2, 1 - player, "take", pid, mid, None, "take" if took else "pass", right,
                            taker_lost, mark(taker_lost), error=("wrong take" if took else "wrong pass")
                            if taker_lost > 0 else "", cube=state.cube.value))
    return out


def _add_luck(evaluator, decisions: list[Decision], luck_at: list) -> None:
    """Each checker play's luck: its roll's best 0-ply equity against the mean over the rolls."""
    if not luck_at:
        return
    boards = np.repeat(np.stack([b for _, b, _, _ in luck_at]), len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (len(luck_at), 1))
    live = game_results(boards) == 0
    values = np.zeros(len(boards))
    idx = np.flatnonzero(live)
    for lo in range(0, len(idx), 4096):
        chunk = idx[lo:lo + 4096]
        values[chunk] = [m.equity for m in best_moves(evaluator, boards[chunk], dice[chunk], 0)]
    values = values.reshape(len(luck_at), len(ROLLS))
    for row, (i, _, rolled, opening) in enumerate(luck_at):
        weights = _OPENING if opening else ROLL_WEIGHTS
        got = values[row, int(np.flatnonzero((ROLLS == sorted(rolled)).all(axis=1))[0])]
        d = decisions[i]
        decisions[i] = Decision(**{**asdict(d), "luck": float(got - weights @ values[row])})


def decision_dict(d: Decision) -> dict:
    """``d`` as JSON data, its equities rounded (the analysis file's and bgzero-web's form)."""
    out = asdict(d)
    out["equity_lost"] = round(d.equity_lost, 5)
    if d.luck is not None:
        out["luck"] = round(d.luck, 5)
    return out


def format_summary(analysis: MatchAnalysis) -> str:
    """gnubg's statistics table (``show statistics match``), one column per player."""
    def row(label: str, fn) -> str:
        cells = [fn(p) for p in analysis.players]
        return f"{label:<34}" + "".join(f"{c:>18}" for c in cells)

    lines = [row("Player", lambda p: p.name[:17]), "", "Checker play statistics:",
             row("Total moves (unforced)", lambda p: str(p.checker_decisions))]
    for _, m in reversed(MARKS):
        lines.append(row(f"Decisions marked {m}", lambda p, m=m: str(sum(
            1 for d in p.decisions if d.counted and d.kind == "checker" and d.mark == m))))
    lines += [row("Error total (EMG)", lambda p: f"{p.checker_error:.3f}"),
              row("Error rate (mEMG per move)", lambda p: f"{p.checker_error_rate:.1f}"),
              "", "Cube statistics:",
              row("Cube decisions", lambda p: str(p.cube_decisions)),
              row("Missed doubles", lambda p: str(p.missed_doubles)),
              row("Wrong doubles", lambda p: str(p.wrong_doubles)),
              row("Wrong takes", lambda p: str(p.wrong_takes)),
              row("Wrong passes", lambda p: str(p.wrong_passes)),
              row("Error total (EMG)", lambda p: f"{p.cube_error:.3f}"),
              row("Error rate (mEMG per decision)", lambda p: f"{p.cube_error_rate:.1f}"),
              "", "Luck:",
              row("Luck total (points)", lambda p: f"{p.luck:+.3f}"),
              row("Points won", lambda p: f"{p.points:+d}"),
              row("Luck-adjusted result (points)", lambda p: f"{p.luck_adjusted:+.3f}"),
              "", "Overall:",
              row("Error rate (mEMG per decision)", lambda p: f"{p.error_rate:.1f}"),
              row("PR (XG)", lambda p: f"{p.pr:.1f}"),
              row("Rating", lambda p: p.rating)]
    return "\n".join(lines)


def worst_decisions(analysis: MatchAnalysis, least: str = "doubtful") -> list[Decision]:
    """Every marked decision at least as bad as ``least``, worst first."""
    floor = dict((name, top) for top, name in MARKS)[least]
    found = [d for p in analysis.players for d in p.decisions if d.counted and d.equity_lost >= floor]
    return sorted(found, key=lambda d: -d.equity_lost)



def rollout_worst(analysis: MatchAnalysis, agent: str, trials: int, worst: int = 5, seed: int = 0) -> list[dict]:
    """Cubeless rollouts of the played and the best play of the ``worst`` worst checker decisions.

    A 0-ply judgement can be wrong where it matters most; the rollout (by ``agent``, with
    variance reduction) says how much the worst errors really cost, beside the 0-ply loss.
    """
    from bgzero.rollout import RolloutSettings, make_player, rollout_positions

    chosen = [d for d in worst_decisions(analysis) if d.kind == "checker"][:worst]
    if not chosen:
        return []
    boards = []
    for d in chosen:
        board = board_from_position_id(d.position)
        boards += [parse_move(board, d.dice, d.best), parse_move(board, d.dice, d.played)]
    results = rollout_positions(np.stack(boards), make_player(agent), RolloutSettings(trials=trials, seed=seed))
    rows = []
    for k, d in enumerate(chosen):
        best, played = (results[2 * k + i].flipped() for i in (0, 1))  # seen by the mover
        rows.append({"game": d.game, "turn": d.turn, "player": d.player, "dice": list(d.dice), "played": d.played,
                     "best": d.best, "equity_lost": round(d.equity_lost, 5),
                     "rollout_best": round(best.equity, 5), "rollout_played": round(played.equity, 5),
                     "rollout_lost": round(best.equity - played.equity, 5),
                     "rollout_se": round(float(np.hypot(best.equity_se, played.equity_se)), 5), "trials": trials})
    return rows


def format_rollouts(rows: list[dict], names) -> str:
    """The rolled-out decisions beside their 0-ply judgement, worst first."""
    lines = [f"Worst checker plays rolled out ({rows[0]['trials']} trials each, cubeless):",
             f"{'game':>4} {'turn':>4}  {'player':<14} dice  {'played':<20} {'best':<20} 0-ply lost  rollout lost ± se"]
    for r in rows:
        lines.append(f"{r['game']:>4} {r['turn']:>4}  {names[r['player']][:14]:<14} {r['dice'][0]}{r['dice'][1]}    "
                     f"{r['played'][:20]:<20} {r['best'][:20]:<20} {r['equity_lost']:10.3f}  "
                     f"{r['rollout_lost']:+12.3f} ± {r['rollout_se']:.3f}")
    return "\n".join(lines)
