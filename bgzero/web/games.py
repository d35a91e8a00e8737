"""A person's match against an agent in the browser, kept on the server, one per session id.

The game lives on the server, not in the page, for three reasons: the dice come from the
session's seeded generator (a page cannot pick its own rolls, and a seed replays the
match), the bot's moves and cube answers run next to the agents, and the finished games
are :mod:`bgzero.match.record` records that save as ``.mat`` or ``.sgf`` exactly as ``bgzero-play``'s do.
The page only draws :meth:`WebGame.view` and sends actions; composing a move checker by
checker (and undoing those steps) happens in the page, which sends the finished play.

Unlike :class:`bgzero.ui.play.PlaySession`, which blocks reading a stream, a :class:`WebGame`
is a state machine: each action advances it (the bot playing its turns at once) until the
person must act again. Both are a :class:`~bgzero.ui.person_match.PersonMatch`, which
holds the match and applies the rules. :class:`Sessions` holds a bounded number of them,
each owned by the browser that made it.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

import numpy as np

from bgzero.agents.base import Agent
from bgzero.cube import may_double
from bgzero.engine.board import pip_counts
from bgzero.engine.notation import format_steps
from bgzero.engine.position import Position
from bgzero.errors import BgzeroError, ConfigError
from bgzero.match.mat import format_match
from bgzero.match.record import MatchRecord
from bgzero.match.sgf import format_sgf
from bgzero.ui.person_match import GameOver, PersonMatch, bot_play
from bgzero.ui.render import KINDS, describe_score, player_view
from bgzero.web.watch import final_score

ROLL, MOVING, ANSWER, NEXT, OVER = "roll", "move", "answer", "next", "over"  # what the person must do
_LOG = 50  # messages kept for the page


class GameActionError(BgzeroError, ValueError):
    """An action that is not possible now (a move while the cube is asked, a double without access...)."""


class WebGame(PersonMatch):
    """A match (``length`` points) or money session (``length`` 0, ``games`` games) of player 0 against ``bot``."""

    def __init__(self, bot: Agent, bot_name: str, *, length: int = 5, games: int = 0, jacoby: bool = False,
                 seed: int = 0, name: str = "you"):
        if not 0 <= length <= 25:
            raise ConfigError(f"length={length}: play a 1- to 25-point match, or 0 for money")
        if not 0 <= games <= 1000:
            raise ConfigError(f"games={games}: a money session of 0 (until you stop) to 1000 games")
        super().__init__(bot, (name, bot_name), length=length, games=games, jacoby=jacoby, seed=seed)
        self.log: list[str] = []
        self.bot_turns: list[dict] = []  # the bot's turns since the person's last action, for clients to show
        self.lock = threading.Lock()  # one action at a time per game
        self._start_game()

    # ---- what the page sees

    def view(self) -> dict:
        """Everything the page draws: player 0's view of the board, the dice, the cube, the legal plays."""
        mine = player_view(self.board, self.player)
        legal = Position(self.board).legal_moves(self.dice) if self.awaiting == MOVING else []
        return {
            "names": list(self.names), "length": self.state.match_length, "score": self._score(),
            "crawford": self.state.crawford, "seed": self.seed, "game": len(self.records) + (self.awaiting != OVER),
            "games_finished": len(self.records),
            "cube": {"value": self.state.cube.value, "owner": self.state.cube.owner},
            "board": mine.tolist(),  # row 0 the person's checkers, row 1 the bot's, each in its own numbering
            "pips": pip_counts(mine).tolist(),  # the person's, the bot's
            "bot_turns": list(self.bot_turns),  # since the person's last action: dice and move, in order
            "on_roll": self.player, "dice": list(self.dice) if self.dice else None, "awaiting": self.awaiting,
            "may_double": self.awaiting == ROLL and may_double(self.state, 0),
            "legal": [{"move": m.text, "hops": [list(h) for h in m.steps]} for m in legal],
            "log": self.log[-_LOG:], "status": self._status(),
        }

    def _score(self) -> list[int]:
        """The score; a won match's not stopped at its length (:func:`~bgzero.web.watch.final_score`)."""
        return final_score(self.record()) if self.awaiting == OVER else list(self.state.score)

    def _status(self) -> str:
        if self.awaiting == OVER:
            won = self.state.score[0] >= self.state.match_length
            (s0, s1), (n0, n1) = self._score(), self.names
            return (f"Match over: {'you won' if won else n1 + ' won'}. "
                    f"{self.state.match_length}-point match: {n0} {s0}, {n1} {s1}")
        if self.awaiting == NEXT:
            return f"Game over. {describe_score(self.state, self.names)}. Start the next game."
        if self.awaiting == ANSWER:
            return f"{self.names[1]} doubles to {2 * self.state.cube.value}: take or pass?"
        if self.awaiting == ROLL:
            return "Your turn: roll" + (" or double." if may_double(self.state, 0) else ".")
        return f"You rolled {self.dice[0]}-{self.dice[1]}: make your move."

    def mat(self) -> str:
        """The match so far as ``.mat`` text."""
        return format_match(self._saved(), comments=(f"bgzero-web: {self.names[0]} against {self.names[1]}, "
                                                     f"seed {self.seed}",))

    def sgf(self) -> str:
        """The match so far as gnubg's SGF, which ``load match`` reads (SGF keeps no comments)."""
        return format_sgf(self._saved(), application="bgzero-web")

    def _saved(self) -> MatchRecord:
        """:meth:`record`, refused while it holds no action: a file without a game reads nowhere."""
        record = self.record()
        if record.empty:
            raise GameActionError("nothing to save yet: no game has an action (play the opening roll first)")
        return record

    # ---- the person's actions

    def act(self, action: str, move: str | None = None, level: int = 1) -> None:
        """Apply one action of the person: roll, double, take, pass, move, resign or next."""
        handlers = {"roll": self._roll, "double": self._double, "take": lambda: self._answer(True),
                    "pass": lambda: self._answer(False), "move": lambda: self._move(move),
                    "resign": lambda: self._resign(level), "next": self._next}
        if action not in handlers:
            raise GameActionError(f"action {action!r}: use one of {', '.join(handlers)}")
        self.bot_turns = []
        try:
            handlers[action]()
        except GameOver as end:
            self._end(end)

    def _need(self, awaiting: str, action: str) -> None:
        if self.awaiting != awaiting:
            raise GameActionError(f"cannot {action} now: {self._status()}")

    def _roll(self) -> None:
        self._need(ROLL, "roll")
        self.roll_dice()
        self._advance()

    def _double(self) -> None:
        self._need(ROLL, "double")
        if not may_double(self.state, 0):
            raise GameActionError("you may not double now (the cube is not yours, or this is the Crawford game)")
        take = bool(self.bot.take_decision(self.board[None], [self.state], np.array([0]))[0])
        self._say(f"You double to {2 * self.state.cube.value}; {self.names[1]} {'takes' if take else 'passes'}.")
        self.cube_answer(0, take)
        self.roll_dice()
        self._advance()

    def _answer(self, take: bool) -> None:
        self._need(ANSWER, "take or pass")
        self._say(f"You {'take' if take else 'pass'}.")
        self.cube_answer(1, take)
        self.roll_dice()
        self._advance()

    def _move(self, text: str | None) -> None:
        self._need(MOVING, "move")
        if text is None:
            raise GameActionError("action move needs the play, e.g. move=\"8/5 6/5\"")
        played = Position(self.board).legal_moves(self.dice).parse(text)  # IllegalMoveError says why
        self._say(f"You play {self.dice[0]}-{self.dice[1]}: {played.text}.")
        self.moved(0, played.steps, played.result.board.copy())
        self._advance()

    def _resign(self, level: int) -> None:
        if self.awaiting in (NEXT, OVER):
            raise GameActionError("no game in progress to resign")
        if level not in KINDS:
            raise GameActionError(f"resign level {level}: 1 single game, 2 gammon, 3 backgammon")
        if not self.actions:
            raise GameActionError("play the opening roll first; you may resign after it")
        end = self.resignation(level)
        if end is None:
            self._say(f"{self.names[1]} declines your resignation of a {KINDS[level]}.")
            return
        raise end

    def _next(self) -> None:
        self._need(NEXT, "start the next game")
        self._start_game()

    # ---- the game loop

    def _start_game(self) -> None:
        self.start_game()
        self._say(f"Game {len(self.records) + 1}. Opening roll {self.dice[0]}-{self.dice[1]}: "
                  f"{'you play' if self.player == 0 else self.names[1] + ' plays'} first.")
        try:
            self._advance()
        except GameOver as end:
            self._end(end)

    def _advance(self) -> None:
        """Play the bot's turns, and the person's forced passes, until the person must act."""
        while True:
            if self.player == 1:
                if self.dice is None:
                    if may_double(self.state, 1) and bool(
                            self.bot.double_decision(self.board[None], [self.state], np.array([1]))[0]):
                        self._say(f"{self.names[1]} doubles to {2 * self.state.cube.value}.")
                        self.awaiting = ANSWER
                        return
                    self.roll_dice()
                self._bot_move()
                continue
            if self.dice is None:
                if may_double(self.state, 0):
                    self.awaiting = ROLL
                    return
                self.roll_dice()
            if Position(self.board).legal_moves(self.dice)[0]:  # the empty play alone: no move
                self.awaiting = MOVING
                return
            self._say(f"You roll {self.dice[0]}-{self.dice[1]} and cannot move.")
            self.moved(0, (), Position(self.board).legal_moves(self.dice)[0].result.board.copy())

    def _bot_move(self) -> None:
        steps, result = bot_play(self.bot, self.board, self.dice, self.state)
        move = format_steps(self.board, steps)
        self.bot_turns.append({"dice": list(self.dice), "move": move})  # "" when it cannot move
        self._say(f"{self.names[1]} rolls {self.dice[0]}-{self.dice[1]}: {move or 'cannot move'}.")
        self.moved(1, steps, result)

    def _end(self, end: GameOver) -> None:
        self._say(self.finish(end))
        self.awaiting = OVER if self.done else NEXT

    def _say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-_LOG]


