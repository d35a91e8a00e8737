"""A match analysed as a player reads gnubg's ``analyse match``: every decision judged, each player rated.

Each game of a :class:`~bgzero.match.record.MatchRecord` is replayed; at every checker play
the agent ranks the legal plays (:func:`judge_play`) and at every turn where the side on
roll may double it weighs the cube (:func:`judge_cube`), both through
:mod:`bgzero.analysis.position`, so their equities are the ones ``bgzero-hint`` shows.
Errors are in normalised equity (the cube at 1); gnubg's marks use its thresholds
(doubtful 0.04, bad 0.08, very bad 0.16) and its rating labels its error-rate bands.

* **Error rates** are mEMG per decision (1000 x mean equity lost): checker play over the
  unforced moves, cube over the cube decisions that count -- every double and take, and
  every turn without a double where doubling was right or cost under 0.16 (gnubg's "close").
* **PR**, XG's convention: mean equity lost over all those decisions x 500.
* **Luck** of a roll, gnubg's definition: the cubeful equity (EMG in a match) after its best
  play minus the mean over the 21 rolls (the 15 non-doubles for an opening roll), at
  ``luck_ply`` (0 by default, as in gnubg 1.07). Summed, it is gnubg's "Luck total EMG";
  times the cube, points. The luck-adjusted result takes each side's luck out of its points.
  Luck values positions, so it is the checkpoint's own nets' even where a mover (the role
  split, :func:`~bgzero.value.evaluator.checker_play`) judges the checker plays at 0 ply.
* Every play is judged at the analysis ply, the played move included, and every position
  of a match (or of a folder of matches) goes through the batched search together, through
  one :class:`~bgzero.value.memo.MemoEvaluator`: a board met again (the luck's rolls, the
  judged plays, the cube decisions' searches share many) is not evaluated again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

import numpy as np

from bgzero.agents.cubeful import cube_decisions, score_moves
from bgzero.cube import TAKE, MatchState, may_double, to_match_info
from bgzero.engine.game import ROLL_WEIGHTS, ROLLS
from bgzero.engine.ids import board_from_position_id, match_id, position_id
from bgzero.engine.movegen import generate
from bgzero.engine.notation import format_steps, parse_move
from bgzero.engine.segments import segment_argmax
from bgzero.match.game import walk
from bgzero.match.record import DOUBLE, MOVE, MatchGame, MatchRecord
from bgzero.value.evaluator import checker_play
from bgzero.value.memo import MemoEvaluator

MARKS = ((0.16, "very bad"), (0.08, "bad"), (0.04, "doubtful"))  # gnubg's arSkillLevel
RATINGS = ((0.005, "Supernatural"), (0.010, "World class"), (0.015, "Expert"), (0.020, "Advanced"),
           (0.025, "Intermediate"), (0.030, "Casual player"), (0.035, "Beginner"))  # else "Awful!"
CLOSE_CUBE = 0.16  # a turn without a double counts as a cube decision when doubling costs less
BATCH = 256  # positions per batched search: bigger batches only add memory traffic
_BOARDS_PER_PLAY = (400, 800, 4000)  # distinct boards an analysis meets per checker play, at 0, 1 and 2+ ply
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
    luck: float | None = None  # checker plays: the roll's luck, normalised (EMG)
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
    luck_emg: float = 0.0  # gnubg's "Luck total EMG": each roll's luck, normalised
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
            self.luck_emg += d.luck
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
                     "wrong_doubles", "wrong_takes", "wrong_passes", "luck", "luck_emg", "points", "games",
                     "opponent_luck"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mark in self.marks:
            self.marks[mark] += other.marks[mark]
        self.decisions += other.decisions

    def as_dict(self, decisions: bool = True) -> dict:
        out = {"name": self.name, "checker_error_rate": round(self.checker_error_rate, 2),
               "cube_error_rate": round(self.cube_error_rate, 2), "error_rate": round(self.error_rate, 2),
               "pr": round(self.pr, 2), "rating": self.rating, "luck": round(self.luck, 4),
               "luck_emg": round(self.luck_emg, 4),
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


@dataclass(frozen=True)
class _Play:
    """A checker play waiting for its judgment: where it was made, and what was played."""

    match: int
    game: int
    k: int
    player: int
    board: np.ndarray
    dice: tuple[int, int]
    after: np.ndarray
    state: MatchState
    opening: bool


@dataclass(frozen=True)
class _Cube:
    """A turn's cube action waiting for its judgment (``doubled``: the player doubled; ``answer``: the reply)."""

    match: int
    game: int
    k: int
    player: int
    board: np.ndarray
    state: MatchState
    doubled: bool
    answer: str | None


def judge_play(evaluator, board, dice, played_board, state: MatchState, player: int,
               ply: int) -> tuple[str, str, float, int]:
    """(best move, played move, equity lost, legal plays) of one checker play, both moves scored at ``ply``."""
    play = _Play(0, 1, 0, player, board, tuple(dice), played_board, state, False)
    return _judge_plays(evaluator, [play], ply, 1, _NO_BAR)[0]


