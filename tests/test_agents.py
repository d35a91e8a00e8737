"""Agent specs, the agents' choices, and n-ply search against a brute-force reference."""

import numpy as np
import pytest
import torch

from bgzero.agents.neural import NeuralAgent
from bgzero.agents.search import MoveFilter, choose_moves, evaluate_ply
from bgzero.agents.specs import make_agent, parse_spec
from bgzero.arena.duplicate import play_duplicate, play_duplicate_from_specs
from bgzero.engine.game import ROLL_WEIGHTS, ROLLS, random_positions
from bgzero.engine.movegen import generate
from bgzero.errors import CheckpointError, ConfigError
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.probs import equity, flip


@pytest.fixture(scope="module")
def evaluator():
    torch.manual_seed(1)
    return Evaluator(ValueNet(NetConfig(num_inputs=198, hidden=[16])), "tesauro198")


def test_spec_grammar():
    assert parse_spec("checkpoint:ck/x.pt@1") == ("checkpoint", "ck/x.pt", 1)
    assert parse_spec("ck/x.pt@2") == ("checkpoint", "ck/x.pt", 2)
    assert parse_spec("gnubg") == ("gnubg", None, 0)
    assert parse_spec("random:7") == ("random", "7", 0)


@pytest.mark.parametrize("spec,message", [("alphazero", "unknown agent"), ("gnubg@3", "ply"),
                                          ("pubeval@1", "does not search"), ("random:x", "seed"),
                                          ("checkpoint", "name the checkpoint")])
def test_bad_specs_are_named(spec, message):
    with pytest.raises(ConfigError, match=message):
        make_agent(spec)


def test_missing_checkpoint():
    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent("checkpoint:/nonexistent.pt@1")


def test_checkpoint_agent_from_spec(tiny_checkpoint):
    agent = make_agent(f"checkpoint:{tiny_checkpoint}@1")
    assert isinstance(agent, NeuralAgent) and agent.ply == 1


def _brute_force_1ply(evaluator, board):
    """Average over 21 rolls of the roller's best 0-ply reply, position by position."""
    total = np.zeros(5)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS):
        moves = generate(board[None], np.array([[d1, d2]]))
        p = evaluator.probs(moves.results)
        total += w * flip(p[np.argmin(equity(p))])
    return total


def test_one_ply_matches_brute_force(evaluator):
    boards, _ = random_positions(6, seed=3)
    got = evaluate_ply(evaluator, boards, 1)
    for b, g in zip(boards, got):
        np.testing.assert_allclose(g, _brute_force_1ply(evaluator, b), atol=1e-5)


def test_two_ply_choice_is_a_legal_candidate_and_zero_filters_equal_zero_ply(evaluator):
    boards, dice = random_positions(8, seed=4)
    moves = generate(boards, dice)
    best = choose_moves(evaluator, moves, 2)
    assert ((best >= moves.offsets[:-1]) & (best < moves.offsets[1:])).all()
    zero = NeuralAgent(evaluator).choose(boards, dice, moves)
    one_keep = choose_moves(evaluator, moves, 1, filters=(MoveFilter(1, 0.0),))
    np.testing.assert_array_equal(zero, one_keep)


def test_pubeval_beats_random_and_duplicate_dice_are_paired():
    r = play_duplicate(make_agent("pubeval"), make_agent("random"), 40, seed=1)
    assert r.games == 40 and r.ppg > 1.0 and r.win_rate > 0.8
    self_play = play_duplicate(make_agent("pubeval"), make_agent("pubeval"), 40, seed=1)
    assert self_play.ppg == 0.0  # the same deterministic player on the same dice: pairs cancel


def test_match_by_specs_gives_the_same_result_in_one_or_two_processes(tiny_checkpoint):
    spec = f"checkpoint:{tiny_checkpoint}"
    one = play_duplicate_from_specs(spec, "pubeval", 24, seed=5, processes=1, batch_pairs=4)
    two = play_duplicate_from_specs(spec, "pubeval", 24, seed=5, processes=2, batch_pairs=4)
    assert one.games == two.games == 24
    assert (one.ppg, one.win_rate, one.a_gammon_rate) == (two.ppg, two.win_rate, two.a_gammon_rate)