class UnknownSessionError(BgzeroError, LookupError):
    """A session id this browser does not hold (never made, another browser's, or expired)."""


class ServerFullError(BgzeroError):
    """The server holds its most games, none of them the asking browser's; answered 503."""


class Sessions:
    """Games by session id, each owned by the browser (client id) that made it: at most
    ``per_client`` a browser (its own least recently used is dropped for a new one) and
    ``limit`` in all (a new one is then refused: one browser never drops another's game);
    a game left alone ``idle_seconds`` expires."""

    def __init__(self, limit: int = 64, per_client: int = 4, idle_seconds: float = 3600.0, clock=time.monotonic):
        if limit < 1 or per_client < 1:
            raise ConfigError(f"sessions={limit}, games_per_client={per_client}: each must be at least 1")
        if idle_seconds <= 0:
            raise ConfigError(f"idle_seconds={idle_seconds} must be positive")
        self.limit, self.per_client, self.idle_seconds, self._clock = limit, per_client, idle_seconds, clock
        self._games: OrderedDict[str, tuple[str, WebGame, float]] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self._clock()
        for sid in [sid for sid, (_, _, seen) in self._games.items() if now - seen > self.idle_seconds]:
            del self._games[sid]

    def add(self, game: WebGame, client: str) -> str:
        sid = secrets.token_urlsafe(12)
        with self._lock:
            self._expire()
            own = [k for k, (owner, _, _) in self._games.items() if owner == client]
            if len(own) >= self.per_client:
                del self._games[own[0]]
            elif len(self._games) >= self.limit:
                raise ServerFullError(f"the server holds its most games ({self.limit}); try again when one "
                                      f"has been left alone {self.idle_seconds / 60:g} minutes")
            self._games[sid] = (client, game, self._clock())
        return sid

    def get(self, sid: str, client: str | None) -> WebGame:
        with self._lock:
            self._expire()
            owner, game, _ = self._games.get(sid, (None, None, 0))
            if game is None or owner != client:
                raise UnknownSessionError(f"no game {sid!r} for this browser (it may have expired after "
                                          f"{self.idle_seconds / 60:g} idle minutes, or been replaced by newer ones)")
            self._games[sid] = (owner, game, self._clock())
            self._games.move_to_end(sid)
            return game

    def current(self, client: str | None) -> str:
        """The id of ``client``'s most recently used game, for a page reloaded."""
        with self._lock:
            self._expire()
            mine = [sid for sid, (owner, _, _) in self._games.items() if owner == client]
        if not mine:
            raise UnknownSessionError("this browser has no game on the server")
        return mine[-1]

    def __len__(self) -> int:
        return len(self._games)
