"""One typed check of a command's configuration, run before any work.

Hydra hands over whatever was typed: ``td.lam=abc`` arrives as a string, ``td.lr=nan`` as a
float, ``net.exact_bearoff=maybe`` as a truthy string. A rule here says what one option may
hold and raises a one-line :class:`~bgzero.errors.ConfigError` naming the key, the value and what
it should be, before a game is played or a file written. Each option declares its rule
(:mod:`bgzero.schema`). Output paths are checked here too, so work is never thrown away because
its result cannot be saved.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from omegaconf import DictConfig, ListConfig, OmegaConf

from bgzero.errors import ConfigError, shown
from bgzero.paths import unusable_name

Rule = Callable[[str, object], None]
"""``rule(key, value)`` returns if ``value`` is allowed for ``key`` and raises ConfigError otherwise."""


def _fail(key: str, value, wanted: str) -> NoReturn:
    shown = repr(value) if not isinstance(value, (DictConfig, ListConfig)) else str(OmegaConf.to_container(value))
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise ConfigError(f"{key}={shown} is not allowed: {wanted}")


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(least: int | None = 0, most: int | None = None, *, null: bool = False, auto: bool = False,
          why: str = "") -> Rule:
    """A whole number in ``[least, most]`` (not a bool, not 1.5); ``null``/``auto`` also allow those;
    ``why`` says what the bound protects, for the error."""
    bounds = f"a whole number{'' if least is None else f' >= {least}'}{'' if most is None else f' and <= {most}'}"
    wanted = bounds + (", or auto" if auto else "") + (", or null" if null else "") + (f" ({why})" if why else "")

    def rule(key, value):
        if (null and value is None) or (auto and value == "auto"):
            return
        if not _is_whole(value) or (least is not None and value < least) or (most is not None and value > most):
            _fail(key, value, wanted)
    return rule


def number(least: float | None = None, most: float | None = None, *, above: float | None = None,
           null: bool = False, word: str | None = None, why: str = "") -> Rule:
    """A finite number in ``[least, most]`` (or ``> above``); ints count, bools and nan/inf do not;
    ``word`` (pace=enter) is allowed too."""
    parts = [f">= {least}" if least is not None else "", f"<= {most}" if most is not None else "",
             f"> {above}" if above is not None else ""]
    wanted = " and ".join(["a finite number"] + [p for p in parts if p]).replace("number and", "number") \
        + (", or null" if null else "") + (f", or {word}" if word else "") + (f" ({why})" if why else "")

    def rule(key, value):
        if (null and value is None) or (word is not None and value == word):
            return
        if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
                or (least is not None and value < least) or (most is not None and value > most)
                or (above is not None and value <= above)):
            _fail(key, value, wanted)
    return rule


def flag() -> Rule:
    """``true`` or ``false`` exactly: ``maybe`` or ``1`` is a mistake, not a truthy value."""
    def rule(key, value):
        if not isinstance(value, bool):
            _fail(key, value, "true or false")
    return rule


def _spelled(option) -> str:
    """An option as a config spells it: ``true``, not Python's ``True``."""
    return str(option).lower() if isinstance(option, bool) else str(option)


def choice(*options, null: bool = False, fold_case: bool = False) -> Rule:
    """One of ``options`` (compared case-insensitively with ``fold_case``)."""
    wanted = "one of " + ", ".join(_spelled(o) for o in options) + (", or null" if null else "")

    def same(value, option) -> bool:  # True is no 1, and 1 no True: the types must match too
        if fold_case and isinstance(value, str) and isinstance(option, str):
            return value.lower() == option.lower()
        return type(value) is type(option) and value == option

    def rule(key, value):
        if null and value is None:
            return
        if not any(same(value, o) for o in options):
            _fail(key, value, wanted)
    return rule


def text(*, null: bool = False) -> Rule:
    """A non-empty string (Hydra reads digits as a number: those are allowed and used as text)."""
    def rule(key, value):
        if null and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
            _fail(key, value, "a non-empty text" + (", or null" if null else ""))
    return rule


