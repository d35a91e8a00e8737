"""The .mat transcript: gnubg's exact layout, reading back, clear errors, and GNU Backgammon's own import."""

import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys

import pytest

from bgzero.agents.specs import spec_name
from bgzero.cube import PASS, TAKE
from bgzero.match.mat import MatFormatError, format_match, parse_match, player_name, read_mat, write_mat
from bgzero.match.record import DOUBLE
from bgzero.match.runner import play_matches
from bgzero.ui.replay import show_match
from tests.gnubg_program import run_gnubg
from tests.test_match import RandomCube

# A 3-point match as GNU Backgammon 1.07 exports it after `import mat` of this very text
# (checked byte for byte): player 1 opening, an empty roll, doubles from both columns, a
# take, a drop in the left column, wins in both columns, the Crawford game (game 3) and a
# gammon. "$" marks the end of a line that ends in spaces.
GOLDEN = """ 3 point match

 Game 1
 alice : 0                      bob : 0
  1) 63: 24/18 18/15             43: 24/20 13/10* $
  2) 65: 25/20 20/14             22: 13/11* 13/11 6/4 6/4
  3) 44:                          Doubles => 2
  4)  Drops                       Wins 1 point $

 Game 2
 alice : 0                      bob : 1
  1)                             32: 24/21 13/11 $
  2) 65: 24/18 18/13             64: 13/7 11/7 $
  3) 32: 6/4* 4/1*               54: 25/21 25/20 $
  4) 32: 6/4* 4/1                41: 25/21 21/20 $
  5) 11: 24/23 23/22 22/21 21/20 63: 13/7 8/5* $
  6) 11: 25/24 24/23 23/22 22/21 65: 7/1 6/1 $
  7) 51: 21/20* 20/15            41: 25/21 6/5 $
  8) 41: 13/9 9/8                53: 13/10* 10/5 $
  9) 31: 25/22 13/12*            61: $
 10) 64: 22/16 16/12             42: 25/21 6/4 $
 11) 62: 8/6 8/2                 43: 7/4 7/3 $
 12) 21: 13/11 12/11             32: 21/18 18/16 $
 13)  Doubles => 2                Takes
 14) 22: 11/9* 11/9 6/4* 4/2     52: 25/20 $
 15) 53: 13/8 12/9               54: 25/21 8/3 $
 16) 42: 8/4* 6/4                22: $
 17) 42: 8/6 8/4                 65: 25/20 20/14 $
 18) 55: 13/8 13/8 8/3 8/3       63: 20/14 14/11 $
 19) 52: 9/4 4/2                 41: 11/7 8/7 $
 20) 54: 9/4 6/2                 51: 14/9 9/8 $
 21) 21: 9/7 7/6                 61: 8/2 7/6 $
 22) 44: 6/2 6/2 6/2 4/0         43: 20/16 16/13 $
 23) 52: 4/0 2/0                 53: 20/15 15/12 $
 24) 41: 4/0 1/0                 31: 13/10 7/6 $
 25) 52: 4/0 2/0                 61: 12/6 10/9 $
 26) 54: 3/0 3/0                 33: 9/6 6/3 6/3 5/2
 27) 52: 2/0 2/0                 53: 6/1 3/0 $
 28) 21: 2/1 2/0                 53: 6/3 6/1 $
 29) 53: 2/0 1/0                 64: 6/0 5/1 $
 30) 65: 1/0                     $
      Wins 2 points

 Game 3
 alice : 2                      bob : 1
  1) 43: 24/21 13/9              44: 24/20 20/16* 8/4* 8/4
  2) 66:                         65: 13/8 13/7 $
  3) 31: 25/24 25/22             53: 8/3* 6/3 $
  4) 64:                         43: 16/13 13/9 $
  5) 54: 25/20 24/20             21: 9/7 8/7 $
  6) 32: 13/11 13/10             61: 13/7 7/6 $
  7) 54: 24/20 20/15             51: 24/23 23/18 $
  8) 41: 11/7* 8/7               21: 25/23 23/22 $
  9) 31: 15/14 14/11             41: 7/3 3/2 $
 10) 32: 13/11 13/10             43: 6/3 6/2 $
 11) 42: 6/4 6/2                 44: 13/9 13/9 7/3 7/3
 12) 42: 11/7 6/4                22: 9/7 9/7 3/1 3/1
 13) 43: 20/17 20/16             64: 22/16 7/3 $
 14) 63: 11/5 8/5                52: 16/11 11/9* $
 15) 52: 25/20 20/18*            41: 25/24 9/5 $
 16) 63: 18/15 8/2               21: 24/22 6/5 $
 17) 43: 10/6 6/3*               63: 25/22* 22/16 $
 18) 54:                         31: 16/15* 15/12 $
 19) 61:                         55: 12/7 7/2 5/0 5/0
 20) 43:                         52: 6/4 6/1 $
 21) 51: 25/20                   61: 4/0 1/0 $
 22) 65: 25/19 17/12             41: 4/0 1/0 $
 23) 21: 7/6 7/5                 53: 4/0 3/0 $
 24) 31: 19/16 7/6               43: 3/0 3/0 $
 25) 31: 15/12 12/11             64: 3/0 2/0 $
 26) 64: 20/14 14/10             42: 2/0 2/0 $
 27) 32: 12/10 6/3               42: 1/0 $
                                  Wins 2 points

""".replace("$\n", "\n")


