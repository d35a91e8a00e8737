"""The console scripts: each answers ``--help`` from its config file before it imports its command.

A command module imports the library it drives, and that costs seconds (numba's kernels;
torch for training), more than answering what a command takes should. Each script here
prints the help of :func:`~bgzero.cli.config_help` with nothing but the standard library
and the config file, and otherwise imports its command and runs it. ``pyproject.toml``
points the ``bgzero-*`` scripts here; ``python -m bgzero.cli.NAME`` still runs a command
directly.

A script also spares its process numba's probe for BLAS (:func:`load_numba_without_blas`).
"""

import sys
from importlib import import_module

from bgzero.cli import config_help, wants_help


def load_numba_without_blas() -> None:
    """Load numba's array library with ``scipy.linalg`` out of sight, then put it back.

    numba looks for BLAS when its CPU target first loads, by importing ``scipy.linalg``
    where scipy is installed: 0.3-0.5 s of every command's start. No bgzero kernel uses
    BLAS, and a console script's process runs only bgzero's kernels, so there numba's probe
    finds none. ``scipy.linalg`` is importable again afterwards (a kernel using ``np.dot``
    would still find BLAS when it compiles).
    """
    hidden = "scipy.linalg" not in sys.modules
    if hidden:
        sys.modules["scipy.linalg"] = None  # makes ``import scipy.linalg...`` fail at once
    try:
        import numba.np.arraymath  # noqa: F401 - its import is the probe
    finally:
        if hidden:
            del sys.modules["scipy.linalg"]


def _script(command: str, config: str):
    """The console script ``bgzero-COMMAND``: the module ``bgzero.cli.COMMAND`` on ``configs/CONFIG.yaml``."""
    prog = f"bgzero-{command}"

    def main() -> None:
        if wants_help(sys.argv[1:]):
            print(config_help(config, prog))
            return
        load_numba_without_blas()
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
