"""Rollouts: dice, variance reduction, truncation, bear-off exactness, the cube, reproducibility, the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bgzero.agents.search import evaluate_ply
from bgzero.cli.rollout import report, run
from bgzero.cube import CubeState, MatchState
from bgzero.engine.bearoff.probs import bearoff_probs
from bgzero.engine.board import START
from bgzero.engine.game import ROLL_WEIGHTS, random_positions
from bgzero.engine.ids import board_from_position_id
from bgzero.errors import ConfigError
from bgzero.rollout import PlayerSpec, RolloutSettings, make_player, rollout_plays, rollout_positions
from bgzero.rollout.dice import DICE, TO_DISTINCT, trial_rolls
from bgzero.rollout.lockstep import flip_delta, in_two_sided_database
from bgzero.rollout.parallel import Batches, start_method
from bgzero.rollout.result import combined_z, summarise
from bgzero.value.probs import equity
from tests.boards import board
from tests.conftest import compose_config

REFERENCE = "checkpoint:checkpoints/reference.safetensors"  # a play file: no torch, so workers fork


@pytest.fixture(scope="module")
def player():
    return make_player(REFERENCE)


# --------------------------------------------------------------------------- dice


def test_first_rolls_are_stratified():
    t = np.arange(1296)
    first, second = trial_rolls(7, t, 0), trial_rolls(7, t, 1)
    assert len(set(zip(first.tolist(), second.tolist()))) == 1296  # every pair once in a block
    for lo in range(0, 1296, 36):  # and any 36 consecutive trials cover each roll once, both plies
        assert sorted(first[lo:lo + 36]) == list(range(36))
        assert sorted(second[lo:lo + 36]) == list(range(36))
    assert not np.array_equal(trial_rolls(8, t, 0), first)  # the seed shuffles the order


def test_a_plan_of_batches_indexes_and_slices_as_a_sequence():
    plan = Batches(positions=3, trials=5, batch=4)  # items 0-14
    assert len(plan) == 4 and plan[0] == (0, 4) and plan[-1] == (12, 15)
    assert plan[1:3] == [(4, 8), (8, 12)] and plan[:] == list(plan)


def test_dice_are_a_pure_function_of_seed_trial_and_ply():
    t = np.arange(5000)
    for ply in (0, 1, 2, 9):
        whole = trial_rolls(3, t, ply)
        assert np.array_equal(whole[1234:1300], trial_rolls(3, t[1234:1300], ply))
        assert np.array_equal(whole[[4999, 7]], trial_rolls(3, np.array([4999, 7]), ply))
    later = trial_rolls(3, np.arange(36 * 2000), 5)
    assert abs(np.bincount(later, minlength=36) / len(later) - 1 / 36).max() < 0.004
    assert np.isclose(ROLL_WEIGHTS.sum(), 1.0)
    assert (DICE[TO_DISTINCT == 0] == 1).all()


# --------------------------------------------------------------------------- pure helpers


def test_summarise_and_flipped():
    probs = np.array([[1, 1, 0, 0, 0], [0, 0, 0, 1, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0]], float)
    r = summarise(probs)
    assert r.trials == 4 and r.probs[0] == 0.75
    assert r.equity == pytest.approx(np.mean([2, -2, 1, 1]))
    assert r.equity_se == pytest.approx(np.std([2, -2, 1, 1], ddof=1) / 2)
    f = r.flipped()
    assert f.probs[0] == 0.25 and f.probs[1] == r.probs[3] and f.equity == -r.equity
    assert combined_z(1.0, 0.3, 0.0, 0.4) == pytest.approx(2.0)
    d = np.array([0.1, 0.02, 0.0, 0.03, 0.01])
    assert equity(flip_delta(d)) - equity(np.zeros(5)) == pytest.approx(-(equity(d) - equity(np.zeros(5))))


def test_two_sided_database_membership():
    small = board({1: 3, 5: 2}, {2: 6})
    assert in_two_sided_database(np.stack([small, START])).tolist() == [True, False]
    assert not in_two_sided_database(board({1: 7}, {1: 1})[None])[0]


# --------------------------------------------------------------------------- the engine


def test_truncating_after_one_ply_with_variance_reduction_is_the_1ply_evaluation(player):
    """Each trial's value minus its luck is the mean over the 21 rolls: 1-ply search exactly."""
    boards = np.stack([START, board_from_position_id("4PPgAQPgc/ABMA")])
    res = rollout_positions(boards, player, RolloutSettings(trials=36, truncate=1, seed=2))
    one_ply = evaluate_ply(player.judge.evaluator, boards, 1)
    for r, p in zip(res, one_ply):
        assert r.equity == pytest.approx(float(equity(p)), abs=2e-5)
        assert r.equity_se < 1e-5


