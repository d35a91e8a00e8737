"""gnubg's SGF and resigned games: read, written, round-tripped, and checked against the gnubg program."""

import dataclasses
import io
import re

import pytest

from bgzero.match.mat import MatFormatError, format_match, parse_match, read_mat
from bgzero.match.runner import play_matches
from bgzero.match.sgf import SgfFormatError, format_sgf, letter_point, parse_sgf, point_letter, read_sgf, write_sgf
from bgzero.ui.replay import show_match
from tests.conftest import compose_config
from tests.gnubg_program import run_gnubg
from tests.test_match import RandomCube


@pytest.fixture(scope="module")
def matches():
    """Five-point matches and a money session with doubles, takes, drops and gammons."""
    five = play_matches(RandomCube(5), RandomCube(6), [24, 25, 26], length=5, names=("alice", "bob"))
    money = play_matches(RandomCube(7), RandomCube(8), [3], length=0, games=4, jacoby=True, names=("carol", "dave"))
    return five + money


def _resigned(record):
    """``record`` with its last game given up one move before its end."""
    last = record.games[-1]
    cut = dataclasses.replace(last, actions=last.actions[:-1], resigned=True)
    return dataclasses.replace(record, games=record.games[:-1] + (cut,))


def test_sgf_points_in_each_colours_numbering():
    assert [letter_point(0, c) for c in "mkxw"] == [13, 11, 24, 23]
    assert [letter_point(1, c) for c in "swwx"] == [6, 2, 2, 1]
    assert (letter_point(1, "y"), letter_point(1, "z")) == (25, 0)
    assert all(letter_point(p, point_letter(p, q)) == q for p in (0, 1) for q in range(26))


def test_sgf_round_trip(matches):
    for record in matches + [_resigned(matches[0])]:
        assert parse_sgf(format_sgf(record)) == record


def test_mat_round_trips_a_resignation(matches):
    record = _resigned(matches[1])
    again = parse_match(format_match(record))
    assert again == record and again.games[-1].resigned
    assert again.score == record.score


def test_bad_sgf_is_refused_with_the_place():
    good = format_sgf(play_matches(RandomCube(1), RandomCube(2), [0], length=1, names=("a", "b"))[0])
    with pytest.raises(SgfFormatError, match="not an SGF"):
        parse_sgf("hello")
    first_move = re.search(r";[WB]\[(\d\d[a-z]+)\]", good)
    broken = good.replace(first_move[1], first_move[1][:2] + "aa", 1)
    with pytest.raises(SgfFormatError, match="node"):
        parse_sgf(broken)
    with pytest.raises(SgfFormatError, match="RE says"):
        parse_sgf(re.sub(r"RE\[([WB])\+(\d+)\]", lambda m: f"RE[{m[1]}+{int(m[2]) + 1}]", good))


def test_mat_refuses_a_resignation_worth_no_game():
    text = " 1 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 8/5 6/5\n      Wins 5 points\n"
    with pytest.raises(MatFormatError, match="no resignation"):
        parse_match(text)


def _body(text: str) -> str:
    return text[re.search(r" \d+ point match", text).start():]


def test_gnubg_loads_bgzero_sgf_and_replays_it_identically(matches, tmp_path):
    for k, record in enumerate(matches[:2] + [_resigned(matches[2])]):
        sgf = write_sgf(tmp_path / f"m{k}.sgf", record)
        out = run_gnubg([f"load match {sgf}", "show score", f"export match mat {tmp_path / f'g{k}.mat'}"])
        found = re.search(r"The score \(after (\d+) games?\) is: alice (\d+), bob (\d+)", out)
        assert found and int(found[1]) == len(record.games), out[-2000:]
        assert _body((tmp_path / f"g{k}.mat").read_text()) == _body(format_match(record))


def test_bgzero_reads_the_sgf_gnubg_saves_with_its_resignations(tmp_path):
    commands = ["set threads 1", "set player 0 gnubg", "set player 1 gnubg"]
    commands += [f"set player {p} {what} evaluation plies 0" for p in (0, 1) for what in ("chequerplay", "cubedecision")]
    commands += ["set seed 7", "new match 3", f"save match {tmp_path / 'g.sgf'}",
                 f"export match mat {tmp_path / 'g.mat'}"]
    run_gnubg(commands)
    record = read_sgf(tmp_path / "g.sgf")
    exported = read_mat(tmp_path / "g.mat")  # gnubg's own .mat export of the same match loads too
    assert record.games == exported.games and record.names == exported.names
    assert any(g.resigned for g in record.games)  # gnubg's bots resign hopeless games (seed 7 does)
    assert max(record.score) == 3


