"""bgzero: teach neural networks to play backgammon by self-play.

The engine's public face::

    >>> from bgzero import Position
    >>> pos = Position.start()
    >>> len(pos.legal_moves((3, 1)))
    16
    >>> pos.id
    '4HPwATDgc/ABMA'
"""

from importlib import import_module

from bgzero.errors import (
    BgzeroError,
    CheckpointError,
    ConfigError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMatchIdError,
    InvalidPositionError,
)
from bgzero.kernel_cache import skip_numbas_blas_probe, use_keyed_cache

use_keyed_cache()
skip_numbas_blas_probe()

_LAZY = {"Position": "bgzero.engine.position", "Move": "bgzero.engine.position", "LegalMoves": "bgzero.engine.position",
         "generate": "bgzero.engine.movegen", "MoveBatch": "bgzero.engine.movegen"}
__all__ = [*_LAZY, "BgzeroError", "CheckpointError", "ConfigError", "IllegalMoveError", "InvalidDiceError",
           "InvalidMatchIdError", "InvalidPositionError"]


def __getattr__(name: str):
    """Import the engine on first use, so ``import bgzero.engine.movegen`` stays cheap (worker start-up)."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'bgzero' has no attribute {name!r}")
