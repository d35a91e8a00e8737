"""Shared fixtures: any command's config, a tiny CPU training config, and a tiny untrained checkpoint."""


import pytest
import torch

from bgzero import paths
from bgzero.cli.hydra_configs import hydra_compose
from bgzero.cli.options import compose
from bgzero.cli.schemas import COMMANDS
from bgzero.value.checkpoint import save_checkpoint
from bgzero.value.net import NetConfig, ValueNet

CONFIGS = paths.CONFIGS


def compose_config(name: str, *overrides: str):
    """Command ``name``'s config with ``overrides``, as the command reads its arguments: the one way
    tests make one (``train`` and ``iterate`` by Hydra, the others from :mod:`bgzero.cli.schemas`)."""
    if name in COMMANDS:
        return compose(COMMANDS[name][1], list(overrides))
    return hydra_compose(name, list(overrides))


def compose_train(*overrides: str):
    return compose_config("train", *overrides)


@pytest.fixture
def tiny_cfg(tmp_path):
    return compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'run'}")


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    """An untrained 198-8-5 network: fast, and independent of any shipped weights."""
    torch.manual_seed(0)
    net = ValueNet(NetConfig(hidden=[8]))
    path = tmp_path_factory.mktemp("ckpt") / "tiny.pt"
    return save_checkpoint(path, {"model": net.state_dict(), "net_config": net.config_dict(),
                                  "encoder": "tesauro198", "games": 0})
