"""The cube benchmark (``bgzero-bench cube``, bgzero.gnubg.cube_bench): reading gnubg's cube hint, the agreement
arithmetic, bgzero's verdicts."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from bgzero.agents.neural import NeuralAgent
from bgzero.cli import launch
from bgzero.cube import NO_DOUBLE, PASS, TAKE, TOO_GOOD, from_match_info, may_double
from bgzero.engine.board import start_board
from bgzero.engine.ids import MatchInfo, board_from_position_id, match_id, match_info_from_id, position_id
from bgzero.gnubg import cube_bench
from bgzero.gnubg.cube_hints import (
    DOUBLE,
    Agreement,
    CubeHint,
    Verdict,
    doubler_agreement,
    parse_cube_hint,
    taker_agreement,
    verdict_from_action,
)
from bgzero.value.checkpoint import load_evaluator, save_checkpoint
from bgzero.value.net import NetConfig, ValueNet

# Recorded from `hint` of the PyPI gnubg (2-ply, `set output mwc off`): a 7-point match, cube
# at 2 owned by the side on roll. The equity lines say "double" even for a redouble.
REDOUBLE_SAMPLE = """Setting GNUbg ID 7yEMkBE/3wEAAA:URngAEAAIAAE

Cube analysis
2-ply cubeless equity +2.026 (Money: +1.776)
  0.983 0.805 0.004 - 0.017 0.000 0.000
Cubeful equities:
1. No double           +2.028
2. Double, take        +3.083  (+1.055)
3. Double, pass        +1.000  (-1.028)
Proper cube action: Too good to redouble, pass (49.4%)

"""
MONEY_SAMPLE = """Cube analysis
2-ply cubeless equity +0.484
  0.689 0.140 0.002 - 0.311 0.037 0.000
