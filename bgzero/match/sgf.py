"""GNU Backgammon's SGF match files (``save match FILE.sgf``, ``load match FILE.sgf``), read and written.

gnubg saves a match as one SGF game tree per game, each ``(;FF[4]GM[6]...)``: the root node
holds the match (``MI[length:N][game:K][ws:S0][bs:S1]``, the scores before the game), the
names (``PW`` player 0, ``PB`` player 1), the rules (``RU[Crawford]``, ``RU[Crawford:CrawfordGame]``
in the Crawford game, ``RU[Jacoby]`` in money) and the result (``RE[W+2]``; ``RE[B+4R]`` when
the loser resigned, a resignation having no node of its own). Then one node per action:
``;W[52mhxv]`` the dice (larger first) and a ``from``/``to`` letter pair per die, ``;B[54]`` a
roll that cannot be played, ``;W[double]``, ``;B[take]``, ``;B[drop]``. Letters ``a``-``x`` are
W's points 1-24, ``y`` the bar and ``z`` off, all from W's side, so B's point ``p`` is the
letter of ``25 - p``. Other properties (gnubg's analysis ``A``, ``DA``, marks, comments) are
skipped on reading. The last game may have no ``RE``: a game saved unfinished.

:func:`parse_sgf` replays every game under the rules (:mod:`bgzero.match.game`: turns,
legal plays, legal doubles; and the scores adding up), so a file that reads is a match that
was played; anything else is a :class:`SgfFormatError` naming the game and node.
"""

from __future__ import annotations

import re
from pathlib import Path

from bgzero.atomic import atomic_write_text
from bgzero.cube import PASS, TAKE, MatchState, award
from bgzero.errors import BgzeroError
from bgzero.match.game import Game, RuleBroken
from bgzero.match.mat import read_text
from bgzero.match.record import DOUBLE, MOVE, Action, MatchGame, MatchRecord

COLOURS = "WB"  # players 0 and 1
_LETTERS = "abcdefghijklmnopqrstuvwx"  # W's points 1-24
_BAR, _OFF = "y", "z"
# One SGF token: a tree's bounds, a node, a property name or one bracketed value (escapes kept).
_TOKEN = re.compile(r"\s*(?:(?P<open>\()|(?P<close>\))|(?P<node>;)|(?P<key>[A-Za-z]+)|\[(?P<value>(?:\\.|[^\]\\])*)\])",
                    re.S)
_ESCAPE = re.compile(r"\\(\r\n|\n|.)", re.S)
_RESULT = re.compile(r"([WB])\+(\d+)(R?)$", re.ASCII)
_MOVE = re.compile(r"([1-6])([1-6])([a-z]*)$")


class SgfFormatError(BgzeroError, ValueError):
    """An SGF text that is not a backgammon match bgzero can replay; the message says where."""


# --------------------------------------------------------------------------- points


def point_letter(player: int, point: int) -> str:
    """The SGF letter of ``player``'s own point (25 the bar, 0 off)."""
    if point == 25:
        return _BAR
    if point == 0:
        return _OFF
    return _LETTERS[point - 1 if player == 0 else 24 - point]


def letter_point(player: int, letter: str) -> int:
    """``player``'s own point for an SGF letter: the inverse of :func:`point_letter`."""
    if letter == _BAR:
        return 25
    if letter == _OFF:
        return 0
    index = _LETTERS.index(letter)
    return index + 1 if player == 0 else 24 - index


# --------------------------------------------------------------------------- writing


def format_sgf(record: MatchRecord, application: str = "bgzero") -> str:
    """The SGF text of ``record``, one game tree per game, as gnubg's ``load match`` reads it."""
    games = record.games + ((record.unfinished,) if record.unfinished else ())
    return "".join(_format_game(record, k, game, application) for k, game in enumerate(games))


def write_sgf(path, record: MatchRecord) -> Path:
    """Write ``record`` as an SGF file at ``path`` (parents created, atomically)."""
    return atomic_write_text(path, format_sgf(record))


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def _format_game(record: MatchRecord, k: int, game: MatchGame, application: str) -> str:
    rules = "Crawford:CrawfordGame" if game.crawford else "Crawford" if record.length else (
        "Jacoby" if record.jacoby else "")
    result = "" if game.winner is None else f"RE[{COLOURS[game.winner]}+{game.points}{'R' if game.resigned else ''}]"
    root = (f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]MI[length:{record.length}][game:{k}]"
            f"[ws:{game.score[0]}][bs:{game.score[1]}]PW[{_escape(record.names[0])}]PB[{_escape(record.names[1])}]"
            + (f"RU[{rules}]" if rules else "") + f"{result}\n")
    nodes = [f";{COLOURS[a.player]}[{_action_value(a)}]\n" for a in game.actions]
    return root + "".join(nodes) + ")\n"


