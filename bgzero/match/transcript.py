"""A game transcript replayed action by action under the rules: the one check behind every match file.

The ``.mat`` and SGF readers (:mod:`bgzero.match.mat`, :mod:`bgzero.match.sgf`) parse their
formats and hand each action to a :class:`GameReplay`: players take turns from the opening
roll on, a double must be legal in its state and answered by the other player, a play must
be a legal play of its roll, and a game ends at a bear-off, a dropped double or a
resignation worth one, two or three times the cube (docs/rules.md). A broken rule is a
:class:`RuleBroken`, whose message the reader prefixes with the place in its file.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgzero.cube import PASS, TAKE, IllegalCubeActionError, MatchState, after_take, drop_points, points_for
from bgzero.engine.board import START
from bgzero.engine.game import game_results
from bgzero.engine.notation import parse_move
from bgzero.errors import IllegalMoveError, InvalidDiceError
from bgzero.match.record import DOUBLE, MOVE, PASSED, Action, MatchGame


class RuleBroken(ValueError):
    """An action the rules do not allow here; the message says which rule."""


@dataclass(frozen=True)
class GameEnd:
    """How a replayed game ended: ``kind`` 1-3 or :data:`~bgzero.match.record.PASSED`, ``points`` scored."""

    winner: int
    kind: int
    cube: int
    points: int
    resigned: bool = False

    @property
    def written(self) -> int:
        """The points the files write for the game: the cube after a drop, else the result times
        the cube (gnubg's ``.mat`` leaves the Jacoby rule out of its ``Wins`` line)."""
        return self.cube if self.kind == PASSED else self.kind * self.cube


class GameReplay:
    """The state of one game as its actions are read, from the match state it starts in."""

    def __init__(self, state: MatchState):
        self.start = self.state = state
        self.board = START  # the side on roll in row 0
        self.actions: list[Action] = []
        self.on_roll: int | None = None  # known from the opening play on
        self.end: GameEnd | None = None

    @property
    def doubler(self) -> int | None:
        """The player whose double waits for its answer, if one does."""
        return self.actions[-1].player if self.actions and self.actions[-1].kind == DOUBLE else None

    def move(self, player: int, dice: tuple[int, int], steps: tuple[tuple[int, int], ...]) -> None:
        """``player`` plays ``steps`` (``(from, to)`` in their own numbering) with ``dice``, larger first."""
        self._turn(player, "plays")
        try:
            self.board = parse_move(self.board, dice, " ".join(f"{s}/{d}" for s, d in steps))
        except (IllegalMoveError, InvalidDiceError) as e:
            raise RuleBroken(str(e)) from None
        self.actions.append(Action(player, MOVE, dice, steps))
        self.on_roll = 1 - player
        kind = abs(int(game_results(self.board)))
        if kind:
            cube = self.state.cube.value
            self.end = GameEnd(player, kind, cube, points_for(kind, cube, jacoby=self.state.jacoby_active))

    def double(self, player: int) -> int:
        """``player`` doubles; returns the value the cube goes to."""
        self._turn(player, "doubles")
        if not self.actions:
            raise RuleBroken("a double before the opening roll")
        try:
            value = after_take(self.state, player).cube.value
        except IllegalCubeActionError as e:
            raise RuleBroken(str(e)) from None
        self.actions.append(Action(player, DOUBLE))
        return value

    def answer(self, player: int, take: bool) -> None:
        """``player`` takes (``take``) or drops the double waiting for an answer."""
        self._open()
        doubler = self.doubler
        if doubler is None:
            raise RuleBroken("does not answer a double")
        if player == doubler:
            raise RuleBroken(f"player {player} answers their own double")
        if take:
            self.actions.append(Action(player, TAKE))
            self.state, self.on_roll = after_take(self.state, doubler), doubler
        else:
            self.actions.append(Action(player, PASS))
            cube = drop_points(self.state)
            self.end = GameEnd(doubler, PASSED, cube, cube)

    def resign(self, winner: int, written: int) -> None:
        """The other player gives the game up to ``winner`` for ``written`` points: the result times the cube."""
        self._open()
        if self.doubler is not None:
            raise RuleBroken("a resignation while a double waits for its answer")
        cube = self.state.cube.value
        if written % cube or written // cube not in (1, 2, 3):
            raise RuleBroken(f"{written} points is no resignation at cube {cube} (1, 2 or 3 times the cube)")
        kind = written // cube
        self.end = GameEnd(winner, kind, cube, points_for(kind, cube, jacoby=self.state.jacoby_active), True)

    def game(self) -> MatchGame:
        """The game as replayed so far: finished where it has ended, else unfinished (``winner`` None)."""
        start, end = self.start, self.end
        if end is None:
            return MatchGame.in_progress(start, self.actions)
        return MatchGame(start.score, start.crawford, tuple(self.actions), end.winner, end.kind, end.cube, end.points,
                         end.resigned)

    def _open(self) -> None:
        if self.end is not None:
            raise RuleBroken("an action after the game is over")

    def _turn(self, player: int, does: str) -> None:
        """Refuse a play or a double out of turn, or one where a double waits for its answer."""
        self._open()
        if self.doubler is not None:
            raise RuleBroken("the double must be taken or dropped first")
        if self.on_roll not in (None, player):
            raise RuleBroken(f"player {player} {does}, but player {self.on_roll} is on roll")