@pytest.fixture(scope="module")
def five_point():
    return play_matches(RandomCube(5), RandomCube(6), [24], length=5, names=("alice", "bob"))[0]


def test_golden_match_reads_and_writes_back_byte_for_byte():
    record = parse_match(GOLDEN)
    assert (record.length, record.names, record.score, record.winner) == (3, ("alice", "bob"), (2, 3), 1)
    assert [(g.score, g.crawford, g.winner, g.kind, g.cube, g.points) for g in record.games] == [
        ((0, 0), False, 1, 0, 1, 1), ((0, 1), False, 0, 1, 2, 2), ((2, 1), True, 1, 2, 1, 2)]
    assert record.games[1].actions[0].player == 1 and record.games[0].actions[-1].kind == PASS
    assert format_match(record) == GOLDEN


def test_written_match_reads_back_the_same(five_point, tmp_path):
    path = write_mat(tmp_path / "m.mat", five_point, comments=("bgzero test", "seed 24"))
    assert path.read_text().startswith("; bgzero test\n; seed 24\n\n 5 point match\n")
    back = read_mat(path)
    assert (back.games, back.score, back.names, back.length) == (five_point.games, five_point.score, ("alice", "bob"), 5)
    kinds = {a.kind for g in back.games for a in g.actions}
    assert {DOUBLE, TAKE, PASS} <= kinds and any(g.crawford for g in back.games)


def test_money_session_reads_back_the_same():
    record = play_matches(RandomCube(7), RandomCube(8), [2], length=0, games=3, jacoby=True)[0]
    text = format_match(record)
    assert text.startswith('; [Jacoby "On"]\n\n 0 point match\n')
    assert parse_match(text) == record  # the tag carries the rule
    assert parse_match(text.replace('; [Jacoby "On"]\n', ""), jacoby=True) == record  # gnubg's files lack it


def test_player_names_survive_gnubgs_score_line():
    name = player_name("checkpoint:checkpoints/reference model.pt@1")
    assert name == "checkpoint_checkpoints_referenc" and len(name) == 31  # what gnubg keeps
    assert not re.search(r"[\s:]", name)
    assert spec_name("checkpoint:checkpoints/strong.pt@1") == "strong@1" == spec_name("strong@1")
    assert spec_name("pubeval") == "pubeval"
    assert spec_name("checkpoint") == "checkpoint"  # no file to name it by (make_agent refuses it)


