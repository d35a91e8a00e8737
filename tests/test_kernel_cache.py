"""numba's cache is kept per version of the package's kernel sources (bgzero/kernel_cache.py)."""

import os
import subprocess
import sys
from pathlib import Path

from bgzero import kernel_cache

ROOT = Path(__file__).resolve().parents[1]


def test_an_edit_to_any_kernel_module_changes_the_key_and_other_edits_do_not(tmp_path, monkeypatch):
    (tmp_path / "engine").mkdir()
    intrinsic, kernel, cli = tmp_path / "engine" / "rowbits.py", tmp_path / "engine" / "kernels.py", tmp_path / "cli.py"
    intrinsic.write_text("from numba import types\nK = 1\n")
    kernel.write_text("from numba import njit\n")
    cli.write_text("print('no kernels here')\n")
    monkeypatch.setattr(kernel_cache, "_PACKAGE", tmp_path)
    key = kernel_cache.sources_key()
    cli.write_text("print('still none')\n")
    assert kernel_cache.sources_key() == key
    intrinsic.write_text("from numba import types\nK = 2\n")  # the kernel's own file is unchanged
    assert kernel_cache.sources_key() != key


def test_the_cache_folder_is_keyed_kept_few_and_a_users_choice_stands(tmp_path, monkeypatch):
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # this process's kernels stay put
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = tmp_path / "bgzero" / "numba"
    for n in range(kernel_cache.KEPT + 3):
        (root / f"old{n:02d}").mkdir(parents=True)
        os.utime(root / f"old{n:02d}", (n, n))
    folder = kernel_cache.use_keyed_cache()
    assert folder == root / kernel_cache.sources_key() and os.environ["NUMBA_CACHE_DIR"] == str(folder)
    kept = sorted(p.name for p in root.iterdir())
    assert len(kept) == kernel_cache.KEPT + 1 and folder.name in kept and "old00" not in kept
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert kernel_cache.use_keyed_cache() is None and os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_a_command_caches_its_kernels_in_the_keyed_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    code = ("from bgzero import Position\nimport numba\nprint(len(Position.start().legal_moves((3, 1))), "
            "numba.config.CACHE_DIR)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    count, folder = done.stdout.split()
    assert count == "16" and Path(folder) == tmp_path / "bgzero" / "numba" / kernel_cache.sources_key()
    assert any(Path(folder).rglob("*.nbi"))  # numba wrote its index there


def test_numbas_blas_probe_is_skipped_once_and_scipy_still_imports():
    """bgzero answers numba's start-up probe of scipy's BLAS (a third of a second) with ImportError,
    once: scipy itself, imported afterwards, is whole."""
    import pytest

    pytest.importorskip("scipy")  # without scipy numba's probe fails on its own
    code = ("import sys, bgzero, numba.np.arraymath\nprint('scipy.linalg' in sys.modules)\n"
            "import scipy.linalg\nprint(callable(scipy.linalg.solve))")
    for internals, probed in (("on", "False"), ("off", "True")):  # off: numba's own start-up, probe and all
        env = dict(os.environ, BGZERO_NUMBA_INTERNALS=internals)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                              env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [probed, "True"]
