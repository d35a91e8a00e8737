"""Match transcripts in the plain-text ``.mat`` format (JellyFish's) that GNU Backgammon imports.

:func:`format_match` writes a :class:`~bgzero.match.record.MatchRecord` exactly as gnubg's ``export
match mat`` (``ExportGameJF``, gnubg 1.07) writes the same match after importing it:

* ``; `` comment lines, a blank line, `` N point match`` (``0`` for a money session); a money
  session's comments end with ``; [Jacoby "On"]`` or ``"Off"``, a tag gnubg's importer
  recognises. gnubg 1.07's importer then discards it and applies its ``set jacoby`` setting (on by
  default), so a session without the rule needs ``set jacoby off`` before ``import mat``, or
  the ``.sgf`` format, whose ``RU`` property gnubg reads; :func:`parse_match` reads the tag;
* per game `` Game k`` and the two players' names and scores before the game (money:
  running totals), player 0 in the left column and player 1 in the right;
* numbered lines holding one action per column: ``63: 24/18 13/10`` (dice larger first,
  every die its own ``from/to`` step, 25 the bar, 0 off, ``*`` on the first landing on a
  blot), `` Doubles => 4``, `` Takes``, `` Drops``; an empty move (``66:``) is a roll that
  cannot be played;
* ``Wins N point(s)`` under the winner's column, then a blank line. After a bear-off ``N``
  is the result times the cube, as gnubg writes it (it ignores the Jacoby rule there; the
  next game's score line has the points actually scored). A ``Wins`` line before the game
  is over is a resignation (gnubg's bots resign hopeless games): the loser gives up ``N``
  divided by the cube (single, gammon or backgammon), and the game scores that; gnubg writes
  a game given up after a roll but before its play as ``52:       Wins 2 points``, or,
  when the roller gives it up, as a bare ``21:`` with ``Wins`` in the other column. The last
  game may lack its ``Wins`` line: a game saved unfinished, as gnubg imports it, which may
  end on a roll not yet played (``52:`` alone).

Steps are in gnubg's canonical order (highest source first), the order gnubg's importer
stores them in, so a file written here comes back out of gnubg unchanged. gnubg marks the
Crawford game by nothing but the score line: the first game in which one side is 1-away is
the Crawford game, and its importer (and :func:`parse_match`) infer it from that. Names
may not hold spaces or colons (gnubg's importer splits the score line at the colons), so
:func:`player_name` replaces them; gnubg keeps 31 characters of a name.

:func:`parse_match` reads such a file back into a ``MatchRecord``, splitting the columns as
gnubg's importer does, and replays it under the rules: every move must be a legal play of
its roll, every double legal in its state, every score line and ``Wins`` line what the
replay gives; anything else is a :class:`MatFormatError` naming the line.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from bgzero.atomic import atomic_write_text
from bgzero.cube import PASS, TAKE, MatchState, award
from bgzero.engine.game import game_results
from bgzero.errors import BgzeroError, shown
from bgzero.match.game import Game, RuleBroken, walk
from bgzero.match.record import DOUBLE, MOVE, MatchGame, MatchRecord

NAME_LENGTH = 31  # gnubg's MAX_NAME_LEN less its terminator: the importer keeps this much
_LEFT = 27  # width of the left column's text; the right column starts at character 33
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.@+-]")
_JACOBY = re.compile(r';\s*\[Jacoby\s+"(On|Off)"\]', re.IGNORECASE)
_HEADER = re.compile(r"\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE | re.ASCII)
_SCORES = re.compile(r"\s*([^\s:]+)\s*:\s*(\d+)\s+([^\s:]+)\s*:\s*(\d+)\s*$", re.ASCII)
_ROLL = re.compile(r"([1-6])([1-6]):(.*)$")
_STEP = re.compile(r"(\d{1,2})/(\d{1,2})\*?$", re.ASCII)
_DOUBLE = re.compile(r"doubles?(?:\s*=>\s*(\d+))?$", re.IGNORECASE | re.ASCII)
_BARE_ROLL = re.compile(r"[1-6][1-6]:$")
_WINS = re.compile(r"wins\s+(\d+)\s+points?$", re.IGNORECASE | re.ASCII)


class MatFormatError(BgzeroError, ValueError):
    """A ``.mat`` text that cannot be read back: the message names the line and the problem."""


def player_name(text: str) -> str:
    """``text`` as a name gnubg's importer keeps intact: safe characters only, its first 31, as gnubg keeps."""
    name = _NAME_CHARS.sub("_", str(text)) or "player"
    return name[:NAME_LENGTH]


