"""The console scripts: each answers ``--help`` from its config file before it imports its command.

A command module imports the library it drives, and that costs seconds (numba's kernels;
torch for training), more than answering what a command takes should. Each script here
prints the help of :func:`~bgzero.cli.config_help` with nothing but the standard library
and the config file, and otherwise imports its command and runs it. ``pyproject.toml``
points the ``bgzero-*`` scripts here; ``python -m bgzero.cli.NAME`` still runs a command
directly.
"""

import sys
from importlib import import_module

from bgzero.cli import config_help, wants_help


def _script(command: str, config: str):
    """The console script ``bgzero-COMMAND``: the module ``bgzero.cli.COMMAND`` on ``configs/CONFIG.yaml``."""
    prog = f"bgzero-{command}"

    def main() -> None:
        if wants_help(sys.argv[1:]):
            print(config_help(config, prog))
            return
        import_module(f"bgzero.cli.{command}").main()

    main.__qualname__ = main.__name__ = command
    main.__doc__ = f"``{prog}``: --help from configs/{config}.yaml, else :func:`bgzero.cli.{command}.main`."
    return main


analyze = _script("analyze", "analyze")
eval = _script("eval", "evaluate")  # noqa: A001 - the script is bgzero-eval
hint = _script("hint", "hint")
league = _script("league", "league")
match = _script("match", "match")
play = _script("play", "play")
prune = _script("prune", "prune")
rollout = _script("rollout", "rollout")
serve = _script("serve", "serve")
train = _script("train", "train")
web = _script("web", "web")