Cubeful equities:
1. Double, take        +0.758
2. Double, pass        +1.000  (+0.242)
3. No double           +0.618  (-0.140)
Proper cube action: Double, take
"""


def test_parse_recorded_hints():
    hint = parse_cube_hint(REDOUBLE_SAMPLE)
    assert (hint.no_double, hint.double_take, hint.double_pass) == (2.028, 3.083, 1.0)
    assert hint.verdict == Verdict(TOO_GOOD, PASS)
    hint = parse_cube_hint(MONEY_SAMPLE)
    assert (hint.no_double, hint.double_take, hint.double_pass) == (0.618, 0.758, 1.0)
    assert hint.verdict == Verdict(DOUBLE, TAKE)


def test_output_without_cube_analysis_is_refused():
    with pytest.raises(ValueError, match="no cube analysis"):
        parse_cube_hint("You cannot double.\n")


@pytest.mark.parametrize(("action", "verdict"), [
    ("No double, take (13.2%)", (NO_DOUBLE, TAKE)),
    ("No redouble, beaver", (NO_DOUBLE, TAKE)),
    ("Never redouble, take (dead cube)", (NO_DOUBLE, TAKE)),
    ("Double, pass", (DOUBLE, PASS)),
    ("Redouble, take", (DOUBLE, TAKE)),
    ("Optional double, pass", (DOUBLE, PASS)),
    ("Too good to double, take", (TOO_GOOD, TAKE)),
    ("Too good to redouble, pass (49.4%)", (TOO_GOOD, PASS)),
])
def test_gnubg_actions_map_to_verdicts(action, verdict):
    assert verdict_from_action(action) == Verdict(*verdict)


def test_unknown_action_is_refused():
    with pytest.raises(ValueError, match="unknown"):
        verdict_from_action("I have no idea!")


def test_agreement_arithmetic():
    reference = [
        CubeHint("No double, take", 0.30, 0.10, 1.0),
        CubeHint("Double, take", 0.60, 0.80, 1.0),
        CubeHint("Double, pass", 0.90, 1.20, 1.0),
        CubeHint("Too good to double, pass", 1.30, 1.90, 1.0),
    ]
    verdicts = [
        Verdict(DOUBLE, TAKE),  # doubler loses 0.30 - 0.10
        Verdict(DOUBLE, PASS),  # right double; taker passes a take: loses -0.80 - (-1)
        Verdict(NO_DOUBLE, PASS),  # doubler loses 1.0 - 0.90; taker right
        Verdict(NO_DOUBLE, TAKE),  # plays on like "too good": a disagreement that costs nothing
    ]
    doubler = doubler_agreement(reference, verdicts)
    assert (doubler.decisions, doubler.agreed) == (4, 1)
    assert doubler.cost == pytest.approx(0.2 + 0.1)
    assert doubler.mean_cost == pytest.approx(0.3 / 3)
    taker = taker_agreement(reference, verdicts)  # only the two real doubles reach the taker
    assert (taker.decisions, taker.agreed, taker.rate) == (2, 1, 0.5)
    assert taker.mean_cost == pytest.approx(0.2)
    with pytest.raises(ValueError):
        doubler_agreement(reference, verdicts[:2])


def test_a_tie_in_gnubgs_printed_equities_is_agreement():
    """Where gnubg prints the same equity for two answers either is right; a thousandth apart is not a tie."""
    reference = [
        CubeHint("No double, take (0.0%)", -1.0, -1.0, 1.0),  # post-Crawford, lost whatever happens
        CubeHint("Too good to double, pass (0.0%)", 1.0, 1.96, 1.0),  # a won race: cashing is as good
        CubeHint("Too good to double, pass (0.1%)", 1.001, 1.96, 1.0),  # a thousandth better: no tie
        CubeHint("Double, take", 0.8, 1.0, 1.0),  # take and pass print the same
        CubeHint("Too good to double, pass (0.0%)", 1.0, 1.5, 1.0),  # "no double" keeps the cube too: no tie
    ]
    verdicts = [Verdict(DOUBLE, TAKE), Verdict(DOUBLE, PASS), Verdict(DOUBLE, PASS), Verdict(DOUBLE, PASS),
                Verdict(NO_DOUBLE, PASS)]
    doubler = doubler_agreement(reference, verdicts)
    assert (doubler.decisions, doubler.agreed, doubler.ties) == (5, 3, 2)
    assert doubler.cost == pytest.approx(0.001)
    taker = taker_agreement(reference, verdicts)  # gnubg doubles in the fourth only
    assert (taker.decisions, taker.agreed, taker.ties, taker.cost) == (1, 1, 1, 0.0)
    assert cube_bench.misses(reference, verdicts) == ([2, 4], [])
    row = cube_bench.table_row("bgzero | all", Agreement(955, 918, 0.8, 20), Agreement(240, 227, 1.3, 1))
    assert row == "| bgzero | all | 96.1% (918/955, 20 ties) | 0.022 | 94.6% (227/240, 1 tie) | 0.100 |"


def test_naive_rule():
    naive = cube_bench.naive_verdict
    assert naive(0.5) == Verdict(NO_DOUBLE, TAKE)
    assert naive(0.7) == Verdict(DOUBLE, TAKE)
    assert naive(0.8) == Verdict(DOUBLE, PASS)
    assert naive(0.9) == Verdict(TOO_GOOD, PASS)


def test_bgzero_verdicts_are_the_agents_cube_actions(tmp_path):
    torch.manual_seed(0)
    net = ValueNet(NetConfig(hidden=[8]))
    checkpoint = save_checkpoint(tmp_path / "tiny.pt", {"model": net.state_dict(), "net_config": net.config_dict(),
                                                        "encoder": "tesauro198", "games": 0})
    evaluator = load_evaluator(checkpoint)
    boards = np.repeat(start_board()[None], 12, axis=0)
    infos = [MatchInfo(dice_owner=i % 2, turn=i % 2, match_length=7 * (i % 3 > 0), score=(i % 3, 0)) for i in range(12)]
    agent = NeuralAgent(evaluator, ply=1)
    verdicts = cube_bench.bgzero_verdicts(evaluator, boards, infos, 1)[0]
    states, players = [from_match_info(i) for i in infos], [i.dice_owner for i in infos]
    assert [v.doubler == DOUBLE for v in verdicts] == agent.double_decision(boards, states, players).tolist()
    assert [v.taker == TAKE for v in verdicts] == agent.take_decision(boards, states, players).tolist()


def test_post_crawford_contexts_put_the_trailer_on_roll():
    rng = np.random.default_rng(0)
    infos = [cube_bench.random_context(rng) for _ in range(400)]
    post = [i for i in infos if cube_bench.context_kind(i) == "post-Crawford"]
    assert post and all(i.score[1 - i.dice_owner] == i.match_length - 1 for i in post)
    assert all(may_double(from_match_info(i), i.dice_owner) for i in infos)
    assert {i.match_length for i in infos} == {0, *range(3, 12)}


def test_the_command_runs_on_a_cached_reference(tmp_path, monkeypatch, capsys):
    """``bgzero-bench cube`` end to end without gnubg: a hand-written reference and an untrained network."""
    torch.manual_seed(0)
    net = ValueNet(NetConfig(hidden=[8]))
    checkpoint = save_checkpoint(tmp_path / "tiny.pt", {"model": net.state_dict(), "net_config": net.config_dict(),
                                                        "encoder": "tesauro198", "games": 0})
    hint = {"action": "Double, take", "no_double": 0.6, "double_take": 0.8, "double_pass": 1.0}
    record = {"position_id": position_id(start_board()), "match_id": match_id(MatchInfo()),
              "cubeless": [0.7, 0.1, 0.0, 0.05, 0.0], "gnubg": {"0": hint, "1": hint, "2": hint}}
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"positions": [record]}))
    monkeypatch.setattr(sys, "argv", ["bgzero-bench", "cube", f"checkpoint={checkpoint}", f"reference={reference}",
                                      "misses=true", "ply=[0,1]"])
    launch.bench()
    out = capsys.readouterr().out
    assert f"Reference: {reference}" in out and "| bgzero tiny 1-ply | all |" in out
    assert "bgzero 0-ply disagreements" in out and "ties aside" in out
    assert "| gnubg 1-ply | all | 100.0% (1/1) | 0.000 | 100.0% (1/1) | 0.000 |" in out
    assert "| naive: double 68-85% wins, take ≥ 25% | money, centred | 100.0% (1/1)" in out
    assert "| gnubg 1-ply | – | 100.0% / 100.0% | – | – |" in out  # by gnubg 2-ply's decision


_LIVE = r"""
import json
from bgzero.gnubg.cube_hints import GnubgCube
from bgzero.engine.ids import MatchInfo, match_id
gnubg = GnubgCube()
start = gnubg.hint("4HPwATDgc/ABMA", match_id(MatchInfo()), 2)
strong = gnubg.hint("3wMRUAb/PgACQA", match_id(MatchInfo(dice_owner=1, turn=1)), 0)
print(json.dumps([vars(start), vars(strong), gnubg.cubeless("4HPwATDgc/ABMA")]))
"""


@pytest.mark.gnubg
def test_live_gnubg_hint():
    """gnubg's own cube analysis, in a child process (its engine is global and prints on fd 1)."""
    pytest.importorskip("gnubg", reason="GNU Backgammon is the reference for cube decisions")
    run = subprocess.run([sys.executable, "-c", _LIVE], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    start, strong, cubeless = json.loads(run.stdout.strip().splitlines()[-1])
    assert CubeHint(**start).verdict == Verdict(NO_DOUBLE, TAKE)  # beavers are off
    assert start["double_pass"] == 1.0 and start["double_take"] < 0 < start["no_double"] < 0.2
    assert CubeHint(**strong).verdict.doubler == DOUBLE
    assert cubeless[0] == pytest.approx(0.5, abs=0.05)


@pytest.mark.gnubg
@pytest.mark.parametrize(("ply", "positions"), [(0, 300), (1, 300), (2, 40)])
def test_the_cube_search_on_gnubgs_net_is_gnubgs_hint(ply, positions):
    """bgzero's cubeful search, fed gnubg's own 0-ply probabilities, gives gnubg's cached ``hint`` at the same ply.

    So where the shipped agent differs from gnubg, the network's probabilities differ, not
    the cube arithmetic or the search (gnubg picks replies by cubeful equity and reads
    two-sided bear-offs from a cubeful database: rare differences). At 2 ply this needs
    gnubg's deeper cube life (0.68 in contact): with 0.76 the median error is 0.006.
    """
    pytest.importorskip("gnubg_nn", reason="gnubg's 0-ply net stands in for the checkpoint")
    records = json.loads((cube_bench.DATA / "cube_reference_n300_seed0.json").read_text())["positions"][:positions]
    hints = [CubeHint(**r["gnubg"][str(ply)]) for r in records]
    boards = np.stack([board_from_position_id(r["position_id"]) for r in records])
    infos = [match_info_from_id(r["match_id"]) for r in records]
    verdicts, decisions, _ = cube_bench.bgzero_verdicts(cube_bench.GnubgNet(), boards, infos, ply)
    assert doubler_agreement(hints, verdicts).rate >= 0.99
    assert sum(v.taker == h.verdict.taker for v, h in zip(verdicts, hints)) >= 0.99 * len(hints)
    error = np.abs([d.equities.double_take - h.double_take for d, h in zip(decisions, hints)])
    assert np.median(error) < 0.002


def test_the_shipped_references_are_found_and_a_bad_one_is_refused(tmp_path, monkeypatch):
    """The package's data holds the two references the model cards quote; another size is looked for in the cache."""
    for n, seed in ((600, 1), (300, 0)):
        path = cube_bench.reference_path(None, n, seed)
        assert path.parent == cube_bench.DATA and path.exists()
        assert len(cube_bench.load_reference(path, n, seed)["positions"]) >= n  # too good positions are not capped
    assert cube_bench.reference_path(None, 7, 1) == cube_bench.CACHE / "cube_reference_n7_seed1.json"
    (tmp_path / "bad.json").write_text("{truncated")
    monkeypatch.setattr(sys, "argv", ["bgzero-bench", "cube", f"reference={tmp_path / 'bad.json'}"])
    with pytest.raises(SystemExit, match=r"^bgzero-bench cube: cannot read the cube reference .*bad\.json"):
        launch.bench()
