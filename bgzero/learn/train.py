"""``train(cfg)``: self-play workers feed a TD(λ) learner; logging, evaluation, checkpoints.

Reads top to bottom: build the net and optimizer (or restore them), start the self-play
workers, then loop: take finished games, compute λ-return targets with the current net,
take minibatch steps, publish the new weights, log, evaluate against pubeval now and then,
checkpoint. ``selfplay.workers=0`` plays in this process, which makes a run exactly
reproducible from its seed; with workers the dice are still seeded per worker, but which
weights a game is played with depends on timing. Workers are processes on this machine
(``selfplay.backend=local``) or Ray actors across a cluster (``ray``); ``device=cuda``
puts the learner on a GPU (docs/distributed.md).
"""

from __future__ import annotations

import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf
from torch import nn
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from bgzero.agents.neural import NeuralAgent
from bgzero.agents.pubeval import PubevalAgent
from bgzero.arena.duplicate import play_duplicate
from bgzero.atomic import atomic_write_text, remove_temporaries
from bgzero.engine.classify import CONTACT, RACE
from bgzero.errors import CheckpointError, ConfigError, Interrupted
from bgzero.learn.run_lock import RunLock
from bgzero.learn.schemas import Train
from bgzero.learn.td import batch_lambda_returns, td_loss
from bgzero.schema import check
from bgzero.selfplay.build import build_nets, make_evaluator, self_play_agent
from bgzero.selfplay.player import SelfPlayer, Trajectories
from bgzero.selfplay.workers import LocalWorkers, Workers
from bgzero.value.checkpoint import check_resumable, load_checkpoint, net_fields, save_checkpoint
from bgzero.value.evaluator import Evaluator
from bgzero.value.net import ValueNet
from bgzero.value.probs import equity


def learning_rate(td: DictConfig, games: int, total_games: int) -> float:
    """The learning rate after ``games`` games of ``total_games`` under ``td.lr_schedule``."""
    frac = min(1.0, games / max(1, total_games))
    if td.lr_schedule == "constant":
        return td.lr
    if td.lr_schedule == "linear":
        return td.lr + (td.lr_final - td.lr) * frac
    if td.lr_schedule == "cosine":
        return td.lr_final + 0.5 * (td.lr - td.lr_final) * (1 + math.cos(math.pi * frac))
    raise ConfigError(f"td.lr_schedule={td.lr_schedule!r}; choose constant, linear or cosine")


def check_config(cfg: DictConfig) -> None:
    """Reject values that would fail later, with the offending key in the message."""
    check(cfg, Train)
    learning_rate(cfg.td, 0, 1)
    workers_backend(cfg)


def workers_backend(cfg: DictConfig) -> type[Workers]:
    """The self-play backend ``selfplay.backend`` names (:mod:`bgzero.selfplay.workers` has the interface).

    Ray is imported only when asked for: it is an optional dependency.
    """
    backend = cfg.selfplay.backend
    if backend == "local":
        return LocalWorkers
    if backend == "ray":
        try:
            from bgzero.selfplay.ray_workers import RayWorkers
        except ModuleNotFoundError as e:
            if e.name != "ray":
                raise
            raise ConfigError('selfplay.backend=ray needs Ray: pip install -e ".[distributed]"') from None
        return RayWorkers
    raise ConfigError(f"selfplay.backend={backend!r}; choose local or ray")


def num_workers(cfg: DictConfig) -> int:
    workers = cfg.selfplay.workers
    if workers == "auto":
        return workers_backend(cfg).auto_count(cfg)
    if not isinstance(workers, int) or workers < 0:
        raise ConfigError(f"selfplay.workers={workers!r}; use auto or a count >= 0 (0 plays in-process)")
    return workers


def resolve_device(name: str) -> torch.device:
    """The learner's device (``name`` passed the config check); ``cuda`` on a machine without a GPU
    falls back to the CPU, with a warning."""
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        warnings.warn(f"device={name} but no GPU is available: the learner runs on the CPU", stacklevel=2)
        return torch.device("cpu")
    return device


