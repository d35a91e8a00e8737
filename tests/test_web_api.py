"""bgzero-web's JSON API: answers, clear 4xx refusals, bounded sessions and queue, a whole game over HTTP."""

import asyncio
import json
import threading

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from bgzero.analysis.position import evaluator_from_spec, rank_moves  # noqa: E402
from bgzero.cli.web import build  # noqa: E402
from bgzero.cube import from_match_info  # noqa: E402
from bgzero.engine.ids import MatchInfo, match_id  # noqa: E402
from bgzero.engine.parse import read_position
from bgzero.engine.xgid import format_xgid  # noqa: E402
from bgzero.errors import ConfigError  # noqa: E402
from bgzero.match.mat import parse_match  # noqa: E402
from bgzero.match.sgf import format_sgf, parse_sgf  # noqa: E402
from bgzero.ui.person_match import OVER  # noqa: E402
from bgzero.web.api import create_app  # noqa: E402
from bgzero.web.engine import BusyError, Engine  # noqa: E402
from tests.conftest import compose_config  # noqa: E402
from tests.web_server import free_port  # noqa: E402

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def client():
    app = create_app(Engine(["strong", "pubeval", "random"]), default_agent="strong", sessions=3,
                     games_per_client=2, upload_bytes=20_000)
    with TestClient(app) as c:
        yield c


def test_move_ranks_every_play_best_first(client):
    body = client.get("/api/move", params={"position": START, "dice": "31"}).json()
    moves = body["moves"]
    assert len(moves) == 16 and moves[0]["move"] == "8/5 6/5"
    equities = [m["equity"] for m in moves]
    assert equities == sorted(equities, reverse=True)
    assert all(len(m["probs"]) == 5 for m in moves)
    assert len(client.get("/api/move", params={"position": START, "dice": "3-1", "limit": 3}).json()["moves"]) == 3


def test_move_takes_the_roll_of_a_match_id(client):
    mid = match_id(MatchInfo(dice=(3, 1), match_length=5))
    body = client.get("/api/move", params={"position": START, "match": mid}).json()
    assert body["dice"] == [3, 1] and body["moves"][0]["move"] == "8/5 6/5"


def test_move_plays_for_the_score_and_cube_a_match_id_gives_as_the_hint_does(client):
    position, info = "vNsGAApwGwDgPQ", MatchInfo(dice=(1, 1), match_length=1)  # double match point, 11 to play
    body = client.get("/api/move", params={"position": position, "match": match_id(info)}).json()
    evaluator, ply = evaluator_from_spec("strong")
    want = rank_moves(evaluator, read_position(position), (1, 1), ply, state=from_match_info(info))
    assert [m["move"] for m in body["moves"]] == [m.move for m in want]
    assert body["moves"][0]["mwc"] == pytest.approx(want[0].mwc) and body["moves"][0]["mwc"] is not None
    cubeless = client.get("/api/move", params={"position": position, "dice": "11"}).json()
    assert cubeless["moves"][0]["mwc"] is None and cubeless["moves"][0]["move"] != body["moves"][0]["move"]
    assert (body["equity"], cubeless["equity"]) == ("EMG (MWC)", "cubeless equity")  # what the page labels them


def test_positions_as_xgid_or_with_their_match_id(client):
    board = client.get("/api/evaluate", params={"position": START}).json()["board"]
    xgid = format_xgid(board, MatchInfo(dice=(3, 1), match_length=5))
    moves = client.get("/api/move", params={"position": xgid}).json()  # the XGID's roll
    assert moves["dice"] == [3, 1] and moves["moves"][0]["move"] == "8/5 6/5"
    owned = f"{START}:{match_id(MatchInfo(cube_value=2, cube_owner=1))}"  # the cube is player 1's
    cube = client.get("/api/cube", params={"position": owned}).json()
    assert cube["decision"] is None and "owns the cube" in cube["reason"]
    assert client.get("/api/cube", params={"position": owned, "match": match_id(MatchInfo())}).json()["decision"]
    evaluated = client.get("/api/evaluate", params={"position": xgid}).json()
    assert evaluated["board"] == board and evaluated["dice"] == [3, 1]  # the roll the page then ranks
    assert client.get("/api/evaluate", params={"position": START}).json()["dice"] is None


