"""GNU Backgammon's cube verdicts, read from its ``hint``, and how often another decider agrees.

gnubg's Python ``hint()`` covers chequer play only: before the roll it raises "Hints for
cube actions not yet implemented" whatever the Match ID holds (game state, dice, turn make
no difference; it is simply not written). The command interpreter does the cube analysis,
``gnubg.command("hint")``, but prints it on the C stdout, so :class:`GnubgCube` captures
file descriptor 1 and :func:`parse_cube_hint` reads the text. gnubg stays optional: it is
imported only when a :class:`GnubgCube` is made.

Verdicts are compared the way a player acts: the doubler's action (no double, double, too
good) and the taker's answer (take, pass). Disagreements are priced with the reference's
own cubeful equities, so the cost is what the other decider gives up *by gnubg's judgement*.
A tie counts as agreement: where the reference's equities of doubling and not doubling (or
of taking and passing) print the same, to gnubg's 3 decimals, it cannot tell them apart and
both answers are right. "No double" and "too good" are both not doubling, so they never tie.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
import tempfile
from dataclasses import dataclass

from bgzero.cube import NO_DOUBLE, PASS, TAKE, TOO_GOOD

DOUBLE = "double"  # "double, take" and "double, pass" alike: the doubler's action is the same
DOUBLER_ACTIONS = (NO_DOUBLE, DOUBLE, TOO_GOOD)
TAKER_ACTIONS = (TAKE, PASS)
PRINTED = 0.001  # gnubg prints cubeful equities to 3 decimals: closer than half of this is a tie

_EQUITY_LINE = re.compile(
    r"^\s*\d\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, take|(?:Re)?[Dd]ouble, pass)\s+([-+]?\d+\.\d+)", re.M
)
_PROPER = re.compile(r"^Proper cube action:\s*(.+?)\s*$", re.M)


@dataclass(frozen=True)
class Verdict:
    """A cube verdict as a player acts on it: the doubler's action and the taker's answer."""

    doubler: str  # one of DOUBLER_ACTIONS
    taker: str  # one of TAKER_ACTIONS


@dataclass(frozen=True)
class CubeHint:
    """gnubg's cube analysis of one position: its proper action and the doubler's cubeful equities.

    Equities are normalised, per cube (in a match gnubg's money equivalent, printed with
    ``set output mwc off``), so "double, pass" is +1.
    """

    action: str  # gnubg's words, e.g. "Too good to redouble, pass"
    no_double: float
    double_take: float
    double_pass: float

    @property
    def verdict(self) -> Verdict:
        return verdict_from_action(self.action)

    def doubler_equity(self, action: str) -> float:
        """The doubler's equity after ``action``, the taker answering properly."""
        return min(self.double_take, self.double_pass) if action == DOUBLE else self.no_double

    def taker_equity(self, answer: str) -> float:
        """The taker's equity after answering a double with ``answer``."""
        return -(self.double_take if answer == TAKE else self.double_pass)


def verdict_from_action(text: str) -> Verdict:
    """The :class:`Verdict` behind gnubg's "Proper cube action" words.

    "Too good to (re)double" is too good; "No ..." and "Never ..." (a dead cube) are no
    double; "(Re)double" and "Optional (re)double" (doubling costs nothing) are a double.
    A beaver is a take. Trailing notes such as "(dead cube)" or "(23.6%)" are ignored.
    """
    words = text.split(" (")[0].strip().lower()
    head, _, answer = words.rpartition(", ")
    taker = {"take": TAKE, "beaver": TAKE, "pass": PASS}.get(answer)
    if taker is None or not head.endswith("double"):
        raise ValueError(f"unknown gnubg cube action {text!r}")
    if head.startswith("too good"):
        return Verdict(TOO_GOOD, taker)
    if head.startswith(("no ", "never ")):
        return Verdict(NO_DOUBLE, taker)
    return Verdict(DOUBLE, taker)


def parse_cube_hint(text: str) -> CubeHint:
    """The :class:`CubeHint` in the text gnubg's ``hint`` prints before the roll."""
    start = text.find("Cubeful equities")
    proper = _PROPER.search(text, max(start, 0))
    if start < 0 or proper is None:
        raise ValueError(f"no cube analysis in gnubg's output:\n{text[-1000:]}")
    equities = {label.lower().replace("redouble", "double"): float(value)
                for label, value in _EQUITY_LINE.findall(text, start)}
    try:
        nd, dt, dp = equities["no double"], equities["double, take"], equities["double, pass"]
    except KeyError:
        raise ValueError(f"gnubg's cube analysis lacks an equity:\n{text[start:]}") from None
    return CubeHint(proper.group(1), nd, dt, dp)


