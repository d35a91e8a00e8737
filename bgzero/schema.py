"""A command's options declared once, as a dataclass: type, default, rule and a one-line doc.

Each field of an options class is made by :func:`option`: its annotation says how a typed value
is read, its rule (:mod:`bgzero.config_check`) what values are allowed, and its doc what it does.
The commands' classes are in :mod:`bgzero.cli.schemas`, training's (read by the library as well as
by ``bgzero-train`` and ``bgzero-iterate``) in :mod:`bgzero.learn.schemas`. From one declaration
come ``--help``, the reading of ``key=value`` arguments (:mod:`bgzero.cli.options`), Hydra's base
config (:func:`defaults`) and the check of a config (:func:`check`).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any

from bgzero.config_check import Rule, flag, text

_ABSENT = object()


def option(default: Any = None, doc: str = "", rule: Rule | None = None, *, factory=None) -> Any:
    """A field of a command's options: its ``default`` (or ``factory`` for a list), what it does
    (``doc``, one line of ``--help``) and the ``rule`` its values keep (else one by its type)."""
    meta = {"doc": doc, "rule": rule}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def section(cls: type) -> Any:
    """A group of options under one prefix (``referee.match``), itself an options class. Annotated
    ``Cls | None``, the whole group may be set to null (``net.race=null``)."""
    return dataclasses.field(default_factory=cls)


@dataclasses.dataclass(frozen=True)
class Field:
    """One option as ``--help`` and the reader see it: its dotted key, kinds, default, doc and rule."""

    key: str
    kinds: tuple
    default: Any
    doc: str
    rule: Rule | None


@functools.cache
def fields(schema: type, prefix: str = "") -> tuple[Field, ...]:
    """Every option of ``schema``, sections flattened to dotted keys, in declaration order."""
    hints = typing.get_type_hints(schema)
    out: list[Field] = []
    for f in dataclasses.fields(schema):
        key, kind = prefix + f.name, hints[f.name]
        inner = _section_class(kind)
        if inner is not None:
            out += fields(inner, key + ".")
            continue
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        kinds = _kinds(kind)
        out.append(Field(key, kinds, default, f.metadata.get("doc", ""),
                         f.metadata.get("rule") or _rule_of(kinds)))
    return tuple(out)


def _section_class(annotation) -> type | None:
    """The options class of a section, ``Cls`` or ``Cls | None``; None for a plain option."""
    if dataclasses.is_dataclass(annotation):
        return annotation  # type: ignore[return-value]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        classes = [a for a in typing.get_args(annotation) if dataclasses.is_dataclass(a)]
        return classes[0] if classes else None  # type: ignore[return-value]
    return None


def _kinds(annotation) -> tuple:
    """The types an annotation admits: ``str | None`` is (str, NoneType); ``list[int]`` is (list,)."""
    if annotation is Any:
        return (object,)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return tuple(k for part in typing.get_args(annotation) for k in _kinds(part))
    return (typing.get_origin(annotation) or annotation,)


def _rule_of(kinds: tuple) -> Rule | None:
    """The rule a plain ``bool`` or text option keeps without one of its own."""
    if kinds == (bool,):
        return flag()
    if set(kinds) <= {str, type(None)}:
        return text(null=type(None) in kinds)
    return None


def check(cfg, schema: type) -> None:
    """Each option of ``cfg`` against its rule in ``schema``: a one-line ConfigError for the first
    value out of bounds. Keys ``cfg`` lacks (or a section set to null) are skipped."""
    from omegaconf import OmegaConf

    for f in fields(schema):
        value = OmegaConf.select(cfg, f.key, default=_ABSENT)
        if f.rule is not None and value is not _ABSENT:
            f.rule(f.key, value)


def defaults(schema: type) -> dict:
    """Every option's default, as the nested dict a config holds (Hydra's base for its groups)."""
    return nested({f.key: f.default for f in fields(schema)})


def nested(values: dict) -> dict:
    """Dotted keys (``referee.match``) as nested sections: the inverse of :func:`dotted_keys`."""
    out: dict = {}
    for key, value in values.items():
        *sections, name = key.split(".")
        node = out
        for part in sections:
            node = node.setdefault(part, {})
        node[name] = value
    return out


def dotted_keys(node: dict, prefix: str = "") -> list[str]:
    """Every value's key of a nested dict, as ``td.lam``: the inverse of :func:`nested`."""
    keys = []
    for name, value in node.items():
        keys += dotted_keys(value, f"{prefix}{name}.") if isinstance(value, dict) else [prefix + str(name)]
    return keys