# --------------------------------------------------------------------------- writing


def format_match(record: MatchRecord, comments: tuple[str, ...] = ()) -> str:
    """The ``.mat`` text of ``record``; each of ``comments`` becomes a ``; `` line at the top."""
    names = tuple(player_name(n) for n in record.names)
    out = [f"; {line}\n" for c in comments for line in c.splitlines()]
    out += [f'; [Jacoby "{"On" if record.jacoby else "Off"}"]\n'] if not record.length else []
    out += ["\n"] if comments or not record.length else []
    out.append(f" {record.length} point match\n\n")
    for k, game in enumerate(record.games + ((record.unfinished,) if record.unfinished else ()), 1):
        out += _format_game(k, game, names, record.length, record.jacoby)
    return "".join(out)


def write_mat(path, record: MatchRecord, comments: tuple[str, ...] = ()) -> Path:
    """Write ``record`` as a ``.mat`` file at ``path`` (parents created)."""
    return atomic_write_text(path, format_match(record, comments))


def _format_game(k: int, game: MatchGame, names: tuple[str, str], length: int, jacoby: bool) -> list[str]:
    """gnubg's ``ExportGameJF``: actions alternate columns, two to a numbered line."""
    left = f"{names[0]} : {game.score[0]}"
    out = [f" Game {k}\n", f" {left:<30} {names[1]} : {game.score[1]}\n"]
    i = 0
    if game.actions[0].player == 1:  # player 1 opens: the left column of line 1 stays empty
        out.append(f"{1:3d}) {'':<{_LEFT}} ")
        i = 1
    for action, before, after in walk(game, length, jacoby):
        result = 0
        if action.kind == MOVE:
            text = f"{action.dice[0]}{action.dice[1]}: {_plain(before.board, action.steps)}"
            result = abs(int(game_results(after.board)))
        elif action.kind == DOUBLE:
            text = f" Doubles => {2 * before.state.cube.value}"
        elif action.kind == TAKE:
            text = " Takes"
        else:
            gap = "\n" + " " * 6 if i & 1 else " " * 23
            text = f" Drops{gap}Wins {_points(before.state.cube.value)}"
        out.append(text + "\n" if i & 1 else f"{(i >> 1) + 1:3d}) {text:<{_LEFT}} ")
        if action.kind == PASS:
            out.append("\n" if i & 1 else "\n\n")
        if result:
            lead = " " * 34 if i & 1 else "\n" + " " * 6
            out.append(f"{lead}Wins {_points(result * after.state.cube.value)}\n\n")
        i += 1
    if game.resigned:  # "Wins" in the winner's column, as gnubg's importer reads a resignation
        after_right = not i & 1  # the last action ended its line in the right column
        lead = (" " * 34 if game.winner else " " * 6) if after_right else (" " if game.winner else "\n" + " " * 6)
        out.append(f"{lead}Wins {_points(game.kind * game.cube)}\n\n")
    return out


def _points(n: int) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


def _plain(board: np.ndarray, steps) -> str:
    """gnubg's ``FormatMovePlain``: ``from/to`` per die, ``*`` where a step first lands on a blot.

    Every step but a fourth is followed by a space, trailing ones included, as gnubg writes.
    """
    text, landed = "", set()
    for n, (src, dst) in enumerate(steps):
        hit = dst > 0 and board[1, 24 - dst] > 0 and dst not in landed
        landed.add(dst)
        text += f"{src}/{dst}{'*' if hit else ''}{' ' if n < 3 else ''}"
    return text


