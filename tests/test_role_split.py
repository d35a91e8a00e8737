"""The role split: a checkpoint whose checker plays at 0 ply are chosen by another checkpoint's nets
(its *mover*), while its own nets keep the cube, position values and the 1-2 ply searches."""

import numpy as np
import pytest
import torch

from bgzero import paths
from bgzero.agents.cubeful import cube_decisions
from bgzero.agents.neural import NeuralAgent
from bgzero.agents.specs import make_agent
from bgzero.analysis.match import analyse_match
from bgzero.analysis.position import rank_moves
from bgzero.cli.export import run as export
from bgzero.cube import MatchState
from bgzero.engine.board import START
from bgzero.engine.game import random_positions
from bgzero.engine.movegen import generate
from bgzero.errors import CheckpointError, ConfigError
from bgzero.match.runner import play_matches
from bgzero.rollout.players import make_player
from bgzero.value.checkpoint import FORMAT, load_evaluator, read_checkpoint, save_checkpoint, with_mover
from bgzero.value.memo import MemoEvaluator
from bgzero.value.net import NetConfig, ValueNet
from tests.conftest import compose_config
from tests.test_match import RandomCube

START_31 = (START, (3, 1))


def _checkpoint(path, seed: int, race: bool = False):
    torch.manual_seed(seed)
    nets = {"": ValueNet(NetConfig(hidden=[8]))}
    if race:
        nets["race_"] = ValueNet(NetConfig(num_inputs=216, hidden=[8]))
    state = {"encoder": "tesauro198", "games": 0}
    for prefix, net in nets.items():
        state |= {f"{prefix}model": net.state_dict(), f"{prefix}net_config": net.config_dict()}
    if race:
        state["race_encoder"] = "race"
    return save_checkpoint(path, state)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two unrelated nets (each with a race net) and the pair made of them by bgzero-export, in both formats."""
    folder = tmp_path_factory.mktemp("split")
    main, mover = _checkpoint(folder / "main.pt", 1, race=True), _checkpoint(folder / "mover.pt", 2, race=True)
    for suffix in (".safetensors", ".pt"):
        export(compose_config("export", f"checkpoint={main}", f"mover={mover}", f"out={folder / ('pair' + suffix)}"))
    return main, mover, folder / "pair.safetensors", folder / "pair.pt"


@pytest.mark.parametrize("which", [2, 3], ids=["play-file", "checkpoint"])
def test_the_mover_chooses_checker_plays_at_0_ply_and_only_there(files, which):
    main, mover, pair = load_evaluator(files[0]), load_evaluator(files[1]), load_evaluator(files[which])
    boards, dice = random_positions(64, 5, games=16)
    moves = generate(boards, dice)
    pick = lambda ev, ply: NeuralAgent(ev, ply=ply).choose(boards, dice, moves)  # noqa: E731
    assert (pick(pair, 0) == pick(mover, 0)).all()
    assert (pick(main, 0) != pick(mover, 0)).any()  # the nets disagree, so the test can tell them apart
    assert (pick(pair, 1) == pick(main, 1)).all()  # the searches keep the main nets
    np.testing.assert_array_equal(pair.probs(boards), main.probs(boards))  # so do position values
    states, players = [MatchState()] * len(boards), [0] * len(boards)
    assert cube_decisions(pair, boards, states, players, 0)[0] == cube_decisions(main, boards, states, players, 0)[0]


def test_a_hint_at_0_ply_ranks_by_the_mover_and_a_deeper_one_by_the_main_nets(files):
    main, mover, pair = (load_evaluator(f) for f in files[:3])
    b, dice = START_31
    moves = lambda ev, ply: [(m.move, round(m.equity, 6)) for m in rank_moves(ev, b, dice, ply)]  # noqa: E731
    assert moves(pair, 0) == moves(mover, 0) != moves(main, 0)
    assert moves(pair, 1) == moves(main, 1)
    assert moves(MemoEvaluator(pair), 0) == moves(mover, 0)  # an analysis remembers the mover's answers apart


def test_the_pair_keeps_the_main_checkpoint_and_takes_only_the_movers_nets(files):
    main, mover, pair = (read_checkpoint(f) for f in files[:3])
    assert pair["mover_net_config"] == mover["net_config"] and pair["mover_race_encoder"] == "race"
    for key, value in main.items():
        if key.endswith("model"):
            assert all(np.array_equal(pair[key][k], v) for k, v in value.items())
    assert with_mover(pair, main)["mover_model"].keys() == main["model"].keys()  # a new mover replaces the old


def test_export_refuses_an_output_naming_an_input_and_a_pt_without_a_mover(files, tmp_path):
    main, mover = files[:2]
    with pytest.raises(ConfigError, match="names an input"):
        export(compose_config("export", f"checkpoint={main}", f"mover={mover}", f"out={mover}"))
    with pytest.raises(ConfigError, match=r"must end in \.safetensors"):
        export(compose_config("export", f"checkpoint={main}", f"out={tmp_path / 'copy.pt'}"))
    assert not (tmp_path / "copy.pt").exists()


@pytest.mark.parametrize("drop,message", [
    ("mover_encoder", "has mover_model but no mover_encoder"),
    ("mover_model", "has mover_net_config but no mover_model"),
])
def test_a_mover_missing_a_field_is_a_one_line_error(files, tmp_path, drop, message):
    state = {key: value for key, value in torch.load(files[3], weights_only=True).items() if key != drop}
    torch.save({**state, "format": FORMAT}, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match=message):
        load_evaluator(tmp_path / "bad.pt")


def test_a_rollout_of_the_pair_plays_the_movers_checker_plays(files):
    boards, dice = random_positions(64, 5, games=16)
    moves = generate(boards, dice)
    pair, mover = make_player(f"checkpoint:{files[2]}@0"), make_player(f"checkpoint:{files[1]}@0")
    assert pair.greedy and (pair.choose(boards, dice, moves) == mover.choose(boards, dice, moves)).all()
    np.testing.assert_array_equal(pair.judge.probs(boards), load_evaluator(files[0]).probs(boards))


def test_an_analysis_at_0_ply_judges_checker_plays_by_the_mover_and_luck_and_cube_by_the_main_nets(files):
    record = play_matches(make_agent(f"checkpoint:{files[1]}@0"), RandomCube(3), [11], length=3,
                          names=("mover", "random"))[0]
    by = {name: analyse_match(load_evaluator(f), record, 0) for name, f in zip(("main", "mover", "pair"), files)}
    decisions = {name: [d for p in a.players for d in p.decisions] for name, a in by.items()}
    checker = {name: [d.equity_lost for d in ds if d.kind == "checker"] for name, ds in decisions.items()}
    cube = {name: [d.equity_lost for d in ds if d.kind != "checker"] for name, ds in decisions.items()}
    luck = {name: [d.luck for d in ds if d.kind == "checker"] for name, ds in decisions.items()}
    assert checker["pair"] == checker["mover"] != checker["main"]
    assert by["pair"].players[0].checker_error == 0  # the mover played its own first choice every time
    assert luck["pair"] == luck["main"] != luck["mover"] and cube["pair"] == cube["main"]


def test_the_shipped_strong_is_a_pair_whose_mover_ranks_a_rollouts_plays_with_its_pruning_net():
    strong = load_evaluator(paths.CHECKPOINTS / "strong.safetensors")
    assert strong.mover is not None and strong.mover.pruner is strong.pruner is not None
    assert make_player("strong@0").judge.prune
