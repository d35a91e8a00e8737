"""``bgzero-train``: the Hydra entry point around :func:`bgzero.learn.train.train`."""

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from bgzero.cli import CONFIGS, one_line_errors
from bgzero.learn.train import train


@hydra.main(version_base="1.3", config_path=CONFIGS, config_name="train")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    if hydra_cfg.mode == RunMode.MULTIRUN:  # each job of a sweep trains in its own folder
        cfg.train.out_dir = hydra_cfg.runtime.output_dir
    with one_line_errors("bgzero-train"):
        train(cfg)


if __name__ == "__main__":
    main()
