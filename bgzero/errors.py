"""Exception classes raised at bgzero's boundaries.

Each names the offending value in its message so a user can fix the input without
reading a traceback.
"""

import operator


class BgzeroError(Exception):
    """Base class for every error bgzero raises on purpose."""


class InvalidPositionError(BgzeroError, ValueError):
    """A board array or Position ID that does not describe a legal position."""


class InvalidMatchIdError(BgzeroError, ValueError):
    """A Match ID string that cannot be decoded."""


class InvalidDiceError(BgzeroError, ValueError):
    """Dice outside 1-6 or of the wrong shape."""


class IllegalMoveError(BgzeroError, ValueError):
    """A move string that is malformed or not legal for the position and dice."""


class CheckpointError(BgzeroError, ValueError):
    """A checkpoint file that is missing, truncated, foreign or incompatible."""


class ConfigError(BgzeroError, ValueError):
    """A configuration value outside its allowed range."""


def integer(name: str, value, error: type[BgzeroError]) -> int:
    """``value`` as an int, else ``error`` naming it: bools and numpy integers pass, floats and strings do not."""
    try:
        return operator.index(value)
    except TypeError:
        raise error(f"{name} must be an integer, got {value!r}") from None


class Interrupted(BgzeroError):
    """Ctrl-C, once what could be kept was saved; the message says what was kept and how to go on.

    ``partial`` carries what a library call had finished (games, matches), for its command to report.
    """

    def __init__(self, message: str, partial=None):
        super().__init__(message)
        self.partial = partial


class GameTooLongError(BgzeroError, RuntimeError):
    """A game that reached :data:`bgzero.engine.game.MAX_TURNS` turns without ending: abandoned, so no loop plays forever."""


class OutputError(BgzeroError, OSError):
    """A file that cannot be written where it was asked for (a directory, no permission, a full disk)."""


def shown(value, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters: a 5 MB bad input is named, not echoed."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def one_line(message: str) -> str:
    """A multi-line message (Hydra's, OmegaConf's) as one line."""
    return " ".join(line.strip() for line in message.splitlines() if line.strip())