def test_variance_reduction_keeps_the_mean_and_cuts_the_error(player):
    s = {"trials": 432, "truncate": 5, "seed": 11}
    on = rollout_positions(START[None], player, RolloutSettings(vr=True, **s))[0]
    off = rollout_positions(START[None], player, RolloutSettings(vr=False, **s))[0]
    assert on.equity_se * 3 < off.equity_se
    assert combined_z(on.equity, on.equity_se, off.equity, off.equity_se) < 3


def test_bearoff_rollouts_agree_with_the_exact_database():
    """A player kept away from the databases plays bear-offs out; the exact table is the truth."""
    blind = make_player(REFERENCE, database=False)
    boards = np.stack([board({1: 2, 3: 1, 5: 2}, {2: 2, 4: 2, 6: 1}),
                       board({6: 3}, {1: 1, 2: 1, 3: 1}),
                       board({1: 1, 4: 2, 6: 2}, {3: 3, 5: 3})])
    exact = bearoff_probs(boards)[:, 0]
    res = rollout_positions(boards, blind, RolloutSettings(trials=648, seed=5, database=False))
    for r, p in zip(res, exact):
        assert abs(r.probs[0] - p) <= 3 * r.probs_se[0] + 1e-3, (r.probs, p)
    ended = rollout_positions(boards, make_player(REFERENCE), RolloutSettings(trials=72, seed=5))
    for r, p in zip(ended, exact):  # ends at the database after one roll: exact with the luck taken off
        assert r.probs[0] == pytest.approx(p, abs=1e-4)


def test_same_numbers_whatever_the_split(player):
    roots = np.stack([START, board_from_position_id("4PPgAQPgc/ABMA")])
    s = RolloutSettings(trials=60, truncate=9, seed=4, batch=40)
    here = rollout_positions(roots, player, s)
    spec = PlayerSpec(REFERENCE)
    assert rollout_positions(roots, spec, s) == here
    assert rollout_positions(roots, spec, s, processes=2) == here


def test_stopping_at_a_target_error(player):
    s = RolloutSettings(trials=1296, truncate=3, seed=1, batch=72, se=0.01)
    r = rollout_positions(START[None], player, s)[0]
    assert r.trials < 1296 and r.equity_se <= 0.01
    assert rollout_positions(START[None], player, s)[0] == r  # reproducible


def test_plays_share_their_dice_and_come_best_first(player):
    position, plays = rollout_plays(START, (3, 1), player, RolloutSettings(trials=72, truncate=4, seed=0), top=3,
                                    with_position=True)
    assert plays[0].move == "8/5 6/5"
    assert [p.result.equity for p in plays] == sorted((p.result.equity for p in plays), reverse=True)
    assert position.trials == 72 and all(p.result.trials == 72 for p in plays)


# --------------------------------------------------------------------------- the cube


def test_cubeful_without_doubles_equals_cubeless():
    """pubeval never doubles: played out to the end, its cubeful money result is the cubeless one."""
    pub = make_player("pubeval")
    state = MatchState(cube=CubeState(2, 0))
    r = rollout_positions(START[None], pub, RolloutSettings(trials=36, vr=False, cubeful=True, seed=3, database=False),
                          [state], [0])[0]
    assert r.cubeful_equity == pytest.approx(r.equity)


