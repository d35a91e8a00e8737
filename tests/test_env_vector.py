"""The vector environment: Gymnasium's VectorEnv API, per-game seeds, both autoreset modes, the opponent modes."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import bgzero.env  # noqa: E402,F401  (registers bgzero/Backgammon-v0)
from bgzero.env.table import PLAY_ACTIONS  # noqa: E402
from bgzero.env.vector import BackgammonVectorEnv  # noqa: E402
from bgzero.errors import ConfigError, IllegalMoveError  # noqa: E402


def policy(obs):
    """A deterministic legal choice per game that depends on that game's observation alone."""
    out = []
    for feats, mask in zip(obs["observation"], obs["action_mask"]):
        legal = np.flatnonzero(mask)
        out.append(legal[int(abs(feats.sum()) * 997) % len(legal)])
    return np.array(out)


def trace(env, seed, steps):
    obs, _ = env.reset(seed=seed)
    rewards, ends = [], []
    for _ in range(steps):
        obs, r, term, trunc, _ = env.step(policy(obs))
        rewards.append(r.copy())
        ends.append(term.copy())
    return np.array(rewards), np.array(ends)


@pytest.mark.parametrize("encoding", ["play", "checker"])
def test_each_game_replays_from_its_own_seed(encoding):
    """Game i of a batch seeded 10 plays as a batch of one seeded 10 + i: no game's dice depend on another's."""
    together = trace(BackgammonVectorEnv(4, action_encoding=encoding), 10, 150)
    for i in range(4):
        alone = trace(BackgammonVectorEnv(1, action_encoding=encoding), 10 + i, 150)
        assert np.array_equal(together[0][:, i], alone[0][:, 0]) and np.array_equal(together[1][:, i], alone[1][:, 0])
    assert together[1].sum() >= 4  # games ended and restarted
    again = trace(BackgammonVectorEnv(4, action_encoding=encoding), [10, 11, 12, 13], 150)
    assert np.array_equal(together[0], again[0])


def test_make_vec_builds_it_with_the_batched_spaces():
    env = gymnasium.make_vec("bgzero/Backgammon-v0", num_envs=8, vectorization_mode="vector_entry_point",
                             opponent="pubeval")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and env.action_space.shape == (8,)
    assert env.single_action_space.n == PLAY_ACTIONS
    assert (obs["action_mask"].sum(axis=1) >= 1).all()


def test_rewards_are_points_and_same_step_autoreset_starts_the_next_game():
    env = BackgammonVectorEnv(16, opponent="random")
    obs, _ = env.reset(seed=1)
    seen = []
    for _ in range(400):
        obs, r, term, _, info = env.step(policy(obs))
        assert (r[~term] == 0).all()
        if term.any():
            seen.extend(r[term].tolist())
            assert info["_final_obs"].tolist() == term.tolist()
            assert (obs["action_mask"][term].sum(axis=1) >= 1).all()  # already the next game's first decision
    assert set(seen) <= {-3, -2, -1, 1, 2, 3} and len(seen) >= 20 and min(seen) < 0 < max(seen)


def test_next_step_autoreset_ignores_the_action_after_the_end():
    env = BackgammonVectorEnv(8, autoreset_mode=AutoresetMode.NEXT_STEP)
    obs, _ = env.reset(seed=2)
    for _ in range(400):
        obs, r, term, _, _ = env.step(policy(obs))
        if term.any():
            assert (obs["action_mask"][term].sum(axis=1) == 1).all() and (obs["action_mask"][term, 0] == 1).all()
            obs, r, term2, _, _ = env.step(np.where(term, PLAY_ACTIONS - 1, policy(obs)))  # ignored: no illegal loss
            assert (r[term] == 0).all() and not term2[term].any()
            return
    pytest.fail("no game ended in 400 steps")


def test_self_play_rewards_the_mover_and_says_who_is_on_roll():
    env = BackgammonVectorEnv(16, opponent=None, action_encoding="checker", reward="win")
    obs, info = env.reset(seed=3)
    players = {0: 0, 1: 0}
    for _ in range(600):
        for p in info["player"]:
            players[int(p)] += 1
        obs, r, term, _, info = env.step(policy(obs))
        assert (r[term] == 1).all()  # the mover of the last step wins
    assert min(players.values()) > 1000


def test_illegal_action_loses_or_raises():
    env = BackgammonVectorEnv(3)
    obs, _ = env.reset(seed=4)
    act = policy(obs)
    act[1] = PLAY_ACTIONS - 1
    _, r, term, _, info = env.step(act)
    assert r[1] == -3 and term[1] and info["illegal_action"].tolist() == [False, True, False]
    env = BackgammonVectorEnv(3, illegal="raise")
    env.reset(seed=4)
    with pytest.raises(IllegalMoveError, match="env 1: action 3059 is not legal"):
        env.step(act)


def test_bad_options_are_one_line_errors():
    with pytest.raises(ConfigError, match="num_envs must be at least 1"):
        BackgammonVectorEnv(0)
    with pytest.raises(ConfigError, match="unknown autoreset_mode"):
        BackgammonVectorEnv(2, autoreset_mode="Later")
    env = BackgammonVectorEnv(2)
    with pytest.raises(ConfigError, match="reset got 3 seeds for 2"):
        env.reset(seed=[1, 2, 3])
    env.reset(seed=0)
    with pytest.raises(ConfigError, match="step wants 2 actions"):
        env.step([0])