# --------------------------------------------------------------------------- reading


MAX_BYTES = 16 * 2**20  # far above any real match (a 25-point match is ~100 kB); /dev/zero is not read forever


def read_text(path, error: type[BgzeroError]) -> str:
    """A match file's text, .mat or SGF: UTF-8 with or without a BOM, other bytes (a latin-1
    name in a comment) read as latin-1, at most :data:`MAX_BYTES` (else ``error``)."""
    with Path(path).open("rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise error(f"{path} is larger than {MAX_BYTES // 2**20} MB: not a match file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:  # gnubg writes player names in the locale's encoding
        return data.decode("latin-1")


def read_mat(path, *, jacoby: bool = False) -> MatchRecord:
    """:func:`parse_match` of the ``.mat`` file at ``path`` (read by :func:`read_text`)."""
    return parse_match(read_text(path, MatFormatError), jacoby=jacoby)


def parse_match(text: str, *, jacoby: bool = False) -> MatchRecord:
    """The match a ``.mat`` text records, replayed and checked; :class:`MatFormatError` otherwise.

    A money session's ``; [Jacoby "On"]`` tag gives its rule; without the tag (gnubg's own
    exports, older files) pass ``jacoby``. The score lines are checked against the rule.
    """
    lines = text.splitlines()
    length, start = _header(lines)
    tag = next((_JACOBY.match(line) for line in lines[:start] if _JACOBY.match(line)), None)
    jacoby = tag[1].lower() == "on" if tag else jacoby
    blocks = _game_blocks(lines, start)
    if not blocks:
        raise MatFormatError("no ' Game 1' line: the file holds no games")
    state = MatchState(length, jacoby=jacoby)
    names, games = None, []
    for k, (first, body) in enumerate(blocks, 1):
        if state.over:
            raise MatFormatError(f"line {first + 1}: game {k} follows the end of the match at {state.score}")
        game_names, score = _score_line(lines, first, body)
        names = names or game_names
        if score != state.score:
            raise MatFormatError(f"line {first + 1}: game {k} starts at {score}, but the games before end at {state.score}")
        game = _replay(lines, body, state, k, last=k == len(blocks))
        if game.winner is None:
            return MatchRecord(length, names, tuple(games), state.score, jacoby, game)
        games.append(game)
        state = award(state, game.winner, game.points)
    return MatchRecord(length, names, tuple(games), state.score, jacoby)


def _header(lines: list[str]) -> tuple[int, int]:
    """The match length and the index of the line after `` N point match``."""
    for n, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        found = _HEADER.match(line)
        if not found:
            raise MatFormatError(f"line {n + 1}: expected ' N point match' (N = 0 for money), got {shown(line.strip())}")
        return int(found.group(1)), n + 1
    raise MatFormatError("no ' N point match' line: not a .mat file")


def _game_blocks(lines: list[str], start: int) -> list[tuple[int, list[int]]]:
    """``(index of the ' Game k' line, indices of its non-blank lines)`` per game, in order."""
    blocks: list[tuple[int, list[int]]] = []
    for n in range(start, len(lines)):
        line = lines[n]
        if line.startswith(" Game "):
            if line[6:].strip() != str(len(blocks) + 1):
                raise MatFormatError(f"line {n + 1}: expected ' Game {len(blocks) + 1}', got {shown(line.strip())}")
            blocks.append((n, []))
        elif line.strip():
            if not blocks:
                raise MatFormatError(f"line {n + 1}: {shown(line.strip())} comes before ' Game 1'")
            blocks[-1][1].append(n)
    return blocks


def _score_line(lines: list[str], first: int, body: list[int]) -> tuple[tuple[str, str], tuple[int, int]]:
    if not body:
        raise MatFormatError(f"line {first + 1}: the game has no score line and no moves")
    found = _SCORES.match(lines[body[0]])
    if not found:
        raise MatFormatError(f"line {body[0] + 1}: expected 'name : score   name : score', got {shown(lines[body[0]].strip())}")
    name0, s0, name1, s1 = found.groups()
    return (_printable(name0), _printable(name1)), (int(s0), int(s1))


def _printable(name: str) -> str:
    """``name`` with control characters as ``_``: an ESC in a file's name would drive the terminal that replays it."""
    return "".join(c if c.isprintable() else "_" for c in name)


def _columns(line: str) -> tuple[str, str]:
    """The left and right column of an action line, split as gnubg's importer (``ImportGame``) does.

    Two colons (two rolls): the right column starts at the second roll. Otherwise at the
    first double space after character 15. The left column drops its ``n)`` number.
    """
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if second > 3:
        left, right = line[:second - 3], line[second - 2:]
    elif len(line) > 15 and (gap := line.find("  ", 15)) >= 0:
        left, right = line[:gap], line[gap + 1:]
    else:
        left, right = line, ""
    return left[left.find(")") + 1:].strip(), right.strip()


def _replay(lines: list[str], body: list[int], state: MatchState, k: int, last: bool) -> MatchGame:
    """Replay one game's action lines from ``state``: its record, or the first rule it breaks.

    The ``last`` game may stop without a winner: an unfinished game (``winner`` ``None``).
    """
    replay = Game(state)
    entries = [(n, player, entry) for n in body[1:] for player, entry in zip((0, 1), _columns(lines[n])) if entry]
    if last and entries and _BARE_ROLL.match(entries[-1][2]):
        entries.pop()  # saved unfinished after a roll, before its play (gnubg writes the roll alone)
    entries = [e for e, after in zip(entries, entries[1:] + [None]) if not (
        after and _BARE_ROLL.match(e[2]) and _WINS.match(after[2]))]  # rolled, then resigned before the play
    for n, player, entry in entries:
        where = f"line {n + 1} (game {k}, {'left' if player == 0 else 'right'} column)"
        try:
            _act(replay, player, entry, where)
        except RuleBroken as e:
            raise MatFormatError(f"{where}: {shown(entry)}: {e}") from None
    if replay.end is None and not last:
        raise MatFormatError(f"line {body[-1] + 1}: game {k} ends without a winner (no bear-off or dropped double)")
    return replay.record()


def _act(replay: Game, player: int, entry: str, where: str) -> None:
    """One column's entry (a roll and its play, a double, an answer, ``Wins``) played into ``replay``."""
    wins = _WINS.match(entry)
    if wins:
        if replay.end is None:  # a resignation: the game is given up, and "Wins" names the winner's column
            replay.resign_written(player, int(wins[1]))
        if int(wins[1]) != replay.end.written:
            raise RuleBroken(f"the replay wins {_points(replay.end.written)}")
        return
    lower = entry.lower()
    if lower.startswith(("take", "drop", "pass")):
        replay.answer(player, lower.startswith("take"))
        return
    roll, double = _ROLL.match(entry), _DOUBLE.match(entry)
    if roll and _WINS.match(roll[3].strip()):  # rolled, then the game was given up before the play
        _act(replay, player, roll[3].strip(), where)
        return
    if roll:
        dice = (max(int(roll[1]), int(roll[2])), min(int(roll[1]), int(roll[2])))
        replay.move(player, dice, _steps(roll[3], where))
    elif double:
        value = replay.double(player)
        if double[1] is not None and int(double[1]) != value:
            raise RuleBroken(f"the cube goes to {value}")
    elif replay.doubler is not None:
        raise RuleBroken("the double must be taken or dropped")
    else:
        raise MatFormatError(f"{where}: cannot read {shown(entry)}: expected a roll 'DD: moves', "
                             "'Doubles => N', 'Takes', 'Drops' or 'Wins N points'")


def _steps(text: str, where: str) -> tuple[tuple[int, int], ...]:
    """``from/to`` steps of the plain format, in gnubg's canonical order (highest first)."""
    steps = []
    for token in text.split():
        found = _STEP.match(token)
        if not found:
            raise MatFormatError(f"{where}: cannot read the step {shown(token)}: expected from/to, like 24/18 or 25/22*")
        steps.append((int(found[1]), int(found[2])))
    return tuple(sorted(steps, reverse=True))