def _action_value(action: Action) -> str:
    if action.kind == MOVE:
        hops = "".join(point_letter(action.player, s) + point_letter(action.player, d) for s, d in action.steps)
        return f"{action.dice[0]}{action.dice[1]}{hops}"
    return {DOUBLE: "double", TAKE: "take", PASS: "drop"}[action.kind]


# --------------------------------------------------------------------------- reading


def read_sgf(path) -> MatchRecord:
    """:func:`parse_sgf` of the file at ``path``."""
    return parse_sgf(read_text(path, SgfFormatError))


def parse_sgf(text: str) -> MatchRecord:
    """The match an SGF text records, every game replayed and checked."""
    trees = _game_trees(text)
    if not trees:
        raise SgfFormatError("no '(;' game tree: not an SGF file")
    names, length, jacoby, state, games = None, None, False, None, []
    for k, nodes in enumerate(trees, 1):
        if not nodes:
            raise SgfFormatError(f"game {k}: an empty game tree '()'")
        root = nodes[0]
        if root.get("GM", ["6"])[0] != "6":
            raise SgfFormatError(f"game {k}: GM[{_shown(root['GM'][0])}] is not backgammon (GM[6])")
        info = _match_info(root, k)
        if state is None:
            length, jacoby = info["length"], "Jacoby" in root.get("RU", [""])[0]
            names = (root.get("PW", ["white"])[0], root.get("PB", ["black"])[0])
            state = MatchState(length, jacoby=jacoby)
        if state.over:
            raise SgfFormatError(f"game {k} follows the end of the match at {state.score}")
        if info["length"] != length or (info["ws"], info["bs"]) != state.score:
            raise SgfFormatError(f"game {k}: MI says length {info['length']} at {info['ws']}-{info['bs']}, but the "
                                 f"games before end at {state.score} in a {length}-point match")
        game = _replay(k, nodes[1:], state, _result(root, k), last=k == len(trees))
        if game.winner is None:
            return MatchRecord(length, names, tuple(games), state.score, jacoby, game)
        games.append(game)
        state = award(state, game.winner, game.points)
    return MatchRecord(length, names, tuple(games), state.score, jacoby)


def _game_trees(text: str) -> list[list[dict[str, list[str]]]]:
    """The game trees of an SGF text, each a list of nodes ``{property: [values]}``.

    A tokenizer, not a split: ``;``, ``(`` and ``)`` inside a value (a player named ``al;ice``,
    a comment) are text. gnubg writes one flat tree per game; a variation is refused.
    """
    trees: list[list[dict[str, list[str]]]] = []
    tree: list[dict[str, list[str]]] | None = None
    node: dict[str, list[str]] | None = None
    key: str | None = None
    pos, end = 0, len(text.rstrip())
    if text.startswith("\ufeff"):
        pos = 1
    if not text[pos:].lstrip().startswith("("):
        raise SgfFormatError("no '(;' game tree: not an SGF file")
    while pos < end:
        token = _TOKEN.match(text, pos)
        if token is None:
            raise SgfFormatError(f"unexpected {text[pos:pos + 10].strip()!r} at character {pos}: not SGF")
        pos = token.end()
        kind = token.lastgroup
        if kind != "value" and key is not None and not node[key]:
            raise SgfFormatError(f"property {key} before character {token.start(kind)} has no value")
        if kind == "open":
            if tree is not None:
                raise SgfFormatError(f"a variation at character {token.start('open')}: gnubg's matches have none")
            tree, node, key = [], None, None
        elif kind == "close":
            if tree is None:
                raise SgfFormatError(f"')' at character {token.start('close')} closes no game tree")
            trees.append(tree)
            tree, node, key = None, None, None
        elif kind == "node":
            if tree is None:
                raise SgfFormatError(f"';' at character {token.start('node')} outside a game tree")
            node, key = {}, None
            tree.append(node)
        elif kind == "key":
            if node is None:
                raise SgfFormatError(f"property {token['key']} at character {token.start('key')} outside a node")
            key = "".join(c for c in token["key"] if c.isupper())  # FF[3]'s lower-case letters are not part of it
            node.setdefault(key, [])
        else:
            if key is None:
                raise SgfFormatError(f"a value at character {token.start('value')} follows no property name")
            node[key].append(_ESCAPE.sub(lambda m: "" if m[1] in ("\n", "\r\n") else m[1], token["value"]))
    if tree is not None:
        raise SgfFormatError(f"game {len(trees) + 1} is not closed by ')': the file is cut short")
    return trees


