"""Thin command-line entry points (Hydra apps) over the library."""

import difflib
import errno
import functools
import os
import re
import signal
import sys
import threading
from contextlib import contextmanager
from datetime import datetime
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


def hydra_main(config_name: str, prog: str | None = None, preflight=None):
    """``hydra.main`` on ``configs/CONFIG_NAME.yaml``, with :func:`config_help` as ``--help``, and
    :func:`plain_compose` first: where it composes the config, Hydra is not run, nor imported.

    ``preflight(cfg)`` checks a command whose Hydra run writes files (its output folder, ``.hydra/``
    and a log) before Hydra makes them: a refused command leaves nothing behind.
    """
    name = prog or f"bgzero-{config_name}"

    def wrap(fn):
        @functools.wraps(fn)
        def main(*args, **kwargs):
            if wants_help(sys.argv[1:]):
                print(config_help(config_name, name))
                return None
            sys.argv = quoted_xgids(sys.argv)
            try:
                cfg = None if args or kwargs else plain_compose(config_name, sys.argv[1:])
                if cfg is None and not args and not kwargs:
                    _preflight(config_name, sys.argv[1:], preflight)
            except BgzeroError as e:
                raise SystemExit(f"{name}: {e}") from None
            if cfg is not None:
                return fn(cfg)
            import hydra

            return hydra.main(version_base="1.3", config_path=CONFIGS, config_name=config_name)(fn)(*args, **kwargs)
        return main
    return wrap


def agents_preflight(schema):
    """The preflight (for :func:`hydra_main`) of a command that pits agent ``a`` against ``b``:
    its config against ``schema``, its processes and both agents, checked before any work."""
    def preflight(cfg) -> None:
        from bgzero.agents.specs import make_agent
        from bgzero.config_check import check, count_of_processes

        check(cfg, schema)
        count_of_processes("processes", cfg.processes)
        for spec in (cfg.a, cfg.b):
            make_agent(spec)
    return preflight


_NO_OPTION = re.compile(r"Could not override '([^']+)'")


def _no_option(key: str, cfg) -> ConfigError:
    """An option ``cfg`` lacks, named with the nearest option it has (a typo's likely meaning) and
    the options at that level: an unknown key is a mistake, never a setting silently ignored."""
    from omegaconf import DictConfig, OmegaConf

    parent, _, _ = key.rpartition(".")
    level = OmegaConf.select(cfg, parent) if parent else cfg
    options = list(level) if isinstance(level, DictConfig) else list(cfg)
    nearest = difflib.get_close_matches(key, _dotted_keys(OmegaConf.to_container(cfg, resolve=False)), n=1)
    hint = f" (nearest: {nearest[0]})" if nearest else ""
    where = f"the options under {parent} are" if parent and isinstance(level, DictConfig) else "the options are"
    return ConfigError(f"no option {key!r}{hint}; {where} {', '.join(options)} (--help says what each does)")


def _dotted_keys(node: dict, prefix: str = "") -> list[str]:
    """Every key of a nested config, as ``td.lam``: the sections and the values in them."""
    keys = []
    for name, value in node.items():
        keys.append(prefix + str(name))
        if isinstance(value, dict):
            keys += _dotted_keys(value, f"{prefix}{name}.")
    return keys


def _additions(overrides: list[str]) -> list[str]:
    """The ``+KEY=VALUE`` / ``++KEY=VALUE`` overrides that add a key, not a config group's choice
    (``+experiment=tiny`` adds a config file, which is Hydra's to check)."""
    out = []
    for override in overrides:
        key = override.lstrip("+").partition("=")[0].partition("@")[0]
        if override.startswith("+") and ("." in key or not (Path(CONFIGS) / key).is_dir()):
            out.append(override)
    return out


def _refuse_unknown_keys(cfg, compose_without) -> None:
    """Refuse a key that only a ``+KEY=VALUE`` put in ``cfg``: Hydra adds it where the command
    never reads it (``bgzero-hint ... +dicee=31`` evaluated the position, ignoring the roll).
    ``compose_without()`` composes the config without those additions: the keys a command knows."""
    from omegaconf import OmegaConf

    known = compose_without()
    have = set(_dotted_keys(OmegaConf.to_container(known, resolve=False)))
    for key in _dotted_keys(OmegaConf.to_container(cfg, resolve=False)):
        if key not in have:
            raise _no_option(key, known)


def _one_line(message: str) -> str:
    """A multi-line message (Hydra's, OmegaConf's) as one line."""
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def _preflight(config_name: str, overrides: list[str], check) -> None:
    """Compose the config Hydra will run and ``check`` it (if given). A mistake Hydra finds
    (an option the config lacks, a config group's unknown choice, a value its grammar
    refuses) is refused in one line; flags and Hydra's own settings are left to Hydra."""
    if any(arg.startswith("-") or arg.lstrip("+~").startswith("hydra.") for arg in overrides):
        return
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    with initialize_config_dir(config_dir=CONFIGS, version_base="1.3"):
        try:
            cfg = compose(config_name, overrides=overrides)
        except (HydraException, OmegaConfBaseException) as e:
            unknown = _NO_OPTION.match(str(e))
            if unknown and "To append to your config" in str(e):  # Hydra's advice would add a key no one reads
                raise _no_option(unknown[1], compose(config_name)) from None
            said = str(e).split("Config search path")[0]  # Hydra's list of where it looked says nothing new
            raise ConfigError(_one_line(said)) from None
        additions = _additions(overrides)
        if additions:
            _refuse_unknown_keys(cfg, lambda: compose(config_name, overrides=[
                o for o in overrides if o not in additions]))
    if check is not None:
        try:
            check(cfg)
        except OmegaConfBaseException as e:  # reading a value it cannot resolve, e.g. ${nope}
            raise ConfigError(_one_line(str(e))) from None


