"""The HTTP JSON API and the page, as one FastAPI app: :func:`create_app`.

Thin over :mod:`bgzero.analysis.position` (ranked moves, evaluations, cube actions),
:mod:`bgzero.web.games` (a person's match, kept per session id) and :mod:`bgzero.web.watch`
(two agents' match, an uploaded ``.mat`` or ``.sgf``), and :mod:`bgzero.analysis.match`
(an upload judged, with :mod:`bgzero.ui.report`'s page). A position is a Position ID,
``PositionID:MatchID`` or an XGID; the match state either of the last two carries is used
unless a ``match`` parameter overrides it. Every bgzero error becomes a 4xx answer
``{"error": "one line"}`` before any work; evaluations run on :class:`~bgzero.web.engine.Engine`'s
bounded pool, so the event loop keeps serving slow and idle clients meanwhile. Request
bodies are capped at ``upload_bytes``, and nothing a request says names a file: agents come
from the server's list, the static files from the package.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Literal

import numpy as np
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from bgzero.agents.specs import parse_spec
from bgzero.analysis.match import analyse_match, decision_dict, worst_decisions
from bgzero.analysis.position import cube_analysis, equity_label, evaluate_position, match_context, rank_moves
from bgzero.cube import MatchState, from_match_info, to_match_info
from bgzero.engine.ids import MatchInfo
from bgzero.engine.parse import parse_dice, read_match_id, read_position_and_match
from bgzero.errors import BgzeroError, ConfigError
from bgzero.match.mat import MatFormatError, format_match, parse_match
from bgzero.match.runner import play_matches
from bgzero.match.sgf import SgfFormatError, parse_sgf
from bgzero.ui.hint_text import proper_action
from bgzero.ui.person_match import ANSWER, MOVING, ROLL
from bgzero.ui.report import format_report
from bgzero.web.body_limit import BodyLimit
from bgzero.web.engine import BusyError, Engine
from bgzero.web.games import ServerFullError, Sessions, UnknownSessionError, WebGame
from bgzero.web.rollouts import MOST_TOP, MOST_TRIALS, RolloutJob, RolloutRequest, RolloutRunner, run_rollout
from bgzero.web.watch import frames, summary

STATIC = Path(__file__).resolve().parent / "static"
CLIENT_COOKIE = "bgzero_client"  # the browser's id: its games are its own
POSITION_HELP = "gnubg Position ID (side on roll), PositionID:MatchID, or an XGID"


class BodyCutOff(ConfigError):
    """The body ended early: the client went away, or its chunked encoding was broken."""


class Body(BaseModel):
    """A request body: a key it does not know is refused (422), not ignored."""

    model_config = ConfigDict(extra="forbid")


class NewGame(Body):
    agent: str | None = Field(None, description="the bot, one of /api/agents; the server's default if omitted")
    length: int = Field(5, ge=0, le=25, description="match length in points; 0 for a money session")
    games: int = Field(0, ge=0, le=1000, description="money sessions only: games to play, 0 until you stop")
    jacoby: bool = False
    seed: int | None = Field(None, ge=0, lt=2**63, description="the dice's seed; a fresh one if omitted")


class GameAction(Body):
    action: str = Field(..., description="roll, double, take, pass, move, resign or next")
    move: str | None = Field(None, description="for move: the play in gnubg notation, e.g. 8/5 6/5")
    level: int = Field(1, ge=1, le=3, description="for resign: 1 single game, 2 gammon, 3 backgammon")


class Watch(Body):
    a: str = Field(..., description="player 0, one of /api/agents")
    b: str = Field(..., description="player 1, one of /api/agents")
    length: int = Field(3, ge=0, le=11, description="match length; 0 for money")
    games: int = Field(1, ge=1, le=5, description="money sessions only: games to play")
    seed: int = Field(0, ge=0, lt=2**63)


class Rollout(Body):
    position: str
    dice: str | None = Field(None, description="roll out the best plays of this roll; omit for the position")
    match: str | None = None
    agent: str | None = None
    trials: int = Field(1296, ge=1, le=MOST_TRIALS, description="games for each play rolled out")
    seed: int = Field(0, ge=0, lt=2**63)
    top: int = Field(5, ge=1, le=MOST_TOP)


def create_app(engine: Engine, *, default_agent: str, hint_agent: str | None = None, sessions: int = 64,
               games_per_client: int = 4, idle_minutes: float = 60.0, upload_bytes: int = 1_000_000, rollout: RolloutRunner = run_rollout) -> FastAPI:
    """The app serving ``engine``'s agents; ``rollout`` runs ``/api/rollout``."""
    engine.check(default_agent)
    hint_agent = hint_agent or default_agent
    engine.check(hint_agent)
    if upload_bytes < 1:
        raise ConfigError(f"upload_bytes={upload_bytes} must be at least 1")
    games = Sessions(sessions, games_per_client, idle_minutes * 60)

    @asynccontextmanager
    async def lifespan(_app):
        yield
        engine.close()  # its threads are daemons: work still running does not hold the process

    app = FastAPIOffline(title="bgzero", description="Backgammon analysis and play: bgzero's agents over HTTP.",
                         version="1", lifespan=lifespan, static_url="/static-docs")  # /docs served offline

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException):
        words = {404: f"no such page or endpoint: {request.url.path}",
                 405: f"{request.method} is not allowed on {request.url.path}"}
        return JSONResponse({"error": words.get(e.status_code, str(e.detail))}, status_code=e.status_code,
                            headers=getattr(e, "headers", None))

    @app.exception_handler(BgzeroError)
    async def bgzero_error(request: Request, e: BgzeroError):
        status = (404 if isinstance(e, UnknownSessionError) else
                  503 if isinstance(e, (BusyError, ServerFullError)) else 400)
        return JSONResponse({"error": str(e)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, e: RequestValidationError):
        parts = ["/".join(str(x) for x in err["loc"] if x not in ("query", "body")) + ": " + err["msg"]
                 for err in e.errors()]
        return JSONResponse({"error": "; ".join(parts)}, status_code=422)

    app.add_middleware(BodyLimit, limit=upload_bytes)  # every body, chunked or not

    def agent_of(spec: str | None) -> str:
        return engine.check(spec if spec is not None else default_agent)

    # ---- analysis

    @app.get("/api/agents", summary="The agents this server offers")
    async def agents():
        return {"agents": list(engine.agents), "networks": [a for a in engine.agents if parse_spec(a)[0] == "checkpoint"],
                "default": default_agent, "hint": hint_agent}

    @app.get("/api/move", summary="Every legal play of a roll, best first")
    async def move(position: str = Query(..., description=POSITION_HELP),
                   dice: str | None = Query(None, description="31, 3-1 or 3,1; else the Match ID's (or XGID's) roll"),
                   match: str | None = Query(None, description="gnubg Match ID"),
                   agent: str | None = Query(None), limit: int = Query(0, ge=0, description="0: all plays")):
        (board, info), spec = _position(position, match), agent_of(agent)
        if dice is not None:
            roll = parse_dice(dice)
        elif info is not None and info.dice != (0, 0):
            roll = info.dice
        else:
            raise ConfigError("no dice: pass dice=31, or a Match ID that records a roll")
        state, player = match_context(info)

        def work():
            evaluator, ply = engine.evaluator(spec)
            return rank_moves(evaluator, board, roll, ply, state=state, player=player)

        ranked = await engine.run(work)
        return {"position": position, "dice": list(roll), "agent": spec, "board": board.tolist(),
                "equity": equity_label(state), "moves": [asdict(m) for m in ranked[:limit or None]]}

    @app.get("/api/evaluate", summary="The side on roll's chances before it rolls")
    async def evaluate(position: str = Query(..., description=POSITION_HELP),
                       match: str | None = Query(None, description="gnubg Match ID (its roll is shown)"),
                       agent: str | None = Query(None)):
        (board, info), spec = _position(position, match), agent_of(agent)

        def work():
            evaluator, ply = engine.evaluator(spec)
            return evaluate_position(evaluator, board, ply)

        rolled = info.dice if info is not None and info.dice != (0, 0) else None  # an XGID's or Match ID's roll
        return {"position": position, "agent": spec, "board": board.tolist(), "dice": list(rolled) if rolled else None,
                **asdict(await engine.run(work))}

    @app.get("/api/cube", summary="The cube action of the side on roll before it rolls")
    async def cube(position: str = Query(..., description=POSITION_HELP),
                   match: str | None = Query(None, description="money if omitted (and the position carries none)"),
                   agent: str | None = Query(None)):
        (board, info), spec = _position(position, match), agent_of(agent)
        info = info or MatchInfo()

        def work():
            evaluator, ply = engine.evaluator(spec)
            return cube_analysis(evaluator, board, info, ply)

        return {"position": position, "agent": spec, **_cube(await engine.run(work))}

    rollouts: dict[str, RolloutJob] = {}  # queued or running, by id

    @app.post("/api/rollout", summary="Roll out a position or the best plays of a roll, streaming progress",
              description="Runs on the long-work pool (503 when its queue is full). Answers JSON lines: "
                          "{\"progress\": {id, trials, total, partial}} as it goes, then {\"result\": ...} or "
                          "{\"error\": ...}. The header X-Rollout-Id names it for DELETE /api/rollout/{id}; "
                          "a rollout whose client disconnects is cancelled too.")
    async def rollout_endpoint(body: Rollout):
        board, info = _position(body.position, body.match)
        total = body.trials * (body.top + 1 if body.dice else 1)  # the position, then each play
        if total > MOST_TRIALS:
            return JSONResponse({"error": f"trials {body.trials} x {body.top + 1} (the position and top {body.top} "
                                          f"plays) = {total} games; at most {MOST_TRIALS} a request"}, status_code=422)
        request = RolloutRequest(board, parse_dice(body.dice) if body.dice else None,
                                 from_match_info(info) if info else MatchState(0), agent_of(body.agent),
                                 body.trials, body.seed, body.top, info.dice_owner if info else 0)
        job = RolloutJob(total)
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue = asyncio.Queue()

        def progress(done: int, of: int, partial: dict) -> None:
            loop.call_soon_threadsafe(lines.put_nowait,
                                      {"progress": {"id": job.id, "trials": done, "total": of, "partial": partial}})

        future = engine.submit_long(rollout, request, job.report(progress))  # BusyError (503) before any answer
        rollouts[job.id] = job
        future.add_done_callback(lambda _f: loop.call_soon_threadsafe(rollouts.pop, job.id, None))
        return StreamingResponse(_stream(job, asyncio.wrap_future(future), lines), media_type="application/x-ndjson",
                                 headers={"X-Rollout-Id": job.id})

    @app.delete("/api/rollout/{rid}", summary="Cancel a rollout, queued or running")
    async def cancel_rollout(rid: str):
        job = rollouts.get(rid)
        if job is None:
            return JSONResponse({"error": f"no rollout {rid!r} is queued or running"}, status_code=404)
        job.cancelled.set()
        return {"id": rid, "cancelled": True, "trials": job.done, "total": job.total}

    # ---- a person's game

    def client_of(request: Request) -> str | None:
        return request.cookies.get(CLIENT_COOKIE)

    @app.post("/api/game", summary="Start a match or money session against an agent",
              description="The game belongs to this browser (an httponly cookie, set here if it has none).")
    async def new_game(body: NewGame, request: Request):
        spec = agent_of(body.agent)
        seed = body.seed if body.seed is not None else secrets.randbelow(2**63)
        client = client_of(request) or secrets.token_urlsafe(16)

        def work():
            with engine.using(spec):
                return WebGame(engine.agent(spec), spec, length=body.length, games=body.games,
                               jacoby=body.jacoby, seed=seed)

        game = await engine.run(work)
        answer = JSONResponse({"id": games.add(game, client), **game.view()})
        answer.set_cookie(CLIENT_COOKIE, client, httponly=True, samesite="strict")
        return answer

    @app.get("/api/game", summary="This browser's most recent game, as after a page reload (404 if none)")
    async def current_game(request: Request):
        sid = games.current(client_of(request))
        return {"id": sid, **games.get(sid, client_of(request)).view()}

    @app.get("/api/game/{sid}", summary="The game's state")
    async def show_game(sid: str, request: Request):
        return {"id": sid, **games.get(sid, client_of(request)).view()}

    @app.post("/api/game/{sid}", summary="Roll, double, take, pass, move, resign, or start the next game")
    async def act(sid: str, body: GameAction, request: Request):
        game = games.get(sid, client_of(request))

        def work():
            with game.lock, engine.using(game.names[1]):
                game.act(body.action, body.move, body.level)
                return game.view()

        return {"id": sid, **await engine.run(work)}

    @app.get("/api/game/{sid}/hint", summary="The ranked plays, or the cube action, for the person",
             description="When the bot has doubled, `answer` gives take and pass from the person's side.")
    async def hint(sid: str, request: Request, limit: int = Query(0, ge=0, description="0: all plays")):
        game = games.get(sid, client_of(request))

        def work():
            evaluator, ply = engine.evaluator(hint_agent)
            with game.lock:
                board, dice, state, awaiting = game.board, game.dice, game.state, game.awaiting
            if awaiting == MOVING:
                ranked = rank_moves(evaluator, board, dice, ply, state=state)
                return {"kind": "moves", "agent": hint_agent, "equity": equity_label(state),
                        "moves": [asdict(m) for m in ranked[:limit or None]]}
            if awaiting in (ROLL, ANSWER):
                doubler = 0 if awaiting == ROLL else 1
                info = to_match_info(state, on_roll=doubler, turn=0, double_offered=awaiting == ANSWER)
                analysis = cube_analysis(evaluator, board, info, ply)
                out = {**_cube(analysis), "kind": "cube", "agent": hint_agent}  # kind: moves or cube, as documented
                if awaiting == ANSWER and analysis.decision is not None:
                    out["answer"] = _answer(analysis.decision)
                return out
            raise ConfigError("no hint between games")

        return await engine.run(work)

    @app.get("/api/game/{sid}/{kind}", summary="The match so far (the game in progress too) as a .mat file or gnubg's SGF",
             response_class=PlainTextResponse)
    async def transcript(sid: str, kind: Literal["mat", "sgf"], request: Request):
        game = games.get(sid, client_of(request))
        with game.lock:
            text = game.mat() if kind == "mat" else game.sgf()
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="bgzero.{kind}"'})

    # ---- watching and uploads

    @app.post("/api/watch", summary="Two agents play a match; the page replays its frames")
    async def watch(body: Watch):
        a, b = agent_of(body.a), agent_of(body.b)

        def work():
            with engine.using(a, b):
                record = play_matches(engine.agent(a), engine.agent(b), [body.seed], body.length, body.games,
                                      names=(a, b))[0]
            return {**summary(record), "frames": frames(record), "mat": format_match(record)}

        return await engine.run_long(work)

    @app.post("/api/match", summary="Upload a .mat or .sgf match: replayed, and every decision judged",
              description="The body is the file's text itself (Content-Type text/plain). The answer holds the "
                          "frames to replay, the analysis (per player: error rates, PR, rating, luck) with the "
                          "errors worst first, and with report=true the HTML match report.")
    async def upload(request: Request, agent: str | None = Query(None, description="a network agent; its ply"),
                     report: bool = Query(False, description="include the self-contained HTML report")):
        spec = agent_of(agent)
        text = await _read_text(request)

        def work():
            record = _parse_upload(text)
            evaluator, ply = engine.evaluator(spec)
            analysis = analyse_match(evaluator, record, ply, agent=spec, source="upload")
            out = {**summary(record), "frames": frames(record),
                   "analysis": {**analysis.as_dict(decisions=False),
                                "errors": [decision_dict(d) for d in worst_decisions(analysis)]}}
            if report:
                out["report"] = format_report(analysis, record.names)
            return out

        return await engine.run_long(work)

    # ---- the page

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.state.engine, app.state.sessions = engine, games
    return app


def _match(text: str | None) -> MatchInfo | None:
    return read_match_id(text.strip()) if text is not None and text.strip() else None


def _position(text: str, match: str | None) -> tuple[np.ndarray, MatchInfo | None]:
    """The board, and the match state: ``match`` if given, else what an XGID or PositionID:MatchID carries."""
    board, carried = read_position_and_match(text)
    return board, _match(match) or carried


def _answer(decision) -> dict:
    """The taker's side of a double: the doubler's normalised equities turned round (EMG and
    money equity are zero-sum, so the taker's is the doubler's negated)."""
    e = decision.equities
    return {"take": -e.double_take, "pass": -e.double_pass, "proper": decision.response}


def _cube(analysis) -> dict:
    """A cube analysis as JSON, with the proper action in the words ``bgzero-hint`` prints."""
    out = asdict(analysis)
    out["kind"] = out["position_class"] = analysis.kind.name.lower()  # contact, race or bearoff
    out["proper_action"] = (proper_action(analysis.decision, redouble=analysis.state.cube.value > 1)
                            if analysis.decision else None)
    return out


def _parse_upload(text: str):
    """A ``.sgf`` (its text opens with ``(;``, as every SGF game tree does) or else a ``.mat`` match."""
    sgf = text.lstrip().startswith("(;")
    try:
        return parse_sgf(text) if sgf else parse_match(text)
    except (MatFormatError, SgfFormatError) as e:
        raise type(e)(f"the uploaded file is not a {'.sgf' if sgf else '.mat'} match bgzero can read: {e}") from None


async def _read_text(request: Request) -> str:
    """The body as text (:class:`~bgzero.web.body_limit.BodyLimit` has capped its size)."""
    data = bytearray()
    try:
        async for chunk in request.stream():
            data += chunk
    except ClientDisconnect:
        raise BodyCutOff("the request body was cut off before its end") from None
    if not data.strip():
        raise ConfigError("empty upload: send the .mat file's text as the request body")
    return data.decode("utf-8", errors="replace")


async def _stream(job: RolloutJob, task: asyncio.Future, lines: asyncio.Queue):
    """The rollout's progress reports and then its result (or error), one JSON line each. If the
    client goes away the generator is closed mid-wait, and the rollout is cancelled with it."""
    try:
        while not (task.done() and lines.empty()):
            getter = asyncio.ensure_future(lines.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield _json(getter.result())
            else:
                getter.cancel()
        try:
            yield _json({"result": task.result()})
        except (BgzeroError, asyncio.CancelledError) as e:
            yield _json({"error": str(e) if isinstance(e, BgzeroError) else f"rollout {job.id} cancelled"})
    finally:
        job.cancelled.set()  # a no-op once it has finished
        task.cancel()  # drops it if it still waits for a worker


def _json(data) -> str:
    """One line of strict JSON: a non-finite number (the standard error of one trial) becomes null."""
    return json.dumps(_finite(data), default=_plain, allow_nan=False) + "\n"


def _finite(value):
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if isinstance(value, np.ndarray):
        return _finite(value.tolist())
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    return value


def _plain(value):
    """numpy scalars and arrays in a runner's result, as JSON numbers and lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON data")
