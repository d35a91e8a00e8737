"""One game of a match or money session, pushed action by action: the one game state.

As python-chess's ``Board`` is for chess, a :class:`Game` is played by pushing actions: the
opening roll and each roll (:meth:`Game.opening`, :meth:`Game.roll`), :meth:`~Game.move`,
:meth:`~Game.double`, :meth:`~Game.answer` (take or pass) and :meth:`~Game.resign`. Every
action is held to the rules (docs/rules.md): players take turns from the opening roll on, a
double must be legal in its state and answered by the other player, a play must be a legal
play of its roll, and a game ends at a bear-off, a passed double or a resignation worth one,
two or three times the cube. A broken rule is a :class:`RuleBroken`, whose message the file
readers prefix with the place in their file; a move chosen from
:func:`~bgzero.engine.movegen.generate` passes its result board and skips that check.

The match runner, a person's match against a bot and the ``.mat`` and SGF readers play
through it; :func:`walk` replays a recorded game for the writers, the viewers and analysis.
How a game ended is a :class:`~bgzero.match.record.GameEnd`; :func:`play_game` plays one without the cube.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from bgzero.cube import PASS, TAKE, IllegalCubeActionError, MatchState, after_take, drop_points, points_for
from bgzero.engine.board import START
from bgzero.engine.game import check_length, game_results, opening_roll, roll
from bgzero.engine.movegen import generate
from bgzero.engine.notation import parse_move
from bgzero.errors import IllegalMoveError, InvalidDiceError
from bgzero.match.record import DOUBLE, KINDS, MOVE, PASSED, Action, GameEnd, MatchGame


class RuleBroken(ValueError):
    """An action the rules do not allow here; the message says which rule."""


class Game:
    """One game, from the match state it starts in, as its actions are pushed.

    ``board`` has the side on roll in row 0 (after a move, the other side, even when the game
    has ended); ``on_roll`` is known from the opening roll or the opening play on; ``dice`` is
    the roll waiting for its play, or ``None``; ``end`` the :class:`GameEnd` once it is over.
    """

    def __init__(self, state: MatchState):
        self.start = self.state = state
        self.board = START
        self.actions: list[Action] = []
        self.on_roll: int | None = None
        self.dice: tuple[int, int] | None = None
        self.end: GameEnd | None = None

    @property
    def doubler(self) -> int | None:
        """The player whose double waits for its answer, if one does."""
        return self.actions[-1].player if self.actions and self.actions[-1].kind == DOUBLE else None

    # ------------------------------------------------------------------ dice

    def opening(self, rng: np.random.Generator) -> None:
        """The opening roll: one die each, the higher moves first with both (rule 5)."""
        self.on_roll, self.dice = opening_roll(rng)

    def roll(self, rng: np.random.Generator) -> tuple[int, int]:
        """The dice of the player on roll, larger first."""
        d1, d2 = roll(rng)
        self.dice = (max(d1, d2), min(d1, d2))
        return self.dice

    # ------------------------------------------------------------------ actions

    def move(self, player: int, dice: tuple[int, int], steps, result: np.ndarray | None = None) -> None:
        """``player`` plays ``steps`` (``(from, to)`` in their own numbering) with ``dice``, larger first.

        ``result``: the board after the play (sides swapped) where the caller has it from
        :func:`~bgzero.engine.movegen.generate`, trusted; else the play is checked.
        """
        self._turn(player, "plays")
        steps = tuple(sorted(steps, reverse=True))
        if result is None:
            try:
                result = parse_move(self.board, dice, " ".join(f"{s}/{d}" for s, d in steps))
            except (IllegalMoveError, InvalidDiceError) as e:
                raise RuleBroken(str(e)) from None
        self.actions.append(Action(player, MOVE, tuple(dice), steps))
        self.board, self.on_roll, self.dice = result, 1 - player, None
        kind = abs(int(game_results(self.board)))  # the loser is on roll now
        if kind:
            cube = self.state.cube.value
            self.end = GameEnd(player, kind, cube, points_for(kind, cube, jacoby=self.state.jacoby_active))
        else:
            check_length(sum(a.kind == MOVE for a in self.actions))

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
        """``player`` takes (``take``) or passes the double waiting for an answer."""
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

    def resign(self, winner: int, kind: int) -> None:
        """The other player gives up a ``kind`` game (1-3) to ``winner``."""
        self._open()
        if self.doubler is not None:
            raise RuleBroken("a resignation while a double waits for its answer")
        if kind not in KINDS:
            raise RuleBroken(f"a resignation of {kind}: 1 single game, 2 gammon, 3 backgammon")
        cube = self.state.cube.value
        self.end = GameEnd(winner, kind, cube, points_for(kind, cube, jacoby=self.state.jacoby_active), True)

    def resign_written(self, winner: int, written: int) -> None:
        """A resignation as the files write it: ``written`` points, the result times the cube."""
        cube = self.state.cube.value
        if written % cube or written // cube not in KINDS:
            raise RuleBroken(f"{written} points is no resignation at cube {cube} (1, 2 or 3 times the cube)")
        self.resign(winner, written // cube)

    def push(self, action: Action) -> None:
        """A recorded action, checked like any other."""
        if action.kind == MOVE:
            self.move(action.player, action.dice, action.steps)
        elif action.kind == DOUBLE:
            self.double(action.player)
        else:
            self.answer(action.player, action.kind == TAKE)

    def record(self) -> MatchGame:
        """The game so far: finished where it has ended, else unfinished (``winner`` None)."""
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


@dataclass(frozen=True)
class Moment:
    """A recorded game at one point: the board (``on_roll`` in row 0) and the match state."""

    board: np.ndarray
    state: MatchState
    on_roll: int


def start_of(game: MatchGame, length: int = 0, jacoby: bool = False) -> Moment:
    """A recorded game before its first action: the opening player's is the first action's, or
    the loser's where the game was given up before any. ``length`` and ``jacoby`` are the match's
    (the record keeps the score and the Crawford flag)."""
    first = game.actions[0].player if game.actions else 1 - (game.winner or 0)
    return Moment(START, MatchState(length, game.score, crawford=game.crawford, jacoby=jacoby), first)


def walk(game: MatchGame, length: int = 0, jacoby: bool = False) -> Iterator[tuple[Action, Moment, Moment]]:
    """Each action of a recorded game, checked under the rules, with the game just before and just after it."""
    before = start_of(game, length, jacoby)
    g = Game(before.state)
    for action in game.actions:
        g.push(action)
        after = Moment(g.board, g.state, g.on_roll)
        yield action, before, after
        before = after


def play_game(agents, seed=None) -> MatchGame:
    """One game to the end without the cube; ``agents`` is one agent for both sides or ``(p0, p1)``.

    The dice come only from ``seed``, and an agent is asked only when it has a choice, so a
    forced play or a lost turn draws nothing from an agent's own randomness.
    """
    pair = tuple(agents) if isinstance(agents, (tuple, list)) else (agents, agents)
    rng = np.random.default_rng(seed)
    game = Game(MatchState(0))
    game.opening(rng)
    while game.end is None:
        if game.dice is None:
            game.roll(rng)
        board, dice = game.board[None], np.array([game.dice], np.int8)
        moves = generate(board, dice)
        k = int(pair[game.on_roll].choose(board, dice, moves)[0]) if len(moves.results) > 1 else 0
        game.move(game.on_roll, game.dice, moves.steps_of(k), moves.results[k].copy())
    return game.record()
