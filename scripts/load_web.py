"""Load on a running bgzero-web: many concurrent clients of ``/api/move``, with silent and slow clients beside them.

Each client sends its requests one after another on its own connection; throughput is
requests answered per second over the whole run and latency is per request. Beside them,
``silent`` connections open and send nothing, ``slow`` ones send a request a few bytes
at a time, and ``rollouts`` rollouts of ``trials`` trials stream on the long-work pool:
with an async server and bounded pools none of them may hold up the short requests.
Run it: ``python scripts/load_web.py --clients 50 --requests 100 --rollouts 2 --trials 1296``;
the tests run a small one.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import httpx
import numpy as np

ROLLS = [f"{a}{b}" for a in range(1, 7) for b in range(1, a + 1)]
START = "4HPwATDgc/ABMA"


@dataclass
class LoadReport:
    requests: int
    errors: int
    seconds: float
    throughput: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    rollouts: tuple[str, ...] = ()  # how each rollout ended: finished, or its error

    def __str__(self) -> str:
        ended = f"; rollouts: {', '.join(self.rollouts)}" if self.rollouts else ""
        return (f"{self.requests} requests, {self.errors} errors in {self.seconds:.1f} s: {self.throughput:.0f} req/s, "
                f"latency p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms, max {self.max_ms:.1f} ms{ended}")


async def _rollout(base: str, trials: int, seed: int) -> str:
    """One rollout of the starting position, streamed to its end: ``finished (N trials, S s)`` or what went wrong."""
    import json

    start = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, timeout=None) as http:
        async with http.stream("POST", "/api/rollout", json={"position": START, "trials": trials, "seed": seed}) as r:
            last = None
            async for line in r.aiter_lines():
                if line.strip():
                    last = json.loads(line)
    if last is None or "result" not in last:
        return f"failed ({last})"
    return f"finished ({trials} trials, {time.perf_counter() - start:.0f} s)"


async def _silent(host: str, port: int, hold: asyncio.Event, slow: bool) -> None:
    """One connection that says nothing (or dribbles a request a byte every 50 ms) until ``hold`` is set."""
    _, writer = await asyncio.open_connection(host, port)
    request = f"GET /api/move?position={START}&dice=31 HTTP/1.1\r\nHost: x\r\n".encode()
    try:
        for byte in request if slow else b"":
            if hold.is_set():
                break
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.05)
        await hold.wait()
    except (ConnectionError, OSError):
        pass  # the server may close an idle connection: that too leaves the others alone
    finally:
        writer.close()


async def _client(base: str, n: int, agent: str, seed: int, latencies: list, errors: list) -> None:
    rng = np.random.default_rng(seed)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for _ in range(n):
            params = {"position": START, "dice": ROLLS[rng.integers(len(ROLLS))], "agent": agent, "limit": 1}
            t = time.perf_counter()
            try:
                r = await http.get("/api/move", params=params)
                ok = r.status_code == 200 and r.json()["moves"]
            except httpx.HTTPError as e:
                ok, r = False, e
            latencies.append(time.perf_counter() - t)
            if not ok:
                errors.append(repr(r))


async def run_load(base: str, clients: int = 50, requests: int = 100, agent: str = "strong",
                   silent: int = 10, slow: int = 10, seed: int = 0, rollouts: int = 0, trials: int = 1296) -> LoadReport:
    """``clients`` x ``requests`` ``/api/move`` calls against ``base`` while silent and slow connections hang
    on and ``rollouts`` rollouts run; the rollouts are waited for to their end."""
    url = httpx.URL(base)
    hold = asyncio.Event()
    idle = [asyncio.ensure_future(_silent(url.host, url.port, hold, k < slow)) for k in range(silent + slow)]
    rolling = [asyncio.ensure_future(_rollout(base, trials, seed + k)) for k in range(rollouts)]
    await asyncio.sleep(0.2)
    latencies: list[float] = []
    errors: list[str] = []
    start = time.perf_counter()
    await asyncio.gather(*(_client(base, requests, agent, seed + k, latencies, errors) for k in range(clients)))
    seconds = time.perf_counter() - start
    hold.set()
    await asyncio.gather(*idle)
    ended = tuple(await asyncio.gather(*rolling))
    ms = np.array(latencies) * 1000
    return LoadReport(len(latencies), len(errors), seconds, len(latencies) / seconds, float(np.percentile(ms, 50)),
                      float(np.percentile(ms, 99)), float(ms.max()), ended)


def main() -> None:
    """Start ``bgzero-web`` in a child process, load it, check it still answers correctly, stop it."""
    import argparse
    import socket
    import subprocess
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--agent", default="strong", help="strong (0-ply) or pubeval")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--silent", type=int, default=10)
    parser.add_argument("--slow", type=int, default=10)
    parser.add_argument("--rollouts", type=int, default=2, help="rollouts streaming beside the load")
    parser.add_argument("--trials", type=int, default=1296, help="trials of each rollout")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "bgzero.cli.web", f"port={port}", f"workers={args.workers}",
                               "agents=[strong,pubeval]"])
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(base + "/api/agents", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        httpx.get(base + "/api/move", params={"position": START, "dice": "31", "agent": args.agent}, timeout=60)  # load the agent
        report = asyncio.run(run_load(base, args.clients, args.requests, args.agent, args.silent, args.slow,
                                      rollouts=args.rollouts, trials=args.trials))
        print(f"{args.clients} clients x {args.requests} /api/move ({args.agent}, {args.workers} workers), "
              f"{args.silent} silent and {args.slow} slow connections and {args.rollouts} {args.trials}-trial "
              f"rollouts beside them: {report}")
        after = httpx.get(base + "/api/move", params={"position": START, "dice": "31", "agent": "strong"}, timeout=10).json()
        print(f"afterwards: best 31 from the start is {after['moves'][0]['move']} (expected 8/5 6/5)")
        if report.errors or after["moves"][0]["move"] != "8/5 6/5" or any("failed" in r for r in report.rollouts):
            raise SystemExit(1)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
