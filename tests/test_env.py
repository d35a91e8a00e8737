"""The RL environments follow PettingZoo's and Gymnasium's APIs and play the engine's exact rules."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import bgzero.env  # noqa: E402,F401  (registers bgzero/Backgammon-v0)
from bgzero.engine.game import random_positions  # noqa: E402
from bgzero.engine.movegen import generate  # noqa: E402
from bgzero.env import backgammon_v0  # noqa: E402
from bgzero.env.checker import generated_results, reachable_results  # noqa: E402
from bgzero.env.table import PLAY_ACTIONS, Table  # noqa: E402
from bgzero.errors import ConfigError, IllegalMoveError  # noqa: E402
from tests.boards import board as pos  # noqa: E402


def test_pettingzoo_api_and_seed():
    for encoding in ("play", "checker"):
        api_test(backgammon_v0.env(action_encoding=encoding), num_cycles=200)
        seed_test(lambda: backgammon_v0.env(action_encoding=encoding), num_cycles=200)


def play_out(env, seed):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    done = False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, _, _ = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
    return total, steps


def test_gym_games_end_with_points_and_replay_from_seed():
    env = gymnasium.make("bgzero/Backgammon-v0", opponent="random")
    first = [play_out(env, s) for s in range(5)]
    assert all(abs(r) in (1, 2, 3) for r, _ in first)
    assert first == [play_out(env, s) for s in range(5)]


def test_win_reward_is_plus_minus_one():
    env = gymnasium.make("bgzero/Backgammon-v0", opponent="random", reward="win")
    assert all(abs(play_out(env, s)[0]) == 1 for s in range(3))


def test_aec_rewards_are_zero_sum():
    env = backgammon_v0.env()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        final[agent] = reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert final["player_0"] == -final["player_1"] != 0


def test_play_masks_equal_generate_lists():
    boards, dice = random_positions(300, seed=5, games=50, burn_in=20)
    table = Table()
    batch = generate(boards, dice)
    for b in range(len(boards)):
        table.board, table.dice = boards[b].copy(), dice[b].copy()
        table._turn(dice[b])
        lo, hi = batch.offsets[b], batch.offsets[b + 1]
        assert table.mask().sum() == hi - lo <= PLAY_ACTIONS
        assert np.array_equal(table.afterstates(), batch.results[lo:hi])


def test_gymnasium_check_env_passes():
    from gymnasium.utils.env_checker import check_env
    for encoding in ("play", "checker"):
        check_env(gymnasium.make("bgzero/Backgammon-v0", action_encoding=encoding).unwrapped, skip_render_check=True)


def test_illegal_action_loses_the_most_a_game_can():
    env = gymnasium.make("bgzero/Backgammon-v0")
    env.reset(seed=0)
    _, reward, done, _, info = env.step(PLAY_ACTIONS - 1)
    assert (reward, done, info) == (-3.0, True, {"illegal_action": True})
    env = gymnasium.make("bgzero/Backgammon-v0", reward="win")
    env.reset(seed=0)
    assert env.step(PLAY_ACTIONS - 1)[1] == -1.0
    aec = backgammon_v0.env()
    aec.reset(seed=0)
    offender = aec.agent_selection
    aec.step(PLAY_ACTIONS - 1)
    assert aec.rewards[offender] == -3 and aec.infos[offender] == {"illegal_action": True}
    assert all(aec.terminations.values())


def test_checker_steps_reach_exactly_generates_plays():
    """Every masked step belongs to a legal play (following them all reaches only generate's
    results), and every legal play is reachable; scripts/check_env_rules.py does 100,000."""
    boards, dice = random_positions(1500, seed=11, games=150, burn_in=20)
    fresh = np.random.default_rng(11).integers(1, 7, (len(boards), 2))
    boards, dice = np.concatenate([boards, boards]), np.concatenate([dice, fresh])
    got, want = reachable_results(boards, dice), generated_results(boards, dice)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_checker_mask_keeps_the_higher_die_rule():
    """One checker on the 24-point, the 13-point blocked: 6-5 plays only one die, so the 6."""
    board = pos({24: 1}, {12: 2, 2: 13})  # their 12-point is my 13
    table = Table(action_encoding="checker")
    table.board, table.player = board, 0
    table._turn((5, 6))
    assert np.flatnonzero(table.mask()).tolist() == [6 * 2 + 5]  # from the 24-point (s = 2) by 6


def test_bad_input_is_one_line_error():
    env = gymnasium.make("bgzero/Backgammon-v0", illegal="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="not legal"):
        env.step(PLAY_ACTIONS - 1)
    with pytest.raises(ConfigError, match="unknown reward"):
        Table(reward="cube")
    with pytest.raises(ConfigError, match="unknown illegal"):
        gymnasium.make("bgzero/Backgammon-v0", illegal="ignore")
    with pytest.raises(ConfigError, match="unknown action_encoding"):
        backgammon_v0.env(action_encoding="die")


def test_rules_script_agrees_at_small_size():
    """scripts/check_env_rules.py's checks on 200 positions (two rolls each); the full run is 100,000."""
    from scripts import check_env_rules as rules
    assert rules.main(["--positions", "200", "--openspiel-games", "0"]) == 0
    boards, dice = rules.sample_pairs(50, seed=3)
    assert rules.check_checker(boards, dice) == rules.check_play(boards, dice) > len(boards)
    pytest.importorskip("pyspiel")
    assert rules.crosscheck_openspiel(1, seed=3) > 20