# --------------------------------------------------------------------------- composing without Hydra
#
# Importing Hydra and running it costs most of a second before a command starts, more than a
# hint's own work. A config whose Hydra settings are PLAIN (no config groups, no logging, no
# output folder, no change of directory) gets nothing from a run but its composition: the
# file, with key=value overrides merged in, in struct mode. plain_compose composes exactly
# that, for overrides of a plain form whose value Hydra's grammar types without doubt (a
# quoted string, or one bare word: null, a bool, an int, a float or a string, by Hydra's own
# token rules). An option the file lacks is refused in one line, naming the options there are.
# Anything else (a flag, a list, a sweep, an interpolation, a +/~ override, a nested key
# the file lacks) is left to Hydra, which then runs as before and words its own errors;
# tests/test_startup.py holds the subset to Hydra's parser.

PLAIN = {"defaults": [{"override hydra/job_logging": "none"}, {"override hydra/hydra_logging": "none"}, "_self_"],
         "hydra": {"output_subdir": None, "run": {"dir": "."}, "job": {"chdir": False}}}

_KEY = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)
_QUOTED = re.compile(r"'([^'\\$]*)'|\"([^\"\\$]*)\"")
_BARE = re.compile(r"[\w/+.@%*?|:-]+", re.ASCII)
_UINT = r"(?:0|[1-9](?:_?[0-9])*)"
_DIGITS = r"[0-9](?:_?[0-9])*"
_POINT = rf"(?:{_UINT}\.|(?:{_UINT})?\.{_DIGITS})"
_INT = re.compile(rf"[+-]?{_UINT}")
_FLOAT = re.compile(rf"[+-]?(?:{_POINT}|(?:{_UINT}|{_POINT})[eE][+-]?{_DIGITS}|[Ii][Nn][Ff]|[Nn][Aa][Nn])")
_DECLINED = object()


def parse_override(text: str):
    """``(key, value)`` as Hydra parses ``key=value``, or None for a form left to Hydra."""
    key, equal, value = text.partition("=")
    if not equal or not _KEY.fullmatch(key) or key.split(".")[0] in PLAIN:
        return None
    parsed = _value(value)
    return None if parsed is _DECLINED else (key, parsed)


def _value(text: str):
    quoted = _QUOTED.fullmatch(text)
    if quoted:
        return quoted[1] if quoted[1] is not None else quoted[2]
    if not _BARE.fullmatch(text):
        return _DECLINED
    if text.lower() == "null":
        return None
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if _INT.fullmatch(text):
        return int(text.replace("_", ""))
    if _FLOAT.fullmatch(text):
        return float(text.replace("_", ""))
    return text


def plain_compose(config_name: str, overrides: list[str]):
    """The config Hydra would compose for ``configs/CONFIG_NAME.yaml`` and ``overrides``, or None
    where Hydra must run (a config that is not plain, or an override of another form).
    Raises :class:`ConfigError` for an option the plain config lacks."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    parsed = [parse_override(o) for o in overrides]
    if None in parsed:
        return None
    if not OmegaConf.has_resolver("now"):  # Hydra's, for out=runs/eval/${now:%Y%m%d-%H%M%S}: one time per run
        OmegaConf.register_new_resolver("now", lambda pattern: datetime.now().strftime(pattern), use_cache=True)
    cfg = OmegaConf.load(Path(CONFIGS) / f"{config_name}.yaml")
    if {k: OmegaConf.to_container(cfg[k]) for k in PLAIN if k in cfg} != PLAIN:
        return None
    for key in PLAIN:
        del cfg[key]
    OmegaConf.set_struct(cfg, True)
    unknown = [key for key, _ in parsed if key.split(".")[0] not in cfg]
    if unknown:
        raise _no_option(unknown[0], cfg)
    try:
        for key, value in parsed:
            OmegaConf.update(cfg, key, value, merge=True)
    except OmegaConfBaseException:  # a nested key the config lacks, a value of the wrong type: Hydra says which
        return None
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


_FLAGS_WITH_VALUES = {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn",
                      "--config-dir", "-cd", "--experimental-rerun"}
"""Hydra's flags that take the next argument as their value (so it is no positional argument);
``--info``'s value is optional, so what follows it stays positional."""
_OVERRIDE = re.compile(r"[+~]*[A-Za-z_][\w.]*=")
_XGID_VALUE = re.compile(r"([A-Za-z_][\w.]*)=(XGID=[^'\"]*)", re.IGNORECASE)


def quoted_xgids(argv: list[str]) -> list[str]:
    """``position=XGID=...`` as ``position='XGID=...'``: an XGID is written with its ``XGID=``,
    whose ``=`` Hydra's grammar takes only inside quotes."""
    return [f"{m[1]}='{m[2]}'" if (m := _XGID_VALUE.fullmatch(arg)) else arg for arg in argv]


def positional_args(argv: list[str], names: tuple[str, ...]) -> list[str]:
    """gnubg's habit, ``bgzero-hint 4HPwATDgc/ABMA 31``: bare arguments become ``names[k]=VALUE``.

    Hydra takes only ``key=value``; a bare argument (or an XGID, whose ``XGID=`` is no key)
    fills the next of ``names``, quoted so ``:`` and ``=`` pass Hydra's grammar.
    """
    out, free = argv[:1], list(names)
    for k, arg in enumerate(argv[1:], 1):
        bare = not arg.startswith("-") and (not _OVERRIDE.match(arg) or arg.upper().startswith("XGID="))
        if bare and free and argv[k - 1] not in _FLAGS_WITH_VALUES:
            out.append(f"{free.pop(0)}='{arg}'")
        else:
            out.append(arg)
    return out
