"""Checker play and the cube for the score: the rules a user would notice (docs/rules.md sections 7-8)."""

import numpy as np
import pytest

from bgzero import paths
from bgzero.agents.cube import cube_lives
from bgzero.agents.cubeful import cube_values_at, score_moves
from bgzero.agents.neural import NeuralAgent
from bgzero.analysis.position import cube_analysis, rank_moves
from bgzero.cube import CubeState, MatchState, after_take, cubeful_value, from_match_info, may_double, other_side
from bgzero.engine.board import START
from bgzero.engine.ids import MatchInfo
from bgzero.engine.movegen import generate
from bgzero.engine.notation import format_steps
from bgzero.engine.parse import read_match_id, read_position
from bgzero.match.record import DOUBLE
from bgzero.match.runner import play_matches
from bgzero.value.probs import flip


class TableEvaluator:
    """Probabilities (side on roll) looked up by board, a fixed default for every other board."""

    pruner = None

    def __init__(self, table: dict | None = None, default=(0.5, 0.13, 0.005, 0.13, 0.005)):
        self.table = table or {}
        self.default = np.array(default, np.float32)

    def probs(self, boards: np.ndarray) -> np.ndarray:
        return np.stack([self.table.get(b.tobytes(), self.default) for b in boards]) if len(boards) else \
            np.zeros((0, 5), np.float32)


