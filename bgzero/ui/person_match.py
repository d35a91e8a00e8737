"""A person's match against a bot: what the person is asked, and the bot's turns in between.

The person is player 0 (the left column of the ``.mat`` transcript) and the bot player 1.
:class:`PersonMatch` is a state machine: :attr:`~PersonMatch.awaiting` says what the person
must do (roll or double, move, take or pass, start the next game) and each of the person's
actions advances it, the bot playing its turns and the person's forced passes at once, until
the person must act again. The terminal (:class:`bgzero.ui.play.PlaySession`, which reads
lines) and the browser (:class:`bgzero.web.games.WebGame`, one request an action) are two
drivers of it: they differ only in how they ask and what they show. What happens is told
line by line through :meth:`PersonMatch.say`; the game itself is a :class:`~bgzero.match.game.Game`.
"""

from __future__ import annotations

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.search import evaluate_ply
from bgzero.cube import MatchState, award, may_double, points_for
from bgzero.engine.board import borne_off
from bgzero.engine.movegen import generate
from bgzero.engine.notation import format_steps
from bgzero.engine.position import Move, Position
from bgzero.errors import BgzeroError, ConfigError
from bgzero.match.game import Game
from bgzero.match.record import KINDS, GameEnd, MatchGame, MatchRecord
from bgzero.ui.render import describe_cube, describe_score, player_view
from bgzero.value.probs import equity

ROLL, MOVING, ANSWER, NEXT, OVER = "roll", "move", "answer", "next", "over"  # what the person must do


class GameActionError(BgzeroError, ValueError):
    """An action that is not possible now (a move while the cube is asked, a double without access...)."""