def test_cubeful_money_and_match(player):
    race = board_from_position_id("69YpAQC3W8UAAA")  # a race at 77% that the player doubles
    money = rollout_positions(race[None], player, RolloutSettings(trials=72, truncate=6, cubeful=True, seed=2))[0]
    assert money.cubeful_equity > money.equity + 0.1  # the double (taken or passed) is worth more than no cube
    match = rollout_positions(race[None], player, RolloutSettings(trials=72, truncate=6, cubeful=True, seed=2),
                              [MatchState(7, (2, 4))], [0])[0]
    assert -3 <= match.cubeful_equity <= 3 and match.cubeful_se >= 0


# --------------------------------------------------------------------------- refusals and the CLI


@pytest.mark.parametrize("field,value", [("trials", 0), ("truncate", 0), ("se", -1.0), ("seconds", 0.0),
                                         ("batch", 0), ("seed", -1)])
def test_bad_settings_are_refused(field, value):
    with pytest.raises(ConfigError, match=field):
        RolloutSettings(**{field: value}).check()


def test_an_agent_without_a_judge_needs_vr_off():
    with pytest.raises(ConfigError, match="judge"):
        rollout_positions(START[None], make_player("pubeval"), RolloutSettings(trials=2))
    with pytest.raises(ConfigError, match="PlayerSpec"):
        rollout_positions(START[None], make_player("pubeval"), RolloutSettings(trials=2, vr=False), processes=2)


def test_cli_writes_the_json(tmp_path):
    out = tmp_path / "r.json"
    doc = run(compose_config("rollout", "position=4HPwATDgc/ABMA", "dice=31", "top=2", f"agent={REFERENCE}", "trials=36",
                             "truncate=2", "progress=false", f"output={out}", "cubeful=true"))
    saved = json.loads(out.read_text())
    assert saved == json.loads(json.dumps(doc))
    for entry in [saved] + saved["moves"]:
        assert {"probs", "equity", "equity_se", "cubeful_equity", "cubeful_se", "trials"} <= set(entry)
    assert saved["moves"][0]["move"] == "8/5 6/5" and len(saved["moves"]) == 2
    assert "8/5 6/5" in report(doc)


def test_trials_on_one_board_and_roll_share_a_deterministic_play_and_draw_their_own_random_one():
    from bgzero.rollout.lockstep import _play

    boards, rolls = np.repeat(START[None], 60, axis=0), np.full(60, 2)  # all 1-3
    pubeval, look = _play(make_player("pubeval"), boards, rolls, True)
    assert (pubeval == pubeval[0]).all() and look  # 59 of 60 repeats: look again at the next ply
    np.testing.assert_array_equal(_play(make_player("pubeval"), boards, rolls, False)[0], pubeval)  # not looking, the same
    apart, _ = random_positions(60, seed=3)
    assert not _play(make_player("pubeval"), apart, rolls, True)[1]  # trials apart: stop looking
    drawn, _ = _play(make_player("random:3"), boards, rolls, True)
    assert len({b.tobytes() for b in drawn}) > 5  # 16 plays of 1-3 at the start: one drawn per trial


def test_a_chance_a_hair_below_zero_prints_as_zero():
    doc = {"position": "4HPwATDgc/ABMA", "match": None, "agent": "pubeval", "settings": {"cubeful": False},
           "probs": [0.5, 0.1, -0.0002, 0.12, 0.004], "equity": -0.02, "equity_se": 0.01, "trials": 36}
    row = report(doc).splitlines()[-1]
    assert "-0.000" not in row and row.split()[3:9] == ["0.500", "0.100", "0.000", "0.500", "0.120", "0.004"]


def test_cli_takes_the_match_a_position_text_carries():
    plain = ["trials=36", "truncate=2", "progress=false", "cubeful=true", f"agent={REFERENCE}"]
    by_option = run(compose_config("rollout", "position=4HPwATDgc/ABMA", "match=MAHgACAAIAAE", *plain))
    combined = run(compose_config("rollout", "position='4HPwATDgc/ABMA:MAHgACAAIAAE'", *plain))
    assert combined["match"] == by_option["match"] == "MAHgACAAIAAE"
    assert combined["cubeful_equity"] == by_option["cubeful_equity"]  # the 7-point match at 2-4, not money
    xgid = run(compose_config("rollout", "position='XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10'", "top=2", *plain))
    assert xgid["position"] == "4HPwATDgc/ABMA" and xgid["moves"][0]["move"] == "8/5 6/5"  # the XGID's roll


