"""Thin command-line entry points over the library: reading their options, and ending in one line."""

import errno
import functools
import os
import re
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from bgzero import paths
from bgzero.errors import BgzeroError, ConfigError, Interrupted

CONFIGS = str(paths.CONFIGS)
"""The Hydra configs, as an absolute path: console scripts run from anywhere."""


def config_help(config_name: str, prog: str) -> str:
    """The ``--help`` text: the command's own config file, its options with their comments.

    Hydra's own help lists the config groups of every config under ``configs/`` (training's)
    and drops the comments; the file itself, less its ``hydra:`` block, says what each option does.
    """
    path = Path(CONFIGS) / f"{config_name}.yaml"
    lines, in_hydra = [], False
    for line in path.read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            in_hydra = line.startswith("hydra:")
        if not in_hydra and "override hydra/" not in line:
            lines.append(line)
    body = "\n".join(lines).strip()
    return (f"{prog}: options are key=value, each shown with its default and comment ({path.name}):\n\n"
            f"{body}\n\nHydra's flags also work: --cfg job prints the composed config, --info its sources.")


def wants_help(args: list[str]) -> bool:
    """Whether command-line ``args`` ask for ``--help`` (or ``-h``)."""
    return any(arg in ("--help", "-h") for arg in args)


def command(name: str, positional: tuple[str, ...] = ()):
    """The ``main`` of command ``name``: its options (:mod:`bgzero.cli.schemas`) read from the command
    line (or ``main(argv)``'s list) and checked, then ``fn(cfg)``. Bare arguments fill ``positional``
    in order, as gnubg's ``hint 4HPwATDgc/ABMA 31``; a mistake is one line naming it, before any work."""
    def wrap(fn):
        @functools.wraps(fn)
        def main(argv: list[str] | None = None):
            from bgzero.cli.options import compose, help_text
            from bgzero.cli.schemas import COMMANDS

            prog, schema = COMMANDS[name]
            args = sys.argv[1:] if argv is None else argv
            if wants_help(args):
                print(help_text(schema, prog))
                return None
            try:
                cfg = compose(schema, args, positional)
            except BgzeroError as e:
                raise SystemExit(f"{prog}: {e}") from None
            return fn(cfg)
        return main
    return wrap


def hydra_main(config_name: str, check):
    """The ``main`` of a Hydra command (``bgzero-train``, ``bgzero-iterate``: config groups,
    ``experiment=``, sweeps) on ``configs/CONFIG_NAME.yaml``: the config composed by Hydra's compose
    API, ``check(cfg)``-ed, then ``fn(cfg)``; Hydra's own ``main`` runs only for its flags
    (``-m`` sweeps, ``--cfg job``), and :func:`config_help` is ``--help``."""
    name = f"bgzero-{config_name}"

    def wrap(fn):
        @functools.wraps(fn)
        def main():
            args = sys.argv[1:]
            if wants_help(args):
                print(config_help(config_name, name))
                return None
            if any(arg.startswith("-") or arg.lstrip("+~").startswith("hydra.") for arg in args):
                import hydra

                return hydra.main(version_base="1.3", config_path=CONFIGS, config_name=config_name)(fn)()
            try:
                cfg = hydra_compose(config_name, args)
                check(cfg)
            except BgzeroError as e:
                raise SystemExit(f"{name}: {e}") from None
            return fn(cfg)
        return main
    return wrap


_NO_OPTION = re.compile(r"Could not override '([^']+)'")


def _dotted_keys(node: dict, prefix: str = "") -> list[str]:
    """Every value's key of a nested config, as ``td.lam``."""
    keys = []
    for name, value in node.items():
        keys += _dotted_keys(value, f"{prefix}{name}.") if isinstance(value, dict) else [prefix + str(name)]
    return keys


def _keys_of(cfg) -> list[str]:
    from omegaconf import OmegaConf

    return _dotted_keys(OmegaConf.to_container(cfg, resolve=False))


def _additions(overrides: list[str]) -> list[str]:
    """The ``+KEY=VALUE`` / ``++KEY=VALUE`` overrides that add a key, not a config group's choice
    (``+experiment=tiny`` adds a config file, which is Hydra's to check)."""
    out = []
    for override in overrides:
        key = override.lstrip("+").partition("=")[0].partition("@")[0]
        if override.startswith("+") and ("." in key or not (Path(CONFIGS) / key).is_dir()):
            out.append(override)
    return out


