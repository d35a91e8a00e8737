"""A finished match as the pictures the page steps through: one frame per action.

Used to watch two agents play (the server plays the whole match, the page replays it at
its own pace) and to replay an uploaded ``.mat`` file. Boards are player 0's view, as in
:meth:`bgzero.web.games.WebGame.view`: row 0 player 0's checkers, row 1 player 1's.
"""

from __future__ import annotations

from bgzero.cube import PASS, TAKE, MatchState, after_take
from bgzero.engine.board import START
from bgzero.engine.notation import format_steps, parse_move
from bgzero.match.record import DOUBLE, MOVE, PASSED, MatchRecord
from bgzero.ui.render import KINDS, player_view


def frames(record: MatchRecord) -> list[dict]:
    """Every position of every game of ``record``, each with the action that led to it."""
    out = []
    for number, game in enumerate(record.games, 1):
        state = MatchState(record.length, game.score, crawford=game.crawford, jacoby=record.jacoby)
        board, on_roll = START, game.actions[0].player

        def frame(text: str, dice=None) -> None:
            out.append({"game": number, "text": text, "board": player_view(board, on_roll).tolist(),
                        "on_roll": on_roll, "dice": list(dice) if dice else None, "score": list(game.score),
                        "cube": {"value": state.cube.value, "owner": state.cube.owner}})

        frame(f"Game {number}: {record.names[0]} {game.score[0]}, {record.names[1]} {game.score[1]}")
        for action in game.actions:
            who = record.names[action.player]
            if action.kind == MOVE:
                text = format_steps(board, action.steps)
                board = parse_move(board, action.dice, text)
                on_roll = 1 - action.player
                frame(f"{who} rolls {action.dice[0]}-{action.dice[1]}: {text or 'cannot move'}", action.dice)
            elif action.kind == DOUBLE:
                doubler = on_roll = action.player
                frame(f"{who} doubles to {2 * state.cube.value}")
            elif action.kind == TAKE:
                state = after_take(state, doubler)
                frame(f"{who} takes")
            elif action.kind == PASS:
                frame(f"{who} passes")
        how = "double passed" if game.kind == PASSED else KINDS[game.kind]
        frame(f"{record.names[game.winner]} wins {game.points} point{'s' * (game.points != 1)} ({how})")
    return out


def final_score(record: MatchRecord) -> list[int]:
    """The score as gnubg shows it: the last game's points added in full, where the match state
    stops at the length (a gammon won at 2-away in a 3-point match ends 4-x, not 3-x)."""
    if not record.length or not record.games:
        return list(record.score)
    last = record.games[-1]
    score = list(last.score)
    score[last.winner] += last.points
    return score


def summary(record: MatchRecord) -> dict:
    """Who played, the length, the final score and the winner, for the page's heading."""
    return {"names": list(record.names), "length": record.length, "score": final_score(record),
            "games": len(record.games), "winner": record.winner}
