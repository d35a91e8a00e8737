"""``bgzero-train``: the Hydra entry point around :func:`bgzero.train.train`."""

from pathlib import Path

import hydra
from omegaconf import DictConfig

from bgzero.errors import BgzeroError
from bgzero.train import train


CONFIGS = str(Path(__file__).resolve().parents[2] / "configs")  # the repository's configs/


@hydra.main(version_base="1.3", config_path=CONFIGS, config_name="train")
def main(cfg: DictConfig) -> None:
    try:
        train(cfg)
    except BgzeroError as e:
        raise SystemExit(f"bgzero-train: {e}") from None


if __name__ == "__main__":
    main()
