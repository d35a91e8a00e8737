"""The package's top-level docstring examples stay true."""

import doctest

import bgzero


def test_top_level_doctests():
    assert doctest.testmod(bgzero).failed == 0
