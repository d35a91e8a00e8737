"""Checkpoints: atomic writes and clear errors for bad files."""

import pytest
import torch

from bgzero.errors import CheckpointError
from bgzero.value.checkpoint import FORMAT, load_checkpoint, load_net, save_checkpoint
from bgzero.value.net import NetConfig, ValueNet


def _state(net):
    return {"model": net.state_dict(), "net_config": net.config_dict(), "encoder": "tesauro198", "games": 7}


def test_round_trip(tmp_path):
    net = ValueNet(NetConfig(num_inputs=198, hidden=[8]))
    path = save_checkpoint(tmp_path / "a.pt", _state(net))
    loaded, encoder = load_net(path)
    assert encoder == "tesauro198"
    x = torch.randn(3, 198)
    torch.testing.assert_close(loaded(x), net(x))
    assert [p.name for p in tmp_path.iterdir()] == ["a.pt"]  # no temporary file left behind


def test_missing_file(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "nope.pt")


def test_truncated_file(tmp_path):
    path = save_checkpoint(tmp_path / "a.pt", _state(ValueNet(NetConfig(hidden=[8]))))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated"):
        load_checkpoint(path)


def test_foreign_torch_file(tmp_path):
    torch.save({"weights": torch.zeros(3)}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a bgzero checkpoint"):
        load_checkpoint(tmp_path / "other.pt")


def test_weights_that_do_not_fit_the_config(tmp_path):
    state = _state(ValueNet(NetConfig(hidden=[8])))
    state["net_config"] = {"num_inputs": 198, "hidden": [16], "activation": "relu"}
    torch.save({"format": FORMAT, **state}, tmp_path / "a.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        load_net(tmp_path / "a.pt")


def test_shipped_checkpoints_are_found_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the CLIs' default agent is checkpoints/strong.pt
    assert load_checkpoint("checkpoints/strong.pt")["net_config"]["hidden"] == [1024]
    with pytest.raises(CheckpointError, match="checkpoint checkpoints/missing.pt does not exist"):
        load_checkpoint("checkpoints/missing.pt")
