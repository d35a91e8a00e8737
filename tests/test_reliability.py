"""Regression tests for issue 17: each hostile or clumsy input ends in a one-line error or a right answer."""

import io
import math
import time

import pytest
import torch

from bgzero.cli.replay import main as replay_main
from bgzero.engine.board import START
from bgzero.engine.notation import parse_move
from bgzero.errors import CheckpointError, IllegalMoveError
from bgzero.match.mat import parse_match, read_mat
from bgzero.match.record import MatchRecord
from bgzero.ui.replay import show_match
from bgzero.value.checkpoint import FORMAT, load_evaluator, save_checkpoint
from bgzero.value.net import NetConfig, ValueNet


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
    path = tmp_path / "x.pt"
    torch.save({"format": FORMAT, **state}, path)  # a file edited by hand: save_checkpoint would refuse it
    with pytest.raises(CheckpointError, match=message):
        load_evaluator(path)


def test_a_damaged_state_is_never_written(tmp_path):
    nan = {k: torch.full_like(v, math.nan) for k, v in _NET.state_dict().items()}
    with pytest.raises(CheckpointError, match="NaN"):
        save_checkpoint(tmp_path / "x.pt", dict(_BASE, model=nan))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [b"hello, I am text\n", bytes(range(256)) * 12, b"PK\x03\x04" + b"\0" * 100])
def test_a_foreign_file_is_refused_in_our_words(tmp_path, content):
    path = tmp_path / "x.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match="not a bgzero checkpoint") as e:
        load_evaluator(path)
    assert "weights_only" not in str(e.value) and "\n" not in str(e.value)


# --------------------------------------------------------------------------- bgzero-replay


def _golden_text() -> str:
    from tests.test_matfile import GOLDEN

    return GOLDEN.replace("$", "")


@pytest.mark.parametrize("encode", [lambda t: b"\xef\xbb\xbf" + t.encode(),                       # a UTF-8 BOM
                                    lambda t: ("; by J\xf6rg\n" + t).encode("latin-1"),        # latin-1 comment
                                    lambda t: b"# \xff\xfe\x80\n" + t.encode()])              # stray bytes
def test_replay_reads_boms_and_foreign_bytes(tmp_path, encode):
    path = tmp_path / "m.mat"
    path.write_bytes(encode(_golden_text()))
    assert read_mat(path).names == ("alice", "bob")


@pytest.mark.parametrize("suffix", [".mat", ".sgf"])
def test_replay_reads_a_bounded_amount(tmp_path, suffix, capsys):
    endless = tmp_path / f"zero{suffix}"
    endless.symlink_to("/dev/zero")
    started = time.perf_counter()
    with pytest.raises(SystemExit, match="is not a regular file"):  # refused before a byte is read
        replay_main([str(endless), "pace=0"])
    assert time.perf_counter() - started < 10
    huge = tmp_path / f"huge{suffix}"
    with open(huge, "wb") as f:  # a regular file past the limit: read no further than the limit
        f.truncate(1 << 31)
    with pytest.raises(SystemExit, match="larger than"):
        replay_main([str(huge), "pace=0"])


@pytest.mark.parametrize("pace", ["-1", "nan", "inf", "abc", "1e9"])
def test_replay_pace_is_checked(pace):
    with pytest.raises(SystemExit, match=r"^bgzero-replay: pace=.* is not allowed: .*, or enter$"):
        replay_main([__file__, f"pace={pace}"])


def test_replay_names_a_missing_file_and_checks_jacoby(tmp_path):
    with pytest.raises(SystemExit, match=r"^bgzero-replay: cannot read .*nope.mat: No such file or directory$"):
        replay_main([str(tmp_path / "nope.mat")])
    with pytest.raises(SystemExit, match=r"^bgzero-replay: jacoby='maybe' is not allowed: true or false$"):
        replay_main([__file__, "jacoby=maybe"])


def test_an_unfinished_match_is_not_called_a_money_session():
    record = parse_match(_golden_text())
    cut = MatchRecord(record.length, record.names, record.games[:1], record.games[1].score, record.jacoby)
    out = io.StringIO()
    show_match(cut, out=out, sleep=lambda _: None)
    assert "did not finish" in out.getvalue() and "Money session" not in out.getvalue()


def test_control_characters_in_a_mat_name_do_not_reach_the_terminal():
    """A name read from a file is printed by bgzero-replay: an ESC in it would drive the terminal."""
    record = parse_match(_golden_text().replace(" alice : 0 ", "\x1b[2Jalice : 0 ", 1))
    assert record.names[0] == "_[2Jalice"
