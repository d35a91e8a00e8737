"""``bgzero-train``: the Hydra entry point around :func:`bgzero.learn.train.train`."""

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from bgzero.cli import hydra_main, one_line_errors
from bgzero.learn.train import train


@hydra_main("train")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    if hydra_cfg.mode == RunMode.MULTIRUN:  # each job of a sweep trains in its own folder
        cfg.train.out_dir = hydra_cfg.runtime.output_dir
    with one_line_errors("bgzero-train"):
        train(cfg)


if __name__ == "__main__":
    main()