@pytest.mark.parametrize("override,message", [("position=nonsense", "Position ID"), ("trials=x", "trials"),
                                              ("top=0", "top"), ("agent=pubeval", "judge"),
                                              ("cubeful=no", "cubeful='no' is not allowed: true or false"),
                                              ("vr=maybe", "vr"), ("progress=1", "progress")])
def test_cli_refuses_bad_input(override, message):
    with pytest.raises((ConfigError, ValueError), match=message):  # as its options are read, or as it starts
        run(compose_config("rollout", "position=4HPwATDgc/ABMA", "progress=false", override))


def test_hint_adds_rollout_columns():
    from bgzero.cli import hint

    cfg = compose_config("hint", "position=4HPwATDgc/ABMA", "dice=31", f"agent={REFERENCE}", "rollout=36",
                         "rollout_top=2")
    lines = hint.run(cfg).splitlines()
    assert "rollout ± se" in lines[2] and "(36 trials, cubeless money)" in lines[2]
    assert "±" in lines[3] and "±" in lines[4] and "±" not in lines[5]
    with pytest.raises(ConfigError, match="rollout=0 is not allowed"):
        compose_config("hint", "position=4HPwATDgc/ABMA", f"agent={REFERENCE}", "rollout=0")


@pytest.mark.slow  # starting Ray takes ~30 s here
def test_ray_actors_give_the_same_numbers(player):
    ray = pytest.importorskip("ray")
    roots = np.stack([START, board_from_position_id("4PPgAQPgc/ABMA")])
    s = RolloutSettings(trials=40, truncate=5, seed=4, batch=40)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert rollout_positions(roots, PlayerSpec(REFERENCE), s, processes=2, backend="ray") == \
            rollout_positions(roots, player, s)
    finally:
        ray.shutdown()


def test_workers_fork_only_where_it_is_safe_and_else_come_from_a_fork_server():
    assert start_method("linux", torch_loaded=False, threads=1) == "fork"
    assert start_method("linux", torch_loaded=True, threads=1) == "forkserver"  # torch's pool would not survive
    assert start_method("linux", torch_loaded=False, threads=3) == "forkserver"  # e.g. inside bgzero-web
    assert start_method("darwin", torch_loaded=False, threads=1) == "spawn"


def test_workers_from_a_fork_server_give_the_same_numbers():
    """A thread running (as in bgzero-web) makes the workers come from a fork server."""
    code = ("import sys, threading\n"
            "from bgzero.engine.board import START\n"
            "from bgzero.rollout import rollout_positions\n"
            "from bgzero.rollout.lockstep import RolloutSettings\n"
            "from bgzero.rollout.parallel import PlayerSpec\n"
            "stop = threading.Event(); threading.Thread(target=stop.wait, daemon=True).start()\n"
            "s = RolloutSettings(trials=60, truncate=9, seed=4, batch=40)\n"
            f"spec = PlayerSpec({REFERENCE!r})\n"
            "assert rollout_positions(START[None], spec, s, processes=2) == rollout_positions(START[None], spec, s)\n"
            "import multiprocessing.forkserver as fs\n"
            "assert fs._forkserver._forkserver_pid is not None, 'no fork server ran'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr


def test_forked_workers_give_the_same_numbers():
    code = ("import sys, numpy as np\n"
            "from bgzero.engine.board import START\n"
            "from bgzero.rollout import rollout_positions\n"
            "from bgzero.rollout.lockstep import RolloutSettings\n"
            "from bgzero.rollout.parallel import PlayerSpec\n"
            "s = RolloutSettings(trials=60, truncate=9, seed=4, batch=40)\n"
            f"spec = PlayerSpec({REFERENCE!r})\n"
            "assert rollout_positions(START[None], spec, s, processes=2) == rollout_positions(START[None], spec, s)\n"
            "assert 'torch' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
