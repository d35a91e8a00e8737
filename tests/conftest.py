"""Shared fixtures: a tiny CPU training config composed the way bgzero-train composes it."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def compose_train(*overrides: str):
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose("train", overrides=list(overrides))


@pytest.fixture
def tiny_cfg(tmp_path):
    return compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'run'}")
