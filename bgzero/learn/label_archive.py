"""A generation's labels and rollouts kept in one small file, so that a fresh machine need not make them again.

Labelling and rollouts are most of a generation's cost (an hour and more on two cores), while
their results are a few MB: 200,000 labels are 4 MB. ``labelling.archive=DIR`` packs a
generation's finished chunk files, byte for byte, into ``DIR/gen-NNN.labels.tar.xz`` (also when
the budget or a stop ends the step half-way, so a generation can span stretches on fresh
machines) and unpacks them into a run folder that lacks them. The candidates they label come
back from their seeds; the chunks carry the candidates' checksum and the teacher, and
labelling's own checks refuse a chunk made for other candidates, so a stale archive costs only
the work of making them again.
"""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

from bgzero.atomic import atomic_write
from bgzero.errors import BgzeroError
from bgzero.learn import labelling, rollout_labels

MEMBER = re.compile(r"(labels/labels|rollouts/rollouts)-\d{5}\.npz", re.ASCII)
"""The chunk files an archive may hold (:func:`chunk_files`' names), relative to the generation's
folder: nothing else is unpacked."""


def archive_path(folder: str | Path, number: int) -> Path:
    return Path(folder) / f"gen-{number:03d}.labels.tar.xz"


def chunk_files(generation: Path) -> dict[str, bytes]:
    """The generation folder's finished label and rollout chunks (each run of chunks from the first,
    named as labelling and the rollouts name them), by their names inside it."""
    files = {}
    for folder, chunk_path in (("labels", labelling.chunk_path), ("rollouts", rollout_labels.chunk_path)):
        index = 0
        while (path := chunk_path(generation / folder, index)).exists():
            files[path.relative_to(generation).as_posix()] = path.read_bytes()
            index += 1
    return files


def read(archive: Path) -> dict[str, bytes]:
    """The chunk files ``archive`` holds, by name; a damaged archive is one line naming it."""
    try:
        with tarfile.open(archive, "r:xz") as tar:
            out = {}
            for member in tar.getmembers():
                if not (member.isfile() and MEMBER.fullmatch(member.name)):
                    raise BgzeroError(f"{archive}: {member.name!r} is not a label or rollout chunk")
                data = tar.extractfile(member)
                assert data is not None  # a regular file, checked above
                out[member.name] = data.read()
            return out
    except (tarfile.TarError, EOFError, OSError) as e:
        raise BgzeroError(f"{archive} cannot be read as a labels archive ({e}); delete it to label afresh") from None


def pack(generation: Path, archive: Path) -> bool:
    """Write the generation's chunks into ``archive`` unless it already holds exactly them; whether
    it wrote. The archive is the same bytes for the same chunks (no times, owners or order in it)."""
    files = chunk_files(generation)
    if not files or (archive.is_file() and read(archive) == files):
        return False

    def write(f) -> None:
        with tarfile.open(fileobj=f, mode="w:xz") as tar:
            for name, data in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    archive.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(archive, write, "wb")
    return True


def _writer(data: bytes):
    return lambda f: f.write(data)


def unpack(archive: Path, generation: Path) -> int:
    """Write the archive's chunks the generation's folder lacks into it; how many."""
    written = 0
    for name, data in read(archive).items():
        path = generation / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, _writer(data), "wb")
            written += 1
    return written
