"""The records of a match: every action of every game, and how each game and the match ended.

A :class:`MatchRecord` is what :mod:`bgzero.match.runner` plays, what a person's match in
``bgzero-play`` or ``bgzero-web`` saves, and what the ``.mat`` and SGF files
(:mod:`bgzero.match.mat`, :mod:`bgzero.match.sgf`) hold; :mod:`bgzero.analysis.match` judges it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgzero.cube import MatchState, match_winner

MOVE, DOUBLE = "move", "double"  # with TAKE and PASS, the cube answers, the kinds of an Action
PASSED = 0  # MatchGame.kind of a game that ended on a passed double
KINDS = {1: "single game", 2: "gammon", 3: "backgammon"}


@dataclass(frozen=True)
class Action:
    """One transcript entry: ``player`` moves, doubles, takes or drops (``kind``).

    A move has its ``dice``, larger first, and its ``steps``: ``(from, to)`` pairs in the
    mover's numbering (25 the bar, 0 off) in gnubg's canonical order, highest source first,
    empty when the roll cannot be played.
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    steps: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: ``winner`` scores ``points`` for ``kind`` (1-3, or :data:`PASSED`) at ``cube``."""

    winner: int
    kind: int
    cube: int
    points: int
    resigned: bool = False

    @property
    def written(self) -> int:
        """The points the files write for the game: the cube after a pass, else the result times
        the cube (gnubg's ``.mat`` leaves the Jacoby rule out of its ``Wins`` line)."""
        return self.cube if self.kind == PASSED else self.kind * self.cube

    @property
    def how(self) -> str:
        """In words: ``gammon``, ``double passed``, ``single game, resigned``."""
        return "double passed" if self.kind == PASSED else KINDS[self.kind] + (", resigned" if self.resigned else "")


@dataclass(frozen=True)
class MatchGame:
    """A finished game: the score and Crawford flag it started with, its actions, and the result.

    ``kind`` is 1-3 (single, gammon, backgammon: borne off) or :data:`PASSED`; ``cube`` the
    cube value it was won at (for a pass, the value before the refused double); ``points``
    what the winner scored (gammons single under an active Jacoby rule; not capped at the
    match length). ``resigned``: the loser gave up a ``kind`` game before it was over (games
    read from gnubg's files, or given up by a person in bgzero-play or bgzero-web). A game left
    unfinished (:attr:`MatchRecord.unfinished`) has ``winner`` ``None`` and 0 for the rest.
    """

    score: tuple[int, int]
    crawford: bool
    actions: tuple[Action, ...]
    winner: int | None
    kind: int
    cube: int
    points: int
    resigned: bool = False

    @property
    def end(self) -> GameEnd | None:
        """How the game ended; ``None`` while unfinished."""
        return None if self.winner is None else GameEnd(self.winner, self.kind, self.cube, self.points, self.resigned)

    @classmethod
    def in_progress(cls, start: MatchState, actions) -> MatchGame:
        """A game saved unfinished: begun at ``start``, ``actions`` so far, no result."""
        return cls(start.score, start.crawford, tuple(actions), None, 0, 0, 0)


@dataclass(frozen=True)
class MatchRecord:
    """A match to ``length`` points, or a money session (``length`` 0), between ``names``.

    ``score`` is the final score: capped at the length in a match, running totals in money.
    ``unfinished``: the game in progress when the match was saved (``bgzero-play``'s ``save``,
    ``bgzero-web``'s downloads), starting at ``score``; it scores nothing.
    """

    length: int
    names: tuple[str, str]
    games: tuple[MatchGame, ...]
    score: tuple[int, int]
    jacoby: bool = False
    unfinished: MatchGame | None = None

    @property
    def winner(self) -> int | None:
        """The player who won the match; ``None`` for money."""
        return match_winner(MatchState(self.length, self.score)) if self.length else None

    @property
    def final_score(self) -> list[int]:
        """The score as gnubg shows it: the last game's points added in full, where :attr:`score`
        stops at the length (a gammon won at 2-away in a 3-point match ends 4-x, not 3-x)."""
        if not self.length or not self.games:
            return list(self.score)
        last = self.games[-1]
        assert last.winner is not None  # games holds the finished ones
        score = list(last.score)
        score[last.winner] += last.points
        return score

    @property
    def empty(self) -> bool:
        """No game with an action, finished or not: a file of it would hold nothing a reader can load."""
        return not self.games and self.unfinished is None
