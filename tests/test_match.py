"""Matches with the cube: the rules' match flow, seeds and processes, statistics, agents' cube play."""

import json

import numpy as np
import pytest

from bgzero.agents.cube import cube_actions, cube_lives
from bgzero.agents.neural import NeuralAgent
from bgzero.agents.pubeval import PubevalAgent
from bgzero.agents.random import RandomAgent
from bgzero.cli.match import run
from bgzero.cube import GNUBG_SHALLOW, PASS, TAKE, MatchState, award, may_double
from bgzero.engine.board import START, pip_counts
from bgzero.match import runner as match_module
from bgzero.match.mat import read_mat
from bgzero.match.record import DOUBLE, MOVE, PASSED
from bgzero.match.runner import play_matches, play_matches_from_specs, summarise_matches, wilson_interval
from tests.boards import board as pos
from tests.conftest import compose_config


class PipCube:
    """Cube play by the pip count, so that doubles, takes and drops all happen: a test double.

    Doubles with a lead of 12 pips or more; takes unless 35 or more behind.
    """

    def double_decision(self, boards, states, players):
        pips = pip_counts(boards)
        return pips[:, 1] - pips[:, 0] >= 12

    def take_decision(self, boards, states, players):
        pips = pip_counts(boards)
        return pips[:, 1] - pips[:, 0] < 35


class RandomCube(PipCube, RandomAgent):
    pass


class PubevalCube(PipCube, PubevalAgent):
    pass


@pytest.fixture(scope="module")
def five_point():
    return play_matches(RandomCube(1), RandomCube(2), range(6), length=5)


