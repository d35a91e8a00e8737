"""A finished match as the pictures the page steps through: one frame per action.

Used to watch two agents play (the server plays the whole match, the page replays it at
its own pace) and to replay an uploaded ``.mat`` file. Boards are player 0's view, as in
:meth:`bgzero.web.games.WebGame.view`: row 0 player 0's checkers, row 1 player 1's.
"""

from __future__ import annotations

from bgzero.cube import TAKE
from bgzero.engine.notation import format_steps
from bgzero.match.game import start_of, walk
from bgzero.match.record import DOUBLE, MOVE, MatchRecord
from bgzero.ui.render import player_view


def frames(record: MatchRecord) -> list[dict]:
    """Every position of every game of ``record``, each with the action that led to it."""
    out = []
    for number, game in enumerate(record.games, 1):

        def frame(text: str, at, dice=None) -> None:
            out.append({"game": number, "text": text, "board": player_view(at.board, at.on_roll).tolist(),
                        "on_roll": at.on_roll, "dice": list(dice) if dice else None, "score": list(game.score),
                        "cube": {"value": at.state.cube.value, "owner": at.state.cube.owner}})

        after = start_of(game, record.length, record.jacoby)
        frame(f"Game {number}: {record.names[0]} {game.score[0]}, {record.names[1]} {game.score[1]}", after)
        for action, before, after in walk(game, record.length, record.jacoby):
            who = record.names[action.player]
            if action.kind == MOVE:
                text = format_steps(before.board, action.steps)
                assert action.dice is not None  # every move records its roll
                frame(f"{who} rolls {action.dice[0]}-{action.dice[1]}: {text or 'cannot move'}", after, action.dice)
            elif action.kind == DOUBLE:
                frame(f"{who} doubles to {2 * before.state.cube.value}", after)
            else:
                frame(f"{who} {'takes' if action.kind == TAKE else 'passes'}", after)
        end = game.end
        assert end is not None  # record.games are the finished games
        frame(f"{record.names[end.winner]} wins {game.points} point{'s' * (game.points != 1)} ({end.how})", after)
    return out


def summary(record: MatchRecord) -> dict:
    """Who played, the length, the final score and the winner, for the page's heading."""
    return {"names": list(record.names), "length": record.length, "score": record.final_score,
            "games": len(record.games), "winner": record.winner}