def _one_line(message: str) -> str:
    """A multi-line message (Hydra's, OmegaConf's) as one line."""
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def hydra_compose(config_name: str, overrides: list[str]):
    """The config Hydra composes for ``configs/CONFIG_NAME.yaml`` and ``overrides``. A mistake Hydra
    finds (an option the config lacks, a group's unknown choice, a value its grammar refuses), or a
    ``+KEY=VALUE`` adding a key the command never reads, is one ConfigError line."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from bgzero.cli.options import no_option

    with initialize_config_dir(config_dir=CONFIGS, version_base="1.3"):
        try:
            cfg = compose(config_name, overrides=overrides)
        except (HydraException, OmegaConfBaseException) as e:
            unknown = _NO_OPTION.match(str(e))
            if unknown and "To append to your config" in str(e):  # Hydra's advice would add a key no one reads
                raise no_option(unknown[1], _keys_of(compose(config_name))) from None
            said = str(e).split("Config search path")[0]  # Hydra's list of where it looked says nothing new
            raise ConfigError(_one_line(said)) from None
        additions = _additions(overrides)
        if additions:
            known = _keys_of(compose(config_name, overrides=[o for o in overrides if o not in additions]))
            for key in _keys_of(cfg):
                if key not in known:
                    raise no_option(key, known)
    return cfg


def reader_gone() -> None:
    """The reader of standard output went away (``| head``): send what is left to /dev/null, so that
    Python's own flush at exit cannot fail on the closed pipe too."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


WRITE_FAULTS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EROFS}
"""A full disk, a file-size limit or quota, a failing or read-only device: the disk's fault, not the code's."""


@contextmanager
def one_line_errors(prog: str):
    """Turn bgzero's own errors into a one-line message and exit status 1, not a traceback.

    ``kill`` (SIGTERM) becomes an exit through Python, so temporary files are removed and
    self-play workers stopped on the way out, as after an error. Ctrl-C (SIGINT) ends in one
    line and exit status 130, as a shell reports it: :class:`~bgzero.errors.Interrupted`'s
    message when the command saved something, else that nothing was written. A write the disk
    refuses (:data:`WRITE_FAULTS`) is one line naming the file. A value
    OmegaConf cannot resolve (``dice=${nope}``) is one line too, read where it is used.
    """
    def terminated(signum, frame):
        raise SystemExit(f"{prog}: stopped by {signal.Signals(signum).name}")

    faults: list[OSError] = []  # write faults of other threads (TensorBoard's writer), told by the main one

    def cannot_write(e: OSError) -> SystemExit:
        name = e.filename or next((f.filename for f in faults if f.filename), None)
        return SystemExit(f"{prog}: cannot write{f' {name}' if name else ''}: {e.strerror}")

    def thread_fault(args):
        if isinstance(args.exc_value, OSError) and args.exc_value.errno in WRITE_FAULTS:
            faults.append(args.exc_value)
        else:
            default_hook(args)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
    default_hook, threading.excepthook = threading.excepthook, thread_fault
    try:
        yield
    except Interrupted as e:
        _interrupted(f"{prog}: interrupted; {e}")
    except KeyboardInterrupt:
        _interrupted(f"{prog}: interrupted; no file was left half-written")
    except BgzeroError as e:
        raise SystemExit(f"{prog}: {e}") from None
    except BrokenPipeError:  # the reader stopped early (bgzero-hint ... | head): end quietly, as Python's docs advise
        reader_gone()
        raise SystemExit(1) from None
    except OSError as e:
        if e.errno not in WRITE_FAULTS:
            raise
        raise cannot_write(e) from None  # another library's writer (TensorBoard's); ours go through bgzero.atomic
    except Exception as e:
        omegaconf_errors = sys.modules.get("omegaconf.errors")
        if omegaconf_errors and isinstance(e, omegaconf_errors.OmegaConfBaseException):
            raise SystemExit(f"{prog}: {_one_line(str(e))}") from None
        raise
    else:
        if faults:  # the work ended, but a background writer could not write: said, not swallowed
            raise cannot_write(faults[0])
    finally:
        threading.excepthook = default_hook


def _interrupted(message: str):
    print(message, file=sys.stderr, flush=True)
    raise SystemExit(130) from None