# --------------------------------------------------------------------------- the commands


def test_match_command_saves_sgf_and_replay_reads_it(tmp_path, capsys):

    from bgzero.cli.match import run
    from bgzero.cli.replay import main as replay_main

    cfg = compose_config("match", "a=random:1", "b=pubeval", "length=3", "matches=2", "processes=1",
                         f"out={tmp_path}", "progress=false", "format=both")
    run(cfg)
    for k in (1, 2):
        assert read_sgf(tmp_path / f"match_000{k}.sgf").games == read_mat(tmp_path / f"match_000{k}.mat").games
    capsys.readouterr()
    replay_main([str(tmp_path / "match_0001.sgf"), "pace=0", "board=ascii"])
    assert "won the match" in capsys.readouterr().out


def test_match_command_refuses_an_unknown_format(tmp_path):
    from bgzero.errors import ConfigError

    with pytest.raises(ConfigError, match="format='pgn' is not allowed: one of mat, sgf, both"):
        compose_config("match", "a=random:1", "b=pubeval", "length=1", "matches=1", f"out={tmp_path}",
                       "progress=false", "format=pgn")
    assert list(tmp_path.iterdir()) == []


def test_play_saves_sgf_with_a_resignation(tmp_path):
    import io

    from bgzero.agents.specs import make_agent
    from bgzero.ui.play import PlaySession
    from bgzero.ui.render import ASCII
    from tests.test_play import ScriptedHuman

    sgf = tmp_path / "session.sgf"
    human = ScriptedHuman([None, "", "resign backgammon"], cube=[])  # resigned at the second move
    session = PlaySession(make_agent("pubeval"), stdin=human, stdout=io.StringIO(), style=ASCII, bot_name="pubeval",
                          length=1, seed=3, save=sgf)
    human.session = session
    session.run()
    record = read_sgf(sgf)
    assert record.games == tuple(session.records) and record.games[0].resigned and record.games[0].winner == 1


def test_gnubgs_game_resigned_before_its_first_play_replays():
    text = ("(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]PW[gnubg]PB[root]"
            "RU[Crawford]RE[W+2R];PL[B]DI[52])")  # gnubg's save of a gammon resigned after the opening roll
    record = parse_sgf(text)
    assert [(g.winner, g.points, g.resigned, g.actions) for g in record.games] == [(0, 2, True, ())]
    out = io.StringIO()
    show_match(record, out=out, sleep=lambda _: None)
    assert "gnubg wins 2 points (gammon, resigned)." in out.getvalue()


@pytest.mark.parametrize("names", [("al;ice", "bob"), ("(;x", "y)"), ("a]b\\c", "[z]"), ("ü;(", ";)")])
def test_names_with_sgf_delimiters_read_back(names):
    """Delimiters inside a value are text: the reader splits by tokens, not on ';' and '(;'."""
    record = play_matches(RandomCube(1), RandomCube(2), [0], length=1, names=names)[0]
    assert parse_sgf(format_sgf(record)).names == names


def test_a_comment_with_delimiters_and_a_soft_line_break_is_text():
    good = format_sgf(play_matches(RandomCube(1), RandomCube(2), [0], length=1, names=("a", "b"))[0])
    commented = good.replace("PW[a]", "PW[a]C[first; (;game) \\] of \\\nthe day]", 1)
    assert parse_sgf(commented) == parse_sgf(good)


def test_structural_faults_name_the_place():
    good = format_sgf(play_matches(RandomCube(1), RandomCube(2), [0], length=1, names=("a", "b"))[0])
    for text, message in ((good.rstrip()[:-1], "not closed"), (good.replace(";", "(;", 2), "variation"),
                          (good + ")", "closes no game tree"), ("()", "empty game tree"),
                          (good.replace("(;FF[4]", "(;[x]FF[4]", 1), "follows no property")):
        with pytest.raises(SgfFormatError, match=message):
            parse_sgf(text)
