"""``bgzero-web``: the browser app and the HTTP JSON API on uvicorn, bound to 127.0.0.1 by default."""

from omegaconf import DictConfig

from bgzero.cli import one_line_errors
from bgzero.cli.options import command
from bgzero.cli.schemas import COMMANDS, Web
from bgzero.schema import check
from bgzero.web.api import create_app
from bgzero.web.engine import Engine

STOP_SECONDS = 5  # on SIGTERM or Ctrl-C, answers still streaming (a rollout) get this long, then are cut


def build(cfg: DictConfig):
    """The app ``cfg`` describes, every value checked before anything is loaded."""
    check(cfg, Web)
    engine = Engine(list(cfg.agents), workers=int(cfg.workers), queue=int(cfg.queue),
                    long_workers=int(cfg.long_workers), long_queue=int(cfg.long_queue))
    engine.load_all()
    return create_app(engine, default_agent=str(cfg.default_agent),
                      hint_agent=None if cfg.hint_agent is None else str(cfg.hint_agent),
                      sessions=int(cfg.sessions), games_per_client=int(cfg.games_per_client),
                      idle_minutes=float(cfg.idle_minutes), upload_bytes=int(cfg.upload_bytes))


@command(*COMMANDS["web"])
def main(cfg: DictConfig) -> None:
    import uvicorn

    with one_line_errors("bgzero-web"):
        app = build(cfg)
    print(f"bgzero-web: http://{cfg.host}:{cfg.port}/ (API docs at /docs); Ctrl-C stops it", flush=True)
    uvicorn.run(app, host=str(cfg.host), port=int(cfg.port), log_level=str(cfg.log_level),
                limit_concurrency=int(cfg.connections), timeout_graceful_shutdown=STOP_SECONDS)


if __name__ == "__main__":
    main()