def roll_luck(evaluator, board, dice, state: MatchState, player: int, ply: int, opening: bool = False) -> float:
    """gnubg's luck of rolling ``dice`` in ``board`` (normalised EMG), at ``ply``: see :func:`_luck`."""
    play = _Play(0, 1, 0, player, board, tuple(dice), board, state, opening)
    return _luck(evaluator, [play], ply, len(ROLLS), _NO_BAR)[0]


def analyse_match(evaluator, record: MatchRecord, ply: int = 0, *, luck_ply: int = 0, agent: str = "",
                  progress: bool = False, source: str = "") -> MatchAnalysis:
    """Judge every checker play and cube decision of both players of ``record``."""
    return analyse_matches(evaluator, [record], ply, luck_ply=luck_ply, agent=agent, progress=progress,
                           sources=[source])[0]


def analyse_matches(evaluator, records: list[MatchRecord], ply: int = 0, *, luck_ply: int = 0, agent: str = "",
                    progress: bool = False, sources=None, batch: int = BATCH) -> list[MatchAnalysis]:
    """One :class:`MatchAnalysis` per record, every position of all of them searched in batches.

    Every position is known before the analysis starts, so the checker plays, the cube
    actions and the luck rolls of all the matches go through the batched search together
    (``batch`` positions at a time), not one decision at a time. Checker plays and cube
    actions are judged at ``ply``, the played move included (as gnubg does); luck at
    ``luck_ply`` (gnubg's default 0).
    """
    sources = list(sources) if sources is not None else [""] * len(records)
    plays, cubes = [], []
    for m, record in enumerate(records):
        for number, game in enumerate(record.games, 1):
            _replay(m, record, number, game, plays, cubes)
    if not isinstance(evaluator, MemoEvaluator):  # the same boards come back again and again: each computed once
        evaluator = MemoEvaluator(evaluator, expected=len(plays) * _BOARDS_PER_PLAY[min(max(ply, luck_ply), 2)])
    bar = _progress_bar(2 * len(plays) + len(cubes)) if progress else _NO_BAR
    judged = _judge_plays(evaluator, plays, ply, batch, bar)
    luck = _luck(evaluator, plays, luck_ply, batch, bar)
    decided = _judge_cubes(evaluator, cubes, ply, batch, bar)
    bar.close()
    found: list[list[tuple]] = [[] for _ in records]
    for p, (best, played, lost, count), lk in zip(plays, judged, luck):
        forced = count <= 1
        d = Decision(p.game, p.k + 1, p.player, "checker", position_id(p.board),
                     match_id(to_match_info(p.state, on_roll=p.player, dice=p.dice)), p.dice, played, best, lost,
                     "" if forced else mark(lost), forced, not forced, luck=lk, cube=p.state.cube.value)
        found[p.match].append((p.game, p.k, 1, d))
    for c, decision in zip(cubes, decided):
        found[c.match] += [(c.game, c.k, 0, d) for d in _cube_decisions(c, decision)]
    out = []
    for m, record in enumerate(records):
        players = [PlayerStats(name) for name in record.names]
        for *_, d in sorted(found[m], key=lambda t: t[:3]):
            players[d.player].add(d)
        for game in record.games:
            for p in (0, 1):
                players[p].games += 1
                players[p].points += game.points if game.winner == p else -game.points
        for p in (0, 1):
            players[p].opponent_luck = players[1 - p].luck
        out.append(MatchAnalysis(record.length, players, agent, ply, [sources[m]] if sources[m] else []))
    return out


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


def _replay(m: int, record: MatchRecord, number: int, game: MatchGame, plays: list, cubes: list) -> None:
    """Append the checker plays and cube actions of one game, in order."""
    actions = game.actions
    for k, (action, before, after) in enumerate(walk(game, record.length, record.jacoby)):
        player, board, state = action.player, before.board, before.state
        if action.kind == MOVE:
            before_double = k == 0 or actions[k - 1].kind != TAKE
            if k > 0 and before_double and may_double(state, player):  # the turn began without a double
                cubes.append(_Cube(m, number, k, player, board, state, False, None))
            plays.append(_Play(m, number, k, player, board, tuple(action.dice), after.board, state, k == 0))
        elif action.kind == DOUBLE:
            answer = actions[k + 1].kind if k + 1 < len(actions) else TAKE
            cubes.append(_Cube(m, number, k, player, board, state, True, answer))  # legal: the walk checks


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


_NO_BAR = _NoBar()


def _progress_bar(total: int):
    """A tqdm bar over ``total`` positions; tqdm is imported only when a bar is shown."""
    from tqdm import tqdm

    return tqdm(total=total, desc="positions", unit="pos", leave=False)


