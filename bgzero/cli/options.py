"""A command line read into a command's options (:mod:`bgzero.schema`), and its ``--help``.

:func:`compose` reads ``key=value`` arguments into the options of a class of
:mod:`bgzero.cli.schemas`, :func:`help_text` lists them, and :func:`command` makes a command's
``main`` of both, with one-line errors. What a command receives is an OmegaConf ``DictConfig`` in
struct mode, as Hydra gives ``bgzero-train``: reading an option the command lacks is an error, not
a None.

The arguments are read here, not by Hydra's grammar: a value is split from its key at the
first ``=`` (so ``position=XGID=...`` needs no quotes), and typed by the field's annotation
(``name=123`` is the text ``123``; ``ply=[0,1]`` a list).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
import sys
from datetime import datetime
from typing import Any

from bgzero.errors import BgzeroError, ConfigError, one_line, shown
from bgzero.schema import check, fields, nested

_INT = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf|nan)", re.ASCII | re.IGNORECASE)
_OVERRIDE = re.compile(r"\+*[A-Za-z_][\w.]*=", re.ASCII)


def read_value(raw: str, kinds: tuple):
    """``raw`` as the option's value: quoted is text; ``[a,b]`` a list; null, true/false and numbers
    their own type where the option takes it; anything else text (a rule then says what is wanted)."""
    if raw.startswith("[") and raw.endswith("]") and (list in kinds or object in kinds):
        return [_scalar(item.strip(), (object,)) for item in raw[1:-1].split(",") if item.strip()]
    return _scalar(raw, kinds)


def _scalar(raw: str, kinds: tuple):
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    value: Any = raw
    if raw.lower() == "null":
        value = None
    elif raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif _INT.fullmatch(raw):
        value = int(raw.replace("_", ""))
    elif _FLOAT.fullmatch(raw):
        value = float(raw)
    if object in kinds:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and int not in kinds and float in kinds:
        return float(value)
    if not isinstance(value, kinds) and str in kinds:  # name=123 is a name; position=null stays None
        return raw
    if isinstance(value, bool) and bool not in kinds and str in kinds:
        return raw
    return value


def compose(schema: type, args: list[str], positional: tuple[str, ...] = ()):
    """The options of ``schema`` with ``args`` (``key=value``, or bare values filling ``positional``
    in order, as gnubg's ``hint 4HPwATDgc/ABMA 31``), checked: a DictConfig in struct mode."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    known = {f.key: f for f in fields(schema)}
    values = {key: f.default for key, f in known.items()}
    free = list(positional)
    for arg in args:
        if arg.startswith("-"):
            raise ConfigError(f"{arg!r}: options are key=value (--help lists them)")
        is_setting = _OVERRIDE.match(arg) and not arg.upper().startswith("XGID=")
        if not is_setting:
            if not free:
                raise ConfigError(f"{shown(arg)}: not key=value; the options are "
                                  f"{', '.join(_top_level(known))} (--help says what each does)")
            key, raw = free.pop(0), arg
        else:
            key, _, raw = arg.lstrip("+").partition("=")
        if key not in known:
            raise no_option(key, list(known))
        values[key] = read_value(raw, known[key].kinds)
        if key in free:
            free.remove(key)
    if not OmegaConf.has_resolver("now"):  # out=runs/eval/${now:%Y%m%d-%H%M%S}: one time per command
        OmegaConf.register_new_resolver("now", lambda pattern: datetime.now().strftime(pattern), use_cache=True)
    cfg = OmegaConf.create(nested(values))
    try:
        OmegaConf.resolve(cfg)
    except OmegaConfBaseException as e:
        raise ConfigError(one_line(str(e))) from None
    OmegaConf.set_struct(cfg, True)
    check(cfg, schema)
    return cfg


def _top_level(known) -> list[str]:
    return list(dict.fromkeys(key.split(".")[0] for key in known))


def no_option(key: str, known: list[str]) -> ConfigError:
    """An option the command lacks, named with the nearest it has (a typo's likely meaning) and
    the options at that level: an unknown key is a mistake, never a setting silently ignored."""
    inside = [k for k in known if k.startswith(key + ".")]
    if inside:
        return ConfigError(f"{key} is a group of options, not one; set {', '.join(inside)}")
    parent = key.rpartition(".")[0]
    under = [k for k in known if k.startswith(parent + ".")] if parent else []
    nearest = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (nearest: {nearest[0]})" if nearest else ""
    where = f"the options under {parent} are {', '.join(under)}" if under else \
        f"the options are {', '.join(_top_level(known))}"
    return ConfigError(f"no option {key!r}{hint}; {where} (--help says what each does)")


def spelled(value) -> str:
    """A default as it is typed: null, true, [0,1]."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ",".join(spelled(v) for v in value) + "]"
    return str(value)


def help_text(schema: type, prog: str) -> str:
    """``--help``: what the command does and its examples (the class's docstring), then every option
    with its default and what it does."""
    rows = [(f"{f.key}={spelled(f.default)}", f.doc) for f in fields(schema)]
    width = min(max(len(left) for left, _ in rows) + 2, 34)
    lines = [f"  {left.ljust(width)}{doc}".rstrip() if len(left) < width else f"  {left}\n  {'':{width}}{doc}"
             for left, doc in rows]
    about = inspect.cleandoc(schema.__doc__ or "")
    return f"{prog}: {about}\n\noptions, as key=value (each shown with its default):\n" + "\n".join(lines)


def wants_help(args: list[str]) -> bool:
    """Whether command-line ``args`` ask for ``--help`` (or ``-h``)."""
    return any(arg in ("--help", "-h") for arg in args)


def command(prog: str, schema: type, positional: tuple[str, ...] = ()):
    """The ``main`` of command ``prog``: its options (``schema``, from :mod:`bgzero.cli.schemas`) read
    from the command line (or ``main(argv)``'s list) and checked, then ``fn(cfg)``. Bare arguments fill ``positional``
    in order, as gnubg's ``hint 4HPwATDgc/ABMA 31``; a mistake is one line naming it, before any work."""
    def wrap(fn):
        @functools.wraps(fn)
        def main(argv: list[str] | None = None):
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
