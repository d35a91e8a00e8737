"""TD(λ) targets on hand-made three-position games, and the loss."""

import numpy as np
import pytest
import torch

from bgzero.learn.td import batch_lambda_returns, lambda_returns, td_loss
from bgzero.value.probs import flip, result_probs

V = np.array([
    [0.50, 0.10, 0.01, 0.12, 0.02],  # s0, player A on roll
    [0.40, 0.08, 0.00, 0.15, 0.03],  # s1, player B on roll
    [0.70, 0.20, 0.02, 0.05, 0.00],  # s2, player A on roll; A then bears off its last checker
])


def test_lambda_zero_bootstraps_on_the_next_position():
    t = lambda_returns(V, final_points=2, lam=0.0)
    np.testing.assert_allclose(t[2], [1, 1, 0, 0, 0])
    np.testing.assert_allclose(t[1], [0.3, 0.05, 0.00, 0.20, 0.02], atol=1e-6)  # flip(V[2])
    np.testing.assert_allclose(t[0], [0.6, 0.15, 0.03, 0.08, 0.00], atol=1e-6)  # flip(V[1])


def test_lambda_one_is_the_final_result_from_each_side():
    t = lambda_returns(V, final_points=3, lam=1.0)
    np.testing.assert_allclose(t[2], [1, 1, 1, 0, 0])
    np.testing.assert_allclose(t[1], [0, 0, 0, 1, 1])  # B lost a backgammon
    np.testing.assert_allclose(t[0], [1, 1, 1, 0, 0])


def test_intermediate_lambda_mixes_both():
    lam = 0.5
    t = lambda_returns(V, final_points=1, lam=lam)
    r = np.array([1, 0, 0, 0, 0.0])
    t1 = flip(0.5 * V[2] + 0.5 * r)
    t0 = flip(0.5 * V[1] + 0.5 * t1)
    np.testing.assert_allclose(t[1], t1, atol=1e-6)
    np.testing.assert_allclose(t[0], t0, atol=1e-6)


def test_batched_returns_equal_per_game_returns():
    rng = np.random.default_rng(0)
    lengths = np.array([3, 1, 5])
    values = rng.random((lengths.sum(), 5))
    points = np.array([1, 2, 3])
    got = batch_lambda_returns(values, lengths, points, 0.7)
    ends = np.cumsum(lengths)
    for g, (lo, hi) in enumerate(zip(ends - lengths, ends)):
        np.testing.assert_allclose(got[lo:hi], lambda_returns(values[lo:hi], points[g], 0.7), atol=1e-6)


def test_result_probs_of_each_outcome():
    np.testing.assert_array_equal(result_probs([1, -2, 3, -3]),
                                  [[1, 0, 0, 0, 0], [0, 0, 0, 1, 0], [1, 1, 1, 0, 0], [0, 0, 0, 1, 1]])


def test_loss_is_zero_only_at_certain_targets():
    t = torch.tensor([[1.0, 0, 0, 0, 0]])
    assert td_loss(t.clone(), t) < 1e-4
    assert td_loss(torch.full((1, 5), 0.5), t) > 3.0
    with pytest.raises(ValueError):
        td_loss(torch.full((1, 5), 0.5), torch.full((1, 4), 0.5))


def test_targets_stay_within_unit_interval_despite_rounding():
    values = np.ones((6, 5), np.float32)
    for lam in (0.3, 0.7):
        t = batch_lambda_returns(values, np.array([6]), np.array([3]), lam)
        assert t.min() >= 0.0 and t.max() <= 1.0


def test_explored_position_backs_up_from_the_greedy_move_and_cuts_the_trace():
    greedy = np.array([[0.20, 0.05, 0.00, 0.30, 0.04]] * 3)  # the greedy result s1 was passed over for
    explored = np.array([True, False, False])
    t = lambda_returns(V, final_points=1, lam=1.0, explored=explored, greedy_values=greedy)
    np.testing.assert_allclose(t[0], flip(greedy[0]), atol=1e-6)  # not the final result, as λ = 1 would give
    np.testing.assert_allclose(t[1], [0, 0, 0, 0, 0])  # later positions are untouched: B lost
    # a position before an explored one bootstraps through the backed-up target
    explored = np.array([False, True, False])
    t = lambda_returns(V, final_points=1, lam=1.0, explored=explored, greedy_values=greedy)
    np.testing.assert_allclose(t[1], flip(greedy[1]), atol=1e-6)
    np.testing.assert_allclose(t[0], flip(t[1]), atol=1e-6)


def test_batched_backups_equal_per_game_backups():
    rng = np.random.default_rng(1)
    lengths = np.array([4, 1, 6])
    values, greedy = rng.random((2, lengths.sum(), 5))
    explored = rng.random(lengths.sum()) < 0.4
    points = np.array([2, 1, 3])
    got = batch_lambda_returns(values, lengths, points, 0.7, explored, greedy)
    ends = np.cumsum(lengths)
    for g, (lo, hi) in enumerate(zip(ends - lengths, ends)):
        want = lambda_returns(values[lo:hi], points[g], 0.7, explored[lo:hi], greedy[lo:hi])
        np.testing.assert_allclose(got[lo:hi], want, atol=1e-6)
    assert not np.allclose(got, batch_lambda_returns(values, lengths, points, 0.7))
