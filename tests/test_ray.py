"""Beyond one machine: the Ray self-play and labelling backends on a local Ray instance, and the learner's device."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bgzero.errors import ConfigError
from bgzero.learn import labelling
from bgzero.learn.train import train
from bgzero.selfplay.build import build_nets
from tests.conftest import compose_train


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def test_ray_actors_label_what_local_processes_label(local_ray, tmp_path):
    from bgzero.learn.search_targets import candidate_turns
    from bgzero.value.checkpoint import load_evaluator

    teacher = str(Path(__file__).resolve().parents[1] / "checkpoints" / "reference.pt")
    boards, turns = candidate_turns(load_evaluator(teacher), 300, 5, games=8)
    candidates = tmp_path / "c.npz"
    np.savez(candidates, boards=boards, turns=turns)
    on_ray = labelling.label(teacher, candidates, tmp_path / "ray", ply=1, processes=2, chunk=100, backend="ray")
    assert on_ray == len(boards)
    labelling.label(teacher, candidates, tmp_path / "local", ply=1, processes=1, chunk=100)
    n = labelling.chunk_count(len(boards), 100)
    np.testing.assert_allclose(labelling.load_labels(tmp_path / "ray", n), labelling.load_labels(tmp_path / "local", n),
                               atol=1e-6)


def test_ray_run_survives_a_killed_actor(local_ray, tmp_path, monkeypatch):
    from bgzero.selfplay.ray_workers import RayWorkers

    get, backends = RayWorkers.get, []

    def get_then_kill_an_actor(self):  # the first chunk is in: kill actor 0 mid-run, as a crash would
        traj = get(self)
        if not backends:
            backends.append(self)
            local_ray.kill(self.actors[0])
        return traj

    monkeypatch.setattr(RayWorkers, "get", get_then_kill_an_actor)
    cfg = compose_train("experiment=tiny", f"train.out_dir={tmp_path}", "selfplay.backend=ray",
                        "selfplay.workers=2", "train.games=128")
    with pytest.warns(UserWarning, match="actor 0 died"):
        summary = train(cfg)
    assert summary["games"] >= 128
    assert backends[0].restarts == 1
    assert (tmp_path / "last.pt").is_file()


def test_an_actor_that_cannot_start_stops_the_run(local_ray):
    from bgzero.selfplay.ray_workers import RayWorkers

    cfg = compose_train("experiment=tiny", "selfplay.backend=ray")
    net = build_nets(cfg)
    cfg.net.activation = "swish"  # the actors cannot build their nets, however often they are replaced
    workers = RayWorkers(cfg, net, [1])
    try:
        with pytest.raises(RuntimeError, match="failed to start"):
            workers.get()
    finally:
        workers.close()


def test_ray_backend_without_ray_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    monkeypatch.delitem(sys.modules, "bgzero.selfplay.ray_workers", raising=False)
    with pytest.raises(ConfigError, match=r"pip install -e \"\.\[distributed\]\""):
        train(compose_train("experiment=tiny", f"train.out_dir={tmp_path}", "selfplay.backend=ray"))


def test_unknown_backend_is_named(tmp_path):
    with pytest.raises(ConfigError, match="selfplay.backend"):
        train(compose_train("experiment=tiny", f"train.out_dir={tmp_path}", "selfplay.backend=mpi"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present: nothing to fall back from")
def test_cuda_without_a_gpu_falls_back_to_the_cpu(tmp_path):
    cfg = compose_train("experiment=tiny", f"train.out_dir={tmp_path}", "device=cuda", "train.games=32")
    with pytest.warns(UserWarning, match="no GPU"):
        assert train(cfg)["games"] >= 32


def test_unknown_device_is_named(tmp_path):
    with pytest.raises(ConfigError, match="device"):
        train(compose_train("experiment=tiny", f"train.out_dir={tmp_path}", "device=tpu"))
