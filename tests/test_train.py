"""End-to-end training on a tiny config: smoke, resume, and surviving kill -9."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bgzero.errors import CheckpointError, ConfigError
from bgzero.learn.train import learning_rate, train
from bgzero.value.checkpoint import load_checkpoint, save_checkpoint
from tests.conftest import compose_train


def test_tiny_run_trains_checkpoints_and_evaluates(tiny_cfg, tmp_path):
    summary = train(tiny_cfg)
    out = tmp_path / "run"
    assert summary["games"] >= 64
    state = load_checkpoint(out / "last.pt")
    assert state["games"] == summary["games"] and state["encoder"] == "contact"
    assert len(list((out / "checkpoints").glob("games_*.pt"))) >= 2
    assert json.loads((out / "result.json").read_text())["vs_pubeval"]["games"] == 20
    assert list((out / "tb").glob("events.out.tfevents.*"))


def test_in_process_run_is_reproducible_from_its_seed(tmp_path):
    a = train(compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'a'}"))
    b = train(compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'b'}"))
    assert a["vs_pubeval"]["ppg"] == b["vs_pubeval"]["ppg"] and a["positions"] == b["positions"]


def test_exploring_run_trains_in_process(tmp_path):
    summary = train(compose_train("experiment=tiny", f"train.out_dir={tmp_path}", "selfplay.epsilon=0.2",
                                  "selfplay.explore_top=3"))
    assert summary["games"] >= 64 and load_checkpoint(tmp_path / "last.pt")["config"]["selfplay"]["explore_top"] == 3


def test_resume_continues_the_count(tiny_cfg, tmp_path):
    train(tiny_cfg)
    more = compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'run'}", "train.games=96",
                         f"train.resume={tmp_path / 'run' / 'last.pt'}")
    first = load_checkpoint(tmp_path / "run" / "last.pt")["wall_seconds"]
    summary = train(more)
    assert summary["games"] >= 96
    assert summary["wall_seconds"] > first > 0  # the run's clock carries over a resume


def test_a_new_run_in_a_folder_holding_one_is_refused_unless_it_overwrites(tiny_cfg, tmp_path):
    train(tiny_cfg)
    out = tmp_path / "run"
    before, logs = sorted(p.name for p in (out / "checkpoints").iterdir()), len(list((out / "tb").iterdir()))
    with pytest.raises(ConfigError, match=r"already holds a training run: pass train.resume=.*last.pt"):
        train(compose_train("experiment=tiny", f"train.out_dir={out}", "train.games=96"))
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == before  # nothing touched
    again = train(compose_train("experiment=tiny", f"train.out_dir={out}", "train.games=96", "train.overwrite=true"))
    saved = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert load_checkpoint(out / "last.pt")["games"] == again["games"] and len(list((out / "tb").iterdir())) == logs
    assert saved and all(load_checkpoint(out / "checkpoints" / name)["config"]["train"]["games"] == 96 for name in saved)


def test_resume_with_another_net_is_refused(tiny_cfg, tmp_path):
    train(tiny_cfg)
    other = compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'x'}", "net=mlp80",
                          f"train.resume={tmp_path / 'run' / 'last.pt'}")
    with pytest.raises(CheckpointError, match="asks for"):
        train(other)


@pytest.mark.parametrize("override,key", [("td.lam=1.5", "td.lam"), ("td.lr_schedule=wavy", "lr_schedule"),
                                          ("selfplay.workers=-2", "selfplay.workers"),
                                          ("encoder.name=fancy", "encoder"),
                                          ("selfplay.explore_top=-1", "selfplay.explore_top"),
                                          ("selfplay.explore_top=1.5", "selfplay.explore_top")])
def test_bad_config_values_are_named(tmp_path, override, key):
    with pytest.raises(ConfigError, match=key):
        train(compose_train("experiment=tiny", f"train.out_dir={tmp_path}", override))


def test_learning_rate_schedules():
    td = compose_train().td
    assert learning_rate(td, 0, 100) == pytest.approx(td.lr)
    assert learning_rate(td, 100, 100) == pytest.approx(td.lr_final)


def test_kill_dash_nine_then_resume(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "bgzero.cli.train", "experiment=tiny", f"train.out_dir={out}",
           "train.games=1000000", "train.checkpoint_every=16", "eval.every_games=0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 120
        while len(list((out / "checkpoints").glob("games_*.pt"))) < 3:
            assert time.time() < deadline and proc.poll() is None, "training did not checkpoint"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    saved = load_checkpoint(out / "last.pt")  # intact despite the kill
    target = saved["games"] + 32
    summary = train(compose_train("experiment=tiny", f"train.out_dir={out}", f"train.games={target}",
                                  f"train.resume={out / 'last.pt'}"))
    assert summary["games"] >= target
    assert load_checkpoint(out / "last.pt")["games"] == summary["games"]


def test_resume_from_a_checkpoint_without_optimizer_state(tiny_cfg, tmp_path):
    train(tiny_cfg)
    state = load_checkpoint(tmp_path / "run" / "last.pt")
    del state["optimizer"]  # as scripts/search_finetune.py writes it
    save_checkpoint(tmp_path / "tuned.pt", state)
    more = compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'more'}", f"train.games={state['games'] + 32}",
                         f"train.resume={tmp_path / 'tuned.pt'}")
    assert train(more)["games"] >= state["games"] + 32


def test_td_has_no_algorithm_switch_that_nothing_reads():
    """``td.algorithm`` was a config key that no code read: changing it changed nothing. It is gone,
    so setting it is refused instead of silently ignored."""
    assert "algorithm" not in compose_train().td
    with pytest.raises(ConfigError, match="no option 'td.algorithm'"):
        compose_train("td.algorithm=tree_backup")
