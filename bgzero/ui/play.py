"""A person against an agent in the terminal: the board picture, the commands and the game loop.

:class:`PlaySession` reads commands from any text stream and writes to another, so a pipe
or a test drives a whole match with the same code a person uses at the keyboard. The
person is player 0 (the left column of the ``.mat`` transcript, the bottom of the board)
and the bot player 1; every action is recorded as :mod:`bgzero.match.record` records, so the
match saves as a ``.mat`` or ``.sgf`` file (:mod:`bgzero.match.files`) that GNU Backgammon loads.

Boards are drawn by :mod:`bgzero.ui.render`, from player 0's side whoever is on roll.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.pubeval import pubeval_scores
from bgzero.agents.specs import parse_spec
from bgzero.analysis.position import cube_analysis, equity_label, evaluator_from_spec, rank_moves
from bgzero.cube import MatchState, to_match_info
from bgzero.engine.board import swap_sides
from bgzero.engine.classify import is_race
from bgzero.engine.movegen import generate
from bgzero.engine.notation import format_steps
from bgzero.errors import BgzeroError, IllegalMoveError
from bgzero.match.files import write_match_file
from bgzero.match.record import PASSED, MatchRecord
from bgzero.ui.hint_text import cube_lines, moves_table
from bgzero.ui.person_match import ANSWER, MOVING, NEXT, OVER, ROLL, GameActionError, PersonMatch
from bgzero.ui.render import UNICODE, BoardStyle, describe_score, player_view, render_board

_RESIGN_WORDS = {"": 1, "s": 1, "single": 1, "n": 1, "normal": 1, "1": 1,
                 "g": 2, "gammon": 2, "2": 2, "b": 3, "backgammon": 3, "3": 3}
_SHOWN_LEGAL = 8
_CUBE_WORDS = {"double", "d", "take", "t", "pass", "p", "drop", "redouble", "beaver"}


# --------------------------------------------------------------------------- hints


class Hints:
    """What ``hint`` answers with: a network's ranked moves and cube actions, else pubeval's ranking.

    pubeval scores moves but has no probabilities, so without a network there are move
    scores (not equities) and no cube advice.
    """

    def __init__(self, spec: str | None = None, shown: int = 8):
        self.spec = spec
        self.evaluator, self.ply = evaluator_from_spec(spec) if spec else (None, 0)
        self.shown = shown

    @classmethod
    def for_bot(cls, bot_spec: str, hint_spec: str | None, shown: int = 8) -> Hints:
        """The ``hint_spec`` network, else the bot's own when it is a checkpoint, else pubeval."""
        if hint_spec is None and parse_spec(bot_spec)[0] == "checkpoint":
            hint_spec = bot_spec
        return cls(hint_spec, shown)

    def moves(self, board: np.ndarray, dice, state: MatchState | None = None) -> list[str]:
        """The legal plays of ``dice``, best first, as a table for you (player 0) on roll in ``board`` and ``state``."""
        if self.evaluator is None:
            return self._pubeval_moves(board, dice)
        ranked = rank_moves(self.evaluator, board, dice, self.ply, state=state, player=0)
        return ([f"{self.spec} at {self.ply}-ply, {equity_label(state)} for you:"]
                + moves_table(ranked[: self.shown]) + self._more(len(ranked)))

    def _pubeval_moves(self, board: np.ndarray, dice) -> list[str]:
        moves = generate(board[None], np.array([dice], np.int8))
        scores = pubeval_scores(swap_sides(moves.results), np.repeat(is_race(board[None]), len(moves.results)))
        order = np.argsort(-scores, kind="stable")
        lines = ["pubeval's ranking (scores, not equities; hint=checkpoint:PATH gives equities):",
                 "  #  move                       score"]
        for k, i in enumerate(order[: self.shown], 1):
            text = format_steps(board, moves.steps_of(i))
            lines.append(f"{k:3d}  {text or '(no move)':<24} {scores[i]:+8.3f}")
        return lines + self._more(len(order))

    def _more(self, n: int) -> list[str]:
        return [f"  ... and {n - self.shown} more"] if n > self.shown else []

    def cube(self, board: np.ndarray, state: MatchState, doubler: int, doubled: bool) -> list[str]:
        """The cube action for ``doubler``, on roll in ``board`` before rolling; the answer if ``doubled``."""
        if self.evaluator is None:
            return ["no cube hint without a network: pass hint=checkpoint:PATH"]
        info = to_match_info(state, on_roll=doubler, turn=1 - doubler if doubled else doubler, double_offered=doubled)
        return cube_lines(cube_analysis(self.evaluator, board, info, self.ply), info)


# --------------------------------------------------------------------------- the session


class _Quit(Exception):
    """The person quit, or the input ended."""


