"""Reading a checkpoint file without torch: importing torch costs seconds, and playing needs none of it.

``torch.save`` writes a zip archive: ``<root>/data.pkl`` is a pickle of the saved object,
in which each tensor is a call to ``torch._utils._rebuild_tensor_v2`` on a storage named by
a persistent id ``("storage", <dtype>Storage, key, location, numel)``, whose raw bytes are
the archive member ``<root>/data/<key>`` in the order ``<root>/byteorder`` names. The
unpickler here admits only what a bgzero checkpoint holds (plain values, ``OrderedDict``,
those tensors) and builds each tensor as a numpy array of the same dtype, shape and values;
anything else in the pickle is refused, and nothing in the file runs.
"""

from __future__ import annotations

import io
import math
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np

from bgzero.errors import CheckpointError

_DTYPES = {"DoubleStorage": "f8", "FloatStorage": "f4", "HalfStorage": "f2", "LongStorage": "i8",
           "IntStorage": "i4", "ShortStorage": "i2", "CharStorage": "i1", "ByteStorage": "u1", "BoolStorage": "?"}
"""torch's typed storages that numpy holds as they are (bfloat16 and complex ones it does not)."""


class ForeignObjectError(Exception):
    """The pickle names a class or function that is not part of a bgzero checkpoint."""


class _Storage:
    """A storage class the pickle names: its numpy dtype."""

    def __init__(self, dtype: str):
        self.dtype = dtype


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple, *_):
    """``torch._utils._rebuild_tensor_v2`` for numpy: the ``size`` view of ``storage`` at ``offset``, copied."""
    if not (all(type(n) is int and n >= 0 for n in (offset, *size, *stride)) and len(size) == len(stride)):
        raise ValueError("a tensor's offset, size or stride is not a count")
    if 0 not in size and (offset + sum((n - 1) * s for n, s in zip(size, stride)) >= len(storage)
                          or math.prod(size) > len(storage)):  # a saved weight never repeats its elements
        raise ValueError("a tensor reaches past its storage")
    view = np.lib.stride_tricks.as_strided(storage[offset:], shape=size,
                                           strides=[s * storage.itemsize for s in stride], writeable=False)
    return view.copy()


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, root: str, order: str):
        super().__init__(io.BytesIO(data))
        self._archive, self._root, self._order = archive, root, order
        self._storages: dict[str, np.ndarray] = {}

    def find_class(self, module: str, name: str):
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return _Storage(self._order + _DTYPES[name])
        raise ForeignObjectError(f"{module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], _Storage)
                and isinstance(pid[2], str) and type(pid[4]) is int):
            raise ValueError(f"unknown persistent id {pid!r}")
        dtype, key, numel = np.dtype(pid[1].dtype), pid[2], pid[4]
        if key not in self._storages:  # tensors that share a storage name it once each
            data = _stored(self._archive, f"{self._root}/data/{key}")
            if len(data) != numel * dtype.itemsize:
                raise ValueError(f"storage {key} holds {len(data)} bytes, not {numel} of {dtype}")
            self._storages[key] = np.frombuffer(data, dtype).astype(dtype.newbyteorder("="), copy=False)
        return self._storages[key]


def _stored(archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes; torch stores members uncompressed, so no member can inflate past the file's own size."""
    member = archive.getinfo(name)
    if member.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{name} is compressed")
    return archive.read(member)


def read_pt(path: str | Path):
    """The object ``torch.save`` wrote to ``path``, its tensors as numpy arrays; one-line :class:`CheckpointError`\\ s."""
    try:
        with zipfile.ZipFile(path) as archive:
            pickles = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith("/data.pkl")]
            if len(pickles) != 1:
                raise ValueError("no single data.pkl")
            root = pickles[0].split("/")[0]
            names = set(archive.namelist())
            order = _stored(archive, f"{root}/byteorder").decode() if f"{root}/byteorder" in names else "little"
            if order not in ("little", "big"):
                raise ValueError(f"byte order {order!r}")
            return _Unpickler(_stored(archive, pickles[0]), archive, root, "<" if order == "little" else ">").load()
    except ForeignObjectError:
        raise CheckpointError(f"checkpoint {path} holds objects other than weights and plain values; "
                              "it is not a bgzero checkpoint and was not loaded") from None
    except Exception:  # noqa: BLE001 -- a damaged or foreign file fails zipfile or pickle in any number of ways
        raise CheckpointError(f"checkpoint {path} is truncated, damaged or not a bgzero checkpoint "
                              "(not a file torch.save wrote)") from None
