"""The match analysis as one self-contained HTML page: each player's statistics, and the board at every error.

Boards are drawn by :func:`bgzero.ui.draw.draw_board` into inline SVG, so the page needs no
other file and no network to show. Errors are the decisions gnubg would mark (doubtful or
worse), in the order they were played.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

from bgzero.analysis.match import MatchAnalysis, format_summary, worst_decisions
from bgzero.atomic import atomic_write_text
from bgzero.cube import from_match_info
from bgzero.engine.ids import board_from_position_id, match_info_from_id
from bgzero.ui.draw import FIGSIZE, draw_board
from bgzero.ui.render import player_view

MAX_BOARDS = 300  # a long session's report stays a few megabytes
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
pre { background: #f6f4ef; padding: 1em; overflow-x: auto; }
.error { border-top: 1px solid #ccc; padding: 1em 0; }
.mark-doubtful { color: #8a6d00; } .mark-bad { color: #b35300; } .mark-very-bad { color: #b00020; }
svg { max-width: 100%; height: auto; }
"""


def board_svg(decision, names) -> str:
    """The position of ``decision`` as an inline ``<svg>`` element, player 0 at the bottom."""
    from matplotlib.figure import Figure

    info = match_info_from_id(decision.match_id)
    on_roll = info.dice_owner
    board = player_view(board_from_position_id(decision.position), on_roll)
    ax = draw_board(board, names, state=from_match_info(info), on_roll=on_roll,
                    dice=decision.dice, ax=Figure(figsize=FIGSIZE).add_subplot())
    buf = io.StringIO()
    ax.figure.savefig(buf, format="svg", bbox_inches="tight", facecolor="white")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def format_report(analysis: MatchAnalysis, names=None) -> str:
    """The HTML page of ``analysis`` (``names``: the two players, for the boards)."""
    names = tuple(names or [p.name for p in analysis.players][:2] or ("player 0", "player 1"))
    errors = sorted(worst_decisions(analysis), key=lambda d: (d.game, d.turn))[:MAX_BOARDS]
    who = {0: names[0], 1: names[-1]}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>bgzero match analysis</title>"
             f"<style>{_STYLE}</style></head><body>",
             f"<h1>Match analysis</h1><p>{html.escape(', '.join(analysis.sources) or 'match')} &mdash; judged by "
             f"{html.escape(analysis.agent)} at {analysis.ply}-ply.</p>",
             f"<pre>{html.escape(format_summary(analysis))}</pre>",
             f"<h2>Errors ({len(errors)})</h2>"]
    for d in errors:
        what = f"rolled {d.dice[0]}{d.dice[1]}, played {d.played or '(no move)'}" if d.dice else f"chose {d.played}"
        mark = d.mark.replace(" ", "-")
        parts.append(
            f"<div class='error'><h3>Game {d.game}, action {d.turn}: {html.escape(who[d.player])} {html.escape(what)}"
            f"</h3><p>Best: <b>{html.escape(d.best)}</b>; equity lost <span class='mark-{mark}'>{d.equity_lost:.3f}"
            f" ({d.mark}{', ' + d.error if d.error else ''})</span>. Position ID {d.position}, Match ID {d.match_id}"
            f"</p>{board_svg(d, names)}</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(path, analysis: MatchAnalysis, names=None) -> Path:
    """Write :func:`format_report` to ``path`` atomically."""
    return atomic_write_text(path, format_report(analysis, names))