SAFE = (0.40, 0.0, 0.0, 0.0, 0.0)  # for the mover: fewer wins, no gammon lost
BOLD = (0.45, 0.0, 0.0, 0.40, 0.0)  # more wins, many gammons lost
OTHER = (0.20, 0.0, 0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def two_plays():
    """START with 3-1: play 0 saves the gammon, play 1 wins more often, every other play is poor."""
    moves = generate(START[None], np.array([(3, 1)], np.int8))
    table = {r.tobytes(): flip(np.array(OTHER, np.float32)) for r in moves.results}
    table[moves.results[0].tobytes()] = flip(np.array(SAFE, np.float32))
    table[moves.results[1].tobytes()] = flip(np.array(BOLD, np.float32))
    return moves, TableEvaluator(table)


@pytest.mark.parametrize("state, want", [
    (MatchState(1), 1),  # double match point: only winning counts
    (MatchState(5, (3, 3), cube=CubeState(2, 0)), 1),  # a single win at cube 2 decides the match
    (MatchState(), 0),  # money, cube centred: the gammon saved is worth more
    (None, 0),  # cubeless, as training plays
])
def test_the_gammon_saving_play_loses_to_the_winning_play_when_gammons_are_dead(two_plays, state, want):
    moves, evaluator = two_plays
    agent = NeuralAgent(evaluator)
    if state is None:
        chosen = agent.choose(START[None], np.array([(3, 1)]), moves)
    else:
        chosen = agent.choose_for_score(START[None], np.array([(3, 1)]), moves, [state], [0])
    assert chosen.tolist() == [want]


def test_at_dmp_the_hint_ranks_by_winning_chance(two_plays):
    evaluator = two_plays[1]
    ranked = rank_moves(evaluator, START, (3, 1), state=MatchState(1), player=0)
    assert ranked[0].probs[0] == pytest.approx(BOLD[0]) and ranked[1].probs[0] == pytest.approx(SAFE[0])
    assert [m.mwc for m in ranked[:2]] == pytest.approx([BOLD[0], SAFE[0]])
    assert ranked[0].equity == pytest.approx(2 * BOLD[0] - 1)  # EMG at DMP


@pytest.mark.parametrize("ply", [0, 1])
@pytest.mark.parametrize("trailer_away", [2, 3, 4, 5, 6])
def test_post_crawford_the_trailer_doubles_at_once(ply, trailer_away):
    state = MatchState(7, (6, 7 - trailer_away))  # player 0 won the Crawford game's point or was at 6 already
    assert state.post_crawford and may_double(state, 1) and not may_double(state, 0)
    agent = NeuralAgent(TableEvaluator(), ply=ply)
    assert agent.double_decision(START[None], [state], [1]).tolist() == [True]


def test_a_dead_cube_is_never_offered_in_play():
    """Agents that always want to double: every double recorded is one the doubler's cube is alive for."""
    eager = TableEvaluator(default=(0.72, 0.1, 0.0, 0.02, 0.0))  # the side on roll is always a favourite
    records = play_matches(NeuralAgent(eager), NeuralAgent(eager), range(6), length=5)
    doubles = 0
    for record in records:
        for game in record.games:
            state = MatchState(5, game.score, crawford=game.crawford)
            for action in game.actions:
                if action.kind == DOUBLE:
                    doubles += 1
                    assert not state.crawford and state.score[action.player] + state.cube.value < 5
                    state = MatchState(5, game.score, crawford=game.crawford,
                                       cube=CubeState(2 * state.cube.value, 1 - action.player))
    assert doubles > 0


def test_a_dead_cube_has_no_cube_action_in_the_hint():
    info = MatchInfo(match_length=7, score=(6, 3), dice_owner=0, turn=0)  # the leader, post-Crawford
    cube = cube_analysis(TableEvaluator(), START, info)
    assert cube.decision is None and "already wins the match" in cube.reason


@pytest.mark.parametrize("state", [MatchState(), MatchState(7, (2, 4)), MatchState(7, (3, 3), cube=CubeState(2, 0))])
def test_one_ply_takes_the_opponents_cube_action_at_every_node(state):
    """Every reply is worth the same here, so 1-ply is the opponent's proper 0-ply cube value, seen from the mover."""
    evaluator = TableEvaluator(default=(0.7, 0.2, 0.0, 0.05, 0.0))
    values = cube_values_at(evaluator, START[None], [state], [0], 1)[0][0]
    x = float(cube_lives(START[None])[0])  # every reply is still a contact position
    for got, cube in ((values.no_double, state), (values.double_take, after_take(state, 0))):
        want = other_side(cubeful_value(evaluator.default, cube, 1, x), cube)
        assert got == pytest.approx(want, abs=1e-6)


def test_hint_rows_scored_shallower_never_look_better(tiny_checkpoint):
    from bgzero.value.checkpoint import load_evaluator

    ranked = rank_moves(load_evaluator(tiny_checkpoint), START, (3, 1), ply=2)
    assert {m.ply for m in ranked} >= {0, 2}
    assert max(m.diff for m in ranked) <= 1e-9
    for state in (MatchState(7, (2, 4)), MatchState()):
        assert max(m.diff for m in rank_moves(load_evaluator(tiny_checkpoint), START, (3, 1), ply=1,
                                               state=state)) <= 1e-9


def test_the_issue_example_ranks_as_gnubg_0ply_does():
    """gnubg 0-ply (Debian 1.07) puts 24/23 7/5 7/6 first at DMP; cubeless money equity put 24/23(2) 7/6(2) first.

    gnubg 2-ply prefers 24/23 6/4* 5/4, which the shipped network rates lower at every depth.
    The issue measured stage 2's nets; the shipped file's mover (the role split) chooses
    24/23(2) 7/5 at 0 ply, by the same rule: the most winning chances.
    """
    from bgzero.value.checkpoint import load_evaluator

    evaluator = load_evaluator(paths.CHECKPOINTS / "strong.pt")
    board, state = read_position("vNsGAApwGwDgPQ"), from_match_info(read_match_id("MIEkAAAAAAAE"))
    by_mover = rank_moves(evaluator, board, (1, 1), state=state, player=0)
    assert by_mover[0].probs[0] == max(m.probs[0] for m in by_mover)
    evaluator.mover = None  # stage 2's nets alone
    ranked = rank_moves(evaluator, board, (1, 1), state=state, player=0)
    assert ranked[0].move == "24/23 7/5 7/6"
    assert all(m.mwc == pytest.approx(m.probs[0], abs=1e-6) for m in ranked)  # at DMP only winning counts
    assert rank_moves(evaluator, board, (1, 1))[0].move == "24/23(2) 7/6(2)"
    moves = generate(board[None], np.array([(1, 1)], np.int8))
    scores = score_moves(evaluator, moves, [state], [0], 0)
    assert format_steps(board, [tuple(s) for s in moves.steps[int(np.argmax(scores.value))] if s[0] >= 0]) \
        == "24/23 7/5 7/6"


@pytest.mark.parametrize(("action", "response", "redouble", "words"), [
    ("no double", "take", False, "No double, take"),
    ("too good", "pass", False, "Too good to double, pass"),
    ("too good", "pass", True, "Too good to redouble, pass"),
    ("double, take", "take", True, "Redouble, take"),
    ("double, pass", "pass", False, "Double, pass"),
])
def test_the_proper_action_is_written_as_gnubg_writes_it(action, response, redouble, words):
    from bgzero.cube import CubeDecision, CubeEquities
    from bgzero.ui.hint_text import proper_action

    assert proper_action(CubeDecision(action, response, 0.0, CubeEquities(0, 0, 1)), redouble=redouble) == words
