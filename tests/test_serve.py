"""bgzero-serve: answers to board lines, a server that survives bad clients, and a 3-point
match against the GNU Backgammon program that gnubg itself referees."""

from __future__ import annotations

import logging
import shutil
import socket
import threading

import numpy as np
import pytest

from bgzero.agents.base import Agent
from bgzero.agents.specs import make_agent
from bgzero.cli import serve as serve_cli
from bgzero.cube import CubeState, MatchState
from bgzero.engine.board import START
from bgzero.engine.notation import parse_move
from bgzero.errors import ConfigError
from bgzero.gnubg.fibs import CUBE, MOVE, Situation, fibs_board, format_line
from bgzero.gnubg.refereed import GNUBG
from bgzero.gnubg.serve import ExternalPlayer, ListenError, Server
from bgzero.match.record import MOVE as PLAY
from bgzero.match.sgf import read_sgf
from tests.boards import board
from tests.conftest import compose_config
from tests.test_fibs import BAR_AT_2_4, CUBE_AT_2_0, DOUBLED_AT_2_0, START_ON_ROLL


@pytest.fixture(scope="module")
def checkpoint(tiny_checkpoint):
    return tiny_checkpoint


class Eager(Agent):
    """Plays the first legal result, doubles whenever asked and passes every double."""

    name = "eager"

    def choose(self, boards, dice, moves):
        return moves.offsets[:-1].copy()

    def double_decision(self, boards, states, players):
        return np.ones(len(boards), bool)

    def take_decision(self, boards, states, players):
        return np.zeros(len(boards), bool)


class Broken(Eager):
    def choose(self, boards, dice, moves):
        raise RuntimeError("agent bug")


def _line(action, board, dice=None, state=MatchState(7)) -> str:
    return format_line(fibs_board(Situation(action, board, dice, state)))


# --------------------------------------------------------------------------- answers


def test_a_move_is_a_legal_play_in_gnubg_notation(checkpoint):
    answers = []
    player = ExternalPlayer(make_agent(f"checkpoint:{checkpoint}"), on_answer=answers.append)
    reply = player.answer(BAR_AT_2_4)
    sit = answers[0].situation
    assert reply.startswith("bar/")  # a checker on the bar enters first
    assert (parse_move(sit.board, sit.dice, reply) == answers[0].result).all()


def test_a_roll_that_cannot_be_played_is_the_empty_move():
    closed = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3})
    assert ExternalPlayer(Eager()).answer(_line(MOVE, closed, (6, 5))) == ""


@pytest.mark.parametrize("state,reply", [
    (MatchState(7), "double"),
    (MatchState(7, cube=CubeState(2, 0)), "double"),  # we own the cube
    (MatchState(7, cube=CubeState(2, 1)), "roll"),  # they own it
    (MatchState(5, (4, 2), crawford=True), "roll"),
    (MatchState(5, (4, 2)), "roll"),  # post-Crawford, leading: a dead cube
    (MatchState(7, cube=CubeState(64, 0)), "roll"),
])
def test_roll_or_double(state, reply):
    player = ExternalPlayer(Eager(), gnubg_scores=False)  # fibs_board writes the scores as FIBS does
    assert player.answer(_line(CUBE, START, None, state)) == reply


def test_take_or_drop(checkpoint):
    assert ExternalPlayer(Eager()).answer(DOUBLED_AT_2_0) == "drop"
    assert ExternalPlayer(make_agent("pubeval")).answer(DOUBLED_AT_2_0) == "take"  # no view of the cube
    assert ExternalPlayer(make_agent(f"checkpoint:{checkpoint}")).answer(DOUBLED_AT_2_0) in ("take", "drop")


def test_each_decision_is_logged(caplog):
    with caplog.at_level(logging.INFO, logger="bgzero.gnubg.serve"):
        ExternalPlayer(Eager()).answer(CUBE_AT_2_0)
    assert "cube 4NvgATDg8+ABIQ (7-point match 2-0, cube 1 centred) -> 'double'" in caplog.text


# --------------------------------------------------------------------------- the server


