"""Watching games: every action of a match record with the board, at a chosen pace.

:func:`show_match` draws a :class:`~bgzero.match.record.MatchRecord` action by action (a bot match
just played, ``bgzero-match ... show=true``); :func:`replay_mat` does the same for a
``.mat`` or ``.sgf`` file, read and checked by :mod:`bgzero.match.files`; ``bgzero-replay``
(:mod:`bgzero.cli.replay`) is the command.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from bgzero.cube import TAKE
from bgzero.engine.game import game_results
from bgzero.engine.notation import format_steps
from bgzero.match.files import read_match_file
from bgzero.match.game import start_of, walk
from bgzero.match.record import DOUBLE, MOVE, MatchGame, MatchRecord
from bgzero.ui.render import UNICODE, BoardStyle, describe_score, player_view, render_board


def show_game(game: MatchGame, names, *, number: int = 1, length: int = 0, jacoby: bool = False,
              pace: float = 0.0, out: TextIO | None = None, style: BoardStyle = UNICODE, colour: bool = False,
              sleep: Callable[[float], object] = time.sleep) -> None:
    """Print ``game`` (game ``number`` of a match to ``length``) action by action, each with the board.

    ``sleep(pace)`` runs after each picture; pass a function that waits for a key to step by hand.
    """
    at = start_of(game, length, jacoby)

    def picture(line: str) -> None:
        print(f"\n{line}", file=out)
        turn = None if game_results(at.board) else at.on_roll  # no arrow once the game is over
        print(render_board(player_view(at.board, at.on_roll), names, state=at.state, on_roll=turn, style=style,
                           colour=colour), file=out, flush=True)
        sleep(pace)

    picture(f"Game {number}. {describe_score(at.state, names)}")
    for k, (action, before, at) in enumerate(walk(game, length, jacoby), 1):
        who = names[action.player]
        if action.kind == MOVE:
            text = format_steps(before.board, action.steps)
            assert action.dice is not None  # every move records its roll
            picture(f"{k}. {who} {_verb(who, 'rolls', 'roll')} {action.dice[0]}-{action.dice[1]}: "
                    f"{text or 'cannot move'}")
        elif action.kind == DOUBLE:
            picture(f"{k}. {who} {_verb(who, 'doubles', 'double')} to {2 * before.state.cube.value}")
        elif action.kind == TAKE:
            picture(f"{k}. {who} {_verb(who, 'takes', 'take')}")
        else:
            print(f"\n{k}. {who} {_verb(who, 'passes', 'pass')}", file=out)
    if game.end is None:
        print(f"Game {number} was saved unfinished here.", file=out, flush=True)
        return
    winner = names[game.winner]
    print(f"{winner} {_verb(winner, 'wins', 'win')} {game.points} point{'s' * (game.points != 1)} ({game.end.how}).",
          file=out, flush=True)


def show_match(record: MatchRecord, *, pace: float = 0.0, out: TextIO | None = None, style: BoardStyle = UNICODE,
               colour: bool = False, sleep: Callable[[float], object] = time.sleep) -> None:
    """Every game of ``record`` through :func:`show_game`, then the result."""
    for number, game in enumerate(record.games, 1):
        show_game(game, record.names, number=number, length=record.length, jacoby=record.jacoby, pace=pace,
                  out=out, style=style, colour=colour, sleep=sleep)
    if record.unfinished:
        show_game(record.unfinished, record.names, number=len(record.games) + 1, length=record.length,
                  jacoby=record.jacoby, pace=pace, out=out, style=style, colour=colour, sleep=sleep)
    s0, s1 = record.score
    if record.winner is None and record.length:
        print(f"\nThe {record.length}-point match did not finish: {record.names[0]} {s0}, {record.names[1]} {s1}.",
              file=out)
    elif record.winner is None:
        print(f"\nMoney session over: {record.names[0]} {s0}, {record.names[1]} {s1}.", file=out)
    else:
        print(f"\n{record.names[record.winner]} won the match {s0}-{s1}.", file=out)


def replay_mat(path, pace: float = 0.5, **kwargs) -> MatchRecord:
    """Read the ``.mat`` or ``.sgf`` file at ``path`` and :func:`show_match` it; returns the record."""
    record = read_match_file(path, jacoby=kwargs.pop("jacoby", False))
    show_match(record, pace=pace, **kwargs)
    return record


def _verb(name: str, third: str, second: str) -> str:
    return second if name == "you" else third
