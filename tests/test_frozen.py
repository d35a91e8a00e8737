"""Frozen nets: the numba evaluation of a checkpoint's nets gives what the torch nets give."""

import numpy as np
import pytest
import torch

from bgzero.engine.game import random_positions
from bgzero.errors import CheckpointError, ConfigError
from bgzero.rollout.lockstep import RolloutSettings, run_chunk
from bgzero.rollout.players import NetJudge, RolloutPlayer
from bgzero.value.checkpoint import FORMAT, load_evaluator
from bgzero.value.encode import encode, get_encoder
from bgzero.value.frozen import FrozenNet
from bgzero.value.net import NetConfig, ValueNet

REFERENCE = "checkpoints/reference.pt"


@pytest.mark.parametrize("encoder,hidden,activation", [
    ("contact", [32], "relu"), ("race", [16], "relu"), ("tesauro198", [8, 6], "relu"),
    ("contact", [12], "sigmoid"), ("tesauro198", [10, 4], "tanh"), ("race", [8], "elu"), ("tesauro198", [], "relu"),
    ("contact", [70, 65], "sigmoid"),  # padded units are 0.5 after a sigmoid: the next layer must not read them
])
def test_frozen_net_equals_the_torch_net(encoder, hidden, activation):
    torch.manual_seed(1)
    net = ValueNet(NetConfig(num_inputs=get_encoder(encoder).num_inputs, hidden=hidden, activation=activation)).eval()
    boards, _ = random_positions(3000, seed=2)  # more than one chunk of the kernel when CHUNK is small
    with torch.inference_mode():
        want = net(torch.from_numpy(encode(boards, encoder))).numpy()
    np.testing.assert_allclose(FrozenNet.of(net, encoder).probs(boards), want, atol=1e-5)


def test_frozen_net_is_a_snapshot():
    torch.manual_seed(1)
    net = ValueNet(NetConfig(num_inputs=198, hidden=[8]))
    frozen = FrozenNet.of(net, "tesauro198")
    boards, _ = random_positions(10, seed=3)
    before = frozen.probs(boards)
    with torch.no_grad():
        net.head.bias += 1.0  # training the torch net does not reach the copy
    np.testing.assert_array_equal(frozen.probs(boards), before)


def test_weights_that_do_not_fit_are_refused():
    net = ValueNet(NetConfig(num_inputs=198, hidden=[8]))
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    with pytest.raises(ConfigError, match="do not fit"):
        FrozenNet(NetConfig(num_inputs=198, hidden=[9]), weights, "tesauro198")
    with pytest.raises(ConfigError, match="do not fit"):
        FrozenNet(net.config, {**weights, "body.2.weight": weights["body.0.weight"]}, "tesauro198")
    with pytest.raises(ConfigError, match="inputs"):
        FrozenNet(net.config, weights, "contact")


def test_a_checkpoint_whose_weights_do_not_fit_is_a_checkpoint_error(tmp_path):
    net = ValueNet(NetConfig(hidden=[8]))
    torch.save({"format": FORMAT, "model": net.state_dict(), "encoder": "tesauro198", "games": 0,
                "net_config": {"num_inputs": 198, "hidden": [16], "activation": "relu"}}, tmp_path / "a.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        load_evaluator(tmp_path / "a.pt")


@pytest.mark.parametrize("name", ["reference", "strong"])  # strong.pt has a race net too
def test_loaded_evaluators_agree_on_every_class(name):
    frozen, live = load_evaluator(f"checkpoints/{name}.pt"), load_evaluator(f"checkpoints/{name}.pt", frozen=False)
    assert isinstance(frozen.net, FrozenNet) and isinstance(live.net, ValueNet)
    assert (frozen.race_net is None) == (name == "reference") and not isinstance(live.race_net, FrozenNet)
    boards, _ = random_positions(4000, seed=4)
    np.testing.assert_allclose(frozen.probs(boards), live.probs(boards), atol=1e-5)


def test_rollouts_with_frozen_nets_play_the_same_games():
    evaluators = load_evaluator(REFERENCE), load_evaluator(REFERENCE, frozen=False)
    root = random_positions(1, seed=5)[0]
    settings = RolloutSettings(trials=24, seed=3, truncate=12)
    outcomes = [run_chunk(RolloutPlayer(None, NetJudge(ev), greedy=True), root, np.zeros(24, int), np.arange(24),
                          settings) for ev in evaluators]
    np.testing.assert_allclose(outcomes[0].probs, outcomes[1].probs, atol=1e-4)