class PersonMatch:
    """A match (``length`` points) or money session (``length`` 0, ``games`` games, 0 = no limit)
    of the person against ``bot``, its dice drawn only from ``seed``. It starts before its first
    game (:data:`NEXT`); :meth:`act` ``("next")`` begins it."""

    def __init__(self, bot: Agent, names: tuple[str, str], *, length: int, games: int, jacoby: bool, seed: int):
        if length and games:
            raise ConfigError(f"games={games} counts a money session's games; a {length}-point match ends when a "
                              "side reaches its length (length=0 plays money)")
        if length and jacoby:
            raise ConfigError("jacoby=true is a money rule, which matches never play by (length=0 plays money)")
        self.bot, self.names, self.games, self.seed = bot, names, games, seed
        self.rng = np.random.default_rng(seed)
        self.between = MatchState(length, jacoby=jacoby)  # the match state when no game is in progress
        self.game = Game(self.between)
        self.records: list[MatchGame] = []
        self.awaiting = NEXT

    # ------------------------------------------------------------------ what the front ends show

    def say(self, line: str) -> None:
        """One line of what happened; the front end prints or logs it."""

    def game_ending(self) -> None:
        """Called as a game ends, before its result is said (the terminal draws the last board)."""

    @property
    def state(self) -> MatchState:
        """The match state: the score, and the cube of the game in progress."""
        return self.game.state if self.playing else self.between

    @property
    def board(self) -> np.ndarray:
        """The board with :attr:`player` on roll in row 0."""
        return self.game.board

    @property
    def player(self) -> int:
        return self.game.on_roll

    @property
    def dice(self) -> tuple[int, int] | None:
        return self.game.dice

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.awaiting not in (NEXT, OVER)

    @property
    def done(self) -> bool:
        """The match is won, or the money session has played its games (read between games)."""
        return self.between.over if not self.between.is_money else 0 < self.games <= len(self.records)

    def legal_moves(self):
        """The legal plays of the person's roll (:class:`~bgzero.engine.position.LegalMoves`)."""
        return Position(self.board).legal_moves(self.dice)

    def record(self) -> MatchRecord:
        """The finished games so far, and the game in progress once it has an action."""
        unfinished = self.game.record() if self.playing and self.game.actions else None
        return MatchRecord(self.state.match_length, self.names, tuple(self.records), self.state.score,
                           self.state.jacoby, unfinished)

    # ------------------------------------------------------------------ the person's actions

    def act(self, action: str, move: Move | None = None, level: int = 1) -> None:
        """One action of the person: roll, double, take, pass, move (a legal ``move``), resign
        (``level`` 1-3) or next; :class:`GameActionError` if it is not possible now."""
        handlers = {"roll": self._roll, "double": self._double, "take": lambda: self._answer(True),
                    "pass": lambda: self._answer(False), "move": lambda: self._move(move),
                    "resign": lambda: self._resign(level), "next": self._next}
        if action not in handlers:
            raise GameActionError(f"action {action!r}: use one of {', '.join(handlers)}")
        handlers[action]()
        if self.game.end is not None and self.playing:
            self._finish()
        elif self.playing and action != "resign":
            self._advance()

    def _need(self, awaiting: str, action: str) -> None:
        if self.awaiting != awaiting:
            raise GameActionError(f"cannot {action} now: {self.status()}")

    def _roll(self) -> None:
        self._need(ROLL, "roll")
        self.game.roll(self.rng)

    def _double(self) -> None:
        self._need(ROLL, "double")
        if not may_double(self.state, 0):
            raise GameActionError("you may not double now (the cube is not yours, or this is the Crawford game)")
        take = bool(self.bot.take_decision(self.board[None], [self.state], np.array([0]))[0])
        self.say(f"You double to {2 * self.state.cube.value}; {self.names[1]} {'takes' if take else 'passes'}.")
        self._cube(0, take)

    def _answer(self, take: bool) -> None:
        self._need(ANSWER, "take or pass")
        self.say(f"You {'take' if take else 'pass'}.")
        self._cube(1, take)

    def _cube(self, doubler: int, take: bool) -> None:
        self.game.double(doubler)
        self.game.answer(1 - doubler, take)
        if take:
            self.say(describe_cube(self.state, self.names) + ".")
            self.game.roll(self.rng)

    def _move(self, move: Move | None) -> None:
        self._need(MOVING, "move")
        if move is None:
            raise GameActionError("action move needs the play, e.g. move=\"8/5 6/5\"")
        self.say(f"You play {self.dice[0]}-{self.dice[1]}: {move.text}.")
        self.game.move(0, self.dice, move.steps, move.result.board.copy())

    def _resign(self, level: int) -> None:
        if not self.playing:
            raise GameActionError("no game in progress to resign")
        if level not in KINDS:
            raise GameActionError(f"resign level {level}: 1 single game, 2 gammon, 3 backgammon")
        if not self.game.actions:  # a game without an action has no .mat transcript
            raise GameActionError("play the opening roll first; you may resign after it")
        cube = self.state.cube.value
        points = points_for(level, cube, jacoby=self.state.jacoby_active)
        wins_match = not self.state.is_money and self.state.score[1] + points >= self.state.match_length
        if wins_match or accepts_resignation(self.bot, self.board, self.player, level):
            self.game.resign(1, level)  # an offer that wins the bot the match is always accepted
        else:
            self.say(f"{self.names[1]} declines your resignation of a {KINDS[level]}.")

    def _next(self) -> None:
        self._need(NEXT, "start the next game")
        self.game = Game(self.between)
        self.game.opening(self.rng)
        self.say(f"Game {len(self.records) + 1}. {describe_score(self.state, self.names)}. Opening roll "
                 f"{self.dice[0]}-{self.dice[1]}: {'you play' if self.player == 0 else self.names[1] + ' plays'} first.")
        self.awaiting = None

    # ------------------------------------------------------------------ the bot's turns

    def _advance(self) -> None:
        """Play the bot's turns, and the person's forced passes, until the person must act or the game ends."""
        while self.game.end is None:
            if self.player == 1:
                if self.dice is None:
                    if may_double(self.state, 1) and bool(
                            self.bot.double_decision(self.board[None], [self.state], np.array([1]))[0]):
                        self.say(f"{self.names[1]} doubles to {2 * self.state.cube.value}.")
                        self.awaiting = ANSWER
                        return
                    self.game.roll(self.rng)
                self._bot_move()
                continue
            if self.dice is None:
                if may_double(self.state, 0):
                    self.awaiting = ROLL
                    return
                self.game.roll(self.rng)
            legal = self.legal_moves()
            if legal[0]:  # a play with steps (the empty play alone: the roll is lost)
                self.awaiting = MOVING
                return
            self.say(f"You roll {self.dice[0]}-{self.dice[1]} and cannot move.")
            self.game.move(0, self.dice, (), legal[0].result.board.copy())
        self._finish()

    def _bot_move(self) -> None:
        steps, result = bot_play(self.bot, self.board, self.dice, self.state)
        move = format_steps(self.board, steps)
        self.bot_moved(self.dice, move)
        self.say(f"{self.names[1]} rolls {self.dice[0]}-{self.dice[1]}: {move or 'cannot move'}.")
        self.game.move(1, self.dice, steps, result)

    def bot_moved(self, dice: tuple[int, int], move: str) -> None:
        """Called with each of the bot's plays (``""`` when it cannot move), before it is said."""

    def _finish(self) -> None:
        """Score the game that has ended and say so."""
        end: GameEnd = self.game.end
        self.game_ending()
        self.records.append(self.game.record())
        self.between = award(self.game.state, end.winner, end.points)
        self.awaiting = OVER if self.done else NEXT
        who = "You win" if end.winner == 0 else f"{self.names[1]} wins"
        self.say(f"{who} {end.points} point{'s' if end.points > 1 else ''} ({end.how}).")

    def status(self) -> str:
        """What the person must do now, in one line."""
        if self.awaiting == OVER:
            if self.state.is_money:
                return f"Session over. {describe_score(self.state, self.names)}."
            won = self.state.score[0] >= self.state.match_length
            (s0, s1), (n0, n1) = self.record().final_score, self.names
            return (f"Match over: {'you won' if won else n1 + ' won'}. "
                    f"{self.state.match_length}-point match: {n0} {s0}, {n1} {s1}")
        if self.awaiting == NEXT:
            return f"Game over. {describe_score(self.state, self.names)}. Start the next game."
        if self.awaiting == ANSWER:
            return f"{self.names[1]} doubles to {2 * self.state.cube.value}: take or pass?"
        if self.awaiting == ROLL:
            return "Your turn: roll" + (" or double." if may_double(self.state, 0) else ".")
        return f"You rolled {self.dice[0]}-{self.dice[1]}: make your move."


def bot_play(bot: Agent, board: np.ndarray, dice, state: MatchState) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The bot's (player 1's) play of ``dice`` for the score ``state``: its steps and the result, sides swapped."""
    boards, rolled = board[None], np.array([dice], np.int8)
    moves = generate(boards, rolled)
    k = int(bot.choose_for_score(boards, rolled, moves, [state], [1])[0])
    return moves.steps_of(k), moves.results[k].copy()


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
