"""A match refereed by the GNU Backgammon program: gnubg rolls, keeps score and saves the record.

The point is a result nobody can doubt: bgzero is seated as gnubg's external player
(:mod:`bgzero.gnubg.serve`), gnubg's own engine plays the other side at a chosen ply, and the
score is the one gnubg prints. Because gnubg silently turns an illegal answer into no move,
the saved match (SGF) is read back and every move bgzero sent is looked for in it.

The gnubg program (Debian package ``gnubg``) runs as ``gnubg -t -q -r`` with its commands on
standard input; player 0 is gnubg, named ``gnubg``, and player 1 is bgzero, named ``bgzero``.
"""

from __future__ import annotations

import re
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from bgzero.agents.base import Agent
from bgzero.engine.notation import parse_move
from bgzero.errors import BgzeroError, IllegalMoveError
from bgzero.gnubg.fibs import MOVE
from bgzero.gnubg.serve import Answer, ExternalPlayer, Server
from bgzero.match.record import MOVE as PLAY
from bgzero.match.record import MatchRecord
from bgzero.match.sgf import SgfFormatError, read_sgf

GNUBG = "/usr/games/gnubg"
NAMES = ("gnubg", "bgzero")  # gnubg's players 0 and 1; SGF colours W and B

_SCORE = re.compile(r"The score \(after (\d+) games?\) is: gnubg (\d+), bgzero (\d+)")
_WINNER = re.compile(r"(gnubg|bgzero) has won the match")


class RefereeError(BgzeroError, RuntimeError):
    """The gnubg program is missing, hung, or left no result to read."""


@dataclass(frozen=True)
class RefereedMatch:
    """gnubg's account of the match (``score`` and ``winner`` as it printed them, ``games``
    from its saved record) and the check of bgzero's moves against that record."""

    length: int
    score: dict[str, int]
    games_played: int
    winner: str | None
    record: MatchRecord
    moves_checked: int
    mismatches: list[str] = field(default_factory=list)
    sgf: Path | None = None

    @property
    def complete(self) -> bool:
        return self.winner is not None and max(self.score.values()) >= self.length


def gnubg_commands(port: int, length: int, sgf: Path, *, ply: int = 0, seed: int | None = None,
                   host: str = "127.0.0.1") -> str:
    """The command script: seat both players, play an ``length``-point match, save it."""
    lines = [
        "set threads 1",
        f"set defaultnames {NAMES[0]} {NAMES[1]}",  # "new match" resets names to these
        "set player 0 gnubg",
        f"set player 0 chequerplay evaluation plies {ply}",
        f"set player 0 cubedecision evaluation plies {ply}",
        f"set player 1 external {host}:{port}",
        *([f"set seed {seed}"] if seed is not None else []),
        f"new match {length}",
        f'save match "{sgf}"',  # quoted: the path may hold spaces
        "quit",
    ]
    return "\n".join(lines) + "\n"


def play_refereed(agent: Agent, length: int, sgf: Path, *, ply: int = 0, seed: int | None = None,
                  gnubg: str = GNUBG, timeout: float = 600.0) -> RefereedMatch:
    """Have the gnubg program referee a ``length``-point match of ``agent`` against gnubg at
    ``ply``; the match is saved to ``sgf``. Raises :class:`RefereeError` when gnubg cannot be
    run, exceeds ``timeout`` seconds, or prints no score."""
    answers: list[Answer] = []
    server = Server(ExternalPlayer(agent, on_answer=answers.append), port=0, connections=1)
    thread = threading.Thread(target=server.serve_forever, name="bgzero-serve", daemon=True)
    thread.start()
    sgf = Path(sgf).resolve()
    sgf.unlink(missing_ok=True)
    try:
        proc = subprocess.run([gnubg, "-t", "-q", "-r"], input=gnubg_commands(server.address[1], length, sgf,
                                                                               ply=ply, seed=seed),
                              capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise RefereeError(f"the gnubg program {gnubg!r} is not installed (apt-get install gnubg)") from None
    except subprocess.TimeoutExpired:
        raise RefereeError(f"gnubg did not finish the {length}-point match within {timeout:g} s") from None
    finally:
        server.stop()
        thread.join()
    return _result(length, proc.stdout, sgf, answers)


def _result(length: int, output: str, sgf: Path, answers: list[Answer]) -> RefereedMatch:
    scores = _SCORE.findall(output)
    if not scores:
        raise RefereeError(f"gnubg printed no score; its last output: {output[-500:]!r}")
    games_played, *points = map(int, scores[-1])
    winner = _WINNER.search(output)
    if not sgf.exists():
        raise RefereeError(f"gnubg did not save the match to {sgf}")
    try:
        record = read_sgf(sgf)
    except SgfFormatError as e:
        raise RefereeError(f"gnubg's saved match {sgf} does not replay: {e}") from None
    checked, mismatches = check_moves(record, answers)
    return RefereedMatch(length, dict(zip(NAMES, points)), games_played, winner and winner.group(1), record,
                         checked, mismatches, sgf)


def check_moves(record: MatchRecord, answers: list[Answer], player: int = 1) -> tuple[int, list[str]]:
    """Compare bgzero's moves with the record, in order: same roll, and gnubg's recorded play
    leads to the position bgzero chose. Returns (moves compared, mismatches described)."""
    sent = [a for a in answers if a.situation.action == MOVE]
    recorded = [a for game in record.games for a in game.actions if a.player == player and a.kind == PLAY]
    mismatches = []
    if len(sent) != len(recorded):
        mismatches.append(f"bgzero sent {len(sent)} moves, gnubg recorded {len(recorded)}")
    for i, (answer, action) in enumerate(zip(sent, recorded)):
        sit = answer.situation
        text = " ".join(f"{s}/{d}" for s, d in action.steps)
        assert action.dice is not None and sit.dice is not None  # a move comes with its roll
        if sorted(action.dice) != sorted(sit.dice):
            mismatches.append(f"move {i + 1}: bgzero rolled {sit.dice}, gnubg recorded {action.dice}")
            continue
        try:
            after = parse_move(sit.board, action.dice, text)
        except IllegalMoveError as e:
            mismatches.append(f"move {i + 1}: gnubg recorded {text!r} for bgzero's {answer.reply!r}: {e}")
            continue
        if not (after == answer.result).all():
            mismatches.append(f"move {i + 1}: bgzero sent {answer.reply!r}, gnubg recorded {text!r}")
    return min(len(sent), len(recorded)), mismatches
