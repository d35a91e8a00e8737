"""Pruning nets in search, the one-pass position classifier, and bgzero-prune."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch

from bgzero.agents import search
from bgzero.agents.search import best_replies, evaluate_ply
from bgzero.cli.prune import run
from bgzero.engine.bearoff.one_sided import is_bearoff
from bgzero.engine.classify import BEAROFF, CONTACT, OVER, RACE, classify, is_race
from bgzero.engine.game import ROLLS, game_results, random_positions
from bgzero.engine.movegen import generate
from bgzero.engine.segments import segment_argmax, segment_top_k
from bgzero.errors import CheckpointError, ConfigError
from bgzero.learn.distill import distill, self_play_candidates
from bgzero.value.checkpoint import load_checkpoint, load_evaluator
from bgzero.value.encode import encode
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.probs import equity
from bgzero.value.pruning import PruningNet
from tests.conftest import compose_config


@pytest.fixture(scope="module")
def prune_net():
    torch.manual_seed(2)
    return ValueNet(NetConfig(num_inputs=198, hidden=[4]))


@pytest.fixture(scope="module")
def pruned_evaluator(prune_net):
    """A random contact net with an (unrelated) random pruning net: ranking then differs."""
    return Evaluator(ValueNet(NetConfig(num_inputs=198, hidden=[16])), "tesauro198",
                     pruner=PruningNet.of(prune_net))


def test_classify_matches_its_definition_on_every_class():
    boards, dice = random_positions(3000, seed=11)
    results = generate(boards, dice).results
    cls = classify(results)
    expected = np.full(len(results), CONTACT)
    expected[is_race(results)] = RACE
    expected[is_bearoff(results)] = BEAROFF
    expected[game_results(results) != 0] = OVER
    np.testing.assert_array_equal(cls, expected)
    assert set(np.unique(cls)) == {CONTACT, RACE, BEAROFF, OVER}  # the sample reaches every class
    routed = np.where(expected == RACE, CONTACT, np.where(expected == BEAROFF, RACE, expected))
    np.testing.assert_array_equal(classify(results, race=CONTACT, bearoff=RACE), routed)  # as an evaluator routes


def test_segment_top_k_keeps_each_segments_best():
    rng = np.random.default_rng(0)
    offsets = np.array([0, 0, 3, 10, 11, 30])
    scores = rng.random(30).astype(np.float32)
    keep = segment_top_k(scores, offsets, 4)
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        want = np.zeros(hi - lo, bool)
        want[np.argsort(-scores[lo:hi])[:4]] = True
        np.testing.assert_array_equal(keep[lo:hi], want)


def test_pruned_replies_are_the_full_choice_when_every_reply_is_kept(pruned_evaluator):
    boards, _ = random_positions(20, seed=5)
    moves = generate(np.repeat(boards, 21, axis=0), np.tile(ROLLS, (20, 1)))
    full = segment_argmax(-equity(pruned_evaluator.probs(moves.results)), moves.offsets)
    np.testing.assert_array_equal(best_replies(pruned_evaluator, moves, keep=1000), full)
    pruned = best_replies(pruned_evaluator, moves, keep=1)
    assert ((pruned >= moves.offsets[:-1]) & (pruned < moves.offsets[1:])).all()
    assert (pruned != full).any()  # an unrelated pruning net does change some choices


def _choice_as_before(evaluator, moves, keep):
    """The pruned 0-ply choice written plainly: the pruning net ranks every contact candidate,
    each segment's top ``keep`` (with the exactly scored others) go on, the best is taken."""
    cls = evaluator.route(moves.results)
    contact = cls == CONTACT
    score = np.zeros(len(cls), np.float32)
    exact = ~contact
    if exact.any():
        score[exact] = -equity(evaluator.probs(moves.results[exact], cls[exact]))
    score[contact] = -evaluator.pruner.equities(moves.results[contact])
    short = contact & segment_top_k(score, moves.offsets, keep)
    score[contact] = -np.inf
    score[short] = -equity(evaluator.contact_probs(moves.results[short]))
    return segment_argmax(score, moves.offsets)


class _Counting(Evaluator):
    """An evaluator that records how many boards each of its nets is asked about."""

    def __init__(self, evaluator):
        super().__init__(evaluator.net, "tesauro198", pruner=_CountingPruner(evaluator.pruner))
        self.asked = {"contact": 0, "probs": 0}

    def contact_probs(self, b):
        self.asked["contact"] += len(b)
        return super().contact_probs(b)

    def probs(self, b, classes=None):
        self.asked["probs"] += len(b)
        return super().probs(b, classes)


class _CountingPruner:
    def __init__(self, pruner):
        self.pruner, self.asked = pruner, 0

    def equities(self, boards, rows=None):
        self.asked += len(boards) if rows is None else len(rows)
        return self.pruner.equities(boards, rows)


