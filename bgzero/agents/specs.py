"""Agents and the spec strings that name them on the command line.

Grammar: ``NAME[:ARG][@PLY]`` (no ``=`` or ``,``, so specs pass through Hydra overrides
unquoted: ``bgzero-eval a=checkpoint:checkpoints/reference.pt@1 b=gnubg@0``)

- ``random[:SEED]``: uniform among distinct legal results
- ``pubeval``: Tesauro's public linear evaluator
- ``checkpoint:PATH[@PLY]``: a trained network searched at 0, 1 or 2 ply, from a play file
  (``.safetensors``) or a training checkpoint (``.pt``, which needs torch); a bare
  ``PATH.safetensors[@PLY]`` or ``PATH.pt[@PLY]`` also works
- ``gnubg[@PLY]``: GNU Backgammon's net via the optional ``gnubg-nn`` package
- ``strong[@PLY]``, ``strong_td[@PLY]``, ``reference[@PLY]``: the shipped play files by name
"""

from __future__ import annotations

from pathlib import Path

from bgzero import paths
from bgzero.agents.base import Agent
from bgzero.errors import ConfigError

SHIPPED = ("strong", "strong_td", "reference")
AGENTS = ("random", "pubeval", "checkpoint", "gnubg")
"""The kinds of agent a spec can name (a shipped one is a checkpoint)."""
USAGE = f"use random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY] or a shipped agent ({', '.join(SHIPPED)})[@PLY]"


def parse_spec(spec: str) -> tuple[str, str | None, int]:
    """Split ``NAME[:ARG][@PLY]`` into (name, arg, ply)."""
    text = str(spec).strip()
    head, at, ply_text = text.rpartition("@") if "@" in text else (text, "", "0")
    if not (ply_text.isascii() and ply_text.isdigit()) or int(ply_text) > 2:
        raise ConfigError(f"agent {spec!r}: ply after '@' must be 0, 1 or 2")
    name, _, arg = head.partition(":")
    if name.endswith((".pt", ".safetensors")) and not arg:
        name, arg = "checkpoint", name
    if name.strip().lower() in SHIPPED and not arg:
        name, arg = "checkpoint", str(paths.CHECKPOINTS / f"{name.strip().lower()}.safetensors")
    return name.strip().lower(), (arg.strip() or None), int(ply_text)


def spec_name(spec: str) -> str:
    """A short name for boards and match files: a checkpoint's file stem and ply (``strong@0``), else the spec."""
    name, arg, ply = parse_spec(spec)
    return f"{Path(arg).stem}@{ply}" if name == "checkpoint" and arg else str(spec).strip()


def checkpoint_file(spec) -> str | None:
    """The file an agent spec reads (``checkpoint:X.pt@1`` reads ``X.pt``), or None: an input no output may name."""
    if spec is None:
        return None
    name, arg, _ = parse_spec(spec)
    return arg if name == "checkpoint" else None


def make_agent(spec: str) -> Agent:
    """Build the agent a spec string names; one-line errors for anything wrong."""
    name, arg, ply = parse_spec(spec)
    if name not in AGENTS:
        raise ConfigError(f"unknown agent {name!r} in {spec!r}; {USAGE}")
    if name in ("random", "pubeval") and ply:
        raise ConfigError(f"agent {spec!r}: {name} does not search; drop '@{ply}'")
    if name == "random":
        from bgzero.agents.random import RandomAgent
        if arg is not None and not (arg.isascii() and arg.isdigit()):
            raise ConfigError(f"agent {spec!r}: the seed after 'random:' must be a whole number")
        return RandomAgent(int(arg or 0))
    if arg is not None and name in ("pubeval", "gnubg"):
        raise ConfigError(f"agent {spec!r}: {name} takes no ':' argument; {USAGE}")
    if name == "pubeval":
        from bgzero.agents.pubeval import PubevalAgent
        return PubevalAgent()
    if name == "gnubg":
        from bgzero.agents.gnubg import GnubgAgent
        return GnubgAgent(ply)
    if not arg:
        raise ConfigError(f"agent {spec!r}: name the checkpoint file, e.g. checkpoint:checkpoints/strong.safetensors")
    from bgzero.agents.neural import NeuralAgent
    from bgzero.value.checkpoint import load_evaluator
    shipped = Path(arg).parent == paths.CHECKPOINTS and Path(arg).stem in SHIPPED
    return NeuralAgent(load_evaluator(arg), ply=ply, name=f"{Path(arg).stem if shipped else arg}@{ply}")