def test_gnubg_imports_full_names_and_a_money_session_without_jacoby(tmp_path):
    record = play_matches(RandomCube(7), RandomCube(8), [2], length=0, games=2, jacoby=False,
                          names=("a_very_long_player_name_0123456", "strong@0"))[0]
    path = write_mat(tmp_path / "money.mat", record)
    assert parse_match(path.read_text()) == record
    run_gnubg(["set jacoby off", f"import mat {path}", f"save match {tmp_path / 'money.sgf'}"])
    sgf = (tmp_path / "money.sgf").read_text()
    assert "PW[a_very_long_player_name_0123456]" in sgf and "PB[strong@0]" in sgf and "RU[Jacoby]" not in sgf


@pytest.mark.parametrize("edit, message", [
    (lambda t: "", "not a .mat file"),
    (lambda t: "hello\n" + t, "line 1: expected ' N point match'"),
    (lambda t: t.replace(" Game 2", " Game 7"), "expected ' Game 2'"),
    (lambda t: t.replace("alice : 0                      bob : 1", "alice : 1                      bob : 1"),
     "game 2 starts at (1, 1), but the games before end at (0, 1)"),
    (lambda t: t.replace("Wins 1 point ", "Wins 3 points"), "'Wins 3 points': the replay wins 1 point"),
    (lambda t: t.replace("24/18 18/15", "24/18 18/14"), "'63: 24/18 18/14'"),
    (lambda t: t.replace("24/18 18/15", "24-18 18/15"), "cannot read the step '24-18'"),
    (lambda t: t.replace(" Takes", " Hello"), "'Hello': the double must be taken or dropped"),
    (lambda t: t.replace("  3) 44:", "  3) xx:"), "line 7 (game 1, left column): cannot read 'xx:'"),
    (lambda t: t.replace("  3) 44:                          Doubles => 2",
                         "  3) 44:                          Doubles => 4"), "'Doubles => 4': the cube goes to 2"),
    (lambda t: t[:t.index("  4)  Drops")] + t[t.index(" Game 2"):], "game 1 ends without a winner"),
])
def test_parse_errors_name_the_line_and_the_problem(edit, message):
    with pytest.raises(MatFormatError, match=re.escape(message)):
        parse_match(edit(GOLDEN))


GNUBG_RESIGNED_AT_ONCE = """; [EventDate "2026.12.01"]

 3 point match

 Game 1
 gnubg : 0                      root : 0
  1) 52:       Wins 2 points

 Game 2
 gnubg : 2                      root : 0
  1) 52: """
"""gnubg's ``export match mat`` of a game resigned (a gammon) after the opening roll, before its
play, then a game saved after its opening roll: the roll stands alone."""


def test_gnubgs_game_given_up_before_its_first_play_reads(tmp_path):
    record = parse_match(GNUBG_RESIGNED_AT_ONCE)
    (given_up,) = record.games
    assert (given_up.winner, given_up.points, given_up.resigned, given_up.actions) == (0, 2, True, ())
    assert record.score == (2, 0) and record.unfinished is not None and not record.unfinished.actions
    path = tmp_path / "m.mat"
    path.write_text(GNUBG_RESIGNED_AT_ONCE)
    out = io.StringIO()
    show_match(read_mat(path), out=out, sleep=lambda _: None)
    assert "gnubg wins 2 points (gammon, resigned)." in out.getvalue()
    assert out.getvalue().rstrip().endswith("The 3-point match did not finish: gnubg 2, root 0.")


GNUBG_ROLLER_RESIGNS = """; [EventDate "2026.12.02"]

 3 point match

 Game 1
 gnubg : 0                      root : 0
  1) 21:                         Wins 2 points

 Game 2
 gnubg : 0                      root : 2
  1) 21:                         Wins 1 point
"""
"""gnubg 1.07's ``export match mat`` after ``roll``, ``resign gammon``, ``accept`` (then the same
with ``resign normal``), both players human, ``set seed 5``: the roller gives each game up
before its play. Its ``save match`` SGF has ``;PL[W]DI[21]`` and ``RE[B+2R]``."""


def test_gnubgs_game_given_up_by_the_roller_before_its_play_reads():
    record = parse_match(GNUBG_ROLLER_RESIGNS)
    assert [(g.winner, g.points, g.resigned, g.actions) for g in record.games] == [(1, 2, True, ()), (1, 1, True, ())]
    assert record.score == (0, 3) and record.unfinished is None


