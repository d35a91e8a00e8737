"""Atomic writes: the old file survives a failed write, and no temporary file is left."""

import pytest

from bgzero.atomic import atomic_write, atomic_write_text


def test_write_then_replace(tmp_path):
    path = tmp_path / "sub" / "out.txt"
    atomic_write_text(path, "first\n")
    atomic_write_text(path, "second\n")
    assert path.read_text() == "second\n"
    assert [p.name for p in path.parent.iterdir()] == ["out.txt"]


def test_failed_write_keeps_the_old_file(tmp_path):
    path = atomic_write_text(tmp_path / "out.txt", "complete\n")

    def half(f):
        f.write("half")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        atomic_write(path, half)
    assert path.read_text() == "complete\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_written_file_has_a_normal_files_mode(tmp_path):
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    path = atomic_write_text(tmp_path / "x.txt", "hi")
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
