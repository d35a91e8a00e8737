"""bgzero-analyze match=: every decision judged, players rated, JSON, text and an HTML report that renders."""

import json
import shutil
import subprocess

import numpy as np
import pytest

from bgzero import paths
from bgzero.agents.specs import make_agent
from bgzero.analysis.match import MARKS, analyse_match, mark, merge_analyses, worst_decisions
from bgzero.analysis.position import evaluator_from_spec
from bgzero.cli.analyze import run
from bgzero.errors import ConfigError
from bgzero.match.files import write_match_file
from bgzero.match.runner import play_matches
from tests.boards import board as pos
from tests.conftest import compose_config
from tests.test_match import RandomCube


@pytest.fixture(scope="module")
def judged(tiny_checkpoint):
    """A 3-point match of the tiny network (player 0) against a random doubler, judged by that network."""
    spec = f"checkpoint:{tiny_checkpoint}@0"
    record = play_matches(make_agent(spec), RandomCube(3), [11], length=3, names=("tiny", "random"))[0]
    evaluator, ply = evaluator_from_spec(spec)
    return spec, record, analyse_match(evaluator, record, ply, agent=spec)


def _analyze(*overrides):
    return run(compose_config("analyze", "progress=false", *overrides))


def test_marks_follow_gnubgs_thresholds():
    assert [mark(x) for x in (0.0, 0.039, 0.04, 0.08, 0.159, 0.16, 1.0)] == [
        "", "", "doubtful", "bad", "bad", "very bad", "very bad"]
    assert [name for _, name in MARKS] == ["very bad", "bad", "doubtful"]


def test_every_decision_is_judged_and_the_judges_own_play_is_perfect(judged):
    _, record, analysis = judged
    tiny, rand = analysis.players
    moves = [sum(a.kind == "move" and a.player == p for g in record.games for a in g.actions) for p in (0, 1)]
    for p, stats in enumerate(analysis.players):
        checker = [d for d in stats.decisions if d.kind == "checker"]
        assert len(checker) == moves[p] and all(d.luck is not None for d in checker)
        assert stats.checker_decisions == sum(not d.forced for d in checker)
        assert all(d.mark == mark(d.equity_lost) for d in checker if d.counted)
    assert tiny.checker_error == pytest.approx(0.0, abs=1e-6)  # it played the judge's first choice every time
    assert rand.checker_error_rate > 10 and rand.pr == pytest.approx(rand.error_rate / 2)
    assert tiny.points == -rand.points and tiny.luck_adjusted == pytest.approx(-rand.luck_adjusted)
    assert rand.cube_decisions >= rand.wrong_doubles + rand.missed_doubles


@pytest.mark.slow  # draws a board for each of the random player's errors
def test_command_writes_json_text_and_html(judged, tmp_path, capsys):
    spec, record, _ = judged
    sgf = write_match_file(tmp_path / "m.sgf", record)
    out = _analyze(f"match={sgf}", f"agent={spec}", f"html={tmp_path / 'r.html'}")
    text = capsys.readouterr().out
    assert "Error rate (mEMG per move)" in text and "PR (XG)" in text and "Luck-adjusted result" in text
    saved = json.loads((tmp_path / "m.analysis.json").read_text())
    for player in saved["players"]:
        assert {"name", "checker_error_rate", "cube_error_rate", "pr", "luck", "decisions"} <= set(player)
    assert [p["name"] for p in out["players"]] == ["tiny", "random"]
    page = (tmp_path / "r.html").read_text()
    errors = sum(1 for p in saved["players"] for d in p["decisions"] if d["counted"] and d["mark"])
    assert page.count("<svg") == errors > 0 and "<script" not in page


def test_the_worst_plays_are_rolled_out_beside_the_0_ply_judgement(judged, tmp_path, capsys):
    spec, record, analysis = judged
    mat = write_match_file(tmp_path / "m.mat", record)
    _analyze(f"match={mat}", f"agent={spec}", "rollout=36", "rollout_worst=2")
    text = capsys.readouterr().out
    rows = json.loads((tmp_path / "m.analysis.json").read_text())["rollouts"]
    worst = [d for d in worst_decisions(analysis) if d.kind == "checker"][:2]
    assert [(r["game"], r["turn"], r["played"]) for r in rows] == [(d.game, d.turn, d.played) for d in worst]
    assert all(r["trials"] == 36 and r["rollout_se"] >= 0 for r in rows)  # 0 where both plays reach exact values
    assert "Worst checker plays rolled out (36 trials each" in text and "rollout lost" in text


