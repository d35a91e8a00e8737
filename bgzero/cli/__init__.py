"""Thin command-line entry points (Hydra apps) over the library."""

import functools
import re
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from bgzero import paths
from bgzero.errors import BgzeroError

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


def hydra_main(config_name: str, prog: str | None = None):
    """``hydra.main`` on ``configs/CONFIG_NAME.yaml``, with :func:`config_help` as ``--help``, and
    :func:`plain_compose` first: where it composes the config, Hydra is not run (nor imported)."""
    def wrap(fn):
        @functools.wraps(fn)
        def main(*args, **kwargs):
            if any(arg in ("--help", "-h") for arg in sys.argv[1:]):
                print(config_help(config_name, prog or f"bgzero-{config_name}"))
                return None
            cfg = None if args or kwargs else plain_compose(config_name, sys.argv[1:])
            if cfg is not None:
                return fn(cfg)
            import hydra

            return hydra.main(version_base="1.3", config_path=CONFIGS, config_name=config_name)(fn)(*args, **kwargs)
        return main
    return wrap


_PLAIN = {"defaults": [{"override hydra/job_logging": "none"}, {"override hydra/hydra_logging": "none"}, "_self_"],
          "hydra": {"output_subdir": None, "run": {"dir": "."}, "job": {"chdir": False}}}


def plain_compose(config_name: str, overrides: list[str]):
    """The config Hydra would compose, without a Hydra run, or None where a run is needed.

    A run costs most of a second before the command starts. A config whose Hydra settings
    are ``_PLAIN`` (no config groups, no logging, no output folder, no change of directory)
    gets nothing from it but the composition: the file with ``key=value`` overrides (parsed
    by Hydra's own grammar) merged in, in struct mode. Anything else (a flag, a sweep, a
    ``+``/``~``/``hydra.`` override, one that does not fit the config) gives None: Hydra
    itself then runs, with its own messages.
    """
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    cfg = OmegaConf.load(Path(CONFIGS) / f"{config_name}.yaml")
    if ({k: OmegaConf.to_container(cfg[k]) for k in _PLAIN if k in cfg} != _PLAIN
            or any(arg.startswith("-") for arg in overrides)):
        return None
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import OverrideType
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException:
        return None
    if any(o.type != OverrideType.CHANGE or o.package is not None or o.is_sweep_override()
           or o.key_or_group.split(".")[0] in _PLAIN for o in parsed):
        return None
    for key in _PLAIN:
        del cfg[key]
    OmegaConf.set_struct(cfg, True)
    try:
        for o in parsed:
            OmegaConf.update(cfg, o.key_or_group, o.value(), merge=True)
    except OmegaConfBaseException:
        return None
    return cfg


@contextmanager
def one_line_errors(prog: str):
    """Turn bgzero's own errors into a one-line message and exit status 1, not a traceback.

    ``kill`` (SIGTERM) becomes an exit through Python, so temporary files are removed and
    self-play workers stopped on the way out, as after an error.
    """
    def terminated(signum, frame):
        raise SystemExit(f"{prog}: stopped by {signal.Signals(signum).name}")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    except BgzeroError as e:
        raise SystemExit(f"{prog}: {e}") from None


_OVERRIDE = re.compile(r"[+~]*[A-Za-z_][\w.]*=")


def positional_args(argv: list[str], names: tuple[str, ...]) -> list[str]:
    """gnubg's habit, ``bgzero-hint 4HPwATDgc/ABMA 31``: bare arguments become ``names[k]=VALUE``.

    Hydra takes only ``key=value``; a bare argument (or an XGID, whose ``XGID=`` is no key)
    fills the next of ``names``, quoted so ``:`` and ``=`` pass Hydra's grammar.
    """
    out, free = argv[:1], list(names)
    for arg in argv[1:]:
        bare = not arg.startswith("-") and (not _OVERRIDE.match(arg) or arg.upper().startswith("XGID="))
        if bare and free:
            out.append(f"{free.pop(0)}='{arg}'")
        else:
            out.append(arg)
    return out
