"""Start-up: playing commands import no torch, read their options without Hydra, and every
console script answers ``--help`` without importing the library.

Importing torch costs seconds; only training (``bgzero-train``, ``bgzero-prune``, search
fine-tuning) needs it. Each check runs in a fresh interpreter, as a command does.
"""

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAYING = ["analyze", "eval", "hint", "match", "play", "rollout", "serve", "web"]


def _no_torch(code: str) -> subprocess.CompletedProcess:
    check = f"{code}\nimport sys\nassert 'torch' not in sys.modules, 'torch was imported'"
    return subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("name", PLAYING)
def test_a_playing_command_imports_no_torch(name):
    done = _no_torch(f"import bgzero.cli.{name}")
    assert done.returncode == 0, done.stderr


def _as_console_script(check: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``bgzero-hint 4HPwATDgc/ABMA 31`` as its console script runs it, with ``check`` (lines
    of code) run by the exit handlers: the script ends the process itself (``exit_now``)."""
    body = "".join(f"    {line}\n" for line in check.splitlines())
    code = ("import atexit, sys\nsys.argv = ['bgzero-hint', '4HPwATDgc/ABMA', '31']\n"
            f"def check():\n{body}    print('checked')\natexit.register(check)\n"
            "from bgzero.cli.launch import hint\nhint()\nprint('the script returned')")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=env)


@pytest.mark.parametrize("args", [["bgzero-bench", "errors", "--help"], ["bgzero-hint", "--help"],
                                  ["bgzero-hint", "4HPwATDgc/ABMA", "11"]])
def test_a_reader_that_stops_early_gets_no_traceback(args):
    """``bgzero-bench errors --help | head``: the pipe closed before the text was written."""
    for _ in range(3):  # whether the write or the exit's flush meets the closed pipe is a race
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
        assert "Traceback" not in err and "Broken pipe" not in err, err


def test_a_hint_with_the_shipped_agent_imports_no_torch():
    done = _as_console_script("assert 'torch' not in sys.modules, 'torch was imported'")
    assert done.returncode == 0, done.stderr
    assert "8/5 6/5" in done.stdout and done.stdout.rstrip().endswith("checked")
    assert "the script returned" not in done.stdout  # it exited as soon as it was done


def _skip_unless_the_launcher_knows_this_numba():
    import numba

    from bgzero.cli.launch import numba_is_known
    from bgzero.kernel_cache import numba_internals_allowed

    if not numba_is_known():
        pytest.skip(f"numba {numba.__version__}: the launcher leaves its cache loading as it is")
    if not numba_internals_allowed():
        pytest.skip("BGZERO_NUMBA_INTERNALS=off: the launcher leaves numba's cache loading as it is")


def test_numbas_internals_switched_off_leave_numbas_start_up_whole_and_the_hint_the_same():
    """BGZERO_NUMBA_INTERNALS=off: numba refreshes its compiler as it always does (the patch is
    not applied) and the hint prints the same."""
    pytest.importorskip("scipy.linalg")
    assert _as_console_script("pass").returncode == 0  # kernels not yet cached compile (and refresh) here
    on, off = (_as_console_script("print('numba.np.linalg' in sys.modules)",
                                  env=dict(os.environ, BGZERO_NUMBA_INTERNALS=v)) for v in ("on", "off"))
    assert on.returncode == off.returncode == 0, off.stderr
    assert on.stdout.replace("False", "?") == off.stdout.replace("True", "?")
    assert on.stdout.split()[-2:] == ["False", "checked"] and off.stdout.split()[-2:] == ["True", "checked"]


def test_a_console_script_loads_cached_kernels_without_refreshing_numba_and_leaves_scipy_importable():
    _skip_unless_the_launcher_knows_this_numba()
    pytest.importorskip("scipy.linalg")  # numba's refresh imports it, to look for BLAS
    assert _as_console_script("pass").returncode == 0  # kernels not yet cached compile (and refresh) here
    done = _as_console_script("refreshed = [m for m in ('numba.np.linalg', 'numba.typed.typeddict', 'scipy.linalg')"
                              " if m in sys.modules]\nassert not refreshed, refreshed\n"
                              "import scipy.linalg\nassert scipy.linalg.norm([3.0, 4.0]) == 5.0")
    assert done.returncode == 0, done.stderr
    assert "8/5 6/5" in done.stdout and done.stdout.rstrip().endswith("checked")


KERNEL = """
import numpy as np
from numba import njit


@njit(cache=True)
def running_sums(x):
    out = np.empty_like(x)
    total = 0.0
    for i in range(x.size):
        total += x[i]
        out[i] = total
    return out
"""


def test_a_kernel_not_yet_cached_compiles_and_a_cached_one_loads_as_before(tmp_path):
    """The launcher's quick load from numba's cache leaves a cache miss to numba's compiler."""
    _skip_unless_the_launcher_knows_this_numba()
    (tmp_path / "kernel_module.py").write_text(KERNEL)
    code = ("import sys\nfrom bgzero.cli.launch import load_cached_kernels_without_refresh\n"
            "load_cached_kernels_without_refresh()\nfrom kernel_module import running_sums\nimport numpy as np\n"
            "print(running_sums(np.arange(5.0)).tolist(), running_sums.stats.cache_hits.get((running_sums.signatures"
            " or [None])[0], 0), 'numba.np.linalg' in sys.modules)")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                           timeout=300) for _ in range(2)]
    for done in runs:
        assert done.returncode == 0, done.stderr
    assert runs[0].stdout.split() == ["[0.0,", "1.0,", "3.0,", "6.0,", "10.0]", "0", "True"]  # compiled: refreshed
    assert runs[1].stdout.split() == ["[0.0,", "1.0,", "3.0,", "6.0,", "10.0]", "1", "False"]  # loaded: not


