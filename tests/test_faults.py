"""Faults: kill the learner or a self-play worker at a random moment, then resume.

Each round asserts that nothing is left running (no orphaned worker), that the run directory
holds a loadable ``last.pt`` equal to the newest checkpoint (nothing lost beyond it), that a
resume continues from it and finishes, and that no traceback was printed. The default test
kills the learner once; ``-m slow`` also kills workers, over more rounds, with kill times
drawn from a seed.
"""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bgzero.value.checkpoint import load_checkpoint, net_fields, save_checkpoint
from bgzero.value.net import NetConfig, ValueNet

REPO = Path(__file__).resolve().parents[1]
TINY = ["experiment=tiny", "eval.every_games=0", "eval.final_games=2", "train.checkpoint_every=32",
        "selfplay.parallel_games=8", "selfplay.games_per_chunk=8"]


def _descendants(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(out: Path, games: int, workers: int, resume: bool) -> subprocess.Popen:
    args = [sys.executable, "-m", "bgzero.cli.train", *TINY, f"train.out_dir={out}", f"train.games={games}",
            f"selfplay.workers={workers}"] + ([f"train.resume={out / 'last.pt'}"] if resume else [])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(args, cwd=out.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _checkpoint_games(out: Path) -> int:
    """The games of ``last.pt``, checked against the numbered checkpoints, while the run may be writing.

    The learner writes ``last.pt`` first, so the numbered ones are listed before ``last.pt``
    is read: read the other way round, a checkpoint written in between looks newer than it.
    """
    if not (out / "last.pt").exists():
        return 0
    numbered = sorted((out / "checkpoints").glob("games_*.pt"))
    last = load_checkpoint(out / "last.pt")["games"]
    newest = max((int(p.stem.split("_")[1]) for p in numbered), default=0)  # killed before the first one
    assert last >= newest, f"last.pt has {last} games, the newest checkpoint {newest}"
    for p in numbered:
        load_checkpoint(p)
    return last


def test_counting_races_no_checkpoint_written_meanwhile(tmp_path, monkeypatch):
    """A checkpoint the learner writes while the test counts is no lost game (the 224-vs-256 report)."""
    net = ValueNet(NetConfig(hidden=[4]))

    def write(games: int) -> None:  # as the learner does: last.pt first
        state = {**net_fields(net), "encoder": "tesauro198", "games": games}
        save_checkpoint(tmp_path / "last.pt", state)
        save_checkpoint(tmp_path / "checkpoints" / f"games_{games:09d}.pt", state)

    write(224)

    read = load_checkpoint

    def load_while_the_learner_writes(path):
        state = read(path)
        if path.name == "last.pt" and state["games"] == 224:
            write(256)
        return state
    monkeypatch.setattr(sys.modules[__name__], "load_checkpoint", load_while_the_learner_writes)
    assert _checkpoint_games(tmp_path) == 224
    assert _checkpoint_games(tmp_path) == 256


def fault_round(out: Path, victim: str, rng: random.Random, games: int = 100_000) -> dict:
    """Start (or resume) a run with one worker, kill ``victim`` (learner or worker) at a random
    moment after a checkpoint, and check what is left."""
    resume = (out / "last.pt").exists()
    before = _checkpoint_games(out)
    proc = _start(out, games, workers=1, resume=resume)
    try:
        assert _wait_for(lambda: proc.poll() is not None or _checkpoint_games(out) > before, 90)
        assert proc.poll() is None, f"the run ended early: {proc.stderr.read()}"
        time.sleep(rng.uniform(0.0, 1.5))
        workers = _descendants(proc.pid)
        assert workers, "the learner started no worker"
        os.kill(proc.pid if victim == "learner" else workers[-1], signal.SIGKILL)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    assert "Traceback" not in stderr, stderr
    if victim == "worker":
        assert code == 1 and "a self-play worker died" in stderr, (code, stderr)
    assert _wait_for(lambda: not any(_alive(p) for p in workers), 15), "a worker outlived its learner"
    return {"games": _checkpoint_games(out), "processes": len(workers), "resumed": resume}


def finish(out: Path, games: int) -> int:
    """Resume in-process (workers=0) to ``games`` and return the games the run reports."""
    start_games = _checkpoint_games(out)
    proc = _start(out, games, workers=0, resume=True)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "Traceback" not in stderr, stderr
    assert not list(out.rglob("*.tmp")), "temporary files left"
    assert start_games <= load_checkpoint(out / "last.pt")["games"] >= games
    return load_checkpoint(out / "last.pt")["games"]


def test_killed_learner_leaves_no_worker_and_loses_nothing(tmp_path):
    out = tmp_path / "run"
    killed = fault_round(out, "learner", random.Random(17))
    assert finish(out, killed["games"] + 16) >= killed["games"] + 16


@pytest.mark.slow
def test_killed_worker_then_killed_learner_lose_nothing(tmp_path):
    rng = random.Random(17)
    out = tmp_path / "run"
    worker_kill = fault_round(out, "worker", rng)
    learner_kill = fault_round(out, "learner", rng)
    assert learner_kill["games"] >= worker_kill["games"]
    assert finish(out, learner_kill["games"] + 16) >= learner_kill["games"] + 16


@pytest.mark.slow
def test_many_random_kills(tmp_path):
    rng = random.Random(2026)
    out = tmp_path / "run"
    kills = {"learner": 0, "worker": 0}
    resumes = 1  # the final in-process one
    for _ in range(10):
        victim = rng.choice(["learner", "worker"])
        resumes += fault_round(out, victim, rng)["resumed"]
        kills[victim] += 1
    final = finish(out, _checkpoint_games(out) + 16)
    print(f"\nfaults: {kills['learner']} learner kills, {kills['worker']} worker kills, {resumes} resumes, "
          f"0 orphans, 0 games lost beyond the last checkpoint; {final} games at the end")
