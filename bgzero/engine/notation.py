"""GNU Backgammon move notation: :func:`format_move` and :func:`parse_move`.

Points are in the mover's numbering, ``bar`` is 25 and ``off`` is 0: ``24/18 13/11``,
``bar/22*``, ``6/off``, ``13/7(2)``.

:func:`format_move` reproduces gnubg's ``FormatMove`` (``drawboard.c``), which the gnubg
Python module exposes as ``gnubg.movetupletostring``:

* the steps are sorted by descending source point (then descending destination);
* a checker that moves on from where an earlier step landed is written as one move; the
  point in between is kept, with a ``*``, only if it hit a blot there (``24/20*/16``), and
  elided otherwise (``24/16``);
* identical moves are grouped with a count, ``13/7(2)``;
* ``*`` marks a destination that held an opposing checker before the move, once per point;
* a roll that cannot be played is the empty string ``""``.

:func:`parse_move` reads the same notation leniently, as gnubg does: any case, spaces
around ``/``, ``b``/``bar``/``25`` for the bar, ``o``/``off``/``0`` for off, ``*`` ignored
(hits follow from the position), ``24/20/16`` for one checker moving on. The text names
a play by where checkers go, so it is accepted exactly when the position it leads to is
one of the legal results of the roll (rule 12: plays with the same result are the same
play); ``6/off`` for the 6-1 that plays ``6/5 5/off`` is therefore accepted.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Iterable

import numpy as np

from bgzero.engine.board import BAR, validate
from bgzero.engine.movegen import legal_results
from bgzero.errors import IllegalMoveError, InvalidDiceError

BAR_POINT = 25
OFF_POINT = 0
_SHOWN_LEGAL = 6  # legal plays listed in an "illegal move" message

_POINT = r"(?:[0-9]+|bar|b|off|o)"
_TOKEN = re.compile(rf"{_POINT}\*?(?:/{_POINT}\*?)+(?:\([0-9]+\))?", re.IGNORECASE)
_POINTS = re.compile(_POINT, re.IGNORECASE)
_WORDS = {"bar": BAR_POINT, "b": BAR_POINT, "off": OFF_POINT, "o": OFF_POINT}
_NAMES = {BAR_POINT: "bar", OFF_POINT: "off"}
_SPACES = re.compile(r"\s+")  # collapsed to one space first, so the patterns below never backtrack over a run
_SPACED_SLASH = re.compile(r" ?/ ?")
_SPACE_BEFORE_MARK = re.compile(r" (?=[*(])")
_SPACED_COUNT = re.compile(r"\( ?([0-9]+) ?\)")
_SEPARATORS = re.compile(r"[\s,]+")


# --------------------------------------------------------------------------- formatting


def format_move(board, steps) -> str:
    """The play ``steps`` from ``board`` written exactly as gnubg writes it.

    ``steps`` are ``(from, to)`` pairs in the mover's numbering (25 bar, 0 off), in any
    order; rows of ``-1`` padding, as in :func:`bgzero.engine.movegen.generate`, are skipped.
    Hits are read off ``board``, the position before the move.

    >>> from bgzero.engine.board import START
    >>> format_move(START, [(24, 18), (13, 11)])
    '24/18 13/11'
    >>> format_move(START, [(13, 10), (10, 7), (13, 10), (10, 7)])
    '13/7(2)'
    >>> format_move(START, [])
    ''
    """
    return format_steps(validate(board), _steps(steps))


def format_steps(board: np.ndarray, pairs) -> str:
    """:func:`format_move` for a validated ``board`` and ``(from, to)`` int pairs.

    For callers that already hold checked input, such as :func:`legal_results` output.
    """
    opp = board[1].tolist()

    def hit(point: int) -> bool:
        return 1 <= point <= 24 and opp[24 - point] > 0

    # A path is [source, hit intermediate points..., destination].
    paths = [[src, dst] for src, dst in sorted(pairs, key=lambda s: (-s[0], -s[1]))]
    alive = [True] * len(paths)
    for i, path in enumerate(paths):
        for j in range(i + 1, len(paths)):
            if alive[i] and alive[j] and path[-1] == paths[j][0]:
                if hit(path[-1]):
                    path.append(paths[j][1])
                else:
                    path[-1] = paths[j][1]
                alive[j] = False
    groups: list[list] = []  # [path, count] in order of first appearance
    for path, live in zip(paths, alive):
        if live:
            same = next((g for g in groups if g[0] == path), None)
            if same:
                same[1] += 1
            else:
                groups.append([path, 1])

    starred: set[int] = set()
    parts = []
    for path, count in groups:
        text = _point_name(path[0])
        for point in path[1:-1]:
            text += f"/{_point_name(point)}*"
            starred.add(point)
        dest = path[-1]
        text += f"/{_point_name(dest)}"
        if hit(dest) and dest not in starred:
            text += "*"
            starred.add(dest)
        if count > 1:
            text += f"({count})"
        parts.append(text)
    return " ".join(parts)


def _point_name(point: int) -> str:
    return _NAMES.get(point) or str(point)


def _steps(steps) -> list[tuple[int, int]]:
    """``steps`` as validated ``(from, to)`` int pairs, padding dropped."""
    try:
        arr = np.asarray(steps, dtype=np.int64)
    except (TypeError, ValueError):
        raise IllegalMoveError(f"steps must be (from, to) integer pairs, got {steps!r}") from None
    if arr.size == 0:
        arr = arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise IllegalMoveError(f"steps must be (from, to) pairs, got shape {arr.shape}")
    pairs = [(a, b) for a, b in arr.tolist() if (a, b) != (-1, -1)]
    if len(pairs) > 4:
        raise IllegalMoveError(f"a play has at most 4 steps, got {len(pairs)}: {pairs}")
    for src, dst in pairs:
        if not (1 <= src <= 25 and 0 <= dst <= 24 and dst < src):
            raise IllegalMoveError(f"step {src}/{dst} is not a forward move from 1-25 (bar) to 0-24 (0 off)")
    return pairs


# --------------------------------------------------------------------------- parsing


def parse_move(board, dice, text: str) -> np.ndarray:
    """The position after the play ``text``, sides swapped, as :func:`legal_results` gives it.

    Raises :class:`~bgzero.errors.IllegalMoveError` (malformed text, a point out of range,
    a distance the dice cannot make, more moves than the dice allow, or a play that is not
    legal) and :class:`~bgzero.errors.InvalidDiceError` for dice outside 1-6.

    >>> from bgzero.engine.board import START
    >>> after = parse_move(START, (6, 4), "24/18 13/9")
    >>> after[1, [23, 17, 12, 8]].tolist()  # the mover, now row 1: points 24, 18, 13, 9
    [1, 1, 4, 1]
    >>> parse_move(START, (6, 4), "24/15")
    Traceback (most recent call last):
    ...
    bgzero.errors.IllegalMoveError: '24/15' moves 9 pips; 6-4 moves 4, 6 or 10
    """
    board = validate(board)
    dice = check_dice(dice)
    results, steps = legal_results(board, dice)
    target = play_text(board, dice, text)
    found = np.flatnonzero((results == target).all(axis=(1, 2)))
    if not found.size:
        raise illegal_play(text, dice, [format_move(board, s) for s in steps])
    return results[found[0]].copy()


def check_dice(dice) -> tuple[int, int]:
    """``dice`` as a pair of ints 1-6, larger first; :class:`InvalidDiceError` otherwise."""
    try:
        first, second = (operator.index(d) for d in dice)
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice must be two integers, got {dice!r}") from None
    if not (1 <= first <= 6 and 1 <= second <= 6):
        raise InvalidDiceError(f"dice must be 1-6, got {first}-{second}")
    return max(first, second), min(first, second)


def play_text(board: np.ndarray, dice: tuple[int, int], text) -> np.ndarray:
    """The position ``text`` leads to, sides swapped, before checking it is a legal play.

    Checks the syntax, the points and that the dice can make the distances; ``board`` and
    ``dice`` must come from :func:`~bgzero.engine.board.validate` and :func:`check_dice`. Callers
    that hold the legal results look the answer up there (see :func:`parse_move`).
    """
    if not isinstance(text, str):
        raise IllegalMoveError(f"a move must be a str, got {type(text).__name__}: {text!r}")
    hops = _hops(text)
    _check_dice_use(hops, dice)
    return apply_steps(board, hops)


def illegal_play(text: str, dice: tuple[int, int], legal: list[str]) -> IllegalMoveError:
    """The error for a well-formed ``text`` that is none of the ``legal`` plays (formatted)."""
    roll = f"{dice[0]}-{dice[1]}"
    what = _show(text.strip()) if text.strip() else "the empty move"
    if legal == [""]:
        return IllegalMoveError(f"{what} is not a legal play: {roll} cannot be played here, the turn passes (empty move '')")
    more = f" and {len(legal) - _SHOWN_LEGAL} more" if len(legal) > _SHOWN_LEGAL else ""
    return IllegalMoveError(f"{what} is not a legal play for {roll}; legal plays: {', '.join(legal[:_SHOWN_LEGAL])}{more}")


def _hops(text: str) -> list[tuple[int, int]]:
    """The ``(from, to)`` moves a text names, chains split, counts expanded."""
    cleaned = _SPACED_SLASH.sub("/", _SPACES.sub(" ", text))
    cleaned = _SPACE_BEFORE_MARK.sub("", cleaned)
    cleaned = _SPACED_COUNT.sub(r"(\1)", cleaned)
    hops: list[tuple[int, int]] = []
    for token in _SEPARATORS.split(cleaned.strip()):
        if not token:
            continue
        if not _TOKEN.fullmatch(token):
            raise IllegalMoveError(f"malformed move {_show(token)}: expected points joined by '/', like 24/18, bar/22*, 6/off or 13/7(2)")
        body, _, count = token.partition("(")
        count = count[:-1].lstrip("0") or ("1" if not count else "0")
        if len(count) > 1 or not 1 <= int(count) <= 4:
            raise IllegalMoveError(f"count ({count}) in {_show(token)} must be 1-4")
        points = [_point_value(p, token) for p in _POINTS.findall(body)]
        chain = list(zip(points, points[1:]))
        for src, dst in chain:
            if not 1 <= src <= 25:
                raise IllegalMoveError(f"{_show(token)} moves from {_point_name(src)}: a move starts on 1-24 or the bar")
            if not 0 <= dst <= 24:
                raise IllegalMoveError(f"{_show(token)} moves to {_point_name(dst)}: a move ends on 1-24 or off")
            if dst >= src:
                raise IllegalMoveError(f"{_show(token)} moves from {src} to {dst}: checkers move to lower points")
        hops += chain * int(count)
    return hops


def _show(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message, cut short if long."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _point_value(word: str, token: str) -> int:
    """The point a word of the notation names (``b``/``bar`` 25, ``o``/``off`` 0)."""
    if word.isalpha():
        return _WORDS[word.lower()]
    digits = word.lstrip("0") or "0"
    if len(digits) > 2:  # also keeps int() off huge digit strings
        raise IllegalMoveError(f"point {_show(word, 12)} in {_show(token)} is out of range: points are 0 (off) to 25 (bar)")
    return int(digits)


@functools.cache
def _splits(pool: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(pips, dice left over) for each way to take some of the dice in ``pool``."""
    out = set()
    for mask in range(1, 1 << len(pool)):
        taken = [d for k, d in enumerate(pool) if mask >> k & 1]
        rest = [d for k, d in enumerate(pool) if not mask >> k & 1]
        out.add((sum(taken), tuple(rest)))
    return tuple(sorted(out))


