"""bgzero-iterate: a whole tiny generation, its resume after a stop at every step and mid-step,
the time budget, and labelling chunks that survive a kill."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bgzero.errors import ConfigError
from bgzero.gnubg.cube_bench import agreement
from bgzero.learn import iterate as iterate_module
from bgzero.learn import labelling
from bgzero.learn.iterate import STEPS, Generation
from bgzero.learn.iterate import iterate as iterate_without_cube
from bgzero.value.checkpoint import load_evaluator
from tests.conftest import compose_config

ROOT = Path(__file__).resolve().parents[1]
TINY = ("recipe=tiny", "progress=false", "candidates.positions=150", "candidates.parallel_games=8",
        "gate.games=20", "gate.chunk=10")


def iterate(cfg):
    """The run as ``bgzero-iterate`` makes it: the gate with the cube bench."""
    return iterate_without_cube(cfg, cube_bench=agreement)


def tiny_cfg(out: Path, *more: str):
    return compose_config("iterate", *TINY, f"out_dir={out}", *more)


def figures(out: Path) -> dict:
    """The decided generations, without the paths that name the run folder."""
    state = json.loads((out / "state.json").read_text())
    return [{k: v for k, v in g.items() if k not in ("student", "champion")}
            | {"vs": {k: (v["ppg"], v["games"]) for k, v in g.items() if k.startswith("vs_")}}
            for g in state["generations"]]


def strip_seconds(decided: list) -> list:
    for g in decided:
        for key in [k for k in g if k.startswith("vs_")]:
            g[key] = {k: v for k, v in g[key].items() if k not in ("seconds", "games_per_second")}
    return decided


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """One tiny generation run without a stop."""
    out = tmp_path_factory.mktemp("straight")
    state = iterate(tiny_cfg(out))
    return out, state


def test_a_tiny_generation_is_decided_and_its_student_plays(straight):
    out, state = straight
    [g] = state["generations"]
    assert g["vs_champion"]["games"] == 20 and g["vs_pubeval"]["games"] == 20
    assert len(list((out / "gen-001" / "gate").glob("champion-*.json"))) == 2
    student = load_evaluator(out / "gen-001" / "student.pt")
    assert student.pruner is not None  # search works on the student
    assert state["champion"] == (g["student"] if g["promoted"] else "checkpoints/reference.pt")
    assert list((out / "tb").glob("events.out.tfevents.*"))
    finetune = json.loads((out / "gen-001" / "finetune.json").read_text())
    assert finetune["contact"]["positions"] > 0
    assert g["cube"] == agreement(g["student"], [0])  # the gate's cube figures are the bench's


def test_the_gates_cube_figures_are_the_model_cards():
    """strong's 0-ply row of bgzero-bench cube (checkpoints/strong.md): 94.6% doubler, 93.3% taker."""
    [figures] = agreement("checkpoints/strong.pt", [0]).values()
    assert (round(100 * figures["doubler"], 1), round(100 * figures["taker"], 1)) == (94.6, 93.3)
    assert (figures["decisions"], figures["doubles"]) == (955, 240)


def test_a_stop_after_any_step_resumes_to_the_same_generation(straight, tmp_path, monkeypatch):
    """Killed between each pair of steps in turn, the run still ends where a straight run does."""
    out = tmp_path / "run"
    for step in STEPS[1:]:
        real = getattr(Generation, step)

        def killed(self, step=step):
            raise KeyboardInterrupt(step)

        monkeypatch.setattr(Generation, step, killed)
        with pytest.raises(KeyboardInterrupt):
            iterate(tiny_cfg(out))
        monkeypatch.setattr(Generation, step, real)
        assert not (out / "gen-001" / "decision.json").exists()
    iterate(tiny_cfg(out))
    assert strip_seconds(figures(out)) == strip_seconds(figures(straight[0]))