@pytest.fixture
def serving(request):
    """A server for ``Eager`` (or the agent the test names) on a free port, in a thread."""
    agent = getattr(request, "param", None) or Eager()
    server = Server(ExternalPlayer(agent), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()
    thread.join(5)
    assert not thread.is_alive()


def _connect(server) -> socket.socket:
    return socket.create_connection(server.address, timeout=10)


def _ask(sock: socket.socket, data: bytes) -> str:
    sock.sendall(data)
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = sock.recv(4096)
        assert chunk, "the server closed the connection"
        reply += chunk
    return reply.decode()[:-1]


def _gnubg(line: str) -> bytes:
    return line.encode() + b"\n\0"  # gnubg's framing


def test_good_and_bad_lines_on_one_connection(serving, caplog):
    with caplog.at_level(logging.INFO, logger="bgzero.gnubg.serve"), _connect(serving) as sock:
        assert _ask(sock, _gnubg(CUBE_AT_2_0)) == "double"
        assert _ask(sock, _gnubg("board:garbage")).startswith("Error: board line has 1 field after")
        assert _ask(sock, _gnubg(START_ON_ROLL[:100])).startswith("Error: board line has")  # truncated
        assert _ask(sock, _gnubg(START_ON_ROLL + ":7")).startswith("Error: board line has 53 fields")
        assert _ask(sock, _gnubg("hello")).startswith("Error: not a board line")
        assert _ask(sock, b"\xff\xfe\n").startswith("Error: not a board line")
        assert _ask(sock, START_ON_ROLL.replace(":1:0:0:0:0:1:1:1:", ":0:0:0:0:0:1:1:1:").encode() + b"\0") \
            .startswith("Error: turn is 0")  # NUL alone ends a line too
        assert _ask(sock, _gnubg(DOUBLED_AT_2_0)) == "drop"
    assert caplog.text.count("bad board line") == 6


def test_two_lines_in_one_packet_and_one_line_in_pieces(serving):
    with _connect(serving) as sock:
        sock.sendall(_gnubg(CUBE_AT_2_0) + _gnubg(DOUBLED_AT_2_0))
        reader = sock.makefile("rb")
        assert [reader.readline(), reader.readline()] == [b"double\n", b"drop\n"]
        data = _gnubg(CUBE_AT_2_0)
        for i in range(0, len(data), 7):
            sock.sendall(data[i:i + 7])
        assert reader.readline() == b"double\n"


def test_a_connection_dropped_mid_line_then_the_next_connection(serving, caplog):
    with caplog.at_level(logging.INFO, logger="bgzero.gnubg.serve"):
        with _connect(serving) as sock:
            assert _ask(sock, _gnubg(CUBE_AT_2_0)) == "double"
            sock.sendall(_gnubg(CUBE_AT_2_0)[:50])  # and hang up before the line ends
        with _connect(serving) as sock:  # served only once the first is closed
            assert _ask(sock, _gnubg(DOUBLED_AT_2_0)) == "drop"
        with _connect(serving) as sock:
            sock.sendall(_gnubg(CUBE_AT_2_0))  # hang up without reading the answer
        with _connect(serving) as sock:
            assert _ask(sock, _gnubg(CUBE_AT_2_0)) == "double"
    assert "connection closed in the middle of a line" in caplog.text


def test_an_endless_line_closes_only_that_connection(serving, caplog):
    with _connect(serving) as sock:
        sock.sendall(b"board:" + b"1" * 10_000)
        try:
            assert sock.recv(100) == b""  # closed
        except ConnectionResetError:  # closed with our bytes unread
            pass
    with _connect(serving) as sock:
        assert _ask(sock, _gnubg(CUBE_AT_2_0)) == "double"
    assert "longer than 4096 bytes" in caplog.text


@pytest.mark.parametrize("serving", [Broken()], indirect=True)
def test_an_agent_bug_costs_one_answer(serving):
    with _connect(serving) as sock:
        assert _ask(sock, _gnubg(BAR_AT_2_4)) == "Error: RuntimeError: agent bug"
        assert _ask(sock, _gnubg(CUBE_AT_2_0)) == "double"


def test_serves_the_given_number_of_connections_then_stops():
    server = Server(ExternalPlayer(Eager()), port=0, connections=2)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    for _ in range(2):
        with _connect(server) as sock:
            assert _ask(sock, _gnubg(CUBE_AT_2_0)) == "double"
    thread.join(5)
    assert not thread.is_alive()


def test_a_taken_port_is_a_listen_error(serving):
    with pytest.raises(ListenError, match=f"cannot listen on 127.0.0.1:{serving.address[1]}"):
        Server(ExternalPlayer(Eager()), port=serving.address[1])


@pytest.mark.parametrize("override,message", [
    ("port=70000", "port=70000 is not allowed: a whole number >= 0 and <= 65535"),
    ("connections=0", "connections=0 is not allowed: a whole number >= 1, or null"),
    ("referee.match=0", "referee.match=0 is not allowed: a whole number >= 1 and <= 64"),
    ("agent=nonsense", "unknown agent 'nonsense'"),
])
def test_cli_config_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        serve_cli.run(compose_config("serve", "agent=pubeval", override))


# --------------------------------------------------------------------------- gnubg referees


@pytest.mark.skipif(shutil.which(GNUBG) is None, reason=f"the gnubg program ({GNUBG}) is not installed")
@pytest.mark.parametrize("agent,seed", [("tiny", 1), ("gnubg@0", 11)])
def test_gnubg_referees_a_3_point_match(checkpoint, tmp_path, agent, seed, capsys):
    if agent == "gnubg@0":
        pytest.importorskip("gnubg_nn")
    spec = f"checkpoint:{checkpoint}" if agent == "tiny" else agent
    sgf = tmp_path / "match.sgf"
    result = serve_cli.run(compose_config("serve", f"agent={spec}", "referee.match=3", f"referee.seed={seed}", f"referee.sgf={sgf}"))
    assert "3-point match refereed by gnubg" in capsys.readouterr().out
    assert result.complete and result.winner in ("gnubg", "bgzero") and result.score[result.winner] >= 3
    # gnubg's saved match: one game per game gnubg counted, results adding up to its score,
    # the last game the one that reached 3 points
    record = read_sgf(sgf)
    assert len(record.games) == result.games_played >= 1
    totals = [0, 0]
    for i, game in enumerate(record.games):
        assert max(totals) < 3, f"game {i + 1} was played after the match was won"
        totals[game.winner] += game.points
    assert {"gnubg": totals[0], "bgzero": totals[1]} == result.score
    # every move bgzero sent is in the record, as sent; and bgzero answered the cube
    bgzero_moves = [a for game in record.games for a in game.actions if a.player == 1 and a.kind == PLAY]
    assert result.mismatches == [] and result.moves_checked == len(bgzero_moves) > 0
    assert any(a.player == 1 and a.kind != PLAY for game in record.games for a in game.actions)
