"""Regression tests for issue 17: each hostile or clumsy input ends in a one-line error or a right answer."""

import time

import pytest

from bgzero.board import START
from bgzero.errors import IllegalMoveError
from bgzero.notation import parse_move


@pytest.mark.parametrize("filler", [" ", "\t", " /", " *", " ("])
def test_move_parsing_is_linear_in_the_line_length(filler):
    """A long run of spaces once took minutes (backtracking regexes); now it is refused at once."""
    text = "24/18" + filler * 100_000 + "x"
    started = time.perf_counter()
    with pytest.raises(IllegalMoveError):
        parse_move(START, (6, 5), text)
    assert time.perf_counter() - started < 1.0


def test_spaced_moves_still_parse():
    spaced = parse_move(START, (6, 5), "24 /  18 \t 13 / 8")
    assert (spaced == parse_move(START, (6, 5), "24/18 13/8")).all()
