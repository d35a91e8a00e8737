"""TensorBoard scalars written without TensorBoard's writer, which a playing command cannot afford.

``tensorboard.summary.writer`` imports all of ``tensorboard.summary`` and its TensorFlow
stub (and through it boto3): 0.7 s, a third of a short ``bgzero-eval``. An event file is
simple: a sequence of records in TFRecord framing, each a serialized ``Event`` protocol
buffer (the first names the file's version). A record is its length (uint64, little-endian),
the masked CRC-32C of those eight bytes, the data, and the masked CRC-32C of the data. The
protocol buffers come from TensorBoard's own generated modules (``event_pb2``, 45 ms), so
TensorBoard reads the file as it reads its own.
"""

from __future__ import annotations

import itertools
import os
import socket
import struct
import time
from importlib.util import find_spec
from pathlib import Path

from bgzero.atomic import atomic_write


def _crc32c_table() -> list[int]:
    """CRC-32C of each byte value: the table of the byte-at-a-time algorithm."""
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1  # Castagnoli's polynomial, reflected
        table.append(c)
    return table


_CRC32C = _crc32c_table()
_FILES = itertools.count()  # this process's event files, numbered as TensorBoard numbers its own


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``, the checksum of TFRecord framing."""
    c = 0xFFFFFFFF
    for byte in data:
        c = _CRC32C[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked checksum: the CRC rotated right by 15 bits plus a constant."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord: length, its checksum, the data, its checksum."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


def tensorboard_installed() -> bool:
    """Whether TensorBoard's protocol buffers are there: TensorBoard comes with the ``train`` extra."""
    return find_spec("tensorboard") is not None


def write_scalars(logdir: Path, scalars: dict[str, float], step: int) -> Path:
    """A new event file in ``logdir`` holding ``scalars`` at ``step``; returns its path.

    Named as TensorBoard names its own (``events.out.tfevents.TIME.HOST.PID.N``, N counting
    this process's files), so that TensorBoard finds it beside other runs' files, and written
    atomically under a temporary name TensorBoard does not read.
    """
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary

    now = time.time()
    events = [Event(wall_time=now, file_version="brain.Event:2")]
    events += [Event(wall_time=now, step=step, summary=Summary(value=[Summary.Value(tag=tag, simple_value=float(v))]))
               for tag, v in scalars.items()]
    name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}.{next(_FILES)}"
    data = b"".join(record(e.SerializeToString()) for e in events)
    return atomic_write(Path(logdir) / name, lambda f: f.write(data), mode="wb", temp_name="event-file")
