"""CleanRL-style masked PPO on bgzero's vector environment, then an evaluation against ``random``.

One file, torch only. The learner plays the "checker" encoding (156 actions, one checker by one
die per step, the mask keeping the rules) against a ``random`` opponent in
``BackgammonVectorEnv``; the reward is the cubeless money points at each game's end. Logits
of masked-out actions are set to -1e9, so the policy never samples an illegal step.

After training, ``--eval-games`` games (each counted once, seeds from ``--seed``) are played
by the greedy policy and, on the same seeds, by a uniformly random policy: the mean points
per game with 95% intervals, and their paired difference. ``--curve`` writes the training
curve (mean points of the games that ended in each update) as CSV.

    python examples/ppo_masked.py --minutes 5 --num-envs 64 --seed 0 --curve ppo_curve.csv
"""

from __future__ import annotations

import argparse
import csv
import time

import numpy as np
import torch
from torch import nn

from bgzero.env.table import MAX_GAME_PLIES
from bgzero.env.vector import BackgammonVectorEnv


def features(obs: dict) -> torch.Tensor:
    """The encoder's features and the dice still to play, scaled to about [0, 1]."""
    return torch.as_tensor(np.concatenate([obs["observation"], obs["dice_left"] / 6.0], axis=1), dtype=torch.float32)


class Policy(nn.Module):
    """A shared trunk with a policy head over the 156 checker actions and a value head."""

    def __init__(self, inputs: int, actions: int, hidden: int = 128):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, actions)
        self.v = nn.Linear(hidden, 1)

    def dist(self, x: torch.Tensor, mask: torch.Tensor):
        h = self.trunk(x)
        logits = self.pi(h).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits), self.v(h).squeeze(-1)


def make_env(num_envs: int) -> BackgammonVectorEnv:
    return BackgammonVectorEnv(num_envs=num_envs, opponent="random", action_encoding="checker")


def train(args) -> tuple[Policy, list[tuple[int, float, int]]]:
    torch.manual_seed(args.seed)
    env = make_env(args.num_envs)
    obs, _ = env.reset(seed=args.seed)
    n, t_len = args.num_envs, args.steps
    x, mask = features(obs), torch.as_tensor(obs["action_mask"], dtype=torch.bool)
    policy = Policy(x.shape[1], mask.shape[1])
    opt = torch.optim.Adam(policy.parameters(), lr=args.lr, eps=1e-5)
    xs, masks = torch.zeros((t_len, n, x.shape[1])), torch.zeros((t_len, n, mask.shape[1]), dtype=torch.bool)
    acts, logps, vals = torch.zeros((t_len, n), dtype=torch.long), torch.zeros((t_len, n)), torch.zeros((t_len, n))
    rews, dones = torch.zeros((t_len, n)), torch.zeros((t_len, n))
    curve, steps, start = [], 0, time.monotonic()
    while time.monotonic() - start < 60 * args.minutes:
        ended_points = []
        with torch.no_grad():
            for t in range(t_len):
                d, v = policy.dist(x, mask)
                a = d.sample()
                xs[t], masks[t], acts[t], logps[t], vals[t] = x, mask, a, d.log_prob(a), v
                obs, r, ended, _, _ = env.step(a.numpy())
                rews[t], dones[t] = torch.as_tensor(r), torch.as_tensor(ended, dtype=torch.float32)
                ended_points.extend(r[ended].tolist())
                x, mask = features(obs), torch.as_tensor(obs["action_mask"], dtype=torch.bool)
            _, next_v = policy.dist(x, mask)
            adv, last = torch.zeros((t_len, n)), torch.zeros(n)
            for t in reversed(range(t_len)):  # GAE; an ended game's next observation is a new game's
                nv = next_v if t == t_len - 1 else vals[t + 1]
                live = 1.0 - dones[t]
                delta = rews[t] + args.gamma * nv * live - vals[t]
                last = delta + args.gamma * args.lam * live * last
                adv[t] = last
            ret = adv + vals
        b_x, b_m, b_a = xs.reshape(-1, x.shape[1]), masks.reshape(-1, mask.shape[1]), acts.reshape(-1)
        b_lp, b_adv, b_ret = logps.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(n * t_len).chunk(args.minibatches):
                d, v = policy.dist(b_x[idx], b_m[idx])
                ratio = (d.log_prob(b_a[idx]) - b_lp[idx]).exp()
                a_n = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg = -torch.min(ratio * a_n, ratio.clamp(1 - args.clip, 1 + args.clip) * a_n).mean()
                loss = pg + 0.5 * ((v - b_ret[idx]) ** 2).mean() - args.ent * d.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
                opt.step()
        steps += n * t_len
        if ended_points:
            curve.append((steps, float(np.mean(ended_points)), len(ended_points)))
            print(f"{steps:>9,} steps  {time.monotonic() - start:6.0f} s  games {len(ended_points):4d}  "
                  f"mean points {np.mean(ended_points):+.3f}", flush=True)
    return policy, curve


def evaluate(policy: Policy | None, games: int, seed: int) -> np.ndarray:
    """Points of ``games`` games vs random, each counted once; ``policy=None`` plays uniformly at random."""
    env = make_env(games)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    points = np.full(games, np.nan)
    with torch.no_grad():
        for _ in range(4 * MAX_GAME_PLIES):  # checker steps: at most four a ply; see MAX_GAME_PLIES
            if not np.isnan(points).any():
                break
            mask = obs["action_mask"]
            if policy is None:
                actions = np.argmax(mask * rng.random(mask.shape), axis=1)
            else:
                d, _ = policy.dist(features(obs), torch.as_tensor(mask, dtype=torch.bool))
                actions = d.probs.argmax(dim=1).numpy()
            obs, r, ended, _, _ = env.step(actions)
            first = ended & np.isnan(points)
            points[first] = r[first]
    if np.isnan(points).any():
        raise RuntimeError(f"{int(np.isnan(points).sum())} games did not end in {4 * MAX_GAME_PLIES:,} steps")
    return points


def interval(x: np.ndarray) -> str:
    return f"{x.mean():+.3f} +- {1.96 * x.std(ddof=1) / np.sqrt(len(x)):.3f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="training wall time")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=128, help="rollout length per update")
    parser.add_argument("--lr", type=float, default=2.5e-4)
    parser.add_argument("--gamma", type=float, default=0.999)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent", type=float, default=0.01)
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--curve", help="write the training curve here (CSV: steps, mean_points, games)")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or min(args.num_envs, args.steps, args.epochs, args.minibatches, args.threads) < 1 \
            or args.eval_games < 2:
        parser.error("--minutes must be positive, --eval-games at least 2, the counts at least 1")
    torch.set_num_threads(args.threads)
    policy, curve = train(args)
    if args.curve:
        with open(args.curve, "w", newline="") as f:
            csv.writer(f).writerows([("steps", "mean_points", "games"), *curve])
    eval_seed = args.seed + 10**9  # games the training never saw
    ppo, rnd = evaluate(policy, args.eval_games, eval_seed), evaluate(None, args.eval_games, eval_seed)
    print(f"PPO (greedy) vs random: {interval(ppo)} points/game over {args.eval_games:,} games "
          f"(wins {np.mean(ppo > 0):.1%})")
    print(f"random vs random, same seeds: {interval(rnd)}; PPO minus random, paired: {interval(ppo - rnd)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
