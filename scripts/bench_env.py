"""Benchmark bgzero's RL environments against OpenSpiel's, pgx's and gym-backgammon's, random policies, one run.

Every row plays uniform-random legal actions for both sides, games restarting as they end,
and is timed in process CPU seconds (all threads), so a shared, loaded machine slows every
row alike and the ratios hold: quote the ratios. Two rates per row: environment steps per
CPU-second, and turns (whole plays) per CPU-second, the fair unit across encodings (one
play-encoding step is a turn; a checker-encoding or pgx step is one checker; an OpenSpiel
step is a turn, or half a double's).

The random policy reads only the observation's mask: in the play encoding the legal actions are
``0 .. count - 1`` and ``count`` is the mask's first 0 (one ``argmin`` a row, which stops there); in the
checker encoding :func:`uniform_legal` picks among each row's legal actions in numba. (Until
2026-12-04 the policy summed the (batch, 3060) mask, about 1.3 ms a step at batch 1024, and
multiplied the checker mask by a random array of its size, about 1 ms: each longer than the
env's own step now. docs/env.md's Speed section has the rows both ways.)

Rows: our ``BackgammonVectorEnv`` in self-play (batch 1, 64, 1024; play and checker
encodings), our PettingZoo AEC env, OpenSpiel's Python API (``legal_actions`` /
``apply_action``), pgx (``jax.jit(jax.vmap(step))`` on the CPU, batch 1024, its auto-reset)
and gym-backgammon's game (its Python ``get_valid_plays`` / ``execute_play``, the loop its
env's ``step`` wraps). A peer that is not installed (``pip install -e ".[env-bench]"``) is
skipped with a note.

    python scripts/bench_env.py --seconds 5 --seed 0
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import random
import time

import numpy as np
from numba import njit

from bgzero.env import backgammon_v0
from bgzero.env.vector import BackgammonVectorEnv


@njit(cache=True)
def uniform_legal(mask, u, out):
    """``out[b]``: the ``floor(u[b] * k)``-th of row ``b``'s ``k`` legal actions, a uniform pick.
    The checker rows' random policy, in numba so that numpy's temporaries over the (batch, 156)
    mask (a random number per entry, then an argmax: as long as the env's own step) do not
    swamp the environment the row times."""
    for b in range(mask.shape[0]):
        k = 0
        for a in range(mask.shape[1]):
            k += mask[b, a] != 0
        j = int(u[b] * k)
        for a in range(mask.shape[1]):
            if mask[b, a] != 0:
                if j == 0:
                    out[b] = a
                    break
                j -= 1


def timed(run, seconds: float) -> tuple[float, float]:
    """``run(deadline)`` returns ``(steps, turns)`` done before the CPU-time deadline; their rates."""
    start = time.process_time()
    steps, turns = run(lambda: time.process_time() - start >= seconds)
    cpu = time.process_time() - start
    return steps / cpu, turns / cpu


def bench_vector(n: int, encoding: str, seconds: float, seed: int):
    env = BackgammonVectorEnv(num_envs=n, opponent=None, action_encoding=encoding)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def run(done):
        nonlocal obs
        steps = turns = 0
        while not done():
            mask = obs["action_mask"]
            if encoding == "play":  # legal actions are 0..count-1: count is the first 0 of the mask
                count = np.where(mask[:, -1] != 0, mask.shape[1], mask.view(np.bool_).argmin(axis=1))
                actions = (rng.random(n) * count).astype(np.int64)
            else:
                actions = np.empty(n, np.int64)
                uniform_legal(mask, rng.random(n), actions)
            player = env.player.copy()
            obs, _, ended, _, _ = env.step(actions)
            steps += n
            turns += int((ended | (env.player != player)).sum()) if encoding == "checker" else n
        return steps, turns
    return timed(run, seconds)


def bench_aec(seconds: float, seed: int):
    env = backgammon_v0.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def run(done):
        steps = 0
        while not done():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset()
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        return steps, steps
    return timed(run, seconds)


def bench_openspiel(seconds: float, seed: int):
    import pyspiel
    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)

    def run(done):
        steps = turns = 0
        state = game.new_initial_state()
        while not done():
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                player = state.current_player()
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
                turns += state.is_terminal() or state.is_chance_node() or state.current_player() != player
        return steps, turns
    return timed(run, seconds)


def bench_pgx(n: int, seconds: float, seed: int):
    import jax
    import jax.numpy as jnp
    import pgx
    env = pgx.make("backgammon")

    @jax.jit
    def step(state, key):
        key, pick = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(pick, logits, axis=-1)
        new = jax.vmap(pgx.experimental.auto_reset(env.step, env.init))(state, actions, jax.random.split(key, n))
        turned = (new.current_player != state.current_player) | new.terminated
        return new, key, turned.sum()

    key = jax.random.PRNGKey(seed)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, n))
    state, key, _ = step(state, key)  # compile outside the timing
    jax.block_until_ready(state)

    def run(done):
        nonlocal state, key
        steps = turns = 0
        while not done():
            state, key, turned = step(state, key)
            steps += n
            turns += int(turned)
        return steps, turns
    return timed(run, seconds)


def bench_gym_backgammon(seconds: float, seed: int):
    """gym-backgammon's game, loaded by file: its env module needs pyglet for rendering."""
    spec = importlib.util.find_spec("gym_backgammon")
    if spec is None:
        raise ImportError("gym_backgammon is not installed")
    path = pathlib.Path(spec.origin).parent / "envs" / "backgammon.py"
    module_spec = importlib.util.spec_from_file_location("gym_backgammon_game", path)
    game_module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(game_module)
    rng = random.Random(seed)

    def run(done):
        steps = 0
        game, player = game_module.Backgammon(), 0
        while not done():
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            roll = (-roll[0], -roll[1]) if player == game_module.WHITE else roll  # its convention: WHITE's dice negative
            plays = sorted(game.get_valid_plays(player, roll))
            if plays:
                game.execute_play(player, rng.choice(plays))
            game.get_board_features(game.get_opponent(player))  # what its env's step returns
            steps += 1
            if game.get_winner() is not None:
                game, player = game_module.Backgammon(), 0
            else:
                player = game.get_opponent(player)
        return steps, steps
    return timed(run, seconds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per row")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--pgx-batch", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or min(args.batches) < 1 or args.pgx_batch < 1:
        parser.error("--seconds must be positive, --batches and --pgx-batch at least 1")
    rows = [(f"bgzero vector env, play, batch {n}", lambda n=n: bench_vector(n, "play", args.seconds, args.seed))
            for n in args.batches]
    rows += [(f"bgzero vector env, checker, batch {n}", lambda n=n: bench_vector(n, "checker", args.seconds, args.seed))
             for n in args.batches if n > 1]
    rows += [("bgzero PettingZoo AEC, play", lambda: bench_aec(args.seconds, args.seed)),
             ("OpenSpiel Python API", lambda: bench_openspiel(args.seconds, args.seed)),
             (f"pgx (jax CPU), batch {args.pgx_batch}", lambda: bench_pgx(args.pgx_batch, args.seconds, args.seed)),
             ("gym-backgammon game", lambda: bench_gym_backgammon(args.seconds, args.seed))]
    bench_vector(4, "play", 0.01, args.seed), bench_vector(4, "checker", 0.01, args.seed)  # compile the kernels first
    results = {}
    for name, run in rows:
        try:
            results[name] = run()
        except ImportError as err:
            print(f"skipped {name}: {err}")
    base = results.get("OpenSpiel Python API", (None, None))[1]
    print("| environment | steps / CPU-s | turns / CPU-s | turns vs OpenSpiel |")
    print("| --- | ---: | ---: | ---: |")
    for name, (steps, turns) in results.items():
        ratio = f"{turns / base:.1f}x" if base else "-"
        print(f"| {name} | {steps:,.0f} | {turns:,.0f} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
