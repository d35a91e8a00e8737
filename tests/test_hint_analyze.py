"""bgzero-hint and bgzero-analyze on a tiny untrained net, so no trained weights are needed."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bgzero.analysis.position import best_moves, cube_analysis, evaluate_position, rank_moves
from bgzero.cli import analyze, hint
from bgzero.cube import cube_decision, from_match_info
from bgzero.engine.board import START
from bgzero.engine.classify import BEAROFF, CONTACT, RACE
from bgzero.engine.ids import GameState, MatchInfo, match_id, position_id
from bgzero.engine.movegen import generate
from bgzero.engine.parse import parse_dice, read_match_id, read_position
from bgzero.errors import ConfigError, InvalidDiceError, InvalidMatchIdError, InvalidPositionError
from bgzero.value.checkpoint import load_evaluator
from bgzero.value.probs import equity, flip
from tests.boards import board
from tests.conftest import compose_config

START_ID = "4HPwATDgc/ABMA"


RACE_BOARD = board({6: 5, 8: 5, 10: 5}, {5: 5, 9: 5, 11: 5})
BEAROFF_BOARD = board({1: 3, 2: 3, 6: 2}, {3: 4, 5: 4})
BAR_BOARD = board({25: 1, 13: 5, 8: 3, 6: 5, 24: 1}, {24: 2, 13: 5, 8: 3, 6: 4, 2: 1})
BOARDS = [START, RACE_BOARD, BEAROFF_BOARD, BAR_BOARD]


@pytest.fixture(scope="module")
def checkpoint(tiny_checkpoint):
    return tiny_checkpoint


@pytest.fixture(scope="module")
def evaluator(checkpoint):
    return load_evaluator(checkpoint)


@pytest.mark.parametrize("board", BOARDS, ids=["start", "race", "bearoff", "bar"])
@pytest.mark.parametrize("dice", [(3, 1), (6, 6), (5, 2)])
def test_rank_moves_lists_every_legal_move_best_first(evaluator, board, dice):
    moves = generate(board[None], np.array([dice], np.int8))
    ranked = rank_moves(evaluator, board, dice, ply=1)
    assert len(ranked) == len(moves.results)
    assert {m.result for m in ranked} == {position_id(r) for r in moves.results}
    keys = [(-m.ply, -m.equity) for m in ranked]
    assert keys == sorted(keys)
    assert ranked[0].ply == 1
    for m in ranked:
        assert m.equity == pytest.approx(float(equity(np.array(m.probs))), abs=1e-5)
        win, wg, wbg, lg, lbg = m.probs
        assert 0 <= wbg <= wg <= win <= 1 and 0 <= lbg <= lg <= 1 - win + 1e-6


def test_rank_moves_scores_from_the_movers_side(evaluator):
    ranked = rank_moves(evaluator, START, (3, 1), ply=0)
    after = read_position(ranked[0].result)  # the opponent on roll
    np.testing.assert_allclose(ranked[0].probs, flip(evaluator.probs(after[None]))[0], atol=1e-6)
    assert ranked[0].equity == pytest.approx(-float(equity(evaluator.probs(after[None])[0])), abs=1e-6)


def test_start_position_with_31_has_16_moves(evaluator):
    ranked = rank_moves(evaluator, read_position(START_ID), (3, 1))
    assert len(ranked) == 16
    names = {m.move for m in ranked}
    assert len(names) == 16 and {"8/5 6/5", "24/23 13/10", "13/10 8/7", "6/2"} <= names


def test_best_moves_in_a_batch_match_rank_moves(evaluator):
    boards = np.stack(BOARDS)
    dice = np.array([(3, 1), (6, 6), (2, 1), (4, 3)], np.int8)
    best = best_moves(evaluator, boards, dice, ply=1)
    for got, want in zip(best, [rank_moves(evaluator, b, d, ply=1)[0] for b, d in zip(boards, dice.tolist())]):
        assert (got.move, got.result, got.ply) == (want.move, want.result, want.ply)
        np.testing.assert_allclose(got.probs, want.probs, atol=1e-6)  # batch size changes float rounding


def test_evaluate_position(evaluator):
    ev = evaluate_position(evaluator, START, ply=0)
    np.testing.assert_allclose(ev.probs, evaluator.probs(START[None])[0], atol=1e-6)
    assert ev.equity == pytest.approx(float(equity(np.array(ev.probs))), abs=1e-6)


@pytest.mark.parametrize("board, kind", [(START, CONTACT), (RACE_BOARD, RACE), (BEAROFF_BOARD, BEAROFF)])
def test_cube_analysis_money_and_match(evaluator, board, kind):
    for info in (MatchInfo(), MatchInfo(match_length=7, score=(2, 4), dice_owner=1, turn=1)):
        cube = cube_analysis(evaluator, board, info, ply=0)
        assert cube.kind == kind and cube.player == info.dice_owner and cube.reason is None
        expected = cube_decision(cube.evaluation.probs, from_match_info(info), info.dice_owner, cube.x)
        assert cube.decision == expected
        assert cube.decision.equities.double_pass == 1.0


def test_a_deeper_cube_analysis_uses_gnubgs_deeper_cube_life(evaluator):
    """gnubg's leaves get x = 0.76 in a 0- or 1-ply contact search and 0.68 in a 2-ply one; the hint shows which."""
    assert [cube_analysis(evaluator, START, MatchInfo(), ply=p).x for p in (0, 1, 2)] == pytest.approx([0.76, 0.76, 0.68])