class OnDevice(nn.Module):
    """A net on the learner's device seen through the evaluator's CPU tensors: in from the CPU, out to it."""

    def __init__(self, net: ValueNet, device: torch.device):
        super().__init__()
        self.net, self.config, self.device = net, net.config, device

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x.to(self.device)).cpu()


def make_optimizer(nets: nn.Module, td: DictConfig) -> torch.optim.Optimizer:
    if td.optimizer == "adam":
        return torch.optim.Adam(nets.parameters(), lr=td.lr)
    return torch.optim.SGD(nets.parameters(), lr=td.lr)


def learn(nets: nn.ModuleDict, evaluator: Evaluator, opt: torch.optim.Optimizer, traj: Trajectories,
          cfg: DictConfig, rng: np.random.Generator) -> dict:
    """One pass of minibatch steps on λ-return targets for a chunk of finished games.

    Targets bootstrap on the routed evaluation (exact bear-offs, race net, contact net);
    each network then learns the positions it answers for.
    """
    values = evaluator.probs(traj.boards)
    explored = greedy_values = None  # greedy games (the default) take the plain λ-return path
    if len(traj.greedy):
        explored, greedy_values = traj.explored, np.zeros_like(values)
        greedy_values[explored] = evaluator.probs(traj.greedy)
    targets = batch_lambda_returns(values, traj.lengths, traj.points, cfg.td.lam, explored, greedy_values)
    route = evaluator.route(traj.boards)
    device = next(nets.parameters()).device
    losses = []
    for which, net, encoder in ((CONTACT, nets["contact"], evaluator.encoder),
                                (RACE, nets["race"] if "race" in nets else None, evaluator.race_encoder)):
        mask = route == which
        if net is None or not mask.any():
            continue
        net.train()
        x = torch.from_numpy(encoder(traj.boards[mask])).to(device)
        t = torch.from_numpy(targets[mask]).to(device)
        for _ in range(cfg.td.epochs):
            perm = torch.from_numpy(rng.permutation(len(x)))
            for lo in range(0, len(x), cfg.td.batch_size):
                idx = perm[lo:lo + cfg.td.batch_size]
                loss = td_loss(net(x[idx]), t[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                losses.append(loss.item())
        net.eval()
    return {"loss": float(np.mean(losses)) if losses else 0.0,
            "td_error": float(np.abs(equity(targets) - equity(values)).mean()),
            "race_share": float((route == RACE).mean())}


def evaluate_vs_pubeval(evaluator: Evaluator, games: int, seed: int):
    return play_duplicate(NeuralAgent(evaluator, name="learner"), PubevalAgent(), games, seed=seed)


def train(cfg: DictConfig) -> dict:
    """Run (or resume) a training run described by ``cfg``; returns the final results."""
    check_config(cfg)
    with RunLock(cfg.train.out_dir):  # one training per run directory; a killed run's temporary files go
        _make_room(cfg)
        return _train(cfg)


_RUN_FILES = ("last.pt", "checkpoints", "tb", "result.json")
_OURS = {"checkpoints": "games_*.pt", "tb": "events.out.tfevents.*"}
"""What a run writes inside its folders: ``train.overwrite`` removes these and leaves anything else."""


def _make_room(cfg: DictConfig) -> None:
    """A new run (no ``train.resume``) in a folder that holds one is refused, or with
    ``train.overwrite`` that run's files are removed first: two runs' checkpoints and
    TensorBoard logs never mix."""
    out = Path(cfg.train.out_dir)
    earlier = [out / name for name in _RUN_FILES if (out / name).exists()]
    if cfg.train.resume or not earlier:
        return
    if not cfg.train.overwrite:
        raise ConfigError(f"{out} already holds a training run: pass train.resume={out / 'last.pt'} to continue it, "
                          "name=NEW for a new run beside it, or train.overwrite=true to replace it")
    for path in earlier:
        if path.name in _OURS and path.is_dir():  # a checkpoints/ of the user's own keeps what we did not write
            for ours in path.glob(_OURS[path.name]):
                ours.unlink()
            remove_temporaries(path)
            if not any(path.iterdir()):
                path.rmdir()
        elif path.is_file():
            path.unlink()


def _train(cfg: DictConfig) -> dict:
    torch.set_num_threads(1)
    out_dir = Path(cfg.train.out_dir)
    device = resolve_device(cfg.device)
    torch.manual_seed(cfg.seed)
    net = build_nets(cfg).to(device)
    evaluator = make_evaluator(nn.ModuleDict({k: OnDevice(v, device) for k, v in net.items()}), cfg)
    opt = make_optimizer(net, cfg.td)
    rng = np.random.default_rng(cfg.seed)
    games = positions = 0
    wall_before = 0.0  # training time of earlier sessions of this run (resumes)
    if cfg.train.resume:
        state = load_checkpoint(cfg.train.resume)
        check_resumable(cfg.train.resume, state)
        saved = (state["encoder"], state["net_config"], state.get("race_net_config"))
        wanted = (cfg.encoder.name, net["contact"].config_dict(), net["race"].config_dict() if "race" in net else None)
        if saved != wanted:
            raise CheckpointError(f"checkpoint {cfg.train.resume} has encoder, net and race net {saved}, "
                                  f"but this run asks for {wanted}")
        net["contact"].load_state_dict(state["model"])
        if "race" in net:
            net["race"].load_state_dict(state["race_model"])
        if "optimizer" in state:
            try:
                opt.load_state_dict(state["optimizer"])
            except (ValueError, KeyError, TypeError, RuntimeError):
                raise CheckpointError(f"checkpoint {cfg.train.resume}: its optimizer state does not fit the net "
                                      f"or td.optimizer={cfg.td.optimizer}") from None
        else:  # fine-tuned outside TD training (scripts/search_finetune.py): a fresh optimizer
            print(f"bgzero: {cfg.train.resume} has no optimizer state; training continues with a fresh optimizer")
        games, positions = state["games"], state["positions"]
        wall_before = state.get("wall_seconds", 0.0)
        rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])

    def checkpoint(tag: str) -> Path:
        state = {**net_fields(net["contact"]), "optimizer": opt.state_dict(), "encoder": cfg.encoder.name,
                 "exact_bearoff": cfg.net.exact_bearoff, "games": games, "positions": positions,
                 "config": OmegaConf.to_container(cfg, resolve=True), "rng": rng.bit_generator.state,
                 "torch_rng": torch.get_rng_state(), "wall_seconds": wall_before + time.perf_counter() - started}
        if "race" in net:
            state |= {**net_fields(net["race"], "race_"), "race_encoder": "race"}
        last = save_checkpoint(out_dir / "last.pt", state)  # first: a kill between the two loses nothing on resume
        save_checkpoint(out_dir / "checkpoints" / f"{tag}.pt", state)
        return last

    # a resume drops what was logged after its checkpoint; the points at the checkpoint's own step came before it
    writer = SummaryWriter(str(out_dir / "tb"), purge_step=games + 1 if games else None)
    writer.add_text("config", "```\n" + OmegaConf.to_yaml(cfg) + "\n```", games)
    n_workers = num_workers(cfg)
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence([cfg.seed, games]).spawn(max(1, n_workers))]
    workers = workers_backend(cfg)(cfg, net, seeds) if n_workers else None
    player = None if workers else SelfPlayer(self_play_agent(evaluator, cfg, seeds[0]), cfg.selfplay.parallel_games,
                                             seeds[0])
    next_eval = (games // cfg.eval.every_games + 1) * cfg.eval.every_games if cfg.eval.every_games else math.inf
    next_ckpt = (games // cfg.train.checkpoint_every + 1) * cfg.train.checkpoint_every
    last_eval = "-"
    bar = tqdm(total=cfg.train.games, initial=games, unit="game", disable=not cfg.train.progress, dynamic_ncols=True)
    started, games_at_start = time.perf_counter(), games
    try:
        while games < cfg.train.games:
            tick = time.perf_counter()
            if workers:
                traj = workers.get()
            else:
                traj = player.play(cfg.selfplay.games_per_chunk)
            for group in opt.param_groups:
                group["lr"] = learning_rate(cfg.td, games, cfg.train.games)
            stats = learn(net, evaluator, opt, traj, cfg, rng)
            if workers:
                workers.publish(net)
            games += traj.games
            positions += len(traj.boards)
            elapsed = time.perf_counter() - started
            gps = (games - games_at_start) / elapsed
            bar.update(traj.games)
            bar.set_postfix_str(f"{gps:.0f} games/s, loss {stats['loss']:.3f}, vs pubeval {last_eval}")
            writer.add_scalar("losses/td_loss", stats["loss"], games)
            writer.add_scalar("losses/td_error", stats["td_error"], games)
            writer.add_scalar("selfplay/race_position_share", stats["race_share"], games)
            writer.add_scalar("train/learning_rate", opt.param_groups[0]["lr"], games)
            writer.add_scalar("selfplay/games_per_s", gps, games)
            writer.add_scalar("selfplay/positions_per_s", len(traj.boards) / max(1e-9, time.perf_counter() - tick), games)
            writer.add_scalar("selfplay/avg_game_length", float(traj.lengths.mean()), games)
            writer.add_scalar("selfplay/gammon_rate", float((traj.points >= 2).mean()), games)
            writer.add_scalar("selfplay/backgammon_rate", float((traj.points >= 3).mean()), games)
            if next_eval <= games < cfg.train.games:  # at the last step the final evaluation is the one
                result = evaluate_vs_pubeval(evaluator, cfg.eval.games, seed=cfg.eval.seed)
                log_eval(writer, result, games, wall_before + elapsed)
                last_eval = f"{result.ppg:+.3f}±{result.ci95:.3f}"
                next_eval += cfg.eval.every_games
            if games >= next_ckpt:
                checkpoint(f"games_{games:09d}")
                next_ckpt += cfg.train.checkpoint_every
    except KeyboardInterrupt:  # Ctrl-C: keep what was learnt, and say how to go on
        bar.close()
        last = checkpoint(f"games_{games:09d}")
        raise Interrupted(f"{last} holds {games} games; continue with train.resume={last}") from None
    finally:
        bar.close()
        if workers:
            workers.close()
    final_path = checkpoint(f"games_{games:09d}")
    result = evaluate_vs_pubeval(evaluator, cfg.eval.final_games, seed=cfg.eval.seed + 1)
    log_eval(writer, result, games, wall_before + time.perf_counter() - started)
    writer.add_hparams({"lam": cfg.td.lam, "lr": cfg.td.lr, "encoder": cfg.encoder.name,
                        "hidden": str(list(cfg.net.hidden)), "race_net": bool(cfg.net.race),
                        "epsilon": cfg.selfplay.epsilon, "explore_top": cfg.selfplay.explore_top},
                       {"hparam/ppg_vs_pubeval": result.ppg}, run_name=".")
    writer.close()
    summary = {"games": games, "positions": positions, "checkpoint": str(final_path),
               "wall_seconds": wall_before + time.perf_counter() - started, "vs_pubeval": result.as_dict()}
    atomic_write_text(out_dir / "result.json", json.dumps(summary, indent=2))
    print(f"bgzero: {games} games trained; vs pubeval {result}; checkpoint {final_path}")
    return summary


def log_eval(writer: SummaryWriter, result, games: int, elapsed: float) -> None:
    writer.add_scalar("eval/ppg_vs_pubeval", result.ppg, games)
    writer.add_scalar("eval/ppg_ci95_low", result.ppg - result.ci95, games)
    writer.add_scalar("eval/ppg_ci95_high", result.ppg + result.ci95, games)
    writer.add_scalar("eval/win_rate", result.win_rate, games)
    writer.add_scalar("eval/wall_seconds", elapsed, games)
