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

from bgzero.agents.base import Agent
from bgzero.cube import may_double
from bgzero.engine.board import pip_counts
from bgzero.errors import BgzeroError, ConfigError
from bgzero.match.mat import format_match
from bgzero.match.record import MatchRecord
from bgzero.match.sgf import format_sgf
from bgzero.ui.person_match import MOVING, OVER, ROLL, GameActionError, PersonMatch
from bgzero.ui.render import player_view

_LOG = 50  # messages kept for the page


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
        super().act("next")

    # ---- what the page sees

    def say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-_LOG]

    def bot_moved(self, dice, move: str) -> None:
        self.bot_turns.append({"dice": list(dice), "move": move})  # "" when it cannot move

    def view(self) -> dict:
        """Everything the page draws: player 0's view of the board, the dice, the cube, the legal plays."""
        mine = player_view(self.board, self.player)
        legal = self.legal_moves() if self.awaiting == MOVING else []
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
            "log": self.log[-_LOG:], "status": self.status(),
        }

    def _score(self) -> list[int]:
        """The score; a won match's not stopped at its length (:attr:`~bgzero.match.record.MatchRecord.final_score`)."""
        return self.record().final_score if self.awaiting == OVER else list(self.state.score)

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

    # The page sends a play as its text, parsed here for PersonMatch.act: nothing calls this with a Move
    def act(self, action: str, move: str | None = None, level: int = 1) -> None:  # type: ignore[override]
        """Apply one action of the person: roll, double, take, pass, move (the play's text), resign or next."""
        self.bot_turns = []
        played = None
        if action == "move" and self.awaiting == MOVING:
            if move is None:
                raise GameActionError("action move needs the play, e.g. move=\"8/5 6/5\"")
            played = self.legal_moves().parse(move)  # IllegalMoveError says why
        super().act(action, played, level)


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
            found = self._games.get(sid)
            if found is None or found[0] != client:
                raise UnknownSessionError(f"no game {sid!r} for this browser (it may have expired after "
                                          f"{self.idle_seconds / 60:g} idle minutes, or been replaced by newer ones)")
            owner, game, _ = found
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