def test_a_body_key_the_endpoint_does_not_know_is_refused(client):
    r = client.post("/api/rollout", json={"position": START, "trials": 36, "bogus": 1})
    assert r.status_code == 422 and "bogus" in r.json()["error"] and "\n" not in r.json()["error"]


@pytest.mark.parametrize("params, status, words", [
    ({"position": START, "dice": "71"}, 400, "not two dice"),
    ({"position": "4HPwATDgc/ABM", "dice": "31"}, 400, "malformed Position ID"),
    ({"position": START, "dice": "31", "agent": "checkpoint:/etc/passwd"}, 400, "not offered here"),
    ({"position": START, "dice": "31", "agent": "pubeval"}, 400, "no network"),
    ({"position": START}, 400, "no dice"),
    ({"position": START, "dice": "31", "match": "nonsense"}, 400, "Match ID"),
    ({"dice": "31"}, 422, "position"),
])
def test_bad_requests_get_one_line_errors(client, params, status, words):
    r = client.get("/api/move", params=params)
    assert r.status_code == status and words in r.json()["error"] and "\n" not in r.json()["error"]


def test_evaluate_and_cube(client):
    ev = client.get("/api/evaluate", params={"position": START}).json()
    assert len(ev["probs"]) == 5 and abs(ev["equity"]) < 0.3
    cube = client.get("/api/cube", params={"position": START}).json()
    assert cube["decision"]["action"] == "no double" and cube["kind"] == "contact"
    mid = match_id(MatchInfo(cube_value=2, cube_owner=1))  # money, the cube on 2 and player 1's
    owned = client.get("/api/cube", params={"position": START, "match": mid}).json()
    assert owned["decision"] is None and "owns the cube" in owned["reason"]


def test_the_cube_answer_words_the_proper_action_as_bgzero_hint_prints_it(client):
    from bgzero.cli.hint import run

    position, match = "4HPwATDgc/ABMA", "MAHgACAAIAAE"  # the start, 7-point match at 2-4 (README's example)
    cube = client.get("/api/cube", params={"position": position, "match": match}).json()
    printed = run(compose_config("hint", f"position={position}", f"match={match}", "agent=strong"))
    assert f"Proper cube action: {cube['proper_action']}" in printed.splitlines()
    assert cube["proper_action"] == "No double, take"


def test_rollout_streams_progress_then_the_result(client):
    assert client.post("/api/rollout", json={"position": "bad"}).status_code == 400  # checked before any work
    lines = [json.loads(line) for line in
             client.post("/api/rollout", json={"position": START, "trials": 72, "agent": "strong"}).text.splitlines()]
    assert [line["progress"]["trials"] for line in lines[:-1]] == [36, 72]
    result = lines[-1]["result"]
    assert result["trials"] == 72 and abs(result["equity"]) < 0.3 and 0 < result["equity_se"] < 0.1


def test_rollout_runner_contract():

    def runner(request, progress):  # the interface's contract: progress reports, then the result
        for done in (10, 20):
            progress(done, request.trials, {"equity": 0.1})
        return {"trials": request.trials, "equity": 0.1}

    app = create_app(Engine(["strong"]), default_agent="strong", rollout=runner)
    with TestClient(app) as c:
        answer = c.post("/api/rollout", json={"position": START, "trials": 20})
    rid = answer.headers["x-rollout-id"]
    lines = answer.text.replace(f'"id": "{rid}", ', "").splitlines()  # each progress line names its rollout
    assert lines == ['{"progress": {"trials": 10, "total": 20, "partial": {"equity": 0.1}}}',
                     '{"progress": {"trials": 20, "total": 20, "partial": {"equity": 0.1}}}',
                     '{"result": {"trials": 20, "equity": 0.1}}']


