"""Shared fixtures: a tiny CPU training config, and a tiny untrained checkpoint."""


import pytest
import torch
from hydra import compose, initialize_config_dir

from bgzero import paths
from bgzero.value.checkpoint import save_checkpoint
from bgzero.value.net import NetConfig, ValueNet

CONFIGS = paths.CONFIGS


def compose_train(*overrides: str):
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose("train", overrides=list(overrides))


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