def run_name() -> Rule:
    """A run's name, its folder under ``runs/``: ``name=../../x`` or ``/tmp/x`` would train elsewhere
    without a word (``train.out_dir=`` is the option for a folder outside ``runs/``)."""
    def rule(key, value):
        text()(key, value)
        name = str(value)
        normal = os.path.normpath(name)
        if os.path.isabs(name) or normal == "." or normal.split(os.sep)[0] == "..":
            raise ConfigError(f"{key}={shown(name)} is not allowed: a run's name is a folder inside runs/, "
                              f"like {key}=td-lam07; for a folder elsewhere pass train.out_dir=")
    return rule


def device() -> Rule:
    """``cpu``, ``cuda`` or ``cuda:N``: text, so ``device=inf`` or ``device=1`` (Hydra's numbers) are refused here."""
    def rule(key, value):
        if not isinstance(value, str) or not re.fullmatch(r"cpu|cuda(:\d+)?", value, re.ASCII):
            _fail(key, value, "cpu or cuda (cuda:N for one GPU of several)")
    return rule


def widths() -> Rule:
    """A non-empty list of layer widths, each a whole number >= 1, like [128] or [256,64]."""
    def rule(key, value):
        if not isinstance(value, (ListConfig, list)) or not len(value) or not all(
                _is_whole(v) and 1 <= v <= WIDTHS_MOST for v in value):
            _fail(key, value, f"a list of whole numbers from 1 to {WIDTHS_MOST:,}, like [128] or [256,64]")
    return rule


def subset(*options) -> Rule:
    """A non-empty list of distinct ``options``, like [contact, race]."""
    def rule(key, value):
        if (not isinstance(value, (ListConfig, list)) or not len(value) or len(set(value)) != len(value)
                or not all(isinstance(v, str) and v in options for v in value)):
            _fail(key, value, f"a list of distinct options out of {', '.join(options)}, like [{options[0]}]")
    return rule


_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?", re.ASCII)


