"""Self-play with exploration: the explored moves, and the greedy results they passed over."""

import numpy as np
import torch

from bgzero.agents.neural import NeuralAgent
from bgzero.engine.game import random_positions
from bgzero.engine.movegen import generate
from bgzero.engine.segments import segment_runner_up
from bgzero.selfplay.player import SelfPlayer, Trajectories
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.probs import equity


def small_agent(**kwargs) -> NeuralAgent:
    torch.manual_seed(0)
    return NeuralAgent(Evaluator(ValueNet(NetConfig(hidden=[8])), "tesauro198"), seed=3, **kwargs)


def test_runner_up_is_one_of_the_k_best_others():
    scores = np.array([0.1, 0.9, 0.5, 0.7, 0.3, 2.0])
    offsets = np.array([0, 5, 6])  # the second segment has a single candidate
    best = np.array([1, 5])
    assert segment_runner_up(scores, offsets, best, 2, np.array([0.0, 0.5])).tolist() == [3, 5]
    assert segment_runner_up(scores, offsets, best, 2, np.array([0.99, 0.5])).tolist() == [2, 5]
    assert segment_runner_up(scores, offsets, best, 10, np.array([0.99, 0.5])).tolist() == [0, 5]


def test_full_exploration_plays_the_second_best_move_and_reports_the_greedy_one():
    boards, dice = random_positions(40, seed=5)
    moves = generate(boards, dice)
    agent = small_agent(epsilon=1.0, explore_top=1)
    chosen, greedy = agent.choose_and_greedy(boards, dice, moves)
    assert np.array_equal(greedy, NeuralAgent(agent.evaluator).choose(boards, dice, moves))
    score = -equity(agent.evaluator.probs(moves.results))
    for b in range(len(boards)):
        lo, hi = moves.offsets[b], moves.offsets[b + 1]
        ranked = lo + np.argsort(-score[lo:hi], kind="stable")
        assert chosen[b] == (ranked[1] if hi - lo > 1 else ranked[0])


def test_trajectories_record_every_explored_move_and_its_greedy_result():
    traj = SelfPlayer(small_agent(epsilon=0.3, explore_top=3), parallel_games=8, seed=1).play(8)
    assert traj.games >= 8 and len(traj.explored) == len(traj.boards) == traj.lengths.sum()
    assert 0.15 < traj.explored.mean() < 0.45
    assert len(traj.greedy) == traj.explored.sum()
    # a greedy result is never the position that followed (the explored move's result)
    last = np.cumsum(traj.lengths) - 1
    pairs = [(g, t + 1) for g, t in enumerate(np.flatnonzero(traj.explored)) if t not in last]
    assert pairs and not any(np.array_equal(traj.greedy[g], traj.boards[n]) for g, n in pairs)
    both = Trajectories.concat([traj, traj])
    assert len(both.greedy) == 2 * len(traj.greedy) and both.explored.sum() == 2 * traj.explored.sum()


def test_greedy_self_play_explores_nothing():
    traj = SelfPlayer(small_agent(), parallel_games=4, seed=1).play(4)
    assert not traj.explored.any() and traj.greedy.shape == (0, 2, 25)