@pytest.mark.slow  # analyses the match five times
def test_folder_gives_one_players_totals_over_many(judged, tmp_path):
    spec, record, analysis = judged
    for k in (1, 2):
        write_match_file(tmp_path / f"match_{k}.mat", record)
    write_match_file(tmp_path / "match_2.sgf", record)  # the same match in both formats counts once
    out = _analyze(f"match={tmp_path}", f"agent={spec}", "player=random")
    (only,) = out["players"]
    assert only["name"] == "random" and only["checker_decisions"] == 2 * analysis.players[1].checker_decisions
    assert merge_analyses([analysis, analysis]).players[1].checker_error == pytest.approx(
        2 * analysis.players[1].checker_error)
    with pytest.raises(ConfigError, match="plays in none"):
        _analyze(f"match={tmp_path}", f"agent={spec}", "player=nobody")


def test_bad_match_arguments_fail_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        _analyze(f"match={tmp_path / 'nope.mat'}")
    (tmp_path / "x.txt").write_text("")
    with pytest.raises(ConfigError, match=".mat or .sgf"):
        _analyze(f"match={tmp_path / 'x.txt'}")
    with pytest.raises(ConfigError, match="not both"):
        _analyze(f"match={tmp_path / 'x.txt'}", f"input={tmp_path / 'x.txt'}")


def test_a_match_with_the_jacoby_rule_or_an_unwritable_report_is_refused(judged, tmp_path):
    spec, record, _ = judged
    mat = write_match_file(tmp_path / "m.mat", record)
    with pytest.raises(ConfigError, match="jacoby=true is for money sessions"):
        _analyze(f"match={mat}", f"agent={spec}", "jacoby=true")
    with pytest.raises(ConfigError, match="cannot write under /proc/x"):
        _analyze(f"match={mat}", f"agent={spec}", "output=/proc/x/r.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mat"]


@pytest.mark.slow
@pytest.mark.browser
def test_html_report_renders_in_headless_chromium(judged, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from bgzero.ui.report import write_report

    page = write_report(tmp_path / "r.html", judged[2])
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1100,1400", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_the_played_move_is_judged_at_the_full_ply_as_gnubg_does():
    """The issue's example: 11/10 9/3 was once scored at 1 ply against 23/22 9/3 at 2 (a 0.203 'loss')."""
    from bgzero.agents.cubeful import cube_values_at
    from bgzero.analysis.match import judge_play
    from bgzero.analysis.position import match_context
    from bgzero.cube import may_double, normalised, proper_value
    from bgzero.engine.notation import parse_move
    from bgzero.engine.parse import read_position_and_match
    from bgzero.value.checkpoint import load_evaluator

    evaluator = load_evaluator(paths.CHECKPOINTS / "strong.pt")
    board, info = read_position_and_match("OM/gAHBb20gAEQ:EQGnABAAAAAE")
    state, player = match_context(info)
    best, played, lost, count = judge_play(evaluator, board, (6, 1), parse_move(board, (6, 1), "11/10 9/3"),
                                           state, player, 2)
    results = np.stack([parse_move(board, (6, 1), m) for m in ("23/22 9/3", "11/10 9/3")])
    opp = 1 - player
    values, _ = cube_values_at(evaluator, results, [state, state], [opp, opp], 2)  # the opponent on roll
    assert may_double(state, opp)
    emg = [normalised(1 - proper_value(v.no_double, v.double_take, v.double_pass), state, player) for v in values]
    assert (best, played) == ("23/22 9/3", "11/10 9/3") and count > 10
    assert lost == pytest.approx(emg[0] - emg[1], abs=0.005) and lost < 0.05


def test_luck_in_emg_is_exact_on_a_last_roll_bear_off(tiny_checkpoint):
    """Two checkers left (6 and 1 points) against a sure bear-off next turn: gnubg's luck is known.

    15 rolls of 36 bear both off (any 6, and 22, 33, 44, 55) and win 1 point; the others lose 1
    (no gammons: both sides have borne off). So the mean is -6/36 and a roll's luck is
    +7/6 or -5/6 EMG. At 1 ply every reply ends the game, so any net gives the exact values.
    """
    from bgzero.analysis.match import roll_luck
    from bgzero.cube import MatchState
    from bgzero.value.checkpoint import load_evaluator

    board = pos({6: 1, 1: 1}, {1: 1})  # the other side bears off with any roll
    evaluator = load_evaluator(tiny_checkpoint)
    state = MatchState(5, (0, 0))
    for dice, expected in (((6, 1), 7 / 6), ((3, 3), 7 / 6), ((2, 1), -5 / 6), ((1, 1), -5 / 6), ((5, 4), -5 / 6)):
        assert roll_luck(evaluator, board, dice, state, 0, 1) == pytest.approx(expected, abs=1e-6), dice
