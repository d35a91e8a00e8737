"""A person's match against a bot: its state and the rule steps that both front ends share.

The person is player 0 (the left column of the ``.mat`` transcript) and the bot player 1.
:class:`PersonMatch` holds the score, the game in progress and its recorded actions, and
applies the rules a turn goes through: the seeded dice, a move, a double and its answer,
the end of a game. The terminal (:class:`bgzero.ui.play.PlaySession`, which blocks reading
a stream) and the browser (:class:`bgzero.web.games.WebGame`, a state machine that each
request advances) differ only in how they ask the person and what they show; a game ends
from wherever it ends by raising :class:`GameOver`, which :meth:`PersonMatch.finish` scores.
"""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.search import evaluate_ply
from bgzero.cube import PASS, TAKE, MatchState, after_take, award, drop_points, points_for
from bgzero.engine.board import START, borne_off
from bgzero.engine.game import game_results, opening_roll, roll
from bgzero.engine.movegen import generate
from bgzero.errors import ConfigError
from bgzero.match.record import DOUBLE, MOVE, PASSED, Action, MatchGame, MatchRecord
from bgzero.ui.render import KINDS, player_view
from bgzero.value.probs import equity


class GameOver(Exception):
    """Ends the game in progress: ``winner`` scores ``kind`` (1-3 or PASSED) at ``cube``."""

    def __init__(self, winner: int, kind: int, cube: int, points: int, how: str, resigned: bool = False):
        super().__init__(how)
        self.winner, self.kind, self.cube, self.points, self.how = winner, kind, cube, points, how
        self.resigned = resigned

    def record(self, start: MatchState, actions) -> MatchGame:
        """The finished game's record: it began at ``start`` and went through ``actions``."""
        return MatchGame(start.score, start.crawford, tuple(actions), self.winner, self.kind, self.cube, self.points,
                         self.resigned)


class PersonMatch:
    """A match (``length`` points) or money session (``length`` 0, ``games`` games, 0 = no limit)
    of the person against ``bot``, its dice drawn only from ``seed``."""

    def __init__(self, bot: Agent, names: tuple[str, str], *, length: int, games: int, jacoby: bool, seed: int):
        if length and games:
            raise ConfigError(f"games={games} counts a money session's games; a {length}-point match ends when a "
                              "side reaches its length (length=0 plays money)")
        if length and jacoby:
            raise ConfigError("jacoby=true is a money rule, which matches never play by (length=0 plays money)")
        self.bot, self.names, self.games, self.seed = bot, names, games, seed
        self.rng = np.random.default_rng(seed)
        self.state = MatchState(length, jacoby=jacoby)
        self.records: list[MatchGame] = []
        self.playing = False  # a game is in progress

    @property
    def done(self) -> bool:
        """The match is won, or the money session has played its games."""
        return self.state.over if not self.state.is_money else 0 < self.games <= len(self.records)

    def record(self) -> MatchRecord:
        """The finished games so far, and the game in progress once it has an action."""
        unfinished = MatchGame.in_progress(self.start, self.actions) if self.playing and self.actions else None
        return MatchRecord(self.state.match_length, self.names, tuple(self.records), self.state.score,
                           self.state.jacoby, unfinished)

    def start_game(self) -> None:
        """A new game from the starting position, its opening roll thrown."""
        self.start, self.actions, self.playing = self.state, [], True
        self.board = START.copy()
        self.player, self.dice = opening_roll(self.rng)

    def roll_dice(self) -> None:
        d1, d2 = roll(self.rng)
        self.dice = (max(d1, d2), min(d1, d2))

    def moved(self, player: int, steps, result: np.ndarray) -> None:
        """Record ``player``'s move to ``result`` and pass the turn; :class:`GameOver` if it bore off the last checker."""
        self.actions.append(Action(player, MOVE, self.dice, tuple(sorted(steps, reverse=True))))
        self.board = result  # the other side in row 0: the turn passes with it, even when the game ends,
        self.player, self.dice = 1 - player, None  # or the final board is drawn with the sides swapped
        end = borne_off_end(player, result, self.state)
        if end:
            raise end

    def cube_answer(self, doubler: int, take: bool) -> None:
        """Record a double and its answer; :class:`GameOver` on a pass."""
        self.actions += [Action(doubler, DOUBLE), Action(1 - doubler, TAKE if take else PASS)]
        if not take:
            cube = drop_points(self.state)
            raise GameOver(doubler, PASSED, cube, cube, "double passed")
        self.state = after_take(self.state, doubler)

    def resignation(self, level: int) -> GameOver | None:
        """The end of the game if the bot accepts the person's resignation of ``level`` (1-3), else
        ``None``. An offer that wins the bot the match is always accepted: nothing is worth more."""
        cube = self.state.cube.value
        points = points_for(level, cube, jacoby=self.state.jacoby_active)
        wins_match = not self.state.is_money and self.state.score[1] + points >= self.state.match_length
        if not (wins_match or accepts_resignation(self.bot, self.board, self.player, level)):
            return None
        return GameOver(1, level, cube, points, f"{KINDS[level]}, resigned", resigned=True)

    def finish(self, end: GameOver) -> str:
        """Score the game that ``end`` ended; the line that says so."""
        self.records.append(end.record(self.start, self.actions))
        self.state = award(self.state, end.winner, end.points)
        self.playing, self.dice = False, None
        who = "You win" if end.winner == 0 else f"{self.names[1]} wins"
        return f"{who} {end.points} point{'s' if end.points > 1 else ''} ({end.how})."


def bot_play(bot: Agent, board: np.ndarray, dice, state: MatchState) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The bot's (player 1's) play of ``dice`` for the score ``state``: its steps and the result, sides swapped."""
    boards, rolled = board[None], np.array([dice], np.int8)
    moves = generate(boards, rolled)
    k = int(bot.choose_for_score(boards, rolled, moves, [state], [1])[0])
    return moves.steps_of(k), moves.results[k].copy()


def borne_off_end(player: int, result: np.ndarray, state: MatchState) -> GameOver | None:
    """The end of the game if ``player``'s move to ``result`` bore off its last checker, else ``None``."""
    kind = -int(game_results(result))  # the loser is on roll now
    if not kind:
        return None
    cube = state.cube.value
    return GameOver(player, kind, cube, points_for(kind, cube, jacoby=state.jacoby_active), KINDS[kind])


def accepts_resignation(bot: Agent, board: np.ndarray, on_roll: int, level: int) -> bool:
    """``bot``'s (player 1's) answer to player 0 resigning ``level`` (1-3, before the cube) in ``board``.

    ``board`` has player ``on_roll`` in row 0. A bot with a network accepts when ``level`` is
    at least its cubeless equity; any other accepts only what it could at most still win (a
    backgammon while the person has borne off nothing and has a checker in the bot's home
    or on the bar, a gammon while nothing is borne off, else a single game).
    """
    mine = player_view(board, on_roll)  # player 0, the person, in row 0
    evaluator = getattr(bot, "evaluator", None)
    if evaluator is not None:
        probs = evaluate_ply(evaluator, board[None], getattr(bot, "ply", 0))[0]
        bot_equity = float(equity(probs)) * (1 if on_roll == 1 else -1)
        return level >= bot_equity
    if borne_off(mine)[0]:
        most = 1
    else:
        most = 3 if mine[0, 18:].sum() else 2
    return level >= most
