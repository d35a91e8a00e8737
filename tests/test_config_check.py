"""The typed config check: every listed bad value is a one-line ConfigError before any work."""

import os
import signal
from pathlib import Path

import pytest

from bgzero.atomic import atomic_write
from bgzero.cli import analyze, one_line_errors
from bgzero.cli import eval as eval_cli
from bgzero.cli import match as match_cli
from bgzero.cli import play as play_cli
from bgzero.cli import serve as serve_cli
from bgzero.cli.schemas import Play
from bgzero.engine.ids import MAX_MATCH_LENGTH
from bgzero.errors import ConfigError, OutputError
from bgzero.learn.run_lock import RunLock, RunLockedError
from bgzero.learn.train import train
from bgzero.schema import check
from tests.conftest import compose_config, compose_train


@pytest.mark.parametrize("override", [
    "td.lam=abc", "net.hidden=abc", "td.lr=nan", "td.lr=inf", "train.checkpoint_every=0", "seed=-1", "seed=abc",
    "train.games=abc", "td.batch_size=1.5", "td.epochs=0", "net.hidden=[1.5]", "train.checkpoint_every=-5",
    "eval.every_games=-1", "eval.final_games=0", "net.exact_bearoff=maybe", "selfplay.epsilon=nan",
    "train.progress=1", "device=inf", "device=1", "device=tpu"])
def test_train_values(tmp_path, override):
    with pytest.raises(ConfigError, match=override.split("=")[0].replace(".", r"\.")) as e:
        train(compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'run'}", override))
    assert "\n" not in str(e.value)
    assert not (tmp_path / "run").exists()


def test_train_out_dir_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(ConfigError, match="is a file, not a directory"):
        train(compose_train("experiment=tiny", f"train.out_dir={tmp_path / 'f'}"))


@pytest.mark.parametrize("cli,name,override", [
    (serve_cli, "serve", "port=abc"), (serve_cli, "serve", "log_level=FOO"), (serve_cli, "serve", "idle_timeout=0"),
    (eval_cli, "eval", "seed=-1"), (match_cli, "match", "pace=-1"), (match_cli, "match", "pace=nan"),
    (play_cli, "play", "confirm=maybe"), (play_cli, "play", "jacoby=yes")])
def test_cli_values(cli, name, override):
    with pytest.raises(ConfigError, match=override.split("=")[0]):
        cli.run(compose_config(name, {"eval": "games=2", "match": "games=2", "play": "name=you"}.get(name, "host=localhost"),
                     override))


def test_output_paths_are_checked_before_the_work(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="is a file"):
        eval_cli.run(compose_config("eval", "a=pubeval", "b=random", "games=100000000", f"out={tmp_path / 'file'}"))
    with pytest.raises(ConfigError, match="is a file"):
        match_cli.run(compose_config("match", "a=pubeval", "b=random", "matches=100000", f"out={tmp_path / 'file'}"))
    with pytest.raises(ConfigError, match="is a directory"):
        play_cli.run(compose_config("play", "bot=pubeval", f"save={tmp_path}"))
    (tmp_path / "in.txt").write_text("4HPwATDgc/ABMA 31\n")
    with pytest.raises(ConfigError, match="is a directory"):
        analyze.run(compose_config("analyze", f"input={tmp_path / 'in.txt'}", f"output={tmp_path}"))


def test_options_whose_choices_include_true_and_false_take_them():
    for colour in ("auto", True, False):
        check(compose_config("play", f"colour={str(colour).lower()}"), Play)
    with pytest.raises(ConfigError, match="colour='maybe' is not allowed: one of auto, true, false$"):
        check(compose_config("play", "colour=maybe"), Play)


def test_a_match_length_is_what_a_match_id_holds_and_money_rules_stay_in_money():
    assert MAX_MATCH_LENGTH == 64  # config_check.MATCH_LENGTH's bound, which that layer cannot import
    with pytest.raises(ConfigError, match="length=65 is not allowed"):
        match_cli.run(compose_config("match", "length=65"))
    for override, words in (("games=5", "games=5 counts a money session's games"),
                            ("jacoby=true", "jacoby=true is a money rule")):
        with pytest.raises(ConfigError, match=words):
            play_cli.run(compose_config("play", "bot=pubeval", "length=5", override))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux's /proc, which refuses new files even to root")
def test_an_output_folder_that_cannot_be_made_is_refused_before_the_work():
    with pytest.raises(ConfigError, match="cannot write under /proc/bgzero-out"):
        eval_cli.run(compose_config("eval", "a=pubeval", "b=random", "games=100000000", "out=/proc/bgzero-out"))
    with pytest.raises(ConfigError, match="cannot write under /proc"):
        analyze.run(compose_config("analyze", "match=whatever.mat", "html=/proc/bgzero.html"))


def test_atomic_write_to_a_directory_is_a_one_line_error(tmp_path):
    with pytest.raises(OutputError, match="is a directory"):
        atomic_write(tmp_path, lambda f: f.write("x"))
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="cannot write"):
        atomic_write(tmp_path / "file" / "x", lambda f: f.write("x"))


def test_sigterm_removes_the_temporary_file(tmp_path):
    previous = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit, match="stopped by SIGTERM"), one_line_errors("bgzero-x"):
            atomic_write(tmp_path / "out", lambda f: os.kill(os.getpid(), signal.SIGTERM))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert list(tmp_path.iterdir()) == []


def test_a_run_directory_is_locked_and_temporaries_cleaned(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "games_000000032.pt.abcd1234.tmp").write_bytes(b"half")
    (tmp_path / "last.pt.xyz.tmp").write_bytes(b"half")
    with RunLock(tmp_path):
        assert not list(tmp_path.rglob("*.tmp"))
        with pytest.raises(RunLockedError, match=f"in use by another training \\(pid {os.getpid()}\\)"):
            RunLock(tmp_path).__enter__()
    with RunLock(tmp_path):  # released on exit
        pass


def test_one_eval_point_at_the_final_step_and_none_lost_on_resume(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = tmp_path / "run"
    common = ("experiment=tiny", f"train.out_dir={out}", "eval.every_games=32", "train.checkpoint_every=32",
              "eval.games=2", "eval.final_games=2")
    train(compose_train(*common, "train.games=32"))
    train(compose_train(*common, "train.games=64", f"train.resume={out / 'last.pt'}"))
    acc = EventAccumulator(str(out / "tb")).Reload()
    steps = [e.step for e in acc.Scalars("eval/ppg_vs_pubeval")]
    assert steps == [32, 64], steps


def test_a_mistyped_agent_is_refused_before_overwrite_removes_an_earlier_run(tmp_path):
    (tmp_path / "match_0001.mat").write_text("the earlier run's match")
    (tmp_path / "result.json").write_text("{}")
    with pytest.raises(ConfigError, match="unknown agent 'nosuch'"):
        match_cli.run(compose_config("match", "a=nosuch", "b=pubeval", f"out={tmp_path}", "overwrite=true",
                                     "matches=1", "progress=false"))
    assert (tmp_path / "match_0001.mat").read_text() == "the earlier run's match"
