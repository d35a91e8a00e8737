"""Hydra's two commands, ``bgzero-train`` and ``bgzero-iterate``: their options are declared in
:mod:`bgzero.learn.schemas`, and Hydra composes its config groups (``experiment=``, ``recipe=``, in
``configs/``) and sweeps onto them. The config is composed with Hydra's compose API and checked
before any work; Hydra's own ``main`` runs only for its flags (``-m``, ``--cfg``).
"""

import functools
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from bgzero import paths
from bgzero.cli.options import help_text, no_option, wants_help
from bgzero.errors import BgzeroError, ConfigError, one_line
from bgzero.learn.schemas import Iterate, Train
from bgzero.schema import defaults, dotted_keys

CONFIGS = str(paths.CONFIGS)
"""The Hydra configs, as an absolute path: console scripts run from anywhere."""


OPTIONS = {"train": Train, "iterate": Iterate}
"""Each Hydra command's options: the base its config file's groups compose onto."""


def config_groups(config_name: str) -> dict[str, list[str]]:
    """The config groups ``configs/CONFIG_NAME.yaml`` offers (``experiment``), each with its choices:
    its defaults list's groups chosen by none until a user picks one."""
    from omegaconf import OmegaConf

    groups = {}
    for entry in OmegaConf.load(Path(CONFIGS) / f"{config_name}.yaml").defaults:
        for group, choice in (entry.items() if isinstance(entry, Mapping) else ()):
            if choice is None and (Path(CONFIGS) / group).is_dir():
                groups[group] = sorted(p.stem for p in (Path(CONFIGS) / group).glob("*.yaml"))
    return groups


def config_help(config_name: str, prog: str) -> str:
    """``--help``: the options as every command lists them, then the config groups and Hydra's flags."""
    groups = "\n".join(f"  {group}={'|'.join(choices)}" for group, choices in config_groups(config_name).items())
    return (f"{help_text(OPTIONS[config_name], prog)}\n\nconfig groups (configs/{config_name}.yaml; each sets "
            f"several options at once):\n{groups}\n\nHydra's flags also work: -m sweeps (td.lam=0.5,0.9), "
            "--cfg job prints the composed config, --info its sources.")


def _register(config_name: str) -> None:
    """The command's options, as Hydra's base config ``CONFIG_NAME_options`` (its file's defaults list
    names it first)."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name=f"{config_name}_options", node=defaults(OPTIONS[config_name]))


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

                _register(config_name)
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


def _keys_of(cfg) -> list[str]:
    from omegaconf import OmegaConf

    container = OmegaConf.to_container(cfg, resolve=False)
    return dotted_keys(container) if isinstance(container, dict) else []


def _additions(overrides: list[str]) -> list[str]:
    """The ``+KEY=VALUE`` / ``++KEY=VALUE`` overrides that add a key, not a config group's choice
    (``+experiment=tiny`` adds a config file, which is Hydra's to check)."""
    out = []
    for override in overrides:
        key = override.lstrip("+").partition("=")[0].partition("@")[0]
        if override.startswith("+") and ("." in key or not (Path(CONFIGS) / key).is_dir()):
            out.append(override)
    return out


def hydra_compose(config_name: str, overrides: list[str]):
    """The config Hydra composes for ``configs/CONFIG_NAME.yaml`` and ``overrides``. A mistake Hydra
    finds (an option the config lacks, a group's unknown choice, a value its grammar refuses), or a
    ``+KEY=VALUE`` adding a key the command never reads, is one ConfigError line."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    _register(config_name)
    with initialize_config_dir(config_dir=CONFIGS, version_base="1.3"):
        try:
            cfg = compose(config_name, overrides=overrides)
        except (HydraException, OmegaConfBaseException) as e:
            unknown = _NO_OPTION.match(str(e))
            if unknown and "To append to your config" in str(e):  # Hydra's advice would add a key no one reads
                raise no_option(unknown[1], _keys_of(compose(config_name))) from None
            said = str(e).split("Config search path")[0]  # Hydra's list of where it looked says nothing new
            raise ConfigError(one_line(said)) from None
        additions = _additions(overrides)
        if additions:
            known = _keys_of(compose(config_name, overrides=[o for o in overrides if o not in additions]))
            for key in _keys_of(cfg):
                if key not in known:
                    raise no_option(key, known)
    return cfg