def test_a_whole_match_over_http_and_its_mat_file(client):
    game = client.post("/api/game", json={"agent": "pubeval", "length": 1, "seed": 3}).json()
    sid = game["id"]
    assert client.post(f"/api/game/{sid}", json={"action": "take"}).status_code == 400  # nothing to take
    for _ in range(300):
        if game["awaiting"] == OVER:
            break
        if game["awaiting"] == "move":
            hint = client.get(f"/api/game/{sid}/hint").json()
            assert hint["moves"][0]["move"] in {m["move"] for m in game["legal"]}
            bad = client.post(f"/api/game/{sid}", json={"action": "move", "move": "24/1"})
            assert bad.status_code == 400 and "24/1" in bad.json()["error"]
            game = client.post(f"/api/game/{sid}", json={"action": "move", "move": game["legal"][-1]["move"]}).json()
        else:
            game = client.post(f"/api/game/{sid}", json={"action": {"roll": "roll", "answer": "take",
                                                                    "next": "next"}[game["awaiting"]]}).json()
    assert game["awaiting"] == OVER and "Match over" in game["status"]
    record = parse_match(client.get(f"/api/game/{sid}/mat").text)  # replays under the rules
    assert max(game["score"]) == record.games[-1].points and record.names[1] == "pubeval"
    assert record.score == tuple(min(s, 1) for s in game["score"])  # the file's score stops at the length
    sgf = client.get(f"/api/game/{sid}/sgf")
    assert "bgzero.sgf" in sgf.headers["content-disposition"] and parse_sgf(sgf.text).games == record.games


def test_the_hint_when_the_bot_doubles_is_the_persons_take_or_pass(client):
    game = client.post("/api/game", json={"agent": "strong", "length": 5, "seed": 1}).json()
    sid = game["id"]
    for _ in range(100):  # the worst plays, until strong doubles
        if game["awaiting"] == "answer":
            break
        action = {"action": "move", "move": game["legal"][-1]["move"]} if game["awaiting"] == "move" else \
            {"action": game["awaiting"]}
        game = client.post(f"/api/game/{sid}", json=action).json()
    hint = client.get(f"/api/game/{sid}/hint").json()
    assert hint["kind"] == "cube" and hint["player"] == 1 and hint["position_class"] == "contact"
    e = hint["decision"]["equities"]
    assert hint["answer"] == {"take": -e["double_take"], "pass": -1.0, "proper": hint["decision"]["response"]}
    assert (hint["answer"]["take"] >= hint["answer"]["pass"]) == (hint["answer"]["proper"] == "take")


def test_a_games_view_gives_pips_and_the_bots_turns_since_the_persons_action(client):
    game = client.post("/api/game", json={"agent": "pubeval", "length": 3, "seed": 5}).json()
    sid = game["id"]
    for _ in range(20):
        if game["awaiting"] == "move":
            move = game["legal"][0]["move"]
            game = client.post(f"/api/game/{sid}", json={"action": "move", "move": move}).json()
            break
        game = client.post(f"/api/game/{sid}", json={"action": game["awaiting"]}).json()
    board = np.array(game["board"])
    assert game["pips"] == [int((board[k] * np.arange(1, 26)).sum()) for k in (0, 1)]
    turns = game["bot_turns"]
    bot_lines = [line for line in game["log"] if line.startswith("pubeval rolls ")]
    assert turns and bot_lines[-len(turns):] == [
        f"pubeval rolls {t['dice'][0]}-{t['dice'][1]}: {t['move'] or 'cannot move'}." for t in turns]


def test_the_hint_takes_a_limit_as_api_move_does(client):
    game = client.post("/api/game", json={"agent": "pubeval", "length": 1, "seed": 3}).json()
    sid = game["id"]
    while game["awaiting"] != "move":
        game = client.post(f"/api/game/{sid}", json={"action": game["awaiting"]}).json()
    every = client.get(f"/api/game/{sid}/hint").json()["moves"]
    assert client.get(f"/api/game/{sid}/hint", params={"limit": 2}).json()["moves"] == every[:2] and len(every) > 2


def test_a_saved_web_match_holds_the_game_in_progress(client):
    sid = client.post("/api/game", json={"agent": "pubeval", "length": 3, "seed": 11}).json()["id"]
    game = client.get(f"/api/game/{sid}").json()
    if not game["log"][1:]:  # the person opens: nothing has been played yet, and nothing saves
        refused = client.get(f"/api/game/{sid}/mat")
        assert refused.status_code == 400 and "nothing to save yet" in refused.json()["error"]
        game = client.post(f"/api/game/{sid}", json={"action": "move", "move": game["legal"][0]["move"]}).json()
    for fmt, parse in (("sgf", parse_sgf), ("mat", parse_match)):
        saved = parse(client.get(f"/api/game/{sid}/{fmt}").text)
        assert not saved.games and saved.unfinished is not None and saved.unfinished.actions, fmt


