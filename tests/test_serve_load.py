"""bgzero-serve under load: many clients at once, a silent one among them, all answered in bounded time."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from bgzero.agents.specs import make_agent
from bgzero.engine.board import START
from bgzero.gnubg.fibs import MOVE
from bgzero.gnubg.serve import ExternalPlayer, Server
from tests.test_serve import _line

LINE = (_line(MOVE, START, (3, 1)) + "\n\0").encode()


def load_test(clients: int, lines: int, idle_timeout: float = 1.0) -> dict:
    """``clients`` clients send ``lines`` board lines each while one idle client holds a connection
    open saying nothing; returns the slowest answer, the total time and when the idle one was closed."""
    server = Server(ExternalPlayer(make_agent("pubeval")), port=0, idle_timeout=idle_timeout)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    idle = socket.create_connection(server.address)  # first in, and silent
    opened = time.monotonic()
    latencies, errors = [], []

    def client():
        try:
            with socket.create_connection(server.address, timeout=10) as s, s.makefile("rb") as answers:
                for _ in range(lines):
                    sent = time.monotonic()
                    s.sendall(LINE)
                    reply = answers.readline()
                    latencies.append(time.monotonic() - sent)
                    if not reply.strip() or reply.startswith(b"Error"):
                        errors.append(reply)
        except OSError as e:
            errors.append(repr(e))

    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    total = time.monotonic() - started
    idle.settimeout(idle_timeout + 5)
    closed_after = time.monotonic() - opened if idle.recv(1) == b"" else None
    idle.close()
    server.stop()
    serving.join(5)
    return {"clients": clients, "answers": len(latencies), "errors": errors, "slowest": max(latencies),
            "seconds": total, "idle_closed_after": closed_after}


def test_a_silent_client_blocks_no_one():
    """Before, one connection was served at a time: the first (silent) client held up all others."""
    report = load_test(clients=20, lines=3)
    assert report["errors"] == [] and report["answers"] == 60
    assert report["slowest"] < 5.0
    assert report["idle_closed_after"] is not None and report["idle_closed_after"] < 4.0


@pytest.mark.slow
def test_load_50_clients():
    report = load_test(clients=50, lines=20)
    print(f"\nserve load: {report['clients']} clients + 1 idle, {report['answers']} answers in "
          f"{report['seconds']:.2f} s, slowest {report['slowest'] * 1000:.0f} ms, idle client closed after "
          f"{report['idle_closed_after']:.2f} s, {len(report['errors'])} errors")
    assert report["errors"] == [] and report["answers"] == 1000 and report["slowest"] < 10.0
