"""The console scripts: each answers ``--help`` from its options before it imports its command.

A command module imports the library it drives, and that costs seconds (numba's kernels;
torch for training), more than answering what a command takes should. Each script here
prints the help of :func:`~bgzero.cli.config_help` with nothing but the standard library
and the command's options (:mod:`bgzero.cli.schemas`, or the config file of a Hydra command), and
otherwise imports its command and runs it. ``pyproject.toml``
points the ``bgzero-*`` scripts here; ``python -m bgzero.cli.NAME`` still runs a command
directly.

A script also loads numba's cached kernels without refreshing numba's compiler first
(:func:`load_cached_kernels_without_refresh`), and an interactive command leaves as soon as it is
done (:func:`exit_now`): together about a second of a hint's start and end.
"""

import atexit
import os
import sys
import threading
from importlib import import_module
from importlib.util import find_spec

from bgzero.cli import reader_gone
from bgzero.cli.hydra_configs import config_help
from bgzero.cli.options import help_text, wants_help
from bgzero.cli.schemas import COMMANDS
from bgzero.kernel_cache import numba_internals_allowed

QUICK_EXIT = {"hint", "play", "web"}
"""The interactive commands, which leave by :func:`exit_now`: a person waits on their end. The
others, which write results (``eval``, ``match``, ``analyze``, ``rollout``, training), end as
Python ends, teardown and all: a second is nothing beside their work."""

NEEDS_TRAIN = {"export": ("torch",), "league": ("torch",), "prune": ("torch",),
               "iterate": ("torch", "hydra"), "train": ("torch", "hydra")}
"""Commands that train or read a run's training checkpoints (``.pt``), and what of the ``train``
extra each imports: torch, and Hydra for the two that compose config groups."""


NUMBA_VERSIONS = ((0, 59), (0, 68))
"""The numba releases (first and last, as minor versions) whose ``Cache.load_overload``
:func:`load_cached_kernels_without_refresh` replaces: the same code in 0.59 and 0.68."""


def numba_is_known() -> bool:
    """Whether the installed numba is one of :data:`NUMBA_VERSIONS`."""
    import numba

    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    return NUMBA_VERSIONS[0] <= version <= NUMBA_VERSIONS[1]


def load_cached_kernels_without_refresh() -> None:
    """Let numba load a kernel from its on-disk cache without refreshing its compiler first.

    Before loading cached machine code numba refreshes its whole compiler: the typing and
    lowering registries of all it can compile, which imports its array, linear-algebra
    (and so ``scipy.linalg``, to look for BLAS), random, typed-container and cffi libraries:
    0.4-0.6 s of every command's start. Loading machine code needs none of that, only
    numba's runtime, whose functions the code calls. A kernel that is not in the cache is
    compiled, and compiling refreshes the compiler itself, so only the time changes. This
    leans on numba's internals, so it does nothing outside :data:`NUMBA_VERSIONS`, nor with
    ``BGZERO_NUMBA_INTERNALS=off``.
    """
    if not numba_is_known() or not numba_internals_allowed():
        return
    from numba.core.caching import Cache

    def load_overload(self, sig, target_context):
        """numba's ``Cache.load_overload`` without its ``target_context.refresh()``."""
        from numba.core.runtime import rtsys

        rtsys.initialize(target_context)  # the runtime the loaded code links against
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # the guard swallowed a spurious I/O error: compile instead, as numba does

    Cache.load_overload = load_overload  # type: ignore[method-assign]  # the patch this function exists to make


def exit_now() -> None:
    """End the process once the command is done, skipping the interpreter's teardown.

    Tearing down numba's and LLVM's objects at exit takes 0.3-0.8 s, longer than many a
    command's work. This does first what a normal exit does first, in its order: it stops
    the thread pools and waits for the other threads (``threading._shutdown``, the call that
    starts the interpreter's own finalisation), runs the exit handlers (logging's flush,
    finalizers), and flushes the standard streams; then it ends the process at once. A
    stream that cannot be flushed (a closed pipe) gives exit status 120, as Python does.
    """
    threading._shutdown()  # type: ignore[attr-defined]  # private, so not in typeshed; see the docstring
    atexit._run_exitfuncs()
    status = 0
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            status = 120
    os._exit(status)


def say(text: str) -> None:
    """Print ``text``; a reader that stopped early (``bgzero-hint --help | head``) ends the command quietly, as for ``ls``."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        reader_gone()
        raise SystemExit(0) from None


def help_of(command: str) -> str:
    """The ``--help`` of ``command`` (``hint``, ``bench errors``): from its options, or a Hydra
    command's config file."""
    if command in COMMANDS:
        prog, schema = COMMANDS[command]
        return help_text(schema, prog)
    return config_help(command, f"bgzero-{command}")


def _script(command: str):
    """The console script ``bgzero-COMMAND``: the module ``bgzero.cli.COMMAND``."""
    prog = f"bgzero-{command}"

    def main() -> None:
        if wants_help(sys.argv[1:]):
            say(help_of(command))
            return
        missing = [name for name in NEEDS_TRAIN.get(command, ()) if find_spec(name) is None]
        if missing:
            raise SystemExit(f"{prog} needs {' and '.join(missing)}, for training and training checkpoints: "
                             "pip install 'bgzero[train]'")
        load_cached_kernels_without_refresh()
        import_module(f"bgzero.cli.{command}").main()
        if command in QUICK_EXIT:
            exit_now()

    main.__qualname__ = main.__name__ = command
    main.__doc__ = f"``{prog}``: its --help, else :func:`bgzero.cli.{command}.main`."
    return main


BENCH_SUBCOMMANDS = ("errors", "cube")
"""``bgzero-bench``'s subcommands."""
BENCH_USAGE = """usage: bgzero-bench SUBCOMMAND key=value ...

  errors   move errors: mean equity loss x1000 per move against gnubg n-ply or the rollout judge
           bgzero-bench errors agent=[strong@0,strong@1] positions=1000 seed=0
  cube     cube decisions against gnubg's 2-ply hint, money and match
           bgzero-bench cube checkpoint=checkpoints/strong.pt positions=600 seed=1 ply=[0,1]

bgzero-bench SUBCOMMAND --help lists its options."""


def bench_subcommand(args: list[str]) -> str | None:
    """The ``bgzero-bench`` subcommand ``args`` start with, or None."""
    return args[0] if args and args[0] in BENCH_SUBCOMMANDS else None


def bench() -> None:
    """``bgzero-bench SUBCOMMAND``: the subcommand's --help, else :func:`bgzero.cli.bench.main`."""
    args = sys.argv[1:]
    name = bench_subcommand(args)
    if name is None and wants_help(args):
        say(BENCH_USAGE)
        return
    if name is not None and wants_help(args[1:]):
        say(help_of(f"bench {name}"))
        return
    load_cached_kernels_without_refresh()
    import_module("bgzero.cli.bench").main()


analyze = _script("analyze")
eval = _script("eval")  # noqa: A001 - the script is bgzero-eval
hint = _script("hint")
iterate = _script("iterate")
league = _script("league")
match = _script("match")
play = _script("play")
prune = _script("prune")
rollout = _script("rollout")
serve = _script("serve")
train = _script("train")
export = _script("export")
web = _script("web")