def test_no_cube_action_when_the_opponent_owns_the_cube(evaluator):
    cube = cube_analysis(evaluator, START, MatchInfo(cube_value=2, cube_owner=1, dice_owner=0), ply=0)
    assert cube.decision is None and cube.reason == "player 1 owns the cube"


def test_parse_dice():
    assert parse_dice(31) == parse_dice("3-1") == parse_dice([1, 3]) == parse_dice("[3,1]") == (3, 1)
    for bad in (71, "3", "x", 3.1, None, [1, 2, 3]):
        with pytest.raises(InvalidDiceError, match="31, 3-1 or"):
            parse_dice(bad)


def test_read_position_rejects_a_finished_game():
    with pytest.raises(InvalidPositionError, match="game is over"):
        read_position(position_id(board({}, {6: 3})))


def test_hint_ranks_moves(checkpoint, capsys):
    text = hint.run(compose_config("hint", f"position={START_ID}", "dice=3-1", f"agent=checkpoint:{checkpoint}@1"))
    rows = text.splitlines()[3:]
    assert len(rows) == 16 and rows[0].split()[:2] == ["1", "1"]


def test_hint_gives_the_cube_action_for_a_match_id(checkpoint):
    mid = match_id(MatchInfo(match_length=7, score=(2, 4)))
    text = hint.run(compose_config("hint", f"position={START_ID}", f"match={mid}", f"agent=checkpoint:{checkpoint}"))
    assert "7-point match, player 0 5-away, player 1 3-away (score 2-4)" in text
    for label in ("No double", "Double, take", "Double, pass", "Proper cube action:"):
        assert label in text
    assert [line.split()[3] for line in text.splitlines() if line[3:].startswith("Double, pass")] == ["+1.000"]


def test_hint_prints_the_match_id_of_the_roll_it_ranks(checkpoint):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"  # money, 3-1 rolled
    text = hint.run(compose_config("hint", f"position='{xgid}'", "dice=42", f"agent=checkpoint:{checkpoint}"))
    mid = text.splitlines()[0].split("Match ID ")[1].split(":")[0]
    assert read_match_id(mid).dice == (4, 2) and text.splitlines()[1].startswith("42 to play")


def test_hint_refuses_a_match_id_with_no_game_in_play(checkpoint):
    for info, words in ((MatchInfo(game_state=GameState.OVER), "a game that is over"),
                        (MatchInfo(game_state=GameState.NONE), "no game in progress"),
                        (MatchInfo(resignation=1), "a resignation offered")):
        with pytest.raises(InvalidMatchIdError, match=words):
            hint.run(compose_config("hint", f"position={START_ID}", f"match={match_id(info)}", f"agent=checkpoint:{checkpoint}"))


