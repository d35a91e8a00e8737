"""Fine-tuning on 1-ply targets: the targets are the search's values, and training fits them."""

import numpy as np
import pytest
import torch

from bgzero.checkpoint import load_evaluator
from bgzero.errors import ConfigError
from bgzero.game import random_positions
from bgzero.search import evaluate_ply
from bgzero.search_targets import fine_tune, one_ply_targets
from bgzero.td import td_loss


def test_worker_targets_are_the_one_ply_evaluations(tiny_checkpoint):
    boards, _ = random_positions(30, seed=9)
    got = one_ply_targets(str(tiny_checkpoint), boards, processes=1, chunk=7)
    np.testing.assert_allclose(got, evaluate_ply(load_evaluator(tiny_checkpoint), boards, 1), atol=1e-6)


def test_fine_tuning_moves_the_net_toward_its_targets(tiny_checkpoint):
    evaluator = load_evaluator(tiny_checkpoint)
    boards, _ = random_positions(400, seed=10)
    targets = np.clip(evaluator.probs(boards) + 0.2, 0, 1).astype(np.float32)  # any fixed, reachable targets
    x, t = torch.from_numpy(evaluator.encoder(boards)), torch.from_numpy(targets)
    with torch.no_grad():
        before = td_loss(evaluator.net(x), t).item()
    fine_tune(evaluator.net, evaluator.encoder, boards, targets, epochs=5, lr=3e-3)
    with torch.no_grad():
        after = td_loss(evaluator.net(x), t).item()
    assert after < before - 0.05


def test_bad_settings_are_named(tiny_checkpoint):
    evaluator = load_evaluator(tiny_checkpoint)
    with pytest.raises(ConfigError, match="epochs"):
        fine_tune(evaluator.net, evaluator.encoder, np.zeros((1, 2, 25), np.int8), np.zeros((1, 5)), epochs=0)
    with pytest.raises(ConfigError, match="processes"):
        one_ply_targets(str(tiny_checkpoint), np.zeros((1, 2, 25), np.int8), processes=0)