def seconds_of(key: str, value) -> float | None:
    """A duration in seconds: ``2h``, ``90m``, ``1h30m``, ``45s`` or a number of seconds; null for none."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value) and value > 0:
            return float(value)
    elif isinstance(value, str) and (match := _DURATION.fullmatch(value.strip())) and any(match.groups()):
        hours, minutes, seconds = (float(g or 0) for g in match.groups())
        if 3600 * hours + 60 * minutes + seconds > 0:
            return 3600 * hours + 60 * minutes + seconds
    _fail(key, value, "a duration above zero, such as 2h, 90m, 1h30m or 600 (seconds), or null")


def duration() -> Rule:
    """What :func:`seconds_of` reads."""
    def rule(key, value) -> None:
        seconds_of(key, value)
    return rule


def agent_list(*, one: bool = False) -> Rule:
    """A list (maybe empty) of agent specs, like [gnubg@0, pubeval]; with ``one``, a single spec too."""
    def rule(key, value):
        if one and isinstance(value, str) and value.strip():
            return
        if not isinstance(value, (ListConfig, list)) or not all(isinstance(v, str) and v.strip() for v in value):
            _fail(key, value, "a list of agent specs, like [gnubg@0, pubeval], or []" + (", or one spec" if one else ""))
    return rule


def plies(*, empty: bool = False) -> Rule:
    """One search depth (0-2) or a non-empty list of distinct ones, like [0,1,2]; with ``empty``, [] too."""
    def rule(key, value):
        if _is_whole(value) and 0 <= value <= 2:
            return
        if (not isinstance(value, (ListConfig, list)) or not (len(value) or empty) or len(set(value)) != len(value)
                or not all(_is_whole(v) and 0 <= v <= 2 for v in value)):
            _fail(key, value, "a ply from 0 to 2, or a list of distinct ones, like [0,1,2]" + (", or []" if empty else ""))
    return rule


def output_dir(*, null: bool = False) -> Rule:
    """A directory that exists or can be made, and that this user can write into."""
    def rule(key, value):
        if null and value is None:
            return
        text()(key, value)
        path = Path(str(value))
        if reason := unusable_name(path):
            raise ConfigError(f"{key}={shown(str(value))} cannot be written: {reason}")
        if path.exists() and not path.is_dir():
            raise ConfigError(f"{key}={path} is a file, not a directory; pass a directory to write into")
        _writable(key, path)
    return rule


def output_file(*, null: bool = False) -> Rule:
    """A file path that is not a directory, in a directory that exists or can be made and is writable."""
    def rule(key, value):
        if null and value is None:
            return
        text()(key, value)
        path = Path(str(value))
        if reason := unusable_name(path):
            raise ConfigError(f"{key}={shown(str(value))} cannot be written: {reason}")
        if path.is_dir() or str(value).endswith(os.sep):
            raise ConfigError(f"{key}={path} is a directory; pass a file name, like {path / 'out'}")
        _writable(key, path.parent)
    return rule


def check_output_file(key: str, path) -> Path:
    """:func:`output_file` for one path given at run time (e.g. typed at a prompt)."""
    output_file()(key, str(path))
    return Path(str(path))


def _writable(key: str, directory: Path) -> None:
    """The nearest existing ancestor of ``directory`` must be a directory this user can write
    into: tried by making (and removing) an empty folder there, since permission bits do not
    tell (root passes them all, and /proc or a read-only mount still refuses)."""
    if reason := unusable_name(directory):
        raise ConfigError(f"{key}: cannot write under {shown(str(directory))}: {reason}")
    probe = directory.absolute()
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"{key}: cannot write under {directory}: {probe} is a file, not a directory")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".bgzero-probe-", dir=probe))
    except OSError as e:
        raise ConfigError(f"{key}: cannot write under {directory}: {probe} refuses new files ({e.strerror})") from None


MOST_PROCESSES_VARIABLE = "BGZERO_MOST_PROCESSES"


def most_processes() -> int:
    """Worker processes past this only share the same cores, each holding its own memory: a typo's
    ``processes=100000`` would spawn until something kills them. A user who means it (Ray actors
    on a cluster are not this machine's cores) sets their own cap in ``$BGZERO_MOST_PROCESSES``."""
    given = os.environ.get(MOST_PROCESSES_VARIABLE)
    if given is None:
        return max(64, 8 * (os.cpu_count() or 1))
    if not (given.isascii() and given.isdigit() and int(given) >= 1):
        raise ConfigError(f"{MOST_PROCESSES_VARIABLE}={given!r}: give a whole number of processes >= 1")
    return int(given)


def processes(least: int = 1, *, auto: bool = False) -> Rule:
    """A count of worker processes in ``[least, most_processes()]``, the cap read when checked."""
    def rule(key, value):
        why = (f"{os.cpu_count() or 1} cores here; more processes only share them; "
               f"{MOST_PROCESSES_VARIABLE}=N raises the cap")
        whole(least, most_processes(), auto=auto, why=why)(key, value)
    return rule


def count_of_processes(key: str, value) -> int:
    """``processes=auto`` (one per core) or a whole number in ``[1, most_processes()]``."""
    PROCESSES(key, value)
    return os.cpu_count() or 1 if value == "auto" else value


AGENT = text()
SEED = whole(0, 2**63 - 1, why="numpy and torch take seeds below 2^63")
PLY = whole(0, 2)
PROCESSES = processes(auto=True)
WORKERS = processes(0, auto=True)
GAMES = whole(0, 10**10, why="ten billion games is years of play on one machine")
TRIALS = whole(1, 10**9, why="a billion trials a play is days of work; seconds= or se= stop a rollout sooner")
WIDTHS_MOST = 65_536
"""The widest layer: 198 x 65,536 weights is 13 million, already more than any net here has."""
MATCH_LENGTH = whole(0, 64)
"""0 for money, else up to the longest match a Match ID holds (``bgzero.engine.ids.MAX_MATCH_LENGTH``,
which this layer may not import; a test holds the two equal)."""


def distinct_files(outputs: Mapping[str, object], inputs: Mapping[str, object]) -> None:
    """Refuse, before any work, an output that is one of the command's inputs or another output.

    ``outputs`` and ``inputs`` map an option (``html``, ``agent``) to its path, or None when not
    given. The same file is the same real path (``./M.mat`` and ``M.mat``, a symbolic link) or,
    where both exist, one file under two names (a hard link): writing it would destroy the input.
    """
    given_out = [(k, Path(str(v))) for k, v in outputs.items() if v is not None]
    given_in = [(k, Path(str(v))) for k, v in inputs.items() if v is not None]
    for n, (key, out) in enumerate(given_out):
        for other, path in given_in + given_out[:n]:
            if _same_file(out, path):
                role = "input" if (other, path) in given_in else "output"
                raise ConfigError(f"{key}={shown(str(out))} is also the {role} {other}={shown(str(path))}; "
                                  f"writing it would destroy that file: pass another {key}=")


def _same_file(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False
