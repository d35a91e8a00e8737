"""A bgzero agent as GNU Backgammon's external player: a TCP server answering FIBS board lines.

gnubg (``set player 1 external HOST:PORT``) connects and, whenever that player must act,
sends one ``board:`` line (:mod:`bgzero.gnubg.fibs`) ending in ``\\n`` and a NUL byte. The answer
is one line: ``roll`` or ``double`` before the dice are rolled, ``take`` or ``drop`` when
doubled, otherwise the move in gnubg notation (empty when the roll cannot be played).
gnubg treats an illegal answer as no move without saying so, so the move is always one of
bgzero's own legal results, written by :func:`bgzero.engine.notation.format_steps`.

A line that cannot be answered (malformed, truncated, no decision in it) is logged and
answered with ``Error: ...``, which gnubg prints instead of playing on; the server then
waits for the next line. A connection that drops, even in the middle of a line, is logged
and the server waits for the next connection. Connections are served at once, each in its
own thread, and one that sends nothing for ``idle_timeout`` seconds is closed, so a silent or
stuck client never holds up the others (gnubg among them). Decisions are taken one at a
time under a lock: the agent is not thread-safe, and a decision takes milliseconds.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bgzero.agents.base import Agent
from bgzero.cube import may_double
from bgzero.engine.board import swap_sides
from bgzero.engine.ids import position_id
from bgzero.engine.movegen import generate
from bgzero.engine.notation import format_steps
from bgzero.errors import BgzeroError
from bgzero.gnubg.fibs import CUBE, MOVE, Situation, parse_line, situation

log = logging.getLogger("bgzero.gnubg.serve")

MAX_LINE = 4096  # bytes; gnubg's own board buffer is 256
_TERMINATORS = (b"\n", b"\0")
_POLL_S = 0.25  # how often a blocked accept or read looks at the stop flag
IDLE_TIMEOUT_S = 300.0  # a connection silent this long is closed (gnubg sends a line every turn it plays)


@dataclass(frozen=True)
class Answer:
    """One decision as sent: the situation, the reply, and for a move the position it leads
    to (sides swapped, as :func:`bgzero.engine.movegen.generate` gives it)."""

    situation: Situation
    reply: str
    result: np.ndarray | None = None


class ListenError(BgzeroError, OSError):
    """The server cannot listen on the host and port asked for."""


class ExternalPlayer:
    """Turns board lines into answers for ``agent``.

    ``gnubg_scores`` reads the score fields the way gnubg 1.07 fills them
    (:func:`bgzero.gnubg.fibs.situation`); turn it off for a client that follows the FIBS spec.
    ``on_answer`` is called with every :class:`Answer`, e.g. to check a match record later.
    """

    def __init__(self, agent: Agent, *, gnubg_scores: bool = True,
                 on_answer: Callable[[Answer], None] | None = None):
        self.agent = agent
        self.gnubg_scores = gnubg_scores
        self.on_answer = on_answer

    def answer(self, line: str) -> str:
        """The reply to one board line; :class:`~bgzero.errors.BgzeroError` if it has none."""
        sit = situation(parse_line(line), gnubg_scores=self.gnubg_scores)
        ans = self.decide(sit)
        log.info("%s %s%s %s -> %r", sit.action, position_id(sit.board),
                 f" {sit.dice[0]}{sit.dice[1]}" if sit.dice else "", _describe(sit), ans.reply)
        if self.on_answer is not None:
            self.on_answer(ans)
        return ans.reply

    def decide(self, sit: Situation) -> Answer:
        board = sit.board[None]
        if sit.action == MOVE:
            dice = np.array([sit.dice], np.int8)
            moves = generate(board, dice)
            chosen = int(self.agent.choose_for_score(board, dice, moves, [sit.state], [0])[0])
            steps = moves.steps_of(chosen)
            return Answer(sit, format_steps(sit.board, steps), moves.results[chosen].copy())
        if sit.action == CUBE:
            double = may_double(sit.state, 0) and self.agent.double_decision(board, [sit.state], [0])[0]
            return Answer(sit, "double" if double else "roll")
        take = self.agent.take_decision(swap_sides(board), [sit.state], [1])[0]
        return Answer(sit, "take" if take else "drop")


def _describe(sit: Situation) -> str:
    state = sit.state
    match = f"{state.match_length}-point match {state.score[0]}-{state.score[1]}" if state.match_length else "money"
    owner = {-1: "centred", 0: "ours", 1: "theirs"}[state.cube.owner]
    return f"({match}{', Crawford' if state.crawford else ''}, cube {state.cube.value} {owner})"


class Server:
    """Listens on ``host``:``port`` (port 0: any free one, see :attr:`address`) and serves
    connections side by side until :meth:`stop`, or until ``connections`` have been accepted
    and served to their end."""

    def __init__(self, player: ExternalPlayer, host: str = "127.0.0.1", port: int = 4321,
                 connections: int | None = None, idle_timeout: float = IDLE_TIMEOUT_S):
        self.player = player
        self.connections = connections
        self.idle_timeout = idle_timeout
        self._stop = threading.Event()
        self._decide = threading.Lock()
        try:
            self._listener = socket.create_server((host, port))
        except OSError as e:  # the port is taken, or the host is not this machine's
            raise ListenError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
        self._listener.settimeout(_POLL_S)

    @property
    def address(self) -> tuple[str, int]:
        return self._listener.getsockname()[:2]

    def stop(self) -> None:
        """Ask :meth:`serve_forever` to return; it does within a fraction of a second."""
        self._stop.set()

    def serve_forever(self) -> None:
        host, port = self.address
        log.info("serving %s as a gnubg external player on %s:%d", self.player.agent, host, port)
        served = 0
        threads: list[threading.Thread] = []
        try:
            while not self._stop.is_set() and (self.connections is None or served < self.connections):
                try:
                    conn, peer = self._listener.accept()
                except TimeoutError:
                    continue
                served += 1
                log.info("connection %d from %s:%d", served, *peer[:2])
                thread = threading.Thread(target=self._serve_connection, args=(conn, served), daemon=True,
                                          name=f"bgzero-serve-{served}")
                thread.start()
                threads = [t for t in threads if t.is_alive()] + [thread]
        finally:
            self._listener.close()
            for thread in threads:
                thread.join()

    def _serve_connection(self, conn: socket.socket, number: int) -> None:
        with conn:
            self._serve_lines(conn, number)

    def _serve_lines(self, conn: socket.socket, number: int) -> None:
        conn.settimeout(_POLL_S)
        buffer = b""
        idle_since = time.monotonic()
        while not self._stop.is_set():
            try:
                data = conn.recv(4096)
            except TimeoutError:
                if time.monotonic() - idle_since > self.idle_timeout:
                    log.warning("connection %d silent for %g s; closing it", number, self.idle_timeout)
                    return
                continue
            except OSError as e:
                log.error("connection lost: %s", e)
                return
            idle_since = time.monotonic()
            if not data:
                if buffer.strip(b"\0\r\n\t "):
                    log.error("connection closed in the middle of a line; dropped %r", _clip(buffer))
                else:
                    log.info("connection closed")
                return
            buffer += data
            *lines, buffer = _split(buffer)
            for raw in lines:
                if not self._reply(conn, raw):
                    return
            if len(buffer) > MAX_LINE:
                log.error("line longer than %d bytes without an end; closing the connection", MAX_LINE)
                return

    def _reply(self, conn: socket.socket, raw: bytes) -> bool:
        """Answer one line; False when the connection is gone."""
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return True
        log.debug("received %r", text)
        try:
            with self._decide:
                reply = self.player.answer(text)
        except BgzeroError as e:  # FibsBoardError, or a position the rules reject
            log.error("bad board line: %s", e)
            reply = f"Error: {e}"
        except Exception as e:  # a bug must cost one answer, not the server
            log.exception("no answer to %r", text)
            reply = f"Error: {type(e).__name__}: {e}"
        try:
            conn.sendall(reply.encode() + b"\n")
        except OSError as e:
            log.error("connection lost before the answer %r: %s", reply, e)
            return False
        return True


def _split(buffer: bytes) -> list[bytes]:
    """``buffer`` cut at every line end (newline or NUL); the last piece is unfinished."""
    for end in _TERMINATORS[1:]:
        buffer = buffer.replace(end, _TERMINATORS[0])
    return buffer.split(_TERMINATORS[0])


def _clip(data: bytes, limit: int = 80) -> bytes:
    return data if len(data) <= limit else data[:limit] + b"..."
