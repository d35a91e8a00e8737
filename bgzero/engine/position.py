"""The public face of the engine, after python-chess: ``Position``, ``Move``, ``LegalMoves``.

Everything here is an immutable value over the array convention of :mod:`bgzero.engine.board`;
the batched kernels (:mod:`bgzero.engine.movegen`) stay the primitive, this is for people and
tools that handle one position at a time.

>>> pos = Position.start()
>>> moves = pos.legal_moves((3, 1))
>>> len(moves)
16
>>> "8/5 6/5" in moves, "8/5(2)" in moves
(True, False)
>>> move = moves.parse("6/5 8/5")
>>> move
<Move 8/5 6/5>
>>> move.result.id  # the position after the play, the opponent on roll
'sGfwATDgc/ABMA'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from bgzero.engine.board import START, borne_off, pip_counts, render_ascii, swap_sides, validate
from bgzero.engine.ids import board_from_position_id, position_id
from bgzero.engine.movegen import legal_results, unpadded
from bgzero.engine.notation import check_dice, format_steps, illegal_play, play_text
from bgzero.errors import IllegalMoveError


class Position:
    """A validated board with the side on roll first; equal when the boards are equal.

    >>> pos = Position.start()
    >>> pos.id, pos.pip_counts()
    ('4HPwATDgc/ABMA', (167, 167))
    >>> Position.from_id('4HPwATDgc/ABMA') == pos
    True
    >>> pos.board[0].tolist()  # the side on roll's points 1-24, then its bar
    [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    """

    __slots__ = ("_board",)

    def __init__(self, board) -> None:
        arr = validate(board).copy()
        arr.setflags(write=False)
        self._board = arr

    @classmethod
    def _trusted(cls, board: np.ndarray) -> Position:
        """Wrap a board movegen produced, skipping validation (it is valid by construction)."""
        pos = cls.__new__(cls)
        arr = np.array(board, dtype=np.int8)
        arr.setflags(write=False)
        pos._board = arr
        return pos

    @classmethod
    def start(cls) -> Position:
        """The standard starting position."""
        return cls._trusted(START)

    @classmethod
    def from_id(cls, pid: str) -> Position:
        """The position of a gnubg Position ID; :class:`InvalidPositionError` if malformed."""
        return cls._trusted(board_from_position_id(pid))

    @property
    def board(self) -> np.ndarray:
        """The ``(2, 25)`` int8 board, read-only (writing raises ``ValueError``)."""
        return self._board

    @property
    def id(self) -> str:
        """The gnubg Position ID."""
        return position_id(self._board)

    def swapped(self) -> Position:
        """The same checkers with the other side on roll."""
        return Position._trusted(swap_sides(self._board))

    def pip_counts(self) -> tuple[int, int]:
        """Pips of (side on roll, other side); a bar checker counts 25."""
        side, other = pip_counts(self._board).tolist()
        return side, other

    def borne_off(self) -> tuple[int, int]:
        """Checkers borne off by (side on roll, other side)."""
        side, other = borne_off(self._board).tolist()
        return side, other

    def legal_moves(self, dice) -> LegalMoves:
        """Every distinct legal play of ``dice`` (a pair 1-6) from here."""
        return LegalMoves(self, dice)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._board.tobytes() == other._board.tobytes()

    def __hash__(self) -> int:
        return hash(self._board.tobytes())

    def __repr__(self) -> str:
        return f"Position.from_id({self.id!r})"

    def __str__(self) -> str:
        return render_ascii(self._board)


@dataclass(frozen=True)
class Move:
    """One legal play: where it starts, its steps, its gnubg notation and its result.

    Two moves are equal when they start and end in the same positions (rule 12), however
    their steps went. ``result`` has the sides swapped, the opponent on roll, ready for
    the next turn. The empty play of a roll that cannot be played is falsy.

    >>> move = Position.start().legal_moves((6, 5)).parse("24/13")
    >>> str(move), move.steps
    ('24/13', ((24, 18), (18, 13)))
    >>> bool(move)
    True
    """

    before: Position
    steps: tuple[tuple[int, int], ...] = field(compare=False)
    text: str = field(compare=False)
    result: Position

    def __str__(self) -> str:
        return self.text

    def __bool__(self) -> bool:
        return bool(self.steps)

    def __repr__(self) -> str:
        return f"<Move {self.text or '(no move)'}>"


class LegalMoves:
    """The distinct legal plays of one roll: iterate, ``len()``, ``in`` and ``parse``.

    A roll that cannot be played has exactly one play, the empty move ``""``, so that a
    game loop needs no special case.

    >>> moves = Position.start().legal_moves((6, 6))
    >>> len(moves), "24/18(2) 13/7(2)" in moves
    (11, True)
    >>> sorted(str(m) for m in moves)[:3]
    ['13/7 8/2(3)', '13/7(2) 8/2(2)', '13/7(3) 8/2']
    """

    def __init__(self, position: Position, dice) -> None:
        self.position = position
        self.dice = check_dice(dice)
        results, steps = legal_results(position.board, self.dice)
        moves = []
        for after, raw in zip(results, steps):
            pairs = tuple(unpadded(raw))
            moves.append(Move(position, pairs, format_steps(position.board, pairs), Position._trusted(after)))
        self._moves = tuple(moves)
        self._index = {after.tobytes(): k for k, after in enumerate(results)}

    def parse(self, text: str) -> Move:
        """The legal play ``text`` names; :class:`IllegalMoveError` says why if none.

        >>> Position.start().legal_moves((4, 2)).parse("8/4 6/4")
        <Move 8/4 6/4>
        >>> Position.start().legal_moves((4, 2)).parse("24/17")
        Traceback (most recent call last):
        ...
        bgzero.errors.IllegalMoveError: '24/17' moves 7 pips; 4-2 moves 2, 4 or 6
        """
        target = play_text(self.position.board, self.dice, text)
        k = self._index.get(target.tobytes())
        if k is None:
            raise illegal_play(text, self.dice, [m.text for m in self._moves])
        return self._moves[k]

    def __contains__(self, item) -> bool:
        if isinstance(item, str):
            try:
                self.parse(item)
            except IllegalMoveError:
                return False
            return True
        if isinstance(item, Move):
            return item.before == self.position and item.result.board.tobytes() in self._index
        return False

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __len__(self) -> int:
        return len(self._moves)

    def __getitem__(self, index: int) -> Move:
        return self._moves[index]

    def __repr__(self) -> str:
        shown = ", ".join(m.text or "(no move)" for m in self._moves[:5])
        more = ", ..." if len(self._moves) > 5 else ""
        return f"<LegalMoves {self.dice[0]}-{self.dice[1]} ({len(self)}): {shown}{more}>"
