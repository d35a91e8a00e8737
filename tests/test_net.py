"""The value network's outputs: consistency, equity, and the change of viewpoint."""

import numpy as np
import pytest
import torch

from bgzero.errors import ConfigError
from bgzero.value.net import NetConfig, ValueNet, widened
from bgzero.value.netconfig import ACTIVATIONS, weight_shapes
from bgzero.value.probs import equity, flip


def test_outputs_are_consistent_for_any_input():
    torch.manual_seed(0)
    net = ValueNet(NetConfig(num_inputs=10, hidden=[16, 8]))
    p = net(torch.randn(1000, 10) * 10)
    assert p.shape == (1000, 5)
    w, wg, wbg, lg, lbg = p.unbind(-1)
    assert ((0 <= wbg) & (wbg <= wg) & (wg <= w) & (w <= 1)).all()
    assert ((0 <= lbg) & (lbg <= lg) & (lg <= 1 - w)).all()


def test_equity_of_known_probabilities():
    assert equity(np.array([1, 1, 1, 0, 0.0])) == pytest.approx(3)
    assert equity(np.array([0, 0, 0, 1, 0.0])) == pytest.approx(-2)
    assert equity(np.array([0.5, 0.1, 0.0, 0.1, 0.0])) == pytest.approx(0)


def test_flip_swaps_sides_and_negates_equity():
    p = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    np.testing.assert_allclose(flip(p), [0.4, 0.1, 0.01, 0.2, 0.05])
    np.testing.assert_allclose(flip(flip(p)), p)
    assert equity(flip(p)) == pytest.approx(-equity(p))
    t = torch.tensor(p)
    np.testing.assert_allclose(flip(t).numpy(), flip(p))


def test_bad_config_values_are_named():
    with pytest.raises(ConfigError, match="activation"):
        NetConfig(activation="swish")
    with pytest.raises(ConfigError, match="positive"):
        NetConfig(hidden=[0])


def test_a_widened_net_computes_the_same_function_and_can_learn_more():
    net = ValueNet(NetConfig(num_inputs=10, hidden=[6]))
    wide = widened(net, 4, seed=1)
    assert wide.config.hidden == [10]
    x = torch.randn(50, 10)
    with torch.no_grad():
        torch.testing.assert_close(wide(x), net(x))
    wide(x).sum().backward()
    assert wide.head.weight.grad[:, 6:].abs().sum() > 0  # the new units get gradient from the start
    assert widened(net, 4, seed=1).state_dict()["body.0.weight"].equal(wide.state_dict()["body.0.weight"])


def test_widening_needs_one_hidden_layer():
    with pytest.raises(ConfigError, match="one hidden layer"):
        widened(ValueNet(NetConfig(num_inputs=10, hidden=[6, 6])), 4)
    with pytest.raises(ConfigError, match="extra"):
        widened(ValueNet(NetConfig(num_inputs=10, hidden=[6])), 0)


@pytest.mark.parametrize("hidden", [[8], [16, 8], [4, 4, 4]])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_the_torch_free_shape_is_the_nets_own(hidden, activation):
    """Checkpoints are checked and read without torch, against the layout the torch net has."""
    config = NetConfig(num_inputs=10, hidden=hidden, activation=activation)
    assert weight_shapes(config) == {k: tuple(v.shape) for k, v in ValueNet(config).state_dict().items()}
    assert list(weight_shapes(config)) == list(ValueNet(config).state_dict())
