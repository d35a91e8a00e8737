"""The board convention: validation errors and the ASCII picture."""

import numpy as np
import pytest

from bgzero.engine.board import START, pip_counts, render_ascii, swap_sides, validate
from bgzero.errors import InvalidPositionError


@pytest.mark.parametrize("change,message", [
    (lambda b: b.__setitem__((0, 3), -1), "negative"),
    (lambda b: b.__setitem__((0, 3), 9), "24 checkers on the board; at most 15"),
    (lambda b: b.__setitem__((1, 18), 1) or b.__setitem__((1, 23), 1), "held by both sides"),  # their 19 = my 6
])
def test_validation_names_the_problem(change, message):
    board = START.copy()
    change(board)
    with pytest.raises(InvalidPositionError, match=message):
        validate(board)


def test_wrong_shape():
    with pytest.raises(InvalidPositionError, match="shape"):
        validate(np.zeros((2, 24), np.int8))


def test_start_position_facts():
    assert pip_counts(START).tolist() == [167, 167]
    np.testing.assert_array_equal(swap_sides(START), START)


def test_ascii_shows_stacks_and_counts():
    board = START.copy()
    board[0, 5], board[0, 12] = 8, 2  # my 6-point: 8 checkers (total stays 15)
    lines = render_ascii(board).splitlines()
    bottom = lines[8:13]  # heights 4..0 of points 12..1, top to bottom
    six = len("|" + " " * 18 + "|   |")  # the 6-point's cell opens the right half
    assert [row[six:six + 3] for row in bottom] == [" 8 ", " X ", " X ", " X ", " X "]
    assert "pips" in lines[-2] and lines[-1].startswith("O:")
