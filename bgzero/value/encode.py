"""Batched network inputs: ``tesauro198``, ``contact`` (250) and ``race`` (216).

Every encoder maps an int8 batch ``(B, 2, 25)`` (row 0 the side on roll) to float32
``(B, num_inputs)``. A position's inputs depend on that position alone, never on its batch
neighbours. Inputs come in one block per side, the side on roll ("me") first, then the
other side ("opp"); each block is computed in its side's own numbering, so swapping the
rows of a board swaps the blocks. :func:`feature_names` names every input.

tesauro198 (TD-Gammon's inputs, Tesauro 1992), 98 per side, me at 0-97, opp at 98-195:
  0-95     point p (1-24) at 4(p-1): n>=1, n>=2, n>=3, (n-3)/2 if n>3
  96       bar              n/2
  97       off              n/15
  196-197  side to move     (1, 0): always the side on roll, kept for fidelity

contact (in the spirit of gnubg's contact net), 125 per side, me at 0-124, opp at 125-249:
  0-95     point p at 4(p-1): n==1, n==2, n>=3, (n-3)/2 if n>3  (blot / point / spares)
  96-99    bar: n>=1, n>=2, n>=3, (n-3)/2  (cumulative, as gnubg: on the bar only the count
           matters)
  100 pips            pip count / 167
  101 off1            min(off, 5) / 5          (gnubg's three checkers-off units)
  102 off2            clip(off - 5, 0, 5) / 5
  103 off3            clip(off - 10, 0, 5) / 5
  104 bar             checkers on the bar / 4
  105 home_points     points made on 1-6 / 6
  106 points          points made on 1-24 / 7
  107 prime           longest run of consecutive made points / 6
  108 escapes         rolls / 36 on which my rearmost checker escapes (see "Escapes")
  109 contain         1 - (fewest escapes of an opponent checker on my 1-12 or bar) / 36
  110 back_checker    (rearmost checker's point - 1) / 24; bar 1; none 0
  111 back_anchor     (rearmost made point - 1) / 24; none 0
  112 forward_anchor  (25 - p) / 6 for the most advanced made point p on 19-24; none 0
  113 anchors         points made on 19-24 / 3
  114 blots           blots on 1-24 / 8
  115 p1              rolls / 36 on which the opponent can hit one of my blots ("Shots")
  116 piploss         sum over those rolls of the pips the costliest hit loses / (36 * 24)
  117 enter           1 - (k/6)^2, the opponent entering a checker against my k home points
  118 enter2          ((6 - k)/6)^2, the opponent entering two
  119 break_contact   pips my checkers need to get past the opponent's rearmost one / 152
  120 behind          my checkers behind the opponent's rearmost one / 15
  121 pip_diff        (opponent's pips - my pips) / 100
  122 timing          free pips / 100: sum of n(p - 6) over points 7-25 (bar 25) plus
                      (n - 2)(p - 1) for spares on home points; pips I can play before a
                      home point must break
  123 home_checkers   checkers on 1-6 / 15
  124 home_blots      blots on 1-6 / 6

race (gnubg's race net plus pips), 108 per side, me at 0-107, opp at 108-215:
  0-91     point p (1-23) at 4(p-1): n==1, n==2, n>=3, (n-3)/2 if n>3  (no contact leaves
           the 24-point and the bar empty)
  92-105   off one-hot: unit k is off == k + 1 (k = 0..13); none off is all zeros
  106      crossovers / 10: sum of n * quadrant over quadrants 1-3 (7-12, 13-18, 19-24)
  107      pips / 167

Escapes. A checker on point c escapes with a roll when, moving alone (both dice orders;
up to four steps of a double; from the bar c = 25), it lands beyond the lowest opponent
point made on my 13..c-1 without stopping on an opponent point on the way. With no such
point (the checker is on my side of the board, or nothing blocks) every roll escapes.
The blockers all lie within 12 pips, so a 4096-entry table indexed by the 12 points in
front answers each query, as in gnubg.

Shots. The opponent can hit when some sequence of its dice lands one of its checkers on a
blot of mine, stepping only on points I have not made, and entering from the bar first:
with one checker on the bar one die enters and the other is free; with two or more a
non-double only enters; a double enters up to four and plays what is left. Simplified:
a partial play counts (the rule forcing the opponent to play its whole roll is ignored),
and bear-offs are never needed to hit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from bgzero.engine import rowbits
from bgzero.errors import ConfigError, InvalidPositionError

CONTACT_FEATURES = (
    "pips", "off1", "off2", "off3", "bar", "home_points", "points", "prime", "escapes",
    "contain", "back_checker", "back_anchor", "forward_anchor", "anchors", "blots", "p1",
    "piploss", "enter", "enter2", "break_contact", "behind", "pip_diff", "timing",
    "home_checkers", "home_blots",
)
CELL_SUM_FEATURES = ("pips", "bar", "home_points", "points", "anchors", "blots", "pip_diff", "timing",
                     "home_checkers", "home_blots")
"""Contact features that are sums over the points (both sides', bar included) of a term of
one point's count alone, zero for an empty point: a net can add them with each point's
units, from a table (:class:`~bgzero.value.frozen.FrozenNet`)."""
TESAURO_SIDE, CONTACT_SIDE, RACE_SIDE = 98, 100 + len(CONTACT_FEATURES), 108
CONTACT_POINT_UNITS = 100
"""Each side's contact block starts with four units for each of its 24 points and the bar."""


# --- bit helpers: bit p of a mask stands for point p --------------------------------------


@njit(cache=True)
def _popcount(x):
    """Set bits of ``x``; masks hold at most 25 bits, so a loop is cheap."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _masks(row):
    """A row's points as bitmasks: made and blots (bit p, own numbering), and made and
    occupied as the other side numbers them (bit 25 - p)."""
    points = np.int64(0xFFFFFF)  # cells 0-23: the points, not the bar
    made = (rowbits.above(row, 1) & points) << 1
    blots = (rowbits.equal(row, 1) & points) << 1
    made_rev = rowbits.above_mirrored(row, 1) & (points << 1)
    occ_rev = rowbits.above_mirrored(row, 0) & (points << 1)
    return made, blots, made_rev, occ_rev


# --- one-number features --------------------------------------------------------------------


@njit(cache=True)
def pips(row):
    """Pip count of a row; a bar checker counts 25."""
    t = 0
    for i in range(25):
        t += row[i] * (i + 1)
    return t


@njit(cache=True)
def off(row):
    """Checkers borne off."""
    return 15 - rowbits.total(row)


@njit(cache=True)
def back_point(row):
    """The rearmost checker's point (bar 25), 0 when every checker is off."""
    return rowbits.highest(rowbits.above(row, 0)) + 1


@njit(cache=True)
def longest_prime(made):
    """Longest run of consecutive made points: each ``x & (x >> 1)`` shortens every run by one."""
    n = 0
    while made:
        made &= made >> 1
        n += 1
    return n


@njit(cache=True)
def forward_anchor(made):
    """(25 - p) / 6 for my most advanced point p made in the opponent's home (19-24)."""
    for p in range(19, 25):
        if (made >> p) & 1:
            return (25 - p) / 6.0
    return 0.0


@njit(cache=True)
def back_anchor(row):
    """Index (point - 1) of my rearmost made point; 0 when none, as in gnubg."""
    return max(rowbits.highest(rowbits.above(row, 1) & 0xFFFFFF), 0)


@njit(cache=True)
def contact_pips(row, opp_back):
    """Pips and checkers of ``row`` still behind the opponent's rearmost checker.

    ``opp_back`` is that checker's point in the opponent's numbering (0 when all are off);
    it stands on my point ``25 - opp_back``, and a checker of mine on p > that point must
    travel ``p - (25 - opp_back)`` pips to clear it.
    """
    e = 25 - opp_back
    t = n = 0
    for i in range(e, 25):
        t += row[i] * (i + 1 - e)
        n += row[i]
    return t, n


@njit(cache=True)
def timing(row):
    """Free pips: outside checkers down to the 6-point plus home spares down to the 1-point."""
    t = 0
    for i in range(6, 25):
        t += row[i] * (i - 5)
    for i in range(6):
        if row[i] > 2:
            t += (row[i] - 2) * i
    return t


@njit(cache=True)
def crossovers(row):
    """Quadrant crossings left to bring every checker home (gnubg's race input)."""
    t = 0
    for i in range(6, 24):
        t += row[i] * (i // 6)
    return t


# --- escapes ----------------------------------------------------------------------------------


def _escape_table() -> np.ndarray:
    """Rolls out of 36 that escape, for each 12-bit mask of blocked points in front.

    Bit k of the index stands for the point ``12 - k`` pips ahead; the farthest blocker is
    the one to pass, and every nearer blocked point is a place the checker may not stop.
    All masks at once in numpy: a kernel costs more to load from numba's cache (30 ms a
    start) than this takes.
    """
    masks = np.arange(1, 4096)
    far = 12 - np.log2(masks & -masks).astype(np.int64)  # the farthest blocker: the lowest bit
    escapes = np.zeros(len(masks), np.int64)
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                escapes += _walk_escapes(masks, far, a, a, 4)
            else:
                escapes += _walk_escapes(masks, far, a, b, 2) | _walk_escapes(masks, far, b, a, 2)
    return np.r_[36, escapes]


def _walk_escapes(masks, far, first, second, steps) -> np.ndarray:
    """For each mask, whether steps ``first, second, second, ...`` pass distance ``far``
    before stopping on a blocked distance t (bit ``12 - t`` of the mask)."""
    escaped = np.zeros(len(masks), bool)
    stopped = np.zeros(len(masks), bool)
    t = 0
    for s in range(steps):
        t += first if s == 0 else second
        escaped |= ~stopped & (t > far)
        if t <= 12:  # farther than 12 pips is past every blocker
            stopped |= ((masks >> (12 - t)) & 1) == 1
    return escaped


_ESCAPES = _escape_table()
_OPP_SIDE = np.int64(0x1FFE000)  # bits 13-24: the points beyond my midpoint


@njit(cache=True)
def escapes(c, blockers):
    """Rolls out of 36 on which a checker on point c (bar 25) escapes the points in
    ``blockers`` (bit p, the mover's numbering) that lie on 13..c-1."""
    m = blockers & _OPP_SIDE
    window = (m >> (c - 12)) if c >= 12 else (m << (12 - c))
    return _ESCAPES[window & 0xFFF]


@njit(cache=True)
def containment(made_rev):
    """1 - (fewest escapes of an opponent checker anywhere on my 1-12 or the bar) / 36;
    ``made_rev`` holds my made points in the opponent's numbering."""
    worst = 36
    for c in range(13, 26):
        worst = min(worst, escapes(c, made_rev))
    return (36 - worst) / 36.0


# --- shots --------------------------------------------------------------------------------------


@njit(cache=True)
def _reach(a, b, made, opp, bar):
    """Points (bit h, my numbering) the opponent can land on with roll a-b.

    ``opp`` holds its checkers on the board as bit ``25 - q``; ``bar`` counts its checkers
    on the bar, which enter on my point equal to the die. ``made`` blocks.
    """
    free = ~made
    one = np.int64(1)
    if a == b:
        steps, reach, x = 4, np.int64(0), opp
        if bar:
            if (made >> a) & 1:
                return np.int64(0)
            steps = 4 - min(bar, 4)
            reach = one << a
            x = opp | reach
        for _ in range(steps):
            x = (x << a) & free
            reach |= x
        return reach
    enter_a = not (made >> a) & 1
    enter_b = not (made >> b) & 1
    if bar == 0:
        xa = (opp << a) & free
        xb = (opp << b) & free
        return xa | xb | ((xa << b) & free) | ((xb << a) & free)
    reach = np.int64(0)
    if bar >= 2:
        if enter_a:
            reach |= one << a
        if enter_b:
            reach |= one << b
        return reach
    if enter_a:
        reach |= (one << a) | (((opp | (one << a)) << b) & free)
    if enter_b:
        reach |= (one << b) | (((opp | (one << b)) << a) & free)
    return reach


@njit(cache=True)
def shots(blots, made, opp, bar):
    """Rolls out of 36 on which the opponent can hit one of my ``blots``, and the sum over
    those rolls of the pips lost by the costliest blot it can hit (a blot on p loses 25 - p)."""
    hits = loss = 0
    if blots == 0:
        return hits, loss
    for a in range(1, 7):
        for b in range(a, 7):
            h = _reach(a, b, made, opp, bar) & blots
            if h:
                w = 1 if a == b else 2
                hits += w
                loss += w * (25 - rowbits.lowest(h))
    return hits, loss


# --- per-side blocks ------------------------------------------------------------------------


@njit(cache=True)
def _thermometer(n, out, k):
    """Tesauro's four units for n checkers: n>=1, n>=2, n>=3, (n-3)/2 beyond three."""
    out[k] = 1.0 if n >= 1 else 0.0
    out[k + 1] = 1.0 if n >= 2 else 0.0
    out[k + 2] = 1.0 if n >= 3 else 0.0
    out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0


@njit(cache=True)
def _split(n, out, k):
    """gnubg's four units for a point: blot, point, three or more, (n-3)/2 spares."""
    out[k] = 1.0 if n == 1 else 0.0
    out[k + 1] = 1.0 if n == 2 else 0.0
    out[k + 2] = 1.0 if n >= 3 else 0.0
    out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0


@njit(cache=True)
def _tesauro_side(row, out):
    """One side's 98 TD-Gammon inputs."""
    for i in range(24):
        _thermometer(row[i], out, 4 * i)
    out[96] = row[24] / 2.0
    out[97] = off(row) / 15.0


@njit(cache=True)
def _off_units(n, out, k):
    """gnubg's checkers-off units: 0-5, 5-10 and 10-15 each fill one unit."""
    out[k] = min(n, 5) / 5.0
    out[k + 1] = min(max(n - 5, 0), 5) / 5.0
    out[k + 2] = min(max(n - 10, 0), 5) / 5.0


@njit(cache=True)
def _contact_side(me, opp, my_masks, opp_masks, out):
    """One side's 125 contact inputs (layout in the module docstring)."""
    for i in range(24):
        _split(me[i], out, 4 * i)
    _thermometer(me[24], out, 96)
    _contact_features(me, opp, my_masks, opp_masks, out[CONTACT_POINT_UNITS:])


@njit(cache=True)
def _contact_features(me, opp, my_masks, opp_masks, out, cell_sums=True):
    """One side's 25 contact features (inputs 100-124, here from ``out[0]``): everything but the
    point units, each of which depends on one point's count alone. Without ``cell_sums`` the
    :data:`CELL_SUM_FEATURES` are left as they are, for a net that adds them from a table."""
    made, blots, made_rev, _ = my_masks
    _, _, opp_made_rev, opp_occ_rev = opp_masks
    home = _popcount(made & 0x7E)
    hits, loss = shots(blots, made, opp_occ_rev, opp[24])
    cpips, cmen = contact_pips(me, back_point(opp))
    back = back_point(me)
    _off_units(off(me), out, 1)
    out[7] = longest_prime(made) / 6.0
    out[8] = escapes(back, opp_made_rev) / 36.0
    out[9] = containment(made_rev)
    out[10] = (back - 1) / 24.0 if back else 0.0
    out[11] = back_anchor(me) / 24.0
    out[12] = forward_anchor(made)
    out[15] = hits / 36.0
    out[16] = loss / (36.0 * 24.0)
    out[17] = 1.0 - (home / 6.0) ** 2
    out[18] = ((6 - home) / 6.0) ** 2
    out[19] = cpips / 152.0
    out[20] = cmen / 15.0
    if cell_sums:
        my_pips = pips(me)
        out[0] = my_pips / 167.0
        out[4] = me[24] / 4.0
        out[5] = home / 6.0
        out[6] = _popcount(made) / 7.0
        out[13] = _popcount(made & 0x1F80000) / 3.0
        out[14] = _popcount(blots) / 8.0
        out[21] = (pips(opp) - my_pips) / 100.0
        out[22] = timing(me) / 100.0
        out[23] = (me[0] + me[1] + me[2] + me[3] + me[4] + me[5]) / 15.0
        out[24] = _popcount(blots & 0x7E) / 6.0


@njit(cache=True)
def _race_side(row, out):
    """One side's 108 race inputs."""
    for i in range(23):
        _split(row[i], out, 4 * i)
    n = off(row)
    for k in range(14):
        out[92 + k] = 1.0 if n == k + 1 else 0.0
    out[106] = crossovers(row) / 10.0
    out[107] = pips(row) / 167.0


# --- batch kernels: fn(boards, out) fills every element of out, for C-contiguous int8 boards ---


@njit(cache=True)
def tesauro198_kernel(boards, out):
    """Fill ``out`` (B, 198) with TD-Gammon inputs."""
    for b in range(boards.shape[0]):
        _tesauro_side(boards[b, 0], out[b, :TESAURO_SIDE])
        _tesauro_side(boards[b, 1], out[b, TESAURO_SIDE:2 * TESAURO_SIDE])
        out[b, 196] = 1.0
        out[b, 197] = 0.0


@njit(cache=True)
def contact_kernel(boards, out):
    """Fill ``out`` (B, 250) with contact inputs."""
    for b in range(boards.shape[0]):
        me, opp = boards[b, 0], boards[b, 1]
        my_masks, opp_masks = _masks(me), _masks(opp)
        _contact_side(me, opp, my_masks, opp_masks, out[b, :CONTACT_SIDE])
        _contact_side(opp, me, opp_masks, my_masks, out[b, CONTACT_SIDE:])


@njit(cache=True, nogil=True)
def contact_features_kernel(boards, out, cell_sums=True):
    """Fill ``out`` (B, 50) with the contact inputs other than the point units: each side's 25
    features, the side on roll's first. A net that adds the point units and the cell sums
    from a table passes ``cell_sums=False``: their places are then left as they are (the one
    kernel here that may leave elements of ``out`` unwritten)."""
    features = len(CONTACT_FEATURES)
    for b in range(boards.shape[0]):
        me, opp = boards[b, 0], boards[b, 1]
        my_masks, opp_masks = _masks(me), _masks(opp)
        _contact_features(me, opp, my_masks, opp_masks, out[b, :features], cell_sums)
        _contact_features(opp, me, opp_masks, my_masks, out[b, features:], cell_sums)


@njit(cache=True)
def race_kernel(boards, out):
    """Fill ``out`` (B, 216) with race inputs."""
    for b in range(boards.shape[0]):
        _race_side(boards[b, 0], out[b, :RACE_SIDE])
        _race_side(boards[b, 1], out[b, RACE_SIDE:])


# --- registry -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoder:
    """A named encoder; ``fn(boards, out)`` fills a preallocated float32 ``out`` completely,
    so callers may reuse buffers. Calling the encoder validates and allocates for you."""

    name: str
    num_inputs: int
    fn: Callable[[np.ndarray, np.ndarray], None]

    def __call__(self, boards) -> np.ndarray:
        boards = as_batch(boards)
        out = np.empty((boards.shape[0], self.num_inputs), dtype=np.float32)
        self.fn(boards, out)
        return out


ENCODERS: dict[str, Encoder] = {
    "tesauro198": Encoder("tesauro198", 2 * TESAURO_SIDE + 2, tesauro198_kernel),
    "contact": Encoder("contact", 2 * CONTACT_SIDE, contact_kernel),
    "race": Encoder("race", 2 * RACE_SIDE, race_kernel),
}


def get_encoder(name: str) -> Encoder:
    """The encoder called ``name``; :class:`ConfigError` lists the valid names otherwise."""
    try:
        return ENCODERS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown encoder {name!r}; valid: {', '.join(sorted(ENCODERS))}") from None


def encode(boards, name: str) -> np.ndarray:
    """Encode a ``(B, 2, 25)`` batch with the encoder called ``name``."""
    return get_encoder(name)(boards)


def as_batch(boards) -> np.ndarray:
    """``boards`` as a C-contiguous int8 ``(B, 2, 25)`` array; checks the shape only, so
    the check costs the same for any batch size."""
    arr = np.asarray(boards)
    if arr.ndim != 3 or arr.shape[1:] != (2, 25):
        raise InvalidPositionError(f"boards must have shape (B, 2, 25), got {arr.shape}; use board[None] for one")
    if not np.issubdtype(arr.dtype, np.integer):
        raise InvalidPositionError(f"boards must hold integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int8)


def _point_names(side: str, points: int, units: tuple[str, ...]) -> list[str]:
    return [f"{side}.p{p}.{u}" for p in range(1, points + 1) for u in units]


def feature_names(name: str) -> list[str]:
    """One name per input of encoder ``name``, e.g. ``me.p6.ge3``, ``opp.bar``, ``me.p1``."""
    num = get_encoder(name).num_inputs
    names: list[str] = []
    for side in ("me", "opp"):
        if name == "tesauro198":
            names += _point_names(side, 24, ("ge1", "ge2", "ge3", "over3"))
            names += [f"{side}.bar", f"{side}.off"]
        elif name == "contact":
            names += _point_names(side, 24, ("eq1", "eq2", "ge3", "over3"))
            names += [f"{side}.bar.{u}" for u in ("ge1", "ge2", "ge3", "over3")]
            names += [f"{side}.{f}" for f in CONTACT_FEATURES]
        else:
            names += _point_names(side, 23, ("eq1", "eq2", "ge3", "over3"))
            names += [f"{side}.off.eq{k}" for k in range(1, 15)]
            names += [f"{side}.crossovers", f"{side}.pips"]
    if name == "tesauro198":
        names += ["turn.me", "turn.opp"]
    assert len(names) == num
    return names
