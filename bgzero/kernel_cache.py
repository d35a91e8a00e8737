"""numba's cache of compiled kernels, kept apart for each version of the package's kernel sources.

numba checks a cached kernel against its own source file only. A kernel that inlines an
intrinsic from another module (:mod:`bgzero.engine.rowbits`, :mod:`bgzero.value.lanes`) or
calls a kernel there would load stale machine code after that module is edited. So the cache
lives in a folder named by a hash of every package module that uses numba: an edit to any
of them starts a fresh folder, and the folders of the last few versions are kept (other
checkouts and worktrees share the parent). Hashing those ~20 files costs ~5 ms a start.
A ``NUMBA_CACHE_DIR`` the user set is left as it is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
KEPT = 8
"""Cache folders (versions of the kernel sources) kept beside the current one."""


def sources_key() -> str:
    """A hash of the package's modules that use numba: their paths and contents."""
    digest = hashlib.sha1()
    for path in sorted(_PACKAGE.rglob("*.py")):
        data = path.read_bytes()
        if b"numba" in data:
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + data)
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bgzero" / "numba"


def use_keyed_cache() -> Path | None:
    """Point numba's cache at this version's folder (unless the user chose one); the folder, or None."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    folder = cache_root() / sources_key()
    try:
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            _forget_old_versions(folder.parent)
    except OSError:  # no writable home: numba's own choice, beside the sources
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)  # the worker processes inherit it
    if "numba" in sys.modules:  # imported before bgzero: numba read its config already
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return folder


def _forget_old_versions(root: Path) -> None:
    versions = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in versions[KEPT + 1:]:
        shutil.rmtree(old, ignore_errors=True)


class _SkipNumbasBlasProbe:
    """Spares numba's first start-up the import of scipy.linalg (a third of a second) in a bgzero process.

    numba's ``numba.np.arraymath`` asks at import whether scipy's BLAS is there
    (``_HAVE_BLAS``), only to choose how ``np.correlate``/``np.convolve`` multiply inside a
    kernel; no bgzero kernel uses them. This finder answers that first probe (an import of
    scipy from numba's ``ensure_blas``) with ImportError, once; every later import of scipy,
    numba's included, goes through as usual.
    """

    done = False

    def find_spec(self, name, path=None, target=None):
        if self.done or not (name == "scipy" or name.startswith("scipy.")):
            return None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_name == "ensure_blas" and "numba" in frame.f_code.co_filename:
                type(self).done = True
                raise ImportError("bgzero: scipy's BLAS is not needed by its kernels")
            frame = frame.f_back
        return None


def numba_internals_allowed() -> bool:
    """Whether bgzero may lean on numba's internals for speed (this module's BLAS probe,
    :func:`bgzero.cli.launch.load_cached_kernels_without_refresh`). ``BGZERO_NUMBA_INTERNALS=off``
    turns both off. CI (``.ci/run``) runs the whole suite with them on, then six test files again with
    them off (``tests/test_startup.py``, ``test_kernel_cache.py``, ``test_hint_analyze.py``,
    ``test_rollout.py``, ``test_movegen_api.py``, ``test_env_masks.py``), to show that only the time
    depends on them."""
    return os.environ.get("BGZERO_NUMBA_INTERNALS", "on") != "off"


def skip_numbas_blas_probe() -> None:
    """Install :class:`_SkipNumbasBlasProbe` (once), unless numba has started already."""
    if not numba_internals_allowed() or "numba.np.arraymath" in sys.modules or any(isinstance(f, _SkipNumbasBlasProbe) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipNumbasBlasProbe())
