"""Shared fixtures: any command's config, a tiny CPU training config, and a tiny untrained checkpoint."""


import pytest
import torch
from hydra import compose, initialize_config_dir

from bgzero import paths
from bgzero.value.checkpoint import save_checkpoint
from bgzero.value.net import NetConfig, ValueNet

CONFIGS = paths.CONFIGS


def compose_config(name: str, *overrides: str):
    """Command ``name``'s config (``configs/NAME.yaml``) with ``overrides``: the one way tests make one."""
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(name, overrides=list(overrides))


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
