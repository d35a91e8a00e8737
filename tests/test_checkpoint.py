"""Checkpoints and play files: atomic writes, playing without torch, and clear errors for bad files."""

import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from bgzero import paths
from bgzero.errors import CheckpointError
from bgzero.value.checkpoint import (
    FORMAT,
    load_checkpoint,
    load_evaluator,
    load_net,
    read_checkpoint,
    save_checkpoint,
    save_play,
)
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.playfile import read_play

SHIPPED = sorted(paths.CHECKPOINTS.glob("*.pt"))
PLAY_FILES = sorted(paths.CHECKPOINTS.glob("*.safetensors"))


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


def _same(read, loaded, where="", kind=np.ndarray) -> int:
    """Assert that ``read`` (its tensors of type ``kind``) equals ``torch.load``'s, tensor for tensor; the number of tensors."""
    if isinstance(loaded, torch.Tensor):
        assert isinstance(read, kind), where
        as_tensor = torch.as_tensor(read)
        assert (as_tensor.dtype, as_tensor.shape) == (loaded.dtype, loaded.shape), where
        assert torch.equal(as_tensor, loaded), where
        return 1
    assert type(read) is type(loaded), where
    if isinstance(loaded, dict):
        assert list(read) == list(loaded), where
        return sum(_same(read[k], loaded[k], f"{where}.{k}", kind) for k in loaded)
    if isinstance(loaded, (list, tuple)):
        assert len(read) == len(loaded), where
        return sum(_same(a, b, f"{where}[{i}]", kind) for i, (a, b) in enumerate(zip(read, loaded)))
    assert read == loaded, where
    return 0


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_tensor_reads_as_torch_loads_it(path):
    assert _same(read_checkpoint(path), torch.load(path, map_location="cpu", weights_only=True)) >= 4
    _same(load_checkpoint(path), torch.load(path, map_location="cpu", weights_only=True), kind=torch.Tensor)


def test_a_training_checkpoint_reads_as_torch_loads_it(tmp_path):
    """What a run saves (optimizer state, 0-d step counters, both generators) reads back exactly."""
    net = ValueNet(NetConfig(hidden=[8]))
    opt = torch.optim.Adam(net.parameters())
    net(torch.randn(4, 198)).sum().backward()
    opt.step()
    state = {**_state(net), "optimizer": opt.state_dict(), "positions": 3, "torch_rng": torch.get_rng_state(),
             "rng": np.random.default_rng(1).bit_generator.state, "view": torch.arange(12.0).reshape(3, 4).T}
    path = save_checkpoint(tmp_path / "a.pt", state)
    assert _same(read_checkpoint(path), torch.load(path, weights_only=True)) == 4 + 3 * 4 + 2


def test_each_shipped_agent_has_a_play_file_of_the_same_nets():
    """The shipped agents play from their .safetensors: the .pt's weights and fields, less the optimizer."""
    assert [p.stem for p in PLAY_FILES] == [p.stem for p in SHIPPED]
    for pt, play in zip(SHIPPED, PLAY_FILES):
        want, got = read_checkpoint(pt), read_checkpoint(play)
        assert set(got) == set(want) - {"optimizer", "rng", "torch_rng"}, play.name
        for key, value in want.items():
            if key.endswith("model"):
                assert set(got[key]) == set(value) and all(np.array_equal(got[key][k], v) for k, v in value.items())
            elif key in got:
                assert got[key] == value, (play.name, key)


