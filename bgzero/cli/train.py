"""``bgzero-train``: the Hydra entry point around :func:`bgzero.learn.train.train`."""

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from bgzero.cli import one_line_errors
from bgzero.cli.hydra_configs import hydra_main
from bgzero.learn.train import check_config, train


@hydra_main("train", check=check_config)
def main(cfg: DictConfig) -> None:
    if HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN:  # a sweep's job trains in its own folder
        cfg.train.out_dir = HydraConfig.get().runtime.output_dir
    with one_line_errors("bgzero-train"):
        train(cfg)


if __name__ == "__main__":
    main()