def _late_after_each_chunk(monkeypatch) -> list[float]:
    """A clock that passes the budget's deadline once labelling finishes a chunk; set it back with ``clock[0] = 0``."""
    clock = [0.0]
    monkeypatch.setattr(iterate_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(labelling.time, "monotonic", lambda: clock[0])
    real_label = labelling.label

    def one_chunk_then_late(*args, progress=None, **kw):
        def tick(n):
            clock[0] += 1000.0
            if progress:
                progress(n)
        return real_label(*args, progress=tick, **kw)

    monkeypatch.setattr(iterate_module, "label", one_chunk_then_late)
    return clock


def test_the_budget_stops_labelling_and_the_gate_and_the_rerun_finishes(straight, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    real_label = labelling.label
    clock = _late_after_each_chunk(monkeypatch)
    state = iterate(tiny_cfg(out, "budget=10m"))
    assert state["stopped"] == {"generation": 1, "step": "labels"}
    assert "run the same command again to resume" in capsys.readouterr().out
    assert len(list((out / "gen-001" / "labels").glob("labels-*.npz"))) == 1

    monkeypatch.setattr(iterate_module, "label", real_label)
    real_play = iterate_module.play_duplicate_from_specs

    def late_after_a_chunk(*args, **kw):
        clock[0] += 1000.0
        return real_play(*args, **kw)

    clock[0] = 0.0
    monkeypatch.setattr(iterate_module, "play_duplicate_from_specs", late_after_a_chunk)
    state = iterate(tiny_cfg(out, "budget=10m"))
    assert state["stopped"] == {"generation": 1, "step": "gate"}
    assert len(list((out / "gen-001" / "gate").glob("*.json"))) == 1

    monkeypatch.setattr(iterate_module, "play_duplicate_from_specs", real_play)
    iterate(tiny_cfg(out))
    assert strip_seconds(figures(out)) == strip_seconds(figures(straight[0]))


@pytest.mark.parametrize("override, message", [
    ("budget=soon", "budget='soon' is not allowed"),
    ("budget=0", "budget=0 is not allowed"),
    ("candidates.classes=[contact,bearoff]", "candidates.classes"),
    ("labelling.backend=slurm", "labelling.backend='slurm' is not allowed"),
    ("labelling.teacher=nowhere.pt", "labelling.teacher=nowhere.pt: no such checkpoint"),
    ("gate.opponents=[nobody]", "nobody"),
])
def test_bad_options_are_refused_before_any_work(tmp_path, override, message):
    with pytest.raises(ConfigError, match=message):
        iterate(tiny_cfg(tmp_path / "run", override))
    assert not (tmp_path / "run" / "gen-001").exists()


def test_a_run_folder_of_another_start_is_refused(straight):
    with pytest.raises(ConfigError, match="holds a run from start=checkpoints/reference.pt"):
        iterate(tiny_cfg(straight[0], "start=checkpoints/strong_td.pt"))


def test_the_command_resumes_a_decided_run_and_prints_its_curve(straight, tmp_path):
    shutil.copytree(straight[0], tmp_path / "run")
    run = subprocess.run([sys.executable, "-m", "bgzero.cli.iterate", *TINY, f"out_dir={tmp_path / 'run'}"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "generation 1: " in run.stdout and "champion " in run.stdout and "over 20 games" in run.stdout
    assert "[gen 1]" not in run.stdout  # nothing was redone


def test_labelling_chunks_survive_a_kill_and_the_rerun_labels_the_same(tmp_path):
    """A labeller killed (SIGKILL) mid-run leaves only whole chunks; the rerun's labels are a straight run's."""
    from bgzero.learn.search_targets import candidate_turns

    boards, turns = candidate_turns(load_evaluator(ROOT / "checkpoints/reference.pt"), 600, 3, games=16)
    candidates = tmp_path / "c.npz"
    np.savez(candidates, boards=boards, turns=turns)
    script = ("import sys; from pathlib import Path; from bgzero.learn.labelling import label\n"
              "label('checkpoints/reference.pt', Path(sys.argv[1]), Path(sys.argv[2]), ply=1, processes=1, chunk=100)")
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", script, candidates, killed], cwd=ROOT)
    deadline = time.monotonic() + 120
    while not labelling.chunk_path(killed, 1).exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = sorted(p.name for p in killed.iterdir())
    assert all(name.startswith("labels-") and name.endswith(".npz") or name.endswith(".tmp") for name in left)
    done = labelling.labelled_prefix(killed, candidates, "checkpoints/reference.pt", 1, 100)
    assert 2 <= done < labelling.chunk_count(len(boards), 100)
    assert labelling.label("checkpoints/reference.pt", candidates, killed, ply=1, processes=1, chunk=100) == len(boards)
    straight = tmp_path / "straight"
    labelling.label("checkpoints/reference.pt", candidates, straight, ply=1, processes=1, chunk=100)
    n = labelling.chunk_count(len(boards), 100)
    np.testing.assert_array_equal(labelling.load_labels(killed, n), labelling.load_labels(straight, n))


def test_chunks_of_another_teacher_are_refused(tmp_path):
    boards = np.zeros((200, 2, 25), np.int8)
    boards[:, 0, 5] = boards[:, 1, 5] = 15
    candidates = tmp_path / "c.npz"
    np.savez(candidates, boards=boards, turns=np.arange(200) // 4)
    labelling.label("checkpoints/reference.pt", candidates, tmp_path / "l", ply=0, processes=1, chunk=100, limit=100)
    with pytest.raises(ConfigError, match="another teacher"):
        labelling.label("checkpoints/strong_td.pt", candidates, tmp_path / "l", ply=0, processes=1, chunk=100)


def test_earlier_labels_join_the_next_generation_and_are_made_again_if_gone(straight, tmp_path):
    """``finetune.earlier=1``: generation 2 learns generation 1's labels too; a run folder that
    lost them (a fresh clone keeps only the curve) makes the same ones again from their seeds."""
    out = tmp_path / "run"
    shutil.copytree(straight[0], out)
    gen1 = out / "gen-001"
    labels_before = labelling.load_labels(gen1 / "labels", 2)
    candidates_before = np.load(gen1 / "candidates.npz")["boards"]
    shutil.rmtree(gen1 / "labels")
    (gen1 / "candidates.npz").unlink()
    iterate(tiny_cfg(out, "generations=2", "finetune.earlier=1"))
    report = json.loads((out / "gen-002" / "finetune.json").read_text())
    own = len(np.load(out / "gen-002" / "candidates.npz")["turns"])
    assert report["earlier"] == [1]
    assert report["labelled"] > own  # more than its own candidates: generation 1's whole turns joined
    np.testing.assert_array_equal(np.load(gen1 / "candidates.npz")["boards"], candidates_before)
    np.testing.assert_array_equal(labelling.load_labels(gen1 / "labels", 2), labels_before)


def test_an_archive_keeps_the_labels_and_a_fresh_folder_takes_them_without_labelling(tmp_path, monkeypatch):
    """``labelling.archive``: the finished labels packed into one file, and a run folder that lacks
    them (a fresh machine: only the candidates come back from their seeds) unpacks the same bytes."""
    from bgzero.learn import label_archive

    kept = tmp_path / "kept"
    first = tmp_path / "first"
    rollouts = ("labelling.rollout.turns=2", "labelling.rollout.trials=4", "labelling.rollout.close=null")
    iterate_without_cube(tiny_cfg(first, f"labelling.archive={kept}", *rollouts))
    archive = label_archive.archive_path(kept, 1)
    made = label_archive.chunk_files(first / "gen-001")
    assert set(made) == {"labels/labels-00000.npz", "labels/labels-00001.npz", "rollouts/rollouts-00000.npz"}
    assert label_archive.read(archive) == made
    packed = archive.read_bytes()
    assert not label_archive.pack(first / "gen-001", archive) and archive.read_bytes() == packed

    def no_labelling(*args, **kwargs):
        raise AssertionError("labelled again")
    monkeypatch.setattr(iterate_module, "label", no_labelling)
    again = tmp_path / "again"
    monkeypatch.setattr(iterate_module, "roll_out", no_labelling)
    iterate_without_cube(tiny_cfg(again, f"labelling.archive={kept}", *rollouts))
    assert label_archive.chunk_files(again / "gen-001") == made
    assert strip_seconds(figures(again)) == strip_seconds(figures(first))


def test_a_damaged_archive_or_one_that_reaches_outside_is_one_line(tmp_path):
    import io
    import tarfile

    from bgzero.errors import BgzeroError
    from bgzero.learn import label_archive

    damaged = tmp_path / "gen-001.labels.tar.xz"
    damaged.write_bytes(b"\xfd7zXZ\x00 not really")
    with pytest.raises(BgzeroError, match=r"gen-001\.labels\.tar\.xz cannot be read as a labels archive .*delete it"):
        label_archive.unpack(damaged, tmp_path / "gen-001")
    outside = tmp_path / "gen-002.labels.tar.xz"
    with tarfile.open(outside, "w:xz") as tar:
        info = tarfile.TarInfo("../labels/labels-00000.npz")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(BgzeroError, match=r"'\.\./labels/labels-00000\.npz' is not a label or rollout chunk"):
        label_archive.unpack(outside, tmp_path / "gen-002")
    assert not (tmp_path / "labels").exists() and not (tmp_path / "gen-002").exists()


def test_a_stretch_the_budget_stops_keeps_its_finished_labels_for_a_fresh_machine(tmp_path, monkeypatch):
    """The budget ends labelling after a chunk: the archive holds that chunk, and a run folder
    on a fresh machine (the archive and nothing else) starts labelling after it."""
    from bgzero.learn import label_archive

    kept, first, again = tmp_path / "kept", tmp_path / "first", tmp_path / "again"
    real_label = labelling.label
    found = []
    clock = _late_after_each_chunk(monkeypatch)
    state = iterate(tiny_cfg(first, "budget=10m", f"labelling.archive={kept}"))
    assert state["stopped"] == {"generation": 1, "step": "labels"}
    archive = label_archive.archive_path(kept, 1)
    assert list(label_archive.read(archive)) == ["labels/labels-00000.npz"]

    def recording(teacher, candidates, folder, *args, **kw):
        found.append(sorted(p.name for p in Path(folder).glob("labels-*.npz")))
        return real_label(teacher, candidates, folder, *args, **kw)

    clock[0] = 0.0
    monkeypatch.setattr(iterate_module, "label", recording)
    iterate_without_cube(tiny_cfg(again, f"labelling.archive={kept}"))
    assert found == [["labels-00000.npz"]]  # the restored chunk, not labelled again
    made = label_archive.chunk_files(again / "gen-001")
    assert made["labels/labels-00000.npz"] == label_archive.chunk_files(first / "gen-001")["labels/labels-00000.npz"]
    assert label_archive.read(archive) == made  # and the whole generation kept once finished
