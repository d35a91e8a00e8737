"""Regression tests for issue 17: each hostile or clumsy input ends in a one-line error or a right answer."""

import math
import time

import pytest
import torch

from bgzero.board import START
from bgzero.checkpoint import load_evaluator, save_checkpoint
from bgzero.errors import CheckpointError, IllegalMoveError
from bgzero.net import NetConfig, ValueNet
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


# --------------------------------------------------------------------------- checkpoints

_NET = ValueNet(NetConfig(hidden=[8]))
_BASE = {"model": _NET.state_dict(), "net_config": _NET.config_dict(), "encoder": "tesauro198", "games": 0}


@pytest.mark.parametrize("state,message", [
    (dict(_BASE, encoder="contact"), "gives 250 inputs, but net_config expects 198"),
    (dict(_BASE, net_config={**_BASE["net_config"], "x": 1}), "unknown keys x"),
    (dict(_BASE, race_model=_NET.state_dict()), "race_model but no race_net_config"),
    (dict(_BASE, games="many"), "games='many' is not a count"),
    (dict(_BASE, games=True), "games=True is not a count"),
    (dict(_BASE, positions=-3), "positions=-3"),
    (dict(_BASE, rng={"a": 1}), "rng field"),
    (dict(_BASE, torch_rng=torch.zeros(3)), "torch_rng field"),
    (dict(_BASE, model={k: torch.full_like(v, math.nan) for k, v in _NET.state_dict().items()}), "NaN"),
    (dict(_BASE, model={k: torch.full_like(v, math.inf) for k, v in _NET.state_dict().items()}), "infinite"),
])
def test_tampered_checkpoint_fields_are_refused_by_name(tmp_path, state, message):
    path = save_checkpoint(tmp_path / "x.pt", state)
    with pytest.raises(CheckpointError, match=message):
        load_evaluator(path)


@pytest.mark.parametrize("content", [b"hello, I am text\n", bytes(range(256)) * 12, b"PK\x03\x04" + b"\0" * 100])
def test_a_foreign_file_is_refused_in_our_words(tmp_path, content):
    path = tmp_path / "x.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match="not a bgzero checkpoint") as e:
        load_evaluator(path)
    assert "weights_only" not in str(e.value) and "\n" not in str(e.value)