def test_rules_are_checked_on_replay():
    crawford = GOLDEN.replace("  2) 66:                         65: 13/8 13/7 ",
                              "  2)  Doubles => 2                Takes\n  3) 66:                         65: 13/8 13/7 ")
    with pytest.raises(MatFormatError, match="may not double"):
        parse_match(crawford)  # game 3 is the Crawford game (rule 30)
    unanswered = " 1 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 8/5 6/5                  Takes\n"
    with pytest.raises(MatFormatError, match="does not answer a double"):
        parse_match(unanswered)


# --------------------------------------------------------------------------- GNU Backgammon's import


def _gnubg_program():
    """The Debian ``gnubg`` program, if it runs here."""
    program = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
    if program:
        try:
            subprocess.run([program, "-t", "-q", "-r"], input="quit\n", text=True, capture_output=True, timeout=60, check=True)
            return program
        except (OSError, subprocess.SubprocessError):
            pass
    pytest.skip("the gnubg program (Debian package gnubg) does not run here")


def _final_score(record):
    """Each side's total points, uncapped, as gnubg counts them."""
    last = record.games[-1]
    return tuple(last.score[p] + (last.points if last.winner == p else 0) for p in (0, 1))


def _body(text: str) -> str:
    return text[text.index(" 5 point match"):]


def test_gnubg_program_imports_the_match_and_replays_it_identically(five_point, tmp_path):
    program = _gnubg_program()
    path = write_mat(tmp_path / "m.mat", five_point, comments=("bgzero-match test",))
    commands = f"import mat {path}\nshow score\nexport match mat {tmp_path / 'again.mat'}\nquit\n"
    out = subprocess.run([program, "-t", "-q", "-r"], input=commands, capture_output=True, text=True,
                         timeout=120).stdout
    found = re.search(r"The score \(after (\d+) games?\) is: alice (\d+), bob (\d+)", out)
    assert found, out[-2000:]
    assert int(found[1]) == len(five_point.games)
    assert (int(found[2]), int(found[3])) == _final_score(five_point)
    assert max(five_point.score) == 5 <= max(_final_score(five_point))
    assert _body((tmp_path / "again.mat").read_text()) == _body(path.read_text())


_IMPORT = """
import json, sys, gnubg
gnubg.command("import mat " + sys.argv[1])
gnubg.command("export match mat " + sys.argv[2])
json.dump(gnubg.match(), open(sys.argv[3], "w"))
"""


_GNUBG_ACTIONS = {"drop": PASS}  # gnubg calls a passed double a drop


def test_gnubg_python_package_imports_the_match_move_for_move(five_point, tmp_path):
    if importlib.util.find_spec("gnubg") is None:
        pytest.skip("GNU Backgammon's Python package (PyPI gnubg) is not installed")
    path = write_mat(tmp_path / "m.mat", five_point)
    again, dump = tmp_path / "again.mat", tmp_path / "match.json"
    subprocess.run([sys.executable, "-c", _IMPORT, str(path), str(again), str(dump)], capture_output=True,
                   timeout=120, check=True)
    games = json.loads(dump.read_text())["games"]
    assert len(games) == len(five_point.games)
    side = {"X": 0, "O": 1}
    for ours, theirs in zip(five_point.games, games):
        info = theirs["info"]
        assert (info["score-X"], info["score-O"]) == ours.score and info.get("crawford", False) == ours.crawford
        assert (side[info["winner"]], info["points-won"]) == (ours.winner, ours.points)
        replayed = [(side[a["player"]], _GNUBG_ACTIONS.get(a["action"], a["action"]), tuple(a["dice"]) if a.get("dice") else None,
                     tuple(tuple(s) for s in a.get("move") or ())) for a in theirs["game"]]
        assert replayed == [(a.player, a.kind, a.dice, a.steps) for a in ours.actions]
    assert _body(again.read_text()) == _body(path.read_text())