@pytest.mark.parametrize("keep", [1, 5])
def test_a_choice_alone_skips_forced_moves_and_changes_nothing(pruned_evaluator, keep):
    boards, _ = random_positions(40, seed=6)
    rolled, dice = np.repeat(boards, 21, axis=0), np.tile(ROLLS, (40, 1))
    moves = generate(rolled, dice)
    counts = np.diff(moves.offsets)
    assert (counts == 1).any() and (counts <= keep).any() and (counts > keep).any()  # every kind of segment
    want = _choice_as_before(pruned_evaluator, moves, keep)
    for repeats in (True, False):
        np.testing.assert_array_equal(best_replies(pruned_evaluator, moves, keep, repeats=repeats), want)
    np.testing.assert_array_equal(search.choose_replies(pruned_evaluator, moves, keep)[0], want)
    forced = counts == 1
    only_forced = generate(rolled[forced], dice[forced])
    for prune in (True, False):
        counting = _Counting(pruned_evaluator)
        np.testing.assert_array_equal(best_replies(counting, only_forced, keep, prune=prune), only_forced.offsets[:-1])
        assert counting.asked == {"contact": 0, "probs": 0} and counting.pruner.asked == 0  # nothing to choose
    counting = _Counting(pruned_evaluator)
    search.choose_replies(counting, only_forced, keep)
    assert counting.asked["contact"] > 0  # where the probabilities are wanted, they are computed
    assert counting.pruner.asked == 0  # a segment of one needs no ranking


@pytest.mark.parametrize("hidden", [16, 20])  # a shipped net's width, and one padded to whole lane buffers
def test_pruning_kernel_equals_the_network(hidden):
    torch.manual_seed(4)
    net = ValueNet(NetConfig(num_inputs=198, hidden=[hidden])).eval()
    boards, _ = random_positions(500, seed=8)
    with torch.inference_mode():
        want = equity(net(torch.from_numpy(encode(boards, "tesauro198")))).numpy()
    pruner = PruningNet.of(net)
    copy = pickle.loads(pickle.dumps(pruner))  # as a spawned worker gets it, before any use
    with torch.no_grad():
        net.body[0].weight.add_(1.0)  # training goes on: a pruning net is a snapshot, tabulated or not
    np.testing.assert_allclose(pruner.equities(boards), want, atol=1e-5)
    np.testing.assert_array_equal(copy.equities(boards), pruner.equities(boards))
    rows = np.array([499, 3, 3, 250])  # any listed boards, in the order listed
    np.testing.assert_array_equal(pruner.equities(boards, rows), pruner.equities(boards)[rows])


def test_only_one_hidden_relu_layer_on_tesauro_inputs_can_prune():
    with pytest.raises(ConfigError, match="pruning net"):
        PruningNet.of(ValueNet(NetConfig(num_inputs=198, hidden=[8, 8])))
    with pytest.raises(ConfigError, match="pruning net"):
        PruningNet.of(ValueNet(NetConfig(num_inputs=250, hidden=[8])))


def test_search_in_chunks_equals_one_batch(pruned_evaluator, monkeypatch):
    boards, _ = random_positions(7, seed=6)
    whole = evaluate_ply(pruned_evaluator, boards, 1)
    monkeypatch.setattr(search, "SEARCH_CHUNK", 2)
    np.testing.assert_allclose(evaluate_ply(pruned_evaluator, boards, 1), whole, atol=1e-6)


def test_distilled_net_ranks_replies_like_the_contact_net(plain_evaluator):
    _, report = distill(plain_evaluator, positions=20_000, hidden=16, seed=0, holdout=60)
    assert plain_evaluator.pruner is None  # distill leaves the evaluator as it was
    assert report.positions == 20_000 and report.pairs == 60 * 21
    assert report.rmse < 0.05
    assert report.agreement > 0.8  # a random pruning net agrees far less often


@pytest.fixture(scope="module")
def plain_evaluator():
    torch.manual_seed(3)
    return Evaluator(ValueNet(NetConfig(num_inputs=198, hidden=[16])), "tesauro198")


def _prune(*args):
    return subprocess.run([sys.executable, "-m", "bgzero.cli.prune", *args], capture_output=True, text=True, check=False)


def test_bgzero_prune_stores_a_pruning_net_that_search_uses(tiny_checkpoint, tmp_path):
    out = tmp_path / "pruned.pt"
    done = _prune(f"checkpoint={tiny_checkpoint}", f"out={out}", "positions=5000")
    assert done.returncode == 0, done.stderr
    assert "written to" in done.stdout
    state = load_checkpoint(out)
    assert state["prune_net_config"]["hidden"] == [16]
    assert load_evaluator(out).pruner is not None
    assert load_evaluator(tiny_checkpoint).pruner is None  # the source is untouched


@pytest.mark.parametrize("overrides,error,message", [
    ({}, ConfigError, "no checkpoint"),
    ({"checkpoint": "/nonexistent.pt"}, CheckpointError, "does not exist"),
    ({"positions": 10}, ConfigError, "too few")])
def test_bgzero_prune_bad_input_is_named(tiny_checkpoint, overrides, error, message):
    given = {"checkpoint": str(tiny_checkpoint), **overrides} if overrides else {}
    cfg = compose_config("prune", *(f"{key}={value}" for key, value in given.items()))
    with pytest.raises(error, match=message):
        run(cfg)


def test_self_play_shows_its_progress(plain_evaluator, capsys):
    self_play_candidates(plain_evaluator, 1000, 0, progress=True)
    err = capsys.readouterr().err
    assert "self-play" in err and "1000/1000" in err  # the bar bgzero-prune shows on a terminal