def test_resign_and_sessions_are_bounded(client):
    ids = [client.post("/api/game", json={"agent": "random", "length": 3, "seed": s}).json()["id"] for s in range(4)]
    assert client.get(f"/api/game/{ids[1]}").status_code == 404  # 2 a browser: its own oldest were dropped
    assert client.get("/api/game").json()["id"] == ids[3]  # a reloaded page finds its latest game
    game = client.get(f"/api/game/{ids[3]}").json()
    if not game["log"][1:]:  # the person opens: play it first, resigning needs an action
        game = client.post(f"/api/game/{ids[3]}", json={"action": "move", "move": game["legal"][0]["move"]}).json()
    game = client.post(f"/api/game/{ids[3]}", json={"action": "resign", "level": 3}).json()  # random takes anything
    assert game["score"][1] == 3 and game["awaiting"] == OVER
    for fmt, parse in (("sgf", parse_sgf), ("mat", parse_match)):  # the resigned game saves as one, and loads
        saved = parse(client.get(f"/api/game/{ids[3]}/{fmt}").text)
        assert saved.games[0].resigned and saved.score == (0, 3), fmt


def test_watch_and_an_upload_analysed(client):
    watched = client.post("/api/watch", json={"a": "pubeval", "b": "random", "length": 1, "seed": 5}).json()
    assert watched["frames"][0]["text"].startswith("Game 1") and "wins" in watched["frames"][-1]["text"]
    sgf = format_sgf(parse_match(watched["mat"]))
    uploaded = client.post("/api/match", content=sgf, params={"report": True}).json()
    assert uploaded["frames"] == watched["frames"]
    analysis = uploaded["analysis"]
    assert analysis["agent"] == "strong" and analysis["ply"] == 0
    pubeval, rand = analysis["players"]
    assert pubeval["name"] == "pubeval" and pubeval["checker_decisions"] > 5
    assert rand["error_rate"] > pubeval["error_rate"] and abs(pubeval["luck"] + rand["luck"]) < 1
    assert abs(pubeval["pr"] - pubeval["error_rate"] / 2) < 0.01
    lost = [e["equity_lost"] for e in analysis["errors"]]
    assert lost and lost == sorted(lost, reverse=True) and all(e["mark"] for e in analysis["errors"])
    assert "<h1>Match analysis</h1>" in uploaded["report"] and "<svg" in uploaded["report"]
    for text, words in (("junk", ".mat match"), ("(;FF[4]GM[6])", ".sgf match")):
        r = client.post("/api/match", content=text)
        assert r.status_code == 400 and words in r.json()["error"]
    assert "no network" in client.post("/api/match", content=watched["mat"], params={"agent": "pubeval"}).json()["error"]
    assert client.post("/api/match", content="x" * 30_000).status_code == 413
    assert client.post("/api/watch", json={"a": "pubeval", "b": "gnubg"}).status_code == 400


@pytest.mark.parametrize("path, chunks", [
    ("/api/match", [b"x" * 15_000, b"x" * 15_000]),
    ("/api/rollout", [b'{"position": "', b"x" * 15_000, b"x" * 15_000, b'"}']),  # a JSON body, read by FastAPI
])
def test_a_chunked_body_past_the_limit_is_413_as_a_declared_one_is(client, path, chunks):
    r = client.post(path, content=iter(chunks), headers={"content-type": "application/json"})  # no Content-Length
    assert r.status_code == 413 and r.json() == {"error": "request body over the 20000-byte limit"}
    assert client.get("/api/agents").status_code == 200


def test_a_broken_chunked_body_logs_no_traceback(caplog):
    import logging
    import socket
    import time

    import httpx

    from tests.web_server import serving

    app = create_app(Engine(["pubeval"]), default_agent="pubeval", upload_bytes=20_000)
    uvicorn_log = logging.getLogger("uvicorn.error")  # uvicorn's loggers do not reach the root logger
    with serving(app) as base:
        uvicorn_log.addHandler(caplog.handler)  # after the server has set up its logging
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"POST /api/match HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
            assert s.recv(200).startswith(b"HTTP/1.1 400")
        assert httpx.get(base + "/api/agents").status_code == 200  # and the server serves on
        time.sleep(0.5)  # the app's side of the broken request ends after the answer
    uvicorn_log.removeHandler(caplog.handler)
    assert not [r for r in caplog.records if r.exc_info or "Exception in ASGI" in r.getMessage()]