def test_hint_ties_show_no_positive_difference_and_an_unknown_agent_is_named(checkpoint):
    text = hint.run(compose_config("hint", "position=AwAAKAoAAAAAAA", "dice=61", f"agent=checkpoint:{checkpoint}"))
    rows = [re.search(r" ([+-]\d\.\d{3}) +([+-]\d\.\d{3})  +\d\.\d{3} ", line) for line in text.splitlines()[4:]]
    assert rows and all(rows) and {r[1] for r in rows} == {"-1.000"}  # every play loses: all tie with the best
    assert {r[2] for r in rows} == {"-0.000"}  # as gnubg prints a tie, never +0.000
    with pytest.raises(ConfigError, match="unknown agent 'foo'"):
        hint.run(compose_config("hint", f"position={START_ID}", "dice=31", "agent=foo"))


def test_hint_malformed_position_id_is_one_line(checkpoint, tmp_path):
    done = subprocess.run([sys.executable, "-m", "bgzero.cli.hint", "position=4HPwATDgc/AB", "dice=31",
                           f"agent={checkpoint}"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "bgzero-hint: malformed Position ID '4HPwATDgc/AB' (Position ID must be 14 characters, got 12:"
        " '4HPwATDgc/AB'); give gnubg's 14-character ID, like 4HPwATDgc/ABMA,"
        " PositionID:MatchID, or an XGID"]
    assert list(tmp_path.iterdir()) == []  # no Hydra output folders


def _positions(tmp_path) -> Path:
    path = tmp_path / "positions.txt"
    path.write_text(f"# start\n{START_ID} 31\n\n{START_ID} 6-6  # doubles\nxyz 31\n{position_id(RACE_BOARD)} 5 2\n")
    return path


def test_analyze_skips_bad_lines(checkpoint, tmp_path, capsys):
    out = tmp_path / "moves.jsonl"
    cfg = compose_config("analyze", f"input={_positions(tmp_path)}", f"output={out}", f"agent={checkpoint}@1", "batch_size=2")
    assert analyze.run(cfg) == {"output": str(out), "positions": 3, "errors": 1}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in records] == [2, 4, 5, 6]
    assert records[2] == {"line": 5, "error": records[2]["error"]}
    assert records[2]["error"].startswith("malformed Position ID 'xyz'")
    assert "line 5: malformed Position ID 'xyz'" in capsys.readouterr().err
    first = records[0]
    assert first["dice"] == [3, 1] and first["position"] == START_ID
    assert first["move"] == rank_moves(load_evaluator(checkpoint), START, (3, 1), ply=1)[0].move
    assert first["result"] == rank_moves(load_evaluator(checkpoint), START, (3, 1), ply=1)[0].result
    assert len(first["probs"]) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["moves.jsonl", "positions.txt"]


def test_analyze_writes_beside_its_input_by_default_and_refuses_a_folder(checkpoint, tmp_path):
    source = _positions(tmp_path)
    assert analyze.run(compose_config("analyze", f"input={source}", f"agent={checkpoint}"))["output"] == str(
        tmp_path / "positions.jsonl")
    assert len((tmp_path / "positions.jsonl").read_text().splitlines()) == 4
    with pytest.raises(ConfigError, match="is a folder"):
        analyze.run(compose_config("analyze", f"input={tmp_path}", f"agent={checkpoint}"))


def test_analyze_lines_take_an_xgids_roll_and_refuse_a_match_score(checkpoint, tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10\n"  # money, 31 to play
                    "vNsGAApwGwDgPQ:MIEkAAAAAAAE 11\n")  # double match point: not cubeless money
    out = tmp_path / "ids.jsonl"
    assert analyze.run(compose_config("analyze", f"input={path}", f"output={out}", f"agent={checkpoint}")) == {
        "output": str(out), "positions": 1, "errors": 1}
    xgid, dmp = (json.loads(line) for line in out.read_text().splitlines())
    assert xgid["dice"] == [3, 1] and xgid["position"].startswith("XGID=")
    assert "gives a match score or a cube" in dmp["error"] and "bgzero-hint" in dmp["error"]


def test_analyze_stop_leaves_no_output(checkpoint, tmp_path):
    out = tmp_path / "moves.jsonl"
    cfg = compose_config("analyze", f"input={_positions(tmp_path)}", f"output={out}", f"agent={checkpoint}", "on_error=stop",
               "batch_size=1")
    with pytest.raises(analyze.BadLineError, match=r"^line 5: malformed Position ID 'xyz'.*on_error=skip"):
        analyze.run(cfg)
    assert [p.name for p in tmp_path.iterdir()] == ["positions.txt"]  # no output, no temporary file
