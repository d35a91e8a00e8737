"""bgzero-play driven by a scripted human, its .mat in gnubg, and bgzero-replay."""

import io
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bgzero.agents.base import Agent
from bgzero.agents.specs import make_agent
from bgzero.cube import PASS, TAKE, CubeState, MatchState
from bgzero.engine.board import START
from bgzero.engine.notation import format_steps
from bgzero.match.files import read_match_file
from bgzero.match.mat import read_mat
from bgzero.match.record import DOUBLE, PASSED
from bgzero.ui.play import Hints, PlaySession
from bgzero.ui.render import ASCII, render_board
from bgzero.ui.replay import replay_mat, show_match
from tests.boards import board as pos
from tests.gnubg_program import run_gnubg

ROOT = Path(__file__).resolve().parents[1]
SEED, LENGTH = 5, 3
FIRST = None  # in a script: the first legal move
SECOND = "<the second legal move>"  # in a script: the second


class ScriptedHuman:
    """A stdin that plays the first legal move, after typing ``script`` at the first move prompts.

    ``script`` lines go to the move and confirmation prompts in order (:data:`FIRST` for
    the first legal move); afterwards each move is the first legal one, confirmed. The
    ``cube`` lines go to the prompts before rolling, then it rolls; doubles get
    ``answer``. Every line typed is kept, so the same session can be replayed through
    the real command.
    """

    isatty = staticmethod(lambda: False)

    def __init__(self, script=(), cube=(), answer="take"):
        self.session: PlaySession | None = None
        self.typed: list[str] = []
        self.script, self.cube, self.answer = list(script), list(cube), answer

    def readline(self) -> str:
        s = self.session
        first = s.legal[0].text if s.legal is not None else ""
        if s.asking == "cube":
            line = self.cube.pop(0) if self.cube else "roll"
        elif s.asking in ("move", "confirm") and self.script:
            line = self.script.pop(0)
            line = first if line is FIRST else s.legal[1].text if line == SECOND else line
        elif s.asking == "move":
            line = first
        elif s.asking == "confirm":
            line = ""
        else:
            line = self.answer
        self.typed.append(line)
        return line + "\n"


def _play(human: ScriptedHuman, bot: Agent, **kw) -> tuple[PlaySession, str]:
    out = io.StringIO()
    session = PlaySession(bot, stdin=human, stdout=out, style=ASCII, **kw)
    human.session = session
    session.run()
    return session, out.getvalue()


@pytest.fixture(scope="module")
def scripted(tmp_path_factory, tiny_checkpoint):
    """A whole 3-point match against pubeval: (session, human, output text, .mat path)."""
    mat = tmp_path_factory.mktemp("play") / "session.mat"
    human = ScriptedHuman(["13/1", "hint", FIRST, "undo", FIRST, "ok"], cube=["hint", "double"])
    session, text = _play(human, make_agent("pubeval"), bot_name="pubeval", length=LENGTH, seed=SEED,
                          hints=Hints(f"checkpoint:{tiny_checkpoint}"), save=mat)
    return session, human, text, mat


def test_scripted_human_plays_a_whole_match(scripted):
    session, human, text, mat = scripted
    assert session.state.over and max(session.state.score) == LENGTH
    assert "Illegal: '13/1'" in text and "Legal plays:" in text  # the error lists the alternatives
    assert "EMG (MWC) for you" in text and "equity    diff" in text  # the hint table: a match ranks by MWC
    assert "Proper cube action:" in text  # the cube hint, in bgzero-hint's words
    assert "You double to 2; pubeval takes." in text and "cube 2, owned by pubeval" in text
    assert "Move taken back." in text
    assert "won the match." in text
    first = session.records[0]
    kinds = [a.kind for a in first.actions]
    assert kinds.index(DOUBLE) + 1 == kinds.index(TAKE) and first.actions[kinds.index(DOUBLE)].player == 0
    assert first.cube == 2  # taken, and pubeval never redoubles

    record = read_mat(mat)  # the saved transcript replays under the rules
    assert record.names == ("you", "pubeval") and record.length == LENGTH
    assert record.games == tuple(session.records) and record.score == session.state.score


