"""A shipped checkpoint as a policy inside the vector environment, against pubeval.

The learner's seat (player 0) is played by any agent spec through the play encoding: the
agent picks among ``env.moves`` (the legal plays), and its global pick minus the game's
offset is the action. The mean points per game, with a 95% interval, should agree with
``bgzero-eval a=strong b=pubeval`` (checkpoints/strong.md: +0.613 +- 0.018 over 20,000 games).

    python examples/checkpoint_in_env.py --agent strong --opponent pubeval --games 4000 --seed 0
"""

from __future__ import annotations

import argparse

import numpy as np

from bgzero.agents.specs import make_agent
from bgzero.env.table import MAX_GAME_PLIES
from bgzero.env.vector import BackgammonVectorEnv


def play(agent_spec: str, opponent: str, games: int, seed: int) -> np.ndarray:
    """The points of ``games`` cubeless money games, ``agent_spec`` against ``opponent``, from ``seed``.

    All games run in lockstep and each counts once, its first: taking the first ``games`` to
    end out of a stream would favour short games.
    """
    agent = make_agent(agent_spec)
    env = BackgammonVectorEnv(num_envs=games, opponent=opponent)
    env.reset(seed=seed)
    points = np.full(games, np.nan)
    for _ in range(MAX_GAME_PLIES):  # a step is two plies (the opponent's reply); see MAX_GAME_PLIES
        if not np.isnan(points).any():
            break
        moves = env.moves
        actions = agent.choose(env.boards, env.dice, moves) - moves.offsets[:-1]
        _, rewards, ended, _, _ = env.step(actions)
        first = ended & np.isnan(points)
        points[first] = rewards[first]
    if np.isnan(points).any():
        raise RuntimeError(f"{int(np.isnan(points).sum())} games did not end in {MAX_GAME_PLIES:,} steps")
    return points


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="strong")
    parser.add_argument("--opponent", default="pubeval")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    points = play(args.agent, args.opponent, args.games, args.seed)
    half = 1.96 * points.std(ddof=1) / np.sqrt(len(points))
    print(f"{args.agent} vs {args.opponent} in BackgammonVectorEnv: {points.mean():+.3f} +- {half:.3f} points/game "
          f"over {len(points):,} games (wins {np.mean(points > 0):.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