def test_playing_needs_no_torch_and_a_training_checkpoint_says_which_extra(tmp_path):
    code = ("import sys; sys.modules['torch'] = None; from bgzero.value.checkpoint import load_evaluator, "
            "read_checkpoint; from bgzero.errors import CheckpointError\n"
            f"load_evaluator({str(PLAY_FILES[0])!r})\n"
            f"try: read_checkpoint({str(SHIPPED[0])!r})\n"
            "except CheckpointError as e: print(e)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert "is a training checkpoint (.pt), which needs torch: pip install 'bgzero[train]'" in done.stdout


def test_a_play_file_plays_as_its_checkpoint(tmp_path):
    net = ValueNet(NetConfig(hidden=[8]))
    pt = save_checkpoint(tmp_path / "a.pt", {**_state(net), "optimizer": torch.optim.Adam(net.parameters()).state_dict()})
    play = save_play(tmp_path / "a.safetensors", read_checkpoint(pt))
    boards = np.random.default_rng(0).integers(0, 3, size=(5, 2, 25)).astype(np.int8)
    np.testing.assert_array_equal(load_evaluator(play).probs(boards), load_evaluator(pt).probs(boards))
    assert "optimizer" not in read_play(play)


@pytest.mark.parametrize("damage", [
    lambda data: data[: len(data) // 2],                       # cut short
    lambda data: b"\xff" * 8 + data[8:],                       # a header length past the file
    lambda data: data.replace(b'"bgzero"', b'"other!"', 1),    # no bgzero fields
    lambda data: data.replace(b"model/", b"xxxxx/", 1),        # a tensor of no net
    lambda data: data.replace(b'\\"games\\"', b'\\"model\\"', 1),  # weights among the plain fields
], ids=["short", "header-length", "no-fields", "no-net", "weights-in-fields"])
def test_a_damaged_play_file_is_one_line_error(tmp_path, damage):
    good = save_play(tmp_path / "good.safetensors", _state(ValueNet(NetConfig(hidden=[8]))))
    assert read_checkpoint(good)["games"] == 7
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(damage(good.read_bytes()))
    with pytest.raises(CheckpointError, match="play file .*bad.safetensors") as e:
        read_checkpoint(bad)
    assert "\n" not in str(e.value)


class _Runs:
    def __reduce__(self):
        return print, ("code in the checkpoint ran",)


def test_a_file_naming_other_objects_is_refused_and_runs_nothing(tmp_path, capsys):
    torch.save({"format": FORMAT, **_state(ValueNet(NetConfig(hidden=[8]))), "extra": _Runs()}, tmp_path / "a.pt")
    with pytest.raises(CheckpointError, match="holds objects other than weights") as e:
        read_checkpoint(tmp_path / "a.pt")
    assert "\n" not in str(e.value) and capsys.readouterr().out == ""


def _rewritten(path: Path, out: Path, edit, deflate: str = "") -> Path:
    """``path``'s archive with each member's bytes passed through ``edit(name, data)`` (None drops it);
    the members whose name ends in ``deflate`` (if given) compressed."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            data = edit(name, src.read(name))
            if data is not None:
                deflated = bool(deflate) and name.endswith(deflate)
                dst.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED)
    return out


def _repeated(pickled: bytes) -> bytes:
    """The pickle with head.bias made 10**9 repeats of its first element (size 10**9, stride 0): it
    fits its storage, and a reader that copied it would allocate 4 GB."""
    size = pickled.index(b"K\x05\x85")  # head.bias's size (5,): BININT1 5, TUPLE1
    stride = pickled.index(b"K\x01\x85", size)  # its stride (1,)
    return (pickled[:size] + b"J\x00\xca\x9a\x3b\x85" + pickled[size + 3:stride] + b"K\x00\x85"
            + pickled[stride + 3:])


@pytest.mark.parametrize("edit,deflate", [
    (lambda name, data: data[:-4] if name.endswith("/data/0") else data, ""),           # a storage cut short
    (lambda name, data: None if name.endswith("/data/1") else data, ""),                # a storage missing
    (lambda name, data: data[: len(data) // 2] if name.endswith("data.pkl") else data, ""),  # the pickle cut short
    (lambda name, data: b"sideways" if name.endswith("byteorder") else data, ""),       # an unknown byte order
    (lambda name, data: data, "/data/0"),                                               # a compressed storage
    (lambda name, data: _repeated(data) if name.endswith("data.pkl") else data, ""),  # 10**9 copies of one
], ids=["short-storage", "missing-storage", "short-pickle", "byte-order", "compressed", "repeated-elements"])
def test_a_damaged_archive_is_one_line_error(tmp_path, edit, deflate):
    good = save_checkpoint(tmp_path / "good.pt", _state(ValueNet(NetConfig(hidden=[8]))))
    assert read_checkpoint(_rewritten(good, tmp_path / "same.pt", lambda name, data: data))["games"] == 7
    with pytest.raises(CheckpointError, match="truncated, damaged or not a bgzero checkpoint") as e:
        read_checkpoint(_rewritten(good, tmp_path / "bad.pt", edit, deflate))
    assert "\n" not in str(e.value)


def test_weights_of_the_wrong_shape_are_refused_without_torch(tmp_path):
    state = _state(ValueNet(NetConfig(hidden=[8])))
    state["model"]["head.bias"] = torch.zeros(4)
    torch.save({"format": FORMAT, **state}, tmp_path / "a.pt")
    with pytest.raises(CheckpointError, match=r"weights do not fit .*head.bias is \(4,\), expected \(5,\)"):
        read_checkpoint(tmp_path / "a.pt")
