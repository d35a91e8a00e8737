"""XGID: decoded and written as gnubg's ``set xgid`` reads it, and accepted wherever a Position ID is."""

import re

import numpy as np
import pytest

from bgzero.engine.board import START
from bgzero.engine.ids import MatchInfo, match_id, match_info_from_id, position_id
from bgzero.engine.movegen import generate
from bgzero.engine.xgid import format_xgid, parse_xgid, read_position_text
from bgzero.errors import InvalidPositionError
from tests.gnubg_program import run_gnubg

START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def _positions(n: int, seed: int = 0) -> list[np.ndarray]:
    """Boards met in a random game (hits and bar checkers included), side on roll first."""
    rng = np.random.default_rng(seed)
    board, out = START.copy(), []
    while len(out) < n:
        dice = np.array([rng.integers(1, 7, 2)], np.int8)
        moves = generate(board[None], dice)
        board = moves.results[rng.integers(moves.counts()[0])].copy()
        if board.sum(axis=1).min() < 8:
            board = START.copy()
        out.append(board)
    return out


def test_start_position_reads_as_gnubg_start():
    board, info = parse_xgid(START_XGID)
    assert position_id(board) == "4HPwATDgc/ABMA"
    assert info == MatchInfo(dice_owner=0, turn=0, jacoby=False)
    assert format_xgid(board, info) == START_XGID


def test_round_trip_over_many_positions_and_states():
    for k, board in enumerate(_positions(60)):
        info = MatchInfo(cube_value=2 ** (k % 3), cube_owner=-1 if k % 3 == 0 else k % 2, dice_owner=k % 2,
                         turn=k % 2, dice=(0, 0) if k % 4 else (5, 3), match_length=7 if k % 5 else 0,
                         score=(k % 7, (k // 2) % 7) if k % 5 else (0, 0), crawford=False)
        again = parse_xgid(format_xgid(board, info))
        assert (again[0] == board).all() and again[1] == info


def test_all_three_spellings_read_the_same_position():
    board, info = parse_xgid(START_XGID)
    pid, mid = position_id(board), match_id(info)
    for text in (pid, f"{pid}:{mid}", START_XGID, START_XGID[len("XGID="):]):
        got_board, got_info = read_position_text(text)
        assert (got_board == board).all()
        assert got_info in (None, info)


@pytest.mark.parametrize("bad, words", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0", "fields"),
    ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
    ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", "character 24"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "dice"),
    ("XGID=-b----E-C---eE---c-e----C-:0:0:1:00:0:0:0:0:10", "16 checkers|more than 15"),
    ("4HPwATDgc/ABMA:cAk", "PositionID:MatchID"),
])
def test_malformed_xgid_is_refused_with_the_reason(bad, words):
    with pytest.raises(InvalidPositionError, match=words):
        read_position_text(bad)


def test_gnubg_reads_bgzero_xgids_as_the_same_position_and_match():
    cases = []
    for k, board in enumerate(_positions(12, seed=3)):
        info = MatchInfo(cube_value=2 ** (k % 3), cube_owner=-1 if k % 3 == 0 else k % 2, dice_owner=k % 2,
                         turn=k % 2, dice=(0, 0) if k % 2 else (6, 2), match_length=5, score=(k % 4, (k + 1) % 3))
        cases.append((board, info, format_xgid(board, info)))
    out = run_gnubg([c for _, _, x in cases for c in (f"set xgid {x}", "show board", "endofcase")])
    chunks = out.split("endofcase")[:-1]  # gnubg answers the unknown command with its name: a separator
    ids = [re.findall(r"Position ID: (\S+)\s+Match ID\s*: (\S+)", chunk)[-1] for chunk in chunks]
    assert len(ids) == len(cases), out[-2000:]
    for (board, info, xgid), (pid, mid) in zip(cases, ids):
        assert pid == position_id(board), xgid
        assert _seen_by_roller(match_info_from_id(mid)) == _seen_by_roller(info), xgid


def _seen_by_roller(info: MatchInfo) -> tuple:
    """The state from the view of the side on roll: gnubg's ``set xgid`` makes that side its player 1."""
    me = info.dice_owner
    owner = "centred" if info.cube_owner == -1 else "roller" if info.cube_owner == me else "other"
    return info.cube_value, owner, info.dice, info.score[me], info.score[1 - me], info.match_length


def test_gnubg_style_positional_arguments_fill_the_options_and_an_xgid_needs_no_quotes():
    from tests.conftest import compose_config

    def hint(*args):
        from bgzero.cli.options import compose
        from bgzero.cli.schemas import Hint

        cfg = compose(Hint, list(args), ("position", "dice"))
        return cfg.position, cfg.dice, cfg.agent

    assert hint("4HPwATDgc/ABMA", "31", "agent=strong") == ("4HPwATDgc/ABMA", 31, "strong")
    assert hint(START_XGID) == (START_XGID, None, "strong")  # its XGID= is no option
    assert hint(f"position={START_XGID}", "dice=3-1") == (START_XGID, "3-1", "strong")
    assert hint("dice=[3,1]", "4HPwATDgc/ABMA") == ("4HPwATDgc/ABMA", [3, 1], "strong")  # position still free
    assert compose_config("hint", "position=12345").position == "12345"  # text, as the option is


@pytest.mark.slow  # a fresh interpreter loads torch and the shipped net
def test_hint_takes_an_xgid_on_the_command_line_with_its_match_state():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "bgzero.cli.hint", START_XGID.replace(":0:0:0:0:10", ":2:0:0:3:10")],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "3-point match, player 0 1-away, player 1 3-away (score 2-0)" in out and "Cube analysis for player 0" in out
