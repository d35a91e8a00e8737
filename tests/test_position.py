"""Position, Move and LegalMoves: the python-chess-like face of the engine."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import bgzero.engine.position
from bgzero.engine.board import START, render_ascii, to_gnubg
from bgzero.engine.movegen import legal_results
from bgzero.engine.position import LegalMoves, Move, Position
from bgzero.errors import IllegalMoveError, InvalidDiceError, InvalidPositionError
from tests.boards import board as make_board

START_ID = "4HPwATDgc/ABMA"
# Distinct plays of each opening roll (checked against gnubg_nn.moves below).
OPENING_COUNTS = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73, (4, 1): 14,
    (4, 2): 18, (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9,
    (5, 5): 4, (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14, (6, 5): 7, (6, 6): 11,
}


def test_doctests():
    assert doctest.testmod(bgzero.engine.position).failed == 0


# --- Position -------------------------------------------------------------------------------


def test_start():
    pos = Position.start()
    assert pos.id == START_ID
    assert (pos.board == START).all() and pos.board.dtype == np.int8
    assert pos.pip_counts() == (167, 167)
    assert pos.borne_off() == (0, 0)
    assert pos == Position(START) == Position.from_id(START_ID) == Position(START.tolist())


def test_board_is_read_only_and_a_copy():
    source = START.copy()
    pos = Position(source)
    source[0, 5] = 0
    assert pos.board[0, 5] == 5
    with pytest.raises(ValueError):
        pos.board[0, 5] = 4


def test_invalid_input():
    with pytest.raises(InvalidPositionError, match="shape"):
        Position(np.zeros((2, 24), dtype=np.int8))
    both = START.copy()
    both[1, [0, 5]] = [1, 4]  # the other side's 1-point is the side on roll's 24-point
    with pytest.raises(InvalidPositionError, match="held by both sides"):
        Position(both)
    with pytest.raises(InvalidPositionError, match="14 characters"):
        Position.from_id("4HPwATDgc")


def test_swapped():
    board = START.copy()
    board[0, 5] -= 1
    board[0, 24] += 1
    pos = Position(board)
    assert (pos.swapped().board == board[::-1]).all()
    assert pos.swapped().swapped() == pos
    assert pos.swapped().pip_counts() == pos.pip_counts()[::-1] == (167, 186)


def test_borne_off_and_pips():
    pos = Position(make_board({6: 2, 1: 1}, {"bar": 1}))
    assert pos.borne_off() == (12, 14)
    assert pos.pip_counts() == (13, 25)


def test_equality_hash_repr_str():
    a, b = Position.start(), Position(START.copy())
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.__eq__(START) is NotImplemented and a != "4HPwATDgc/ABMA"  # not an array, not an ID
    assert repr(a) == f"Position.from_id({START_ID!r})"
    assert eval(repr(a), {"Position": Position}) == a
    assert str(a) == render_ascii(START)


# --- LegalMoves and Move --------------------------------------------------------------------


@pytest.mark.parametrize("dice", list(OPENING_COUNTS))
def test_opening_counts(dice):
    moves = Position.start().legal_moves(dice)
    assert len(moves) == OPENING_COUNTS[dice] == len(Position.start().legal_moves(dice[::-1]))
    assert len({m.result for m in moves}) == len(moves)  # rule 12: distinct results


@pytest.mark.gnubg
def test_opening_counts_match_gnubg():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg_nn.moves is the reference move list")
    for (d1, d2), count in OPENING_COUNTS.items():
        assert len(gnubg_nn.moves(to_gnubg(START), d1, d2)) == count


def test_moves_match_the_generator():
    pos = Position.start()
    moves = pos.legal_moves((4, 2))
    results, steps = legal_results(START, (4, 2))
    assert [m.result.board.tobytes() for m in moves] == [r.tobytes() for r in results]
    for move, step in zip(moves, steps):
        assert move.before is pos
        assert move.steps == tuple(map(tuple, step[step[:, 0] >= 0].tolist()))
        assert str(move) == move.text and move
        assert moves[list(moves).index(move)] is move


def test_contains_and_parse():
    pos = Position.start()
    moves = pos.legal_moves((6, 1))
    point = moves.parse("13/7 8/7")
    assert moves.parse(" 8/7  13/7* ") is point
    assert "13/7 8/7" in moves and "8/7 13/7" in moves and point in moves
    assert "13/7" not in moves and "junk" not in moves and 42 not in moves
    other = Position.start().legal_moves((6, 1)).parse("13/7 8/7")
    assert other == point and hash(other) == hash(point)  # equal by start and result
    board = START.copy()
    board[1, 23], board[1, 22] = 1, 1  # the other side split its back checkers
    elsewhere = Position(board).legal_moves((6, 1))
    assert "13/7 8/7" in elsewhere and point not in elsewhere


def test_same_result_same_move():
    moves = Position.start().legal_moves((6, 5))
    assert moves.parse("24/13") is moves.parse("24/18/13") is moves.parse("24/18 18/13")


def test_parse_errors():
    moves = Position.start().legal_moves((6, 5))
    with pytest.raises(IllegalMoveError, match=r"^'24/18' is not a legal play for 6-5; legal plays: .* and 1 more$"):
        moves.parse("24/18")
    with pytest.raises(IllegalMoveError, match="malformed move 'x'"):
        moves.parse("x")
    with pytest.raises(IllegalMoveError, match="must be a str"):
        moves.parse(None)


@pytest.mark.parametrize("dice", [(0, 1), (7, 7), (1,), "ab", (1.5, 2)])
def test_bad_dice(dice):
    with pytest.raises(InvalidDiceError):
        Position.start().legal_moves(dice)


def test_no_play_is_one_empty_move():
    pos = Position(make_board({13: 1}, {18: 2, 17: 2}))  # the side on roll's 7 and 8 are blocked
    moves = pos.legal_moves((6, 5))
    assert len(moves) == 1
    (move,) = moves
    assert not move and move.text == "" and move.steps == ()
    assert move.result == pos.swapped()
    assert moves.parse("") is move and "" in moves
    assert repr(move) == "<Move (no move)>"
    assert repr(moves) == "<LegalMoves 6-5 (1): (no move)>"


def test_repr():
    moves = Position.start().legal_moves((3, 1))
    assert repr(moves.parse("8/5 6/5")) == "<Move 8/5 6/5>"
    assert repr(moves).startswith("<LegalMoves 3-1 (16): ") and repr(moves).endswith(", ...>")


def test_moves_are_immutable():
    move = Position.start().legal_moves((3, 1)).parse("8/5 6/5")
    with pytest.raises(AttributeError):
        move.text = "24/21 24/23"
    assert isinstance(move, Move)


def test_random_games_play_to_the_end():
    """Game loop on the public API only: every result is a legal, valid position."""
    rng = np.random.default_rng(5)
    for _ in range(5):
        pos = Position.start()
        for ply in range(1000):
            moves = pos.legal_moves(tuple(rng.integers(1, 7, 2)))
            assert isinstance(moves, LegalMoves)
            move = list(moves)[rng.integers(len(moves))]
            assert moves.parse(str(move)) is move
            pos = move.result
            if 0 in pos.pip_counts():
                break
        assert pos.borne_off()[1] == 15, ply  # the side that just moved has borne off all 15