class GnubgCube:
    """gnubg's own cube analysis (the PyPI ``gnubg`` engine) of Position ID + Match ID pairs.

    The engine is global state, one per process. Beavers are off; the Jacoby rule comes
    from the Match ID (its "no Jacoby" bit).
    """

    def __init__(self) -> None:
        import gnubg  # optional dependency

        self._gnubg = gnubg
        self._libc = ctypes.CDLL(None)
        self._plies: int | None = None
        # Without one thread `hint` can hang; mwc off gives match equities in money units.
        self._run("set threads 1", "set display off", "set beavers 0", "set output mwc off")

    def hint(self, pid: str, mid: str, plies: int = 2) -> CubeHint:
        """gnubg's cube analysis at ``plies`` of the side on roll, before it rolls."""
        if plies != self._plies:
            self._run(f"set evaluation cubedecision evaluation plies {plies}")
            self._plies = plies
        return parse_cube_hint(self._run(f"set gnubgid {pid}:{mid}", "hint"))

    def cubeless(self, pid: str) -> tuple[float, float, float, float, float]:
        """gnubg's 0-ply cubeless ``(w, wg, wbg, lg, lbg)`` of the side on roll, before it rolls."""
        g = self._gnubg
        board = g.positionfromid(pid)
        return tuple(g.evaluate(board, g.cubeinfo(1, -1, 1, 0, (0, 0), 0), g.evalcontext(0, 0, 1, 0, 0.0))[:5])

    def _run(self, *commands: str) -> str:
        """Run gnubg commands and return what they print on the C stdout."""
        sys.stdout.flush()
        with tempfile.TemporaryFile(mode="w+") as out:
            saved = os.dup(1)
            os.dup2(out.fileno(), 1)
            try:
                for command in commands:
                    self._gnubg.command(command)
            finally:
                self._libc.fflush(None)
                os.dup2(saved, 1)
                os.close(saved)
            out.seek(0)
            return out.read()


@dataclass(frozen=True)
class Agreement:
    """How one decider fared against the reference on one kind of decision."""

    decisions: int
    agreed: int  # ties included
    cost: float  # equity given up on the disagreements, by the reference's equities
    ties: int = 0  # agreements only by a tie: the other answer, equal to gnubg's as it prints them

    @property
    def rate(self) -> float:
        return self.agreed / self.decisions if self.decisions else float("nan")

    @property
    def mean_cost(self) -> float:
        """Mean equity cost per disagreement (0 when there is none)."""
        wrong = self.decisions - self.agreed
        return self.cost / wrong if wrong else 0.0


def tie(a: float, b: float) -> bool:
    """Whether two of gnubg's equities are the same as it prints them."""
    return abs(a - b) < PRINTED / 2


def doubler_agreement(reference: list[CubeHint], verdicts: list[Verdict]) -> Agreement:
    """Agreement on the doubler's action over every position, ties (see the module docstring) included.

    The cost is the reference's best doubler equity less that of the action taken, so
    "no double" where gnubg says "too good" is a disagreement that costs nothing.
    """
    _check_lengths(reference, verdicts)
    agreed, ties, cost = 0, 0, 0.0
    for hint, verdict in zip(reference, verdicts):
        mine, theirs = verdict.doubler, hint.verdict.doubler
        if mine == theirs:
            agreed += 1
        elif (mine == DOUBLE) != (theirs == DOUBLE) and tie(hint.doubler_equity(mine), hint.doubler_equity(theirs)):
            agreed, ties = agreed + 1, ties + 1
        else:
            best = max(hint.doubler_equity(action) for action in DOUBLER_ACTIONS)
            cost += best - hint.doubler_equity(mine)
    return Agreement(len(reference), agreed, cost, ties)


def taker_agreement(reference: list[CubeHint], verdicts: list[Verdict]) -> Agreement:
    """Agreement on the taker's answer, over the positions where the reference doubles.

    Those are the doubles that happen in play (a double, take or pass); "too good" and
    "no double" positions never reach the taker. Where "double, take" and "double, pass"
    print the same, either answer is right.
    """
    _check_lengths(reference, verdicts)
    agreed, ties, cost, decisions = 0, 0, 0.0, 0
    for hint, verdict in zip(reference, verdicts):
        if hint.verdict.doubler != DOUBLE:
            continue
        decisions += 1
        if verdict.taker == hint.verdict.taker:
            agreed += 1
        elif tie(hint.double_take, hint.double_pass):
            agreed, ties = agreed + 1, ties + 1
        else:
            cost += max(hint.taker_equity(answer) for answer in TAKER_ACTIONS) - hint.taker_equity(verdict.taker)
    return Agreement(decisions, agreed, cost, ties)


def _check_lengths(reference: list, verdicts: list) -> None:
    if len(reference) != len(verdicts):
        raise ValueError(f"{len(reference)} reference verdicts but {len(verdicts)} to compare")
