"""``bgzero-train``: the Hydra entry point around :func:`bgzero.learn.train.train`."""

import hydra
from omegaconf import DictConfig

from bgzero.cli import CONFIGS, one_line_errors
from bgzero.learn.train import train


@hydra.main(version_base="1.3", config_path=CONFIGS, config_name="train")
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-train"):
        train(cfg)


if __name__ == "__main__":
    main()