@pytest.mark.parametrize("script,args,quick", [
    ("hint", ["4HPwATDgc/ABMA", "31"], True),
    ("eval", ["a=pubeval", "b=random", "games=4", "processes=1", "progress=false", "out=OUT"], False),
])
def test_only_an_interactive_command_skips_the_interpreters_teardown(tmp_path, script, args, quick):
    """A command that writes files (bgzero-eval) ends as Python ends, its objects torn down;
    a hint, which writes nothing, leaves by exit_now as soon as it has answered."""
    argv = [f"bgzero-{script}", *(a.replace("OUT", str(tmp_path / "out")) for a in args)]
    code = ("import sys\nclass Teardown:\n    def __del__(self):\n        print('torn down')\n"
            f"kept = Teardown()\nsys.argv = {argv!r}\nfrom bgzero.cli import launch\nlaunch.{script}()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert ("torn down" in done.stdout) is not quick


def test_exit_now_stops_a_thread_pool_left_running():
    """A pool nobody shut down (a server's, after Ctrl-C) is stopped as a normal exit stops it."""
    code = ("from concurrent.futures import ThreadPoolExecutor\nfrom bgzero.cli.launch import exit_now\n"
            "pool = ThreadPoolExecutor(2)\nprint(pool.submit(sum, [1, 2]).result())\nexit_now()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3\n"


def test_bgzero_web_stops_on_ctrl_c_after_serving_a_request():
    import signal
    import time
    import urllib.error
    import urllib.request

    from tests.web_server import free_port

    port = free_port()
    code = f"import sys\nsys.argv = ['bgzero-web', 'port={port}']\nfrom bgzero.cli.launch import web\nweb()"
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        status, deadline = None, time.monotonic() + 120
        while status is None and time.monotonic() < deadline:
            try:  # the engine's worker threads answer it
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/evaluate?position=4HPwATDgc/ABMA&"
                                                "agent=random", timeout=60).status
            except urllib.error.HTTPError as e:
                status = e.code
            except OSError:
                time.sleep(0.2)
        assert status is not None, "the server never answered"
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
    finally:
        server.kill()


def test_exit_now_waits_for_threads_runs_exit_handlers_and_flushes(tmp_path):
    marker = tmp_path / "written"
    code = ("import atexit, sys, threading, time\nfrom bgzero.cli.launch import exit_now\n"
            f"threading.Thread(target=lambda: (time.sleep(0.3), open({str(marker)!r}, 'w').write('done'))).start()\n"
            "atexit.register(lambda: print('handler ran'))\nsys.stdout.write('unflushed, ')\nexit_now()\n"
            "print('not reached')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONUNBUFFERED=""))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "unflushed, handler ran\n"
    assert marker.read_text() == "done"


SCRIPTS = {ep.name: ep.value for ep in entry_points(group="console_scripts") if ep.value.startswith("bgzero.")}
"""The installed console scripts (``pyproject.toml``'s ``[project.scripts]``), as a user runs them."""


def test_every_command_has_a_console_script():
    """Each bgzero/cli module with a main() is a bgzero-* script, and each script runs one."""
    commands = {p.stem for p in (ROOT / "bgzero" / "cli").glob("*.py") if "\ndef main(" in p.read_text()}
    scripted = {target.split(":")[1] if target.startswith("bgzero.cli.launch:") else target.split(":")[0].rsplit(".")[-1]
                for target in SCRIPTS.values()}
    assert commands == scripted


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_console_script_answers_help_without_importing_the_library(script):
    module, name = SCRIPTS[script].split(":")
    code = (f"import sys\nsys.argv = [{script!r}, '--help']\nfrom {module} import {name}\n"
            f"try:\n    {name}()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "heavy = [m for m in ('numba', 'torch', 'hydra') if m in sys.modules]\nassert not heavy, heavy")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert script in done.stdout  # the help names its command


def test_a_command_reads_its_options_without_hydra():
    code = ("import sys\nfrom bgzero.cli.options import command\nfrom bgzero.cli.schemas import Hint\n"
            "sys.argv = ['bgzero-hint', 'dice=31', \"agent='strong@1'\"]\n"
            "assert command('bgzero-hint', Hint)(lambda cfg: (cfg.dice, cfg.agent))() == (31, 'strong@1')\n"
            "assert 'hydra' not in sys.modules, 'hydra was imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("script, missing", [("train", "torch and hydra"), ("iterate", "torch and hydra"),
                                              ("prune", "torch")])
def test_a_training_command_in_a_players_install_names_the_extra_it_needs(script, missing):
    """A player's install has neither torch nor Hydra (the ``train`` extra): the command says so in one line."""
    code = ("import sys\nsys.modules['torch'] = sys.modules['hydra'] = None  # not installed\n"
            f"sys.argv = ['bgzero-{script}']\nfrom bgzero.cli.launch import {script}\n{script}()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1 and done.stderr.strip().splitlines() == [
        f"bgzero-{script} needs {missing}, for training and training checkpoints: pip install 'bgzero[train]'"]


def test_an_option_the_command_lacks_gets_one_line_naming_the_options():
    done = subprocess.run([sys.executable, "-m", "bgzero.cli.hint", "4HPwATDgc/ABMA", "rollout_sed=3"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1 and not done.stdout
    assert done.stderr.strip().splitlines() == [
        "bgzero-hint: no option 'rollout_sed' (nearest: rollout_seed); the options are position, dice, match, agent, "
        "rollout, rollout_top, rollout_seed (--help says what each does)"]


@pytest.mark.parametrize("argv, words", [
    (["bgzero.cli.train", "nope=1"], "bgzero-train: no option 'nope'; the options are seed, name, device, train, net"),
    (["bgzero.cli.train", "net=nosuch"], "Could not find 'net/nosuch' Available options in 'net': mlp80"),
    (["bgzero.cli.hint", "4HPwATDgc/ABMA", "dice=3,7"], "bgzero-hint: dice"),
    (["bgzero.cli.eval", "games=0", "out=OUT"], "bgzero-eval: games=0 is not allowed"),
    (["bgzero.cli.match", "a=nosuch", "out=OUT"], "bgzero-match: unknown agent 'nosuch'"),
    (["bgzero.cli.eval", "out=/proc/x/ev"], "bgzero-eval: out: cannot write under /proc/x/ev"),
    (["bgzero.cli.eval", "games=${oops}"], "bgzero-eval: Interpolation key 'oops' not found"),
])
def test_a_command_refuses_a_mistake_in_one_line_before_it_writes_anything(tmp_path, argv, words):
    argv = [a.replace("OUT", str(tmp_path / "out")) for a in argv]
    done = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 1 and not done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr
    assert list(tmp_path.iterdir()) == []  # no run folder, no .hydra/, no log


def test_eval_writes_tensorboard_scalars_that_tensorboard_reads_without_its_writer_or_torch(tmp_path):
    done = _no_torch(f"import sys\nfrom pathlib import Path\nfrom bgzero.cli.tensorboard_events import write_scalars\n"
                     f"write_scalars(Path({str(tmp_path)!r}), {{'eval/ppg': 0.25, 'eval/win_rate': 0.5}}, 10)\n"
                     "assert 'tensorboard.summary' not in sys.modules, 'tensorboard.summary was imported'")
    assert done.returncode == 0, done.stderr
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    [written] = tmp_path.iterdir()
    assert written.name.startswith("events.out.tfevents.") and written.name.endswith(".0")
    events = EventAccumulator(str(tmp_path)).Reload()
    assert [(e.step, e.value) for e in events.Scalars("eval/ppg")] == [(10, 0.25)]
    assert [(e.step, e.value) for e in events.Scalars("eval/win_rate")] == [(10, 0.5)]


def test_two_evaluations_in_one_process_write_two_event_files(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from bgzero.cli.tensorboard_events import write_scalars

    first, second = write_scalars(tmp_path, {"eval/ppg": 0.5}, 1), write_scalars(tmp_path, {"eval/ppg": 0.75}, 2)
    assert first != second and sorted(tmp_path.iterdir()) == sorted([first, second])
    assert [(e.step, e.value) for e in EventAccumulator(str(tmp_path)).Reload().Scalars("eval/ppg")] == [
        (1, 0.5), (2, 0.75)]


def test_tfrecord_checksums_are_crc32c_masked():
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as theirs

    from bgzero.cli.tensorboard_events import crc32c, masked_crc32c

    assert crc32c(b"123456789") == 0xE3069283  # the standard check value of CRC-32C
    for data in (b"", b"abc", bytes(range(256)) * 3):
        assert masked_crc32c(data) == theirs(data)


def test_torch_threads_are_pinned_only_where_torch_is_loaded():
    done = _no_torch("from bgzero.value.threads import set_torch_threads, torch_threads\n"
                     "assert set_torch_threads(1) is None\nwith torch_threads(1):\n    pass")
    assert done.returncode == 0, done.stderr
    import torch

    from bgzero.value.threads import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