def _chunks(items: list, size: int):
    for lo in range(0, len(items), size):
        yield items[lo:lo + size]


def _judge_plays(evaluator, plays: list[_Play], ply: int, batch: int, bar) -> list[tuple[str, str, float, int]]:
    """(best move, played move, equity lost, legal plays) of each play, both moves scored at ``ply``."""
    out = []
    for part in _chunks(plays, batch):
        boards = np.stack([p.board for p in part])
        moves = generate(boards, np.array([p.dice for p in part], np.int8))
        offsets = moves.offsets
        results = moves.results.reshape(len(moves.results), -1)
        played = np.array([offsets[b] + int(np.flatnonzero((results[offsets[b]:offsets[b + 1]]
                                                             == p.after.reshape(-1)).all(axis=1))[0])
                           for b, p in enumerate(part)], np.int64)
        scores = score_moves(checker_play(evaluator, ply), moves, [p.state for p in part], [p.player for p in part],
                             ply, keep=played)
        full = np.where(scores.depth == ply, scores.score, -np.inf)
        best = segment_argmax(full, offsets)
        for b, p in enumerate(part):
            lost = max(0.0, float(full[best[b]] - full[played[b]]))
            out.append((_move_text(p.board, moves, best[b]), _move_text(p.board, moves, played[b]), lost,
                        int(offsets[b + 1] - offsets[b])))
        bar.update(len(part))
    return out


def _move_text(board: np.ndarray, moves, k: int) -> str:
    return format_steps(board, moves.steps_of(k))


def _luck(evaluator, plays: list[_Play], ply: int, batch: int, bar) -> list[float]:
    """gnubg's luck of each roll: the EMG after its best play against the mean over the rolls, at ``ply``.

    Cubeful for the score and cube the play was made at, so it is in gnubg's units
    (normalised equity; times the cube, points). An opening roll is weighed against the 15
    non-doubles it could have been.
    """
    out = []
    per = max(1, batch // len(ROLLS))
    for part in _chunks(plays, per):
        n = len(part)
        boards = np.repeat(np.stack([p.board for p in part]), len(ROLLS), axis=0)
        moves = generate(boards, np.tile(ROLLS, (n, 1)))
        states = [p.state for p in part for _ in ROLLS]
        players = np.repeat([p.player for p in part], len(ROLLS))
        scores = score_moves(evaluator, moves, states, players, ply)
        full = np.where(scores.depth == ply, scores.score, -np.inf)
        values = full[segment_argmax(full, moves.offsets)].reshape(n, len(ROLLS))
        for row, p in enumerate(part):
            weights = _OPENING if p.opening else ROLL_WEIGHTS
            got = values[row, int(np.flatnonzero((ROLLS == sorted(p.dice)).all(axis=1))[0])]
            out.append(float(got - weights @ values[row]))
        bar.update(n)
    return out


def _judge_cubes(evaluator, cubes: list[_Cube], ply: int, batch: int, bar) -> list:
    """The :class:`~bgzero.cube.CubeDecision` of each cube action, at ``ply``."""
    out = []
    for part in _chunks(cubes, batch):
        decisions, _ = cube_decisions(evaluator, np.stack([c.board for c in part]), [c.state for c in part],
                                      [c.player for c in part], ply)
        out += decisions
        bar.update(len(part))
    return out


def _cube_decisions(c: _Cube, decision) -> list[Decision]:
    """The doubler's decision (and, after a double, the taker's) at the start of a turn."""
    e = decision.equities
    doubled_value = min(e.double_take, e.double_pass)
    proper = max(e.no_double, doubled_value)
    pid, mid = position_id(c.board), match_id(to_match_info(c.state, on_roll=c.player))
    best = "double" if doubled_value >= e.no_double else "no double"
    lost = max(0.0, proper - (doubled_value if c.doubled else e.no_double))
    counted = c.doubled or doubled_value - e.no_double > -CLOSE_CUBE
    error = ("wrong double" if c.doubled else "missed double") if lost > 0 else ""
    out = [Decision(c.game, c.k + 1, c.player, "double", pid, mid, None, "double" if c.doubled else "no double",
                    best, lost, mark(lost) if counted else "", counted=counted, error=error,
                    cube=c.state.cube.value)]
    if c.doubled:
        took = c.answer == TAKE
        taker_lost = max(0.0, (e.double_take if took else e.double_pass) - doubled_value)
        right = "take" if e.double_take <= e.double_pass else "pass"
        out.append(Decision(c.game, c.k + 2, 1 - c.player, "take", pid, mid, None, "take" if took else "pass", right,
                            taker_lost, mark(taker_lost), error=("wrong take" if took else "wrong pass")
                            if taker_lost > 0 else "", cube=c.state.cube.value))
    return out


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
              row("Luck total (EMG)", lambda p: f"{p.luck_emg:+.3f}"),
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