def _shown(value: str, most: int = 24) -> str:
    """A value as an error message quotes it: one line, escapes visible, cut at ``most`` characters."""
    return repr(value[:most])[1:-1] + ("..." if len(value) > most else "")


def _match_info(root: dict, k: int) -> dict[str, int]:
    info = {}
    for value in root.get("MI", []):
        key, _, number = value.partition(":")
        if number.strip().lstrip("-").isascii() and number.strip().lstrip("-").isdigit():
            info[key.strip()] = int(number)
    missing = [key for key in ("length", "ws", "bs") if key not in info]
    if missing:
        raise SgfFormatError(f"game {k}: the root node's MI property lacks {', '.join(missing)}")
    return info


def _result(root: dict, k: int) -> tuple[int, int, bool] | None:
    """(winner, points, resigned) from ``RE``, or ``None`` when the file gives none."""
    value = root.get("RE", [""])[0].strip()
    if not value:
        return None
    found = _RESULT.match(value)
    if not found:
        raise SgfFormatError(f"game {k}: cannot read the result RE[{_shown(value)}]; expected W+N or B+N, R for a resignation")
    return COLOURS.index(found[1]), int(found[2]), bool(found[3])


def _replay(k: int, nodes: list[dict], state: MatchState, result, last: bool) -> MatchGame:
    """Replay one game's action nodes from ``state``: its record, or the first rule it breaks.

    The ``last`` game may stop without a result: an unfinished game (``winner`` ``None``).
    A resignation has no node: ``RE`` ends the game (``R``) where the nodes leave it open.
    """
    replay = Game(state)
    for n, node in enumerate(nodes, 1):
        colour = next((c for c in COLOURS if c in node), None)
        if colour is None:
            if any(key in node for key in ("AB", "AW", "AE")):
                raise SgfFormatError(f"game {k}, node {n}: set-up positions are not read, only matches played out")
            continue
        where = f"game {k}, node {n} ({colour}[{_shown(node[colour][0])}])"
        player, value = COLOURS.index(colour), node[colour][0].strip().lower()
        try:
            _act(replay, player, value, where)
        except RuleBroken as e:
            raise SgfFormatError(f"{where}: {e}") from None
    end = replay.end
    if end is None and result is None and last:
        return replay.record()
    if end is None:
        if result is None or not result[2]:
            raise SgfFormatError(f"game {k} ends without a winner (no bear-off, dropped double or resignation)")
        try:
            replay.resign_written(result[0], result[1])
        except RuleBroken as e:
            raise SgfFormatError(f"game {k}: RE[{COLOURS[result[0]]}+{result[1]}R]: {e}") from None
    elif result is not None and (result[0], result[1]) != (end.winner, end.points):
        raise SgfFormatError(f"game {k}: RE says {COLOURS[result[0]]}+{result[1]}, but the replay gives "
                             f"{COLOURS[end.winner]}+{end.points}")
    return replay.record()


def _act(replay: Game, player: int, value: str, where: str) -> None:
    """One action node's value (``52mhxv``, ``double``, ``take``, ``drop``) played into ``replay``."""
    if value in ("take", "drop", "pass"):
        replay.answer(player, value == "take")
    elif value == "double":
        replay.double(player)
    else:
        found = _MOVE.match(value)
        if not found or len(found[3]) % 2 or any(ch not in _LETTERS + _BAR + _OFF for ch in found[3]):
            raise SgfFormatError(f"{where}: expected dice and letter pairs (like 52mhxv), double, take or drop")
        dice = (max(int(found[1]), int(found[2])), min(int(found[1]), int(found[2])))
        hops = found[3]
        replay.move(player, dice, tuple(sorted(((letter_point(player, hops[i]), letter_point(player, hops[i + 1]))
                                                for i in range(0, len(hops), 2)), reverse=True)))