def test_the_command_replays_the_same_match_from_standard_input(scripted, tiny_checkpoint, tmp_path):
    session, human, _, mat = scripted
    again = tmp_path / "again.mat"
    proc = subprocess.run(
        [sys.executable, "-m", "bgzero.cli.play", "bot=pubeval", f"seed={SEED}", f"length={LENGTH}",
         f"hint=checkpoint:{tiny_checkpoint}", f"save={again}", "board=ascii"],
        input="\n".join(human.typed) + "\n", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert again.read_text() == mat.read_text()
    assert "\x1b[" not in proc.stdout  # colour=auto: no escape codes into a pipe


def test_gnubg_imports_the_saved_match(scripted):
    gnubg = pytest.importorskip("gnubg")
    session, _, _, mat = scripted
    gnubg.command(f"import mat {mat}")
    match = gnubg.match()
    assert len(match["games"]) == len(session.records)
    for game, rec in zip(match["games"], session.records):
        info = game["info"]
        assert (info["winner"], info["points-won"]) == ("XO"[rec.winner], rec.points)  # X is player 0


def test_end_of_input_and_quit_end_the_session_cleanly():
    out = io.StringIO()
    session = PlaySession(make_agent("random:1"), stdin=io.StringIO(""), stdout=out)
    session.run()
    assert "(end of input)" in out.getvalue() and "Session ended." in out.getvalue() and not session.records
    out = io.StringIO()
    PlaySession(make_agent("random:1"), seed=1, stdin=io.StringIO("help\nquit\n"), stdout=out).run()
    assert "resign [s|g|b]" in out.getvalue() and "Session ended." in out.getvalue()


def test_saving_before_any_play_writes_no_file(tmp_path):
    out = io.StringIO()
    bot = make_agent("random:1")
    session = PlaySession(bot, seed=1, stdin=io.StringIO(""), stdout=out)
    session.save(str(tmp_path / "early.mat"))  # no game has started: nothing a reader could load
    assert "Nothing to save yet" in out.getvalue() and not list(tmp_path.iterdir())


def test_resignation_is_accepted_only_at_what_the_bot_can_still_win():
    # at your second turn you have borne off nothing and still have a checker in the bot's home
    human = ScriptedHuman([FIRST, "", "resign", "resign g", "resign backgammon"])
    session, text = _play(human, make_agent("random:1"), length=0, games=1, seed=2)
    assert "declines your resignation of a single game" in text and "of a gammon" in text
    assert [(g.winner, g.kind, g.points) for g in session.records] == [(1, 3, 3)] and session.state.score == (0, 3)


def test_a_resignation_that_wins_the_bot_the_match_is_accepted():
    # the same turn as above, where a single game is refused in money: in a 1-point match it is the match
    human = ScriptedHuman([FIRST, "", "resign"])
    session, text = _play(human, make_agent("random:1"), length=1, seed=2)
    assert "declines" not in text
    assert [(g.winner, g.kind, g.points, g.resigned) for g in session.records] == [(1, 1, 1, True)]


def test_a_network_bot_judges_a_resignation_by_its_equity(tiny_checkpoint):
    # an untrained net's equity is near 0: a single game is more than it expects, so it accepts
    human = ScriptedHuman([FIRST, "", "resign"])
    session, text = _play(human, make_agent(f"checkpoint:{tiny_checkpoint}"), length=0, games=1, seed=2)
    assert "Play the opening roll first" not in text
    assert [(g.winner, g.kind, g.points) for g in session.records] == [(1, 1, 1)]


def test_another_play_typed_at_the_confirm_prompt_replaces_the_first():
    human = ScriptedHuman([FIRST, SECOND, "", "resign backgammon"])
    session, text = _play(human, make_agent("random:1"), length=0, games=1, seed=2)
    second = human.typed[1]
    assert second != human.typed[0] and f"{second}: Enter (or ok) to confirm" in text
    played = session.records[0].actions[0]  # with seed 2 you open, from the start
    assert played.player == 0 and format_steps(START, played.steps) == second


def test_a_cube_word_at_the_move_prompt_says_when_the_cube_is_used():
    human = ScriptedHuman(["double", FIRST, "", "resign backgammon"])
    _, text = _play(human, make_agent("random:1"), length=0, games=1, seed=2)
    assert "'double': the dice are rolled; you double before rolling" in text and "malformed move" not in text


def test_resigning_waits_for_the_opening_roll():
    human = ScriptedHuman(["resign", FIRST, "", "resign backgammon"])
    session, text = _play(human, make_agent("random:1"), length=0, games=1, seed=2)
    assert "Play the opening roll first" in text and session.records[0].kind == 3


class _Doubler(Agent):
    """Doubles whenever it may: exercises the take/pass prompt."""

    name = "doubler"

    def choose(self, boards, dice, moves):
        return moves.offsets[:-1]

    def double_decision(self, boards, states, players):
        return np.ones(len(boards), bool)


def test_passing_a_double_scores_the_cube_before_it():
    session, text = _play(ScriptedHuman(answer="pass"), _Doubler(), length=0, games=2, seed=0)
    assert text.count("doubler doubles to 2.") == 2
    assert [(g.kind, g.winner, g.points, g.actions[-1].kind) for g in session.records] == [(PASSED, 1, 1, PASS)] * 2
    assert session.state.score == (0, 2)
    out = io.StringIO()
    show_match(session.record(), out=out, style=ASCII)
    assert out.getvalue().count("you pass") == 2 and "Money session over: you 0, doubler 2." in out.getvalue()


def test_render_board_shows_stacks_bar_trays_cube_and_score():
    board = pos({6: 7, 8: 2, "bar": 1}, {1: 2, 6: 4, 24: 3})  # player 0 has 5 off, player 1 has 6
    state = MatchState(7, (2, 4), cube=CubeState(2, 1))
    text = render_board(board, ("alice", "bob"), state=state, on_roll=0, dice=(6, 4), style=ASCII)
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["13", "14"] and lines[-1].split()[-1] == "1"
    cells = [line.split("|") for line in lines[2:13]]  # the 11 rows: rim to middle to rim
    assert [row[3][:3] for row in cells[6:]] == [" 7 ", " X ", " X ", " X ", " X "]  # the 6 point, count on top
    assert [row[2] for row in cells[4:7]] == [" X ", "BAR", "   "]  # player 0's bar checker waits up top
    assert "alice: pips 83, off 5  <- on roll, rolled 6-4" in text and "bob: pips" in text
    assert "7-point match: alice 2, bob 4" in text and "cube 2, owned by bob" in text
    assert "[2]" in text and " 5X" in text and " 6O" in text
    assert "\x1b[" in render_board(START, colour=True) and "●" in render_board(START)


def test_replay_shows_every_action_of_a_mat_file(scripted, capsys):
    session, _, _, mat = scripted
    out = io.StringIO()
    record = replay_mat(mat, pace=0, out=out, style=ASCII)
    text = out.getvalue()
    pictures = sum(len(g.actions) for g in record.games) + len(record.games)  # each action and each start
    pictures -= sum(a.kind == PASS for g in record.games for a in g.actions)  # a pass changes no board
    assert text.count("+------------------+---+") == 2 * pictures
    assert "you doubles to 2" not in text and "you double to 2" in text and "pubeval takes" in text
    assert text.rstrip().endswith(f"{session.names[record.winner]} won the match {record.score[0]}-{record.score[1]}.")
    waits = []
    show_match(record, pace=0.25, out=io.StringIO(), style=ASCII, sleep=waits.append)
    assert waits == [0.25] * pictures


@pytest.mark.parametrize("suffix", [".mat", ".sgf"])
def test_a_session_quit_mid_game_saves_the_game_in_progress(tmp_path, suffix):
    path = tmp_path / f"unfinished{suffix}"
    human = ScriptedHuman([FIRST, "", FIRST, "", FIRST, "", FIRST, "", "quit"])
    session, text = _play(human, make_agent("pubeval"), bot_name="pubeval", length=LENGTH, seed=SEED, save=path)
    assert session.playing and "and the game in progress to" in text
    record = read_match_file(path)
    assert record.unfinished is not None and record.unfinished.winner is None
    assert record.unfinished.actions == tuple(session.game.actions) and record.games == tuple(session.records)
    out = io.StringIO()
    replay_mat(path, pace=0, out=out, style=ASCII)  # bgzero-replay reads it back
    assert f"Game {len(record.games) + 1} was saved unfinished here." in out.getvalue()
    if suffix == ".mat":  # and gnubg imports it with the game in progress: its export holds the same game
        again = tmp_path / "again.mat"
        run_gnubg([f"import mat {path}", f"export match mat {again}"])
        assert read_match_file(again).unfinished.actions == record.unfinished.actions


def test_at_a_terminal_lines_can_be_edited_and_recalled(tmp_path):
    main, side = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "bgzero.cli.play", "bot=random:1", "length=1", "seed=1"],
                            stdin=side, stdout=side, stderr=side, cwd=ROOT,
                            env={**os.environ, "TERM": "xterm", "HOME": str(tmp_path)})
    os.close(side)
    # "xelp", then Ctrl-A (start of line), Ctrl-D (delete x), "h": help; then Ctrl-P recalls it; then quit
    keys, out, sent = [b"xelp\x01\x04h\r", b"\x10\r", b"quit\r"], b"", 0
    while proc.poll() is None:
        if select.select([main], [], [], 0.5)[0]:
            try:
                out += os.read(main, 65536)
            except OSError:
                break
        elif keys and len(out) > sent and out.rstrip().endswith((b"?", b":")):  # it waits at a prompt
            os.write(main, keys.pop(0))
            sent = len(out)
    proc.wait(timeout=60)
    text = out.decode(errors="replace")
    assert text.count("resign [s|g|b]") == 2 and "Session ended." in text


def test_a_hint_in_a_match_shows_the_match_winning_chances(tiny_checkpoint):
    hints = Hints(f"checkpoint:{tiny_checkpoint}")
    in_match = hints.moves(START, (3, 1), MatchState(5))
    assert "EMG (MWC)" in in_match[0] and "MWC" in in_match[1] and in_match[2].count("%") == 1
    money = hints.moves(START, (3, 1), MatchState(0))
    assert "MWC" not in money[1] and "%" not in money[2]