HELP = """\
Commands (any case):
  24/18 13/11      a move in gnubg notation: bar/22*, 6/off, 13/7(2); then Enter (or ok) to
                   confirm it, undo to take it back, or another play instead
  roll, Enter      roll the dice (when you could double instead)
  double           offer the cube before rolling
  take, pass       answer a double
  hint             the bot's ranked moves, or the cube action
  resign [s|g|b]   resign a single game (default), a gammon or a backgammon
  board            draw the board again
  save [FILE]      save the match so far, the game in progress too, as .mat or .sgf
  help             this list
  quit             end the session (Ctrl-D too)"""


class PlaySession(PersonMatch):
    """A match (``length`` points) or money session (``length`` 0, ``games`` games, 0 = until quit).

    ``stdin`` and ``stdout`` are any text streams; when ``stdin`` is not a terminal each
    line read is echoed, so a scripted session's output reads like a typed one. The dice
    come only from ``seed``: the same seed and the same input replay the same match.
    With ``save`` the match is written there (``.mat`` or ``.sgf``) after every game and when
    the session ends, a game in progress included.
    :attr:`asking` and :attr:`legal` tell a scripted player what is asked.
    """

    def __init__(self, bot: Agent, *, bot_name: str | None = None, name: str = "you", length: int = 5,
                 games: int = 0, jacoby: bool = False, seed: int = 0, hints: Hints | None = None,
                 confirm: bool = True, style: BoardStyle = UNICODE, colour: bool = False,
                 save: str | Path | None = None, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout):
        super().__init__(bot, (name, bot_name or bot.name), length=length, games=games, jacoby=jacoby, seed=seed)
        self.hints = hints or Hints()
        self.confirm, self.style, self.colour = confirm, style, colour
        self.save_path = Path(save) if save else None
        self.stdin, self.stdout = stdin, stdout
        self.echo = not stdin.isatty()
        # at a terminal, input() with readline loaded gives line editing and this session's history
        self.readline = stdin is sys.stdin and stdout is sys.stdout and stdin.isatty()
        if self.readline:
            import readline  # noqa: F401  (loading it is what makes input() edit lines)
        self.asking: str | None = None  # the prompt waiting for input: "cube", "move", "confirm" or "answer"
        self.legal = None  # the LegalMoves of the roll to play while asking "move"

    # ---- plumbing

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.stdout)

    def ask(self, prompt: str, awaiting: str) -> str:
        """One line of input, stripped; :class:`_Quit` at end of input or on ``quit``."""
        self.asking = awaiting
        if self.readline:
            try:
                line = input(prompt) + "\n"
            except EOFError:
                line = ""
        else:
            self.stdout.write(prompt)
            self.stdout.flush()
            line = self.stdin.readline()
        if not line:
            self.say("", "(end of input)")
            raise _Quit
        if self.echo:
            self.say(line.rstrip("\n"))
        text = line.strip()
        if text.lower() in ("quit", "exit", "q"):
            raise _Quit
        return text

    def show(self, dice=None) -> None:
        self.say("", render_board(player_view(self.board, self.player), self.names, state=self.state,
                                  on_roll=self.player, dice=dice, style=self.style, colour=self.colour), "")

    def common(self, text: str) -> bool:
        """Handle the commands every prompt knows; False if ``text`` is none of them."""
        word, _, rest = text.partition(" ")
        word = word.lower()
        if word in ("help", "?"):
            self.say(HELP)
        elif word == "board":
            self.show(self.dice)
        elif word == "save":
            self.save(rest.strip() or None)
        elif word == "resign":
            self.resign(rest.strip().lower())
        else:
            return False
        return True

    # ---- the match

    def run(self) -> MatchRecord:
        """Play until the match is over (or the session's games are played, or the person quits)."""
        kind = f"a {self.state.match_length}-point match" if self.state.match_length else "a money session"
        self.say(f"bgzero-play: {self.names[0]} against {self.names[1]}, {kind}, seed {self.seed}. "
                 "Type help for the commands.")
        asks = {NEXT: self.next_game, ROLL: self.ask_cube, ANSWER: self.ask_answer, MOVING: self.ask_move}
        try:
            while self.awaiting != OVER:
                asks[self.awaiting]()
        except _Quit:
            self.say("Session ended.")
            if self.save_path and self.playing:
                self.save(None)
        self.asking = None
        self.say(describe_score(self.state, self.names))
        if self.state.over:
            self.say("You won the match." if self.state.score[0] >= self.state.match_length
                     else f"{self.names[1]} won the match.")
        return self.record()

    def do(self, action: str, move=None, level: int = 1) -> None:
        """One action of the person; the match is saved after each game that ends."""
        games = len(self.records)
        try:
            self.act(action, move, level)
        except GameActionError as e:
            self.say(f"{str(e)[0].upper()}{str(e)[1:]}.")
            return
        if len(self.records) > games and self.save_path:
            self.save(None)

    def next_game(self) -> None:
        self.say("")
        self.do("next")

    def game_ending(self) -> None:
        """A game borne off ends on its last board."""
        if self.game.end.kind != PASSED and not self.game.end.resigned:
            self.say("", render_board(player_view(self.board, self.player), self.names, state=self.state,
                                      style=self.style, colour=self.colour), "")

    # ---- the cube

    def ask_cube(self) -> None:
        """Before rolling the person may double; the bot takes or passes."""
        self.show()
        while True:
            text = self.ask("Roll or double? ", "cube").lower()
            if text in ("", "roll", "r", "double", "d"):
                self.do("double" if text.startswith("d") else "roll")
                return
            if text == "hint":
                self.say(*self.hints.cube(self.board, self.state, 0, doubled=False))
            elif not self.common(text):
                self.say(f"{text!r}: type roll (or just Enter), double, hint or help")
            if self.awaiting != ROLL:  # resigned
                return

    def ask_answer(self) -> None:
        """The bot has doubled: take or pass."""
        self.show()
        while True:
            text = self.ask("Take or pass? ", "answer").lower()
            if text in ("take", "t", "pass", "p", "drop"):
                self.do("take" if text.startswith("t") else "pass")
                return
            if text == "hint":
                self.say(*self.hints.cube(self.board, self.state, 1, doubled=True))
            elif not self.common(text):
                self.say(f"{text!r}: type take, pass, hint or help")
            if self.awaiting != ANSWER:  # resigned
                return

    # ---- moves

    def ask_move(self) -> None:
        self.legal = self.legal_moves()
        self.show(self.dice)
        while self.awaiting == MOVING:  # until a play, or a resignation
            text = self.ask(f"Your move ({self.dice[0]}-{self.dice[1]}): ", "move")
            if text.lower() == "hint":
                self.say(*self.hints.moves(self.board, self.dice, self.state))
                continue
            if not text or self.common(text):
                continue
            if text.lower() in _CUBE_WORDS:
                self.say(f"{text!r}: the dice are rolled; you double before rolling, at the 'Roll or double?' "
                         "prompt, and take or pass when the bot doubles. Type your move, or hint.")
                continue
            try:
                move = self.legal.parse(text)
            except IllegalMoveError as e:
                self.say(f"Illegal: {e}")
                if "legal plays" not in str(e):
                    shown = [m.text for m in self.legal[:_SHOWN_LEGAL]]
                    more = f" and {len(self.legal) - _SHOWN_LEGAL} more" if len(self.legal) > _SHOWN_LEGAL else ""
                    self.say(f"Legal plays: {', '.join(shown)}{more}")
                continue
            if self.confirm:
                move = self.confirmed(move)
                if move is None:
                    self.say("Move taken back.")
                    self.show(self.dice)
                    continue
            self.legal = None
            self.do("move", move)
            return

    def confirmed(self, move):
        """Show the position after ``move``: the move to play on Enter/ok, ``None`` on undo.
        Another legal play typed here replaces it, and is shown in turn."""
        shown = None
        while True:
            if move is not shown:
                self.say("", render_board(swap_sides(move.result.board), self.names, state=self.state,
                                          style=self.style, colour=self.colour))
                shown = move
            text = self.ask(f"{move.text}: Enter (or ok) to confirm, undo to take it back: ", "confirm")
            word = text.lower()
            if word in ("", "ok", "y", "yes", "confirm"):
                return move
            if word in ("undo", "u", "n", "no"):
                return None
            if word == "hint":
                self.say(*self.hints.moves(self.board, self.dice, self.state))
            elif not self.common(text):
                try:
                    move = self.legal.parse(text)
                except IllegalMoveError:
                    self.say(f"{text!r}: press Enter (or type ok) to play {move.text}, undo, or type another legal play")

    # ---- resigning and saving

    def resign(self, word: str) -> None:
        """Offer to resign; the bot accepts when the offer is at least what it expects to win."""
        level = _RESIGN_WORDS.get(word)
        if level is None:
            self.say(f"resign {word!r}: say resign, resign gammon or resign backgammon")
            return
        self.do("resign", level=level)

    def save(self, path: str | None) -> None:
        record = self.record()
        if record.empty:
            self.say("Nothing to save yet: no game has an action (a file without a game reads nowhere).")
            return
        target = Path(path) if path else self.save_path or Path("bgzero-play.mat")
        bot = self.names[1] if self.bot.name == self.names[1] else f"{self.names[1]} ({self.bot.name})"
        comment = f"bgzero-play: {self.names[0]} against {bot}, seed {self.seed}"
        try:
            write_match_file(target, record, comments=(comment,))
        except BgzeroError as e:  # a directory, no permission: say so, and play on
            self.say(f"Not saved: {e}. Type save FILE.mat to save elsewhere.")
            return
        unfinished = " and the game in progress" if record.unfinished else ""
        self.say(f"Saved {len(self.records)} finished game{'s' * (len(self.records) != 1)}{unfinished} to {target}.")
