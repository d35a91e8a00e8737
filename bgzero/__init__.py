"""bgzero: teach neural networks to play backgammon by self-play.

The engine's public face::

    >>> from bgzero import Position
    >>> pos = Position.start()
    >>> len(pos.legal_moves((3, 1)))
    16
    >>> pos.id
    '4HPwATDgc/ABMA'
"""

from bgzero.errors import (BgzeroError, CheckpointError, ConfigError, IllegalMoveError, InvalidDiceError,
                           InvalidMatchIdError, InvalidPositionError)
from bgzero.movegen import MoveBatch, generate
from bgzero.position import LegalMoves, Move, Position

__all__ = ["Position", "Move", "LegalMoves", "generate", "MoveBatch", "BgzeroError", "CheckpointError",
           "ConfigError", "IllegalMoveError", "InvalidDiceError", "InvalidMatchIdError", "InvalidPositionError"]
