"""``bgzero-iterate``: the Hydra entry point around :func:`bgzero.learn.iterate.iterate`."""

from pathlib import Path

from omegaconf import DictConfig

from bgzero.cli import one_line_errors
from bgzero.cli.hydra_configs import hydra_main
from bgzero.gnubg.cube_bench import agreement
from bgzero.learn.iterate import check_config, iterate


@hydra_main("iterate", check=check_config)
def main(cfg: DictConfig) -> None:
    with one_line_errors("bgzero-iterate"):
        state = iterate(cfg, cube_bench=agreement)
    for g in state["generations"]:
        line = f"generation {g['generation']}: {'promoted' if g['promoted'] else 'rejected'}; " + "; ".join(
            f"{key[3:]} {v['ppg']:+.3f} ± {v['ci95']:.3f} over {v['games']:,} games"
            for key, v in g.items() if key.startswith("vs_"))
        errors = g.get("move_errors", {}).get("all")
        cube = "; ".join(f"cube {ply}-ply doubler {100 * v['doubler']:.1f}%, taker {100 * v['taker']:.1f}%"
                         for ply, v in g.get("cube", {}).items())
        print(line + (f"; move error {errors['mean']:.2f} ± {errors['ci95']:.2f}" if errors else "")
              + (f"; {cube}" if cube else ""))
    print(f"champion: {state['champion']} (the curve: {Path(cfg.out_dir) / 'state.json'})")


if __name__ == "__main__":
    main()