def test_an_agent_that_cannot_load_stops_the_server_at_start():
    cfg = compose_config("web", "agents=[checkpoint:no/such.pt,strong]", "default_agent=strong")
    with pytest.raises(ConfigError, match="'checkpoint:no/such.pt' cannot be loaded: .*does not exist"):
        build(cfg)


def test_a_checkpoint_agent_without_its_file_stops_the_server_with_one_line():
    cfg = compose_config("web", "agents=[checkpoint@1,strong]", "default_agent=strong")
    with pytest.raises(ConfigError, match="'checkpoint@1' cannot be loaded: .*name the checkpoint file"):
        build(cfg)  # was a TypeError from opening the path None


def test_openapi_docs_and_page(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/move", "/api/cube", "/api/evaluate", "/api/rollout"} <= set(paths)
    assert client.get("/docs").status_code == 200
    assert "<svg" in client.get("/").text or "board" in client.get("/").text
    assert client.get("/static/../../errors.py").status_code == 404


def test_docs_work_offline(client):
    # Swagger UI came from a CDN: the page was blank with no network
    import re

    html = client.get("/docs").text
    assert "swagger-ui-bundle.js" in html and not re.search(r"https?://", html)
    for asset in re.findall(r"""(?:src|href)=['"]([^'"]+)""", html):
        assert client.get(asset).status_code == 200, asset


def test_unknown_paths_and_methods_answer_error_json_like_every_other_error(client):
    # FastAPI's own answers were {"detail": ...}
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and set(missing.json()) == {"error"} and "/api/nothing" in missing.json()["error"]
    wrong = client.delete("/api/move")
    assert wrong.status_code == 405 and set(wrong.json()) == {"error"} and "DELETE" in wrong.json()["error"]


def _answers_within(seconds, fn):
    """``fn()``'s value if it returns within ``seconds``, else a failure (a hung worker cannot be joined)."""
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("value", fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert "value" in out, f"no answer within {seconds} s"
    return out["value"]


@pytest.mark.parametrize("agent", ["random", "pubeval"])
def test_an_agent_watched_against_itself_answers(agent):
    # its one lock was taken twice: the worker hung for good, and two such requests hung the server
    app = create_app(Engine(["random", "pubeval"], workers=1), default_agent="random")
    with TestClient(app) as c:
        watched = _answers_within(60, lambda: c.post("/api/watch", json={"a": agent, "b": agent, "length": 1}))
        assert watched.status_code == 200 and watched.json()["names"] == [agent, agent]
        again = _answers_within(60, lambda: c.post("/api/watch", json={"a": agent, "b": agent, "length": 1}))
        assert again.status_code == 200  # the worker is free again


def test_agents_locked_in_opposite_orders_never_deadlock():
    engine = Engine(["random", "pubeval"])
    finished = []

    def hold(a, b):
        for _ in range(300):
            with engine.using(a, b, a):  # a named twice is held once
                pass
        finished.append((a, b))

    threads = [threading.Thread(target=hold, args=pair, daemon=True) for pair in (("random", "pubeval"), ("pubeval", "random"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(finished) == 2
    engine.close()


def test_a_full_queue_refuses_at_once():
    engine = Engine(["pubeval"], workers=1, queue=1)
    release = threading.Event()

    async def go():
        first = asyncio.ensure_future(engine.run(release.wait))  # running
        second = asyncio.ensure_future(engine.run(lambda: "waited"))  # waiting: the line holds one
        await asyncio.sleep(0.05)
        with pytest.raises(BusyError, match="busy"):
            await engine.run(lambda: None)
        release.set()
        assert await first and await second == "waited"
        assert await engine.run(lambda: "free") == "free"

    asyncio.run(go())
    engine.close()


def test_cli_config_defaults_to_localhost_and_checks_values():
    assert compose_config("web").host == "127.0.0.1"
    with pytest.raises(ConfigError, match="port"):
        build(compose_config("web", "port=70000"))
    with pytest.raises(ConfigError, match="not offered"):
        build(compose_config("web", "default_agent=gnubg"))
    # each was a ValueError or KeyError traceback before the web config had a schema
    for override, named in (("port=abc", "port='abc'"), ("agents=strong", "agents='strong'"),
                            ("log_level=loud", "log_level='loud'"), ("sessions=0", "sessions=0"),
                            ("host=''", "host=''"), ("long_queue=0", "long_queue=0"),
                            ("games_per_client=0", "games_per_client=0"), ("idle_minutes=0", "idle_minutes=0")):
        with pytest.raises(ConfigError, match=named):
            build(compose_config("web", override))


@pytest.mark.slow
def test_sigterm_stops_the_server_while_a_rollout_streams(tmp_path):
    # uvicorn waited for the streaming rollout to end (up to 100,000 trials), and a hung worker for ever
    import signal
    import subprocess
    import sys
    import time

    import httpx

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "bgzero.cli.web", f"port={port}", "agents=[strong,random]"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(base + "/api/agents", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        with httpx.stream("POST", base + "/api/rollout", json={"position": START, "trials": 10368}, timeout=60) as r:
            next(line for line in r.iter_lines() if '"progress"' in line)  # the rollout runs
            start = time.perf_counter()
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        assert time.perf_counter() - start < 15
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _strict(line: str):
    """``line`` as JSON, refusing the NaN and Infinity that Python's json writes and JSON does not have."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(line, parse_constant=refuse)


def test_a_one_trial_rollout_answers_strict_json_with_probabilities_in_range(client):
    # one trial has no standard error: it was sent as Infinity; variance reduction made a probability -0.043
    text = client.post("/api/rollout", json={"position": START, "dice": "31", "trials": 1, "top": 5}).text
    lines = [_strict(line) for line in text.splitlines()]
    assert [line["progress"]["partial"]["se"] for line in lines[:-1]] == [None]  # after one trial: no estimate
    result = lines[-1]["result"]
    probs = [p for doc in [result, *result["moves"]] for p in doc["probs"]]
    assert len(probs) == 30 and all(0 <= p <= 1 for p in probs)


def _play_out(game, choose=lambda legal: legal[-1]["move"]):
    """Play ``game`` (a :class:`WebGame`) to its end: every roll taken, the cube taken, ``choose``'s plays."""
    for _ in range(2000):
        view = game.view()
        if view["awaiting"] == OVER:
            return view
        if view["awaiting"] == "move":
            game.act("move", choose(view["legal"]))
        else:
            game.act({"roll": "roll", "answer": "take", "next": "next"}[view["awaiting"]])
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_final_board_of_a_game_borne_off_is_the_engines(seed):
    # the turn was passed only after the game-over check: the last view had the sides swapped
    from bgzero.agents.specs import make_agent
    from bgzero.web.games import WebGame
    from bgzero.web.watch import frames

    game = WebGame(make_agent("random:7"), "random", length=1, seed=seed)
    view = _play_out(game)
    record = game.record()
    assert record.games[-1].kind in (1, 2, 3)  # borne off, not passed (a 1-point match has no cube)
    assert view["board"] == frames(record)[-1]["board"]  # the engine's final board, replayed from the record
    winner = record.games[-1].winner
    assert sum(view["board"][winner]) == 0 and sum(view["board"][1 - winner]) > 0


def test_a_finished_match_score_is_not_stopped_at_its_length():
    # the match state stops at the length: a gammon at 0-0 of a 1-point match showed 1, where gnubg shows 2
    from bgzero.agents.specs import make_agent
    from bgzero.web.games import WebGame
    from bgzero.web.watch import summary

    for seed in range(40):
        game = WebGame(make_agent("random:7"), "random", length=1, seed=seed)
        view = _play_out(game)
        last = game.record().games[-1]
        if last.points > 1:
            break
    else:
        pytest.skip("no gammon in 40 one-point matches")
    assert max(view["score"]) == last.points and f" {last.points}" in view["status"]
    assert summary(game.record())["score"] == view["score"]


def _held_runner(started, release):
    """A rollout runner that reports every 20 ms until released or cancelled, noting when it starts."""
    import time

    def runner(request, progress):
        started.append(request.trials)
        done = 0
        while not release.is_set():
            done += 1
            progress(done, request.trials, {})  # raises once the rollout is cancelled
            time.sleep(0.02)
        return {"trials": done}
    return runner


def test_rollouts_run_beside_short_requests_are_bounded_and_cancel():
    # rollouts ran on the short workers: two of them made a 5 ms /api/move or /api/game wait 84 s, and none could be stopped
    import time

    import httpx

    from tests.web_server import serving

    started, release = [], threading.Event()
    engine = Engine(["pubeval"], workers=1, long_workers=1, long_queue=1)
    app = create_app(engine, default_agent="pubeval", rollout=_held_runner(started, release))
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as c:
        with c.stream("POST", "/api/rollout", json={"position": START, "trials": 11}) as first:
            rid, first_lines = first.headers["x-rollout-id"], first.iter_lines()  # one iterator: dropping one
            line = json.loads(next(first_lines))  # closes the connection, which cancels the rollout
            assert line["progress"]["id"] == rid and line["progress"]["total"] == 11
            t = time.perf_counter()
            assert c.post("/api/game", json={"length": 1, "seed": 1}).status_code == 200
            assert time.perf_counter() - t < 5  # the short worker is not the rollout's
            with c.stream("POST", "/api/rollout", json={"position": START, "trials": 12}) as queued:
                full = c.post("/api/rollout", json={"position": START, "trials": 13})
                assert full.status_code == 503 and "busy" in full.json()["error"]
                cancelled = c.delete(f"/api/rollout/{rid}").json()
                assert cancelled["cancelled"] and cancelled["total"] == 11
                last = json.loads(list(first_lines)[-1])
                assert "cancelled" in last["error"]
                queued_id = queued.headers["x-rollout-id"]
                next(queued.iter_lines())  # the queued one runs now the first is cancelled; the iterator
                # dropped, its client has gone away
            # so it is cancelled too, and the long worker takes the next at once
            for _ in range(100):
                if c.delete(f"/api/rollout/{queued_id}").status_code == 404:
                    break
                time.sleep(0.05)
            assert c.delete(f"/api/rollout/{queued_id}").status_code == 404
            release.set()
            assert json.loads(c.post("/api/rollout", json={"position": START, "trials": 14}).text.splitlines()[-1]
                              )["result"]["trials"] >= 0
        assert started == [11, 12, 14]


@pytest.mark.parametrize("body, words", [({"trials": 10_369}, "trials"), ({"top": 11}, "top"),
                                          ({"dice": "31", "top": 5, "trials": 1729}, "at most 10368")])
def test_rollouts_are_capped_with_one_line_422s(client, body, words):
    # up to 100,000 trials x (top + 1) were accepted
    answer = client.post("/api/rollout", json={"position": START, **body})
    assert answer.status_code == 422 and words in answer.json()["error"] and "\n" not in answer.json()["error"]


def test_games_belong_to_their_browser_which_never_drops_anothers():
    # creating 64 games dropped everyone else's; any client could act on any game by its id
    app = create_app(Engine(["random"]), default_agent="random", sessions=3, games_per_client=2)
    new = {"length": 1, "seed": 1}
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        mine = a.post("/api/game", json=new)
        assert "httponly" in mine.headers["set-cookie"].lower()
        theirs = b.post("/api/game", json=new).json()["id"]
        a.post("/api/game", json=new)
        a.post("/api/game", json=new)  # a's third: a's own oldest goes
        assert a.get(f"/api/game/{mine.json()['id']}").status_code == 404
        full = c.post("/api/game", json=new)  # 3 held, none c's: refused, b's game kept
        assert full.status_code == 503 and "most games" in full.json()["error"]
        assert b.get(f"/api/game/{theirs}").status_code == 200
        assert a.get(f"/api/game/{theirs}").status_code == 404  # not a's to see
        assert a.post(f"/api/game/{theirs}", json={"action": "roll"}).status_code == 404
        assert c.get("/api/game").status_code == 404 and b.get("/api/game").json()["id"] == theirs


def test_idle_games_expire():
    from bgzero.agents.specs import make_agent
    from bgzero.web.games import ServerFullError, Sessions, UnknownSessionError, WebGame

    now = [0.0]
    held = Sessions(limit=1, per_client=1, idle_seconds=3600, clock=lambda: now[0])
    sid = held.add(WebGame(make_agent("random"), "random", length=1, seed=1), "a")
    now[0] = 3000
    assert held.get(sid, "a")  # used: its hour starts again
    now[0] = 6000
    with pytest.raises(ServerFullError):  # idle 50 minutes: still held
        held.add(WebGame(make_agent("random"), "random", length=1, seed=2), "b")
    now[0] = 6700
    assert held.add(WebGame(make_agent("random"), "random", length=1, seed=2), "b")  # a's expired
    with pytest.raises(UnknownSessionError, match="expired"):
        held.get(sid, "a")