def test_match_flow_follows_the_rules(five_point):
    seen = []
    for record in five_point:
        state = MatchState(5)
        for k, game in enumerate(record.games):
            assert (game.score, game.crawford) == (state.score, state.crawford)
            kinds = [a.kind for a in game.actions]
            seen += kinds + ["crawford"] * game.crawford
            first_at_4 = max(game.score) == 4 and not any(max(g.score) == 4 for g in record.games[:k])
            assert game.crawford == first_at_4  # rule 30
            if game.crawford:
                assert DOUBLE not in kinds  # rule 30
            cube = 1
            for prev, action in zip(game.actions, game.actions[1:]):
                if prev.kind == DOUBLE:
                    assert action.kind in (TAKE, PASS) and action.player == 1 - prev.player
                    cube *= 2
                elif action.kind == MOVE:
                    assert action.player == 1 - prev.player or prev.kind == TAKE
            assert game.cube == (cube // 2 if game.kind == PASSED else cube)
            if game.kind == PASSED:
                assert kinds[-1] == PASS and game.points == game.cube
            else:
                assert kinds[-1] == MOVE and game.actions[-1].player == game.winner
                assert game.points == game.kind * game.cube
            state = award(state, game.winner, game.points)
        assert record.score == state.score and record.winner == state.score.index(5)
    for kind in (DOUBLE, TAKE, PASS, "crawford"):
        assert kind in seen


def test_lockstep_matches_equal_matches_played_alone():
    together = play_matches(PubevalCube(), PubevalCube(), [3, 4, 5], length=3)
    alone = [play_matches(PubevalCube(), PubevalCube(), [seed], length=3)[0] for seed in (3, 4, 5)]
    assert together == alone
    assert any(a.kind == DOUBLE for r in together for g in r.games for a in g.actions)


def test_money_session_scores_running_totals_with_jacoby():
    records = play_matches(RandomCube(3), RandomCube(4), range(3), length=0, games=4, jacoby=True)
    for record in records:
        assert len(record.games) == 4 and record.winner is None
        total = [0, 0]
        for game in record.games:
            assert game.score == tuple(total)
            centred = not any(a.kind == TAKE for a in game.actions)
            if game.kind != PASSED:
                assert game.points == (1 if centred else game.kind) * game.cube  # Jacoby: gammons single while centred
            total[game.winner] += game.points
        assert record.score == tuple(total)


@pytest.mark.slow  # spawning workers that import torch takes half a minute on a busy machine
def test_results_do_not_depend_on_the_process_count():
    one, _ = play_matches_from_specs("pubeval", "random:3", 4, length=1, seed=5, processes=1, shard=2)
    two, _ = play_matches_from_specs("pubeval", "random:3", 4, length=1, seed=5, processes=2, shard=2)
    assert one == two and len(one) == 4


def test_wilson_interval_and_summary(five_point):
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    summary = summarise_matches(five_point, 1.0)
    assert summary.matches == summary.decided == 6 and summary.wins == sum(r.winner == 0 for r in five_point)
    assert summary.win_low <= summary.win_rate <= summary.win_high
    points = [g.points * (1 if g.winner == 0 else -1) for r in five_point for g in r.games]
    assert summary.games == len(points) and summary.ppg == pytest.approx(np.mean(points))
    assert summary.doubles_per_game > summary.drops_per_game > 0


def test_cli_writes_transcripts_and_result(tmp_path):
    cfg = compose_config("match", "a=random:1", "b=pubeval", "length=3", "matches=2", "processes=1",
                         f"out={tmp_path}", "progress=false")
    result = run(cfg)
    assert json.loads((tmp_path / "result.json").read_text())["matches"] == 2 == result["matches"]
    for name in ("match_0001.mat", "match_0002.mat"):
        record = read_mat(tmp_path / name)
        assert record.length == 3 and max(record.score) == 3
        assert not any(a.kind == DOUBLE for g in record.games for a in g.actions)  # neither agent doubles


def test_cli_show_prints_every_move_with_the_board(tmp_path, capsys):
    cfg = compose_config("match", "a=pubeval", "b=random:2", "length=1", "matches=1", "processes=1",
                         f"out={tmp_path}", "progress=false", "show=true", "pace=0")
    run(cfg)
    text = capsys.readouterr().out
    record = read_mat(tmp_path / "match_0001.mat")
    moves = sum(1 for g in record.games for a in g.actions if a.kind == MOVE)
    assert "match 1 of 1" in text and text.count("BAR") >= moves + 1  # a board after every move
    assert "won the match" in text


# --------------------------------------------------------------------------- agents' cube play


class FixedProbs:
    """An evaluator that gives every position the same probabilities."""

    def __init__(self, probs):
        self.value = np.array(probs, np.float32)

    def probs(self, boards):
        return np.tile(self.value, (len(boards), 1))


@pytest.mark.parametrize("probs, double, take", [
    ((0.5, 0.1, 0.0, 0.1, 0.0), False, True),  # even game: no double, take
    ((0.72, 0.0, 0.0, 0.0, 0.0), True, True),  # double, take
    ((0.9, 0.0, 0.0, 0.0, 0.0), True, False),  # double, pass
    ((0.9, 0.8, 0.3, 0.0, 0.0), False, False),  # too good: play on for the gammon; a double would be passed
])
def test_neural_agent_doubles_and_takes_by_gnubg_arithmetic(probs, double, take):
    agent = NeuralAgent(FixedProbs(probs))
    boards, states, players = START[None], [MatchState()], np.array([0])
    assert agent.double_decision(boards, states, players).tolist() == [double]
    assert agent.take_decision(boards, states, players).tolist() == [take]
    match = [MatchState(7, (2, 3))]
    assert (agent.double_decision(boards, match, players), agent.take_decision(boards, match, players)) == \
        cube_actions(np.array([probs]), boards, match, players)


def test_cube_life_by_position_class():
    race = pos({6: 15}, {11: 15})  # no contact, the roller not yet home
    bearoff = pos({3: 15}, {5: 15})
    lives = cube_lives(np.stack([START, race, bearoff]))
    assert lives.tolist() == pytest.approx([GNUBG_SHALLOW.contact, min(0.6 + 0.0025 * 90, 0.8), GNUBG_SHALLOW.bearoff])


@pytest.mark.parametrize("agent", [PubevalAgent(), RandomAgent(0)], ids=["pubeval", "random"])
def test_agents_without_a_cube_view_never_double_and_always_take(agent):
    boards, states = np.stack([START, START]), [MatchState(), MatchState(5, (3, 2))]
    assert not agent.double_decision(boards, states, np.array([0, 1])).any()
    assert agent.take_decision(boards, states, np.array([0, 1])).all()


def test_gnubg_agent_cube():
    pytest.importorskip("gnubg_nn")
    from bgzero.agents.gnubg import GnubgAgent

    crushing = pos({1: 3}, {6: 5})  # bears off in two rolls, the opponent needs three: double, pass
    boards, players = np.stack([START, crushing]), np.array([0, 1])
    states = [MatchState(), MatchState()]
    agent = GnubgAgent(0)
    assert may_double(states[1], 1)
    assert agent.double_decision(boards, states, players).tolist() == [False, True]
    assert agent.take_decision(boards, states, players).tolist() == [True, False]


def test_each_match_is_handed_on_as_its_shard_finishes(monkeypatch):
    events = []
    played = match_module._play_matches_shard
    monkeypatch.setattr(match_module, "_play_matches_shard", lambda job: events.append("played") or played(job))
    play_matches_from_specs("pubeval", "random:3", 2, length=1, shard=1, on_record=lambda i, r: events.append(i))
    assert events == ["played", 1, "played", 2]  # bgzero-match show=true prints match 1 before playing match 2