def _check_dice_use(hops: list[tuple[int, int]], dice: tuple[int, int]) -> None:
    """Raise unless the dice can be shared out so that each hop gets the pips it needs."""
    roll = f"{dice[0]}-{dice[1]}"
    pool = (dice[0],) * 4 if dice[0] == dice[1] else dice

    def options(hop, available):
        """The dice left after each way of making ``hop`` from ``available``."""
        src, dst = hop
        return [rest for pips, rest in _splits(available)
                if pips == src - dst or (dst == OFF_POINT and pips >= src)]

    for src, dst in hops:
        if not options((src, dst), pool):
            sums = sorted({pips for pips, _ in _splits(pool)})
            makes = ", ".join(map(str, sums[:-1])) + f" or {sums[-1]}"
            need = f"needs {src} pips to bear off" if dst == OFF_POINT else f"moves {src - dst} pips"
            raise IllegalMoveError(f"'{_point_name(src)}/{_point_name(dst)}' {need}; {roll} moves {makes}")

    def fits(rest, available) -> bool:
        return not rest or any(fits(rest[1:], left) for left in options(rest[0], available))

    if not fits(hops, pool):
        raise IllegalMoveError(f"{_show(_format_hops(hops))} needs more moves than {roll} allows")


def _format_hops(hops: Iterable[tuple[int, int]]) -> str:
    return " ".join(f"{_point_name(s)}/{_point_name(d)}" for s, d in hops)


def apply_steps(board: np.ndarray, hops) -> np.ndarray:
    """The board after moving each hop's checker straight to its destination, sides swapped.

    The one place that plays ``(from, to)`` pairs (25 the bar, 0 off) onto a board. Hops run from
    the highest source down, so a checker moving on has arrived first. Only the hop's own
    landing point hits, as in gnubg's ``ApplyMove``.
    """
    hops = [(int(s), int(d)) for s, d in hops]
    me, op = board[0].tolist(), board[1].tolist()
    for src, dst in sorted(hops, reverse=True):
        col = BAR if src == BAR_POINT else src - 1
        if me[col] == 0:
            where = "on the bar" if src == BAR_POINT else f"on point {src}"
            raise IllegalMoveError(f"'{_format_hops([(src, dst)])}': no checker of the side on roll {where}")
        me[col] -= 1
        if dst == OFF_POINT:
            continue
        if op[24 - dst] >= 2:
            raise IllegalMoveError(f"'{_format_hops([(src, dst)])}': point {dst} is held by {op[24 - dst]} opposing checkers")
        if op[24 - dst] == 1:
            op[24 - dst] = 0
            op[BAR] += 1
        me[dst - 1] += 1
    return np.array([op, me], dtype=np.int8)
