"""bgzero-web under concurrent load, with silent and slow connections beside it (a small run of scripts/load_web.py)."""

import asyncio
import time

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from bgzero.web.api import create_app  # noqa: E402
from bgzero.web.engine import Engine  # noqa: E402
from scripts import load_web  # noqa: E402
from tests.web_server import serving  # noqa: E402


def test_concurrent_clients_get_every_answer_and_idle_ones_block_nobody():
    with serving(create_app(Engine(["strong"]), default_agent="strong")) as base:
        report = asyncio.run(load_web.run_load(base, clients=8, requests=8, silent=6, slow=6, rollouts=1, trials=72))
        assert report.requests == 64 and report.errors == 0
        assert len(report.rollouts) == 1 and report.rollouts[0].startswith("finished (72 trials")

        async def while_idle_connections_hang():
            hold = asyncio.Event()
            url = httpx.URL(base)
            idle = [asyncio.ensure_future(load_web._silent(url.host, url.port, hold, slow)) for slow in (False, True) * 20]
            await asyncio.sleep(0.3)
            start = time.perf_counter()
            async with httpx.AsyncClient(base_url=base) as http:
                r = await http.get("/api/move", params={"position": load_web.START, "dice": "31"})
            seconds = time.perf_counter() - start
            hold.set()
            await asyncio.gather(*idle)
            return r.json()["moves"][0]["move"], seconds

        best, seconds = asyncio.run(while_idle_connections_hang())
        assert best == "8/5 6/5" and seconds < 5  # answered at once beside 40 silent or dribbling connections
