"""Generations of search-labelled self-play (``bgzero-iterate``): the recipe behind ``strong``.

A generation turns the current champion into a challenger and lets a gate decide:

1. **candidates**: the champion's own 0-ply self-play, each turn's best few plays
   (:func:`~bgzero.learn.search_targets.candidate_turns`), seeded, in ``candidates.npz``;
2. **labels**: their n-ply evaluations by the teacher (the champion unless named), in
   chunks (:mod:`bgzero.learn.labelling`); then, where ``labelling.rollout.turns`` asks, truncated
   rollouts in place of the labels of the close turns' best candidates (:mod:`bgzero.learn.rollout_labels`);
   both kept in one small file where ``labelling.archive`` asks (:mod:`bgzero.learn.label_archive`);
3. **finetune**: the champion's contact net, and its race net, taught the labels' differences
   between a turn's candidates (:func:`~bgzero.learn.search_targets.rank_fine_tune`), a fresh
   pruning net distilled, written to ``student.pt``;
4. **gate**: duplicate games against the champion and the gate's other opponents, in seeded
   chunks, the move-error bench (:mod:`bgzero.judge.move_errors`) and, where the caller gives
   one, the cube bench (``gate.cube``: the command passes :func:`bgzero.gnubg.cube_bench.agreement`,
   a layer this one does not import);
5. **decide**: the student is promoted when it beats the champion by more than ``gate.margin``.

Every step leaves its result in the generation's folder (``OUT/gen-NNN``) and is skipped when
it is there, so a run killed anywhere resumes where it stopped; labelling and the gate's games
also stop at the time budget and resume from their finished chunks. ``state.json`` holds
the champion and every generation's figures: the learning curve.

Seeds: generation ``g``'s ``k``-th step draws from ``seed + 1000 g + k``, so every generation
is reproducible from the config alone.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import DictConfig, OmegaConf

from bgzero.arena.duplicate import MatchResult, play_duplicate_from_specs, pooled
from bgzero.atomic import atomic_write, atomic_write_text
from bgzero.config_check import seconds_of
from bgzero.engine.classify import CONTACT, RACE, PositionClass
from bgzero.errors import ConfigError
from bgzero.learn import label_archive
from bgzero.learn.labelling import chunk_count, label, labelled_prefix, load_labels
from bgzero.learn.rollout_labels import (
    TURNS_PER_CHUNK,
    RolloutLabelling,
    chosen_turns,
    finished_chunks,
    roll_out,
    with_rollouts,
)
from bgzero.learn.run_lock import RunLock
from bgzero.learn.schemas import Iterate
from bgzero.schema import check

STEPS = ("candidates", "labels", "finetune", "gate", "decide")
class Stopped(Exception):
    """The time budget ran out inside a step; the run folder holds everything finished."""


class Generation:
    """One generation's folder and the steps that fill it."""

    def __init__(self, cfg: DictConfig, number: int, champion: str, out: Path, deadline: float | None, writer=None,
                 decided: Sequence[dict] = (), teacher: str | None = None, labels: int | None = None,
                 rolled_out: int | None = None, cube_bench=None):
        self.cfg, self.number, self.champion, self.deadline, self.writer = cfg, number, champion, deadline, writer
        self.cube_bench = cube_bench
        self.folder = out / f"gen-{number:03d}"
        self.teacher = teacher or cfg.labelling.teacher or champion
        self.decided, self.label_limit = list(decided), labels if labels is not None else cfg.labelling.labels
        self.rollout_limit = rolled_out if rolled_out is not None else cfg.labelling.rollout.turns  # None: all

    def seed(self, step: str) -> int:
        return int(self.cfg.seed) + 1000 * self.number + STEPS.index(step) + 1

    # ------------------------------------------------------------------ paths
    @property
    def candidates_path(self) -> Path:
        return self.folder / "candidates.npz"

    @property
    def labels_folder(self) -> Path:
        return self.folder / "labels"

    @property
    def rollouts_folder(self) -> Path:
        return self.folder / "rollouts"

    @property
    def student_path(self) -> Path:
        return self.folder / "student.pt"

    @property
    def gate_folder(self) -> Path:
        return self.folder / "gate"

    @property
    def decision_path(self) -> Path:
        return self.folder / "decision.json"

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    # ------------------------------------------------------------------ steps
    def run(self) -> dict:
        """Every step not yet done, in order; the decision. Raises :class:`Stopped` at the budget."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for step in STEPS:
            if self.out_of_time():
                raise Stopped(step)
            getattr(self, step)()
        return json.loads(self.decision_path.read_text())

    def candidates(self) -> None:
        if self.candidates_path.exists():
            return
        from bgzero.learn.search_targets import candidate_turns
        from bgzero.value.checkpoint import load_evaluator

        c = self.cfg.candidates
        start = time.time()
        boards, turns = candidate_turns(load_evaluator(self.champion), c.positions, self.seed("candidates"), c.top,
                                        games=c.parallel_games, explore=c.explore, classes=tuple(PositionClass[k.upper()] for k in c.classes))
        atomic_write(self.candidates_path, lambda f: np.savez_compressed(f, boards=boards, turns=turns), "wb")
        self._log(f"{len(boards):,} candidates of {len(np.unique(turns)):,} turns from {self.champion}'s self-play "
                  f"({time.time() - start:.0f} s)")

    def wanted_labels(self) -> int:
        with np.load(self.candidates_path) as f:
            total = len(f["turns"])
        limit = self.label_limit
        return total if limit is None else min(int(limit), total)

    def labels(self) -> None:
        """The search labels, then the rollouts that replace some of them; with ``labelling.archive``,
        first those the archive kept, and what is finished kept there when the step ends or stops
        (the budget, a stop), so that a stretch on a fresh machine goes on from it."""
        archive = self.cfg.labelling.archive and label_archive.archive_path(self.cfg.labelling.archive, self.number)
        if archive and archive.is_file() and (restored := label_archive.unpack(archive, self.folder)):
            self._log(f"{restored} label and rollout chunks restored from {archive}")
        try:
            self.search_labels()
            self.rollouts()
        finally:
            if archive and label_archive.pack(self.folder, archive):
                self._log(f"labels and rollouts kept in {archive} ({archive.stat().st_size / 1e6:.1f} MB)")

    def search_labels(self) -> None:
        lab = self.cfg.labelling
        wanted = self.wanted_labels()
        before = min(labelled_prefix(self.labels_folder, self.candidates_path, self.teacher, lab.ply, lab.chunk)
                     * lab.chunk, wanted)
        if before >= wanted:
            return
        done, rate = self._with_bar("labels", "label", wanted, before, lambda progress: label(
            self.teacher, self.candidates_path, self.labels_folder, ply=lab.ply, processes=lab.processes,
            chunk=lab.chunk, backend=lab.backend, deadline=self.deadline, ray_address=lab.ray.address, limit=wanted,
            progress=progress))
        self._scalars({"labels/done": done, "labels/per_second": rate})
        self._log(f"{min(done, wanted):,} of {wanted:,} candidates labelled at {lab.ply}-ply by {self.teacher} "
                  f"({rate:.0f}/s this stretch)")
        if done < wanted:
            raise Stopped("labels")

    def rollout_settings(self) -> RolloutLabelling:
        r = self.cfg.labelling.rollout
        return RolloutLabelling(player=str(r.player or self.teacher), trials=int(r.trials), truncate=int(r.truncate),
                                top=int(r.top), close=None if r.close is None else float(r.close),
                                classes=tuple(r.classes))

    @cached_property
    def chosen(self) -> list[np.ndarray]:
        """The turns whose best candidates are rolled out (``labelling.rollout``), at most the limit;
        read once the search labels are complete (every caller comes after them)."""
        if self.rollout_limit == 0:
            return []
        boards, turns, targets = self.labelled(rollouts=False)
        return chosen_turns(boards, turns, targets, self.rollout_settings())[:self.rollout_limit]

    def rollouts(self) -> None:
        """Roll out the chosen turns' best candidates, after the search labels (part of the labels step)."""
        from bgzero.learn.search_targets import file_sha256

        chosen = self.chosen
        if not chosen:
            return
        how, sha = self.rollout_settings(), file_sha256(self.candidates_path)
        before = min(finished_chunks(self.rollouts_folder, how, sha) * TURNS_PER_CHUNK, len(chosen))
        if before >= len(chosen):
            return
        with np.load(self.candidates_path) as f:
            boards = f["boards"]
        done, rate = self._with_bar("rollouts", "turn", len(chosen), before, lambda progress: roll_out(
            boards, chosen, self.rollouts_folder, how, sha, seed=self.seed("labels") * 1000,
            processes=self.cfg.labelling.processes, deadline=self.deadline, progress=progress))
        self._scalars({"rollouts/turns": done, "rollouts/turns_per_second": rate})
        self._log(f"{done:,} of {len(chosen):,} close turns rolled out ({how.trials} trials, truncated at "
                  f"{how.truncate} plies, by {how.player}; {rate:.2f} turns/s this stretch)")
        if done < len(chosen):
            raise Stopped("labels")

    def _with_bar(self, what: str, unit: str, total: int, before: int, work) -> tuple[int, float]:
        """``work(progress)`` under a progress bar: what it has done in all, and its rate this stretch."""
        from tqdm import tqdm

        start = time.monotonic()
        bar = tqdm(total=total, initial=before, unit=unit, desc=f"gen {self.number} {what}",
                   disable=not self.cfg.progress, dynamic_ncols=True, mininterval=5)
        try:
            done = work(lambda n: bar.update(min(n, total - bar.n)))
        finally:
            bar.close()
        return done, (done - before) / max(time.monotonic() - start, 1e-9)

    def labelled(self, rollouts: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boards, turns and targets of the labelled candidates, whole turns only; with
        ``rollouts``, the rolled-out candidates' targets from their rollouts."""
        lab = self.cfg.labelling
        n = self.wanted_labels()
        targets = load_labels(self.labels_folder, chunk_count(n, lab.chunk))[:n]
        with np.load(self.candidates_path) as f:
            boards, all_turns = f["boards"][:n], f["turns"]
        turns, total = all_turns[:n], len(all_turns)
        if n < total:  # the turn the limit cuts is left out
            whole = turns < turns[-1]
            boards, turns, targets = boards[whole], turns[whole], targets[whole]
        if rollouts and self.rollout_limit != 0:
            chunks = chunk_count(len(self.chosen), TURNS_PER_CHUNK)
            targets, _ = with_rollouts(targets, self.rollouts_folder, chunks)
        return boards, turns, targets

    def earlier(self) -> list[Generation]:
        """The generations just before this one whose labels its fine-tuning also learns
        (``finetune.earlier``), each with the champion, teacher and label count it had."""
        count = int(self.cfg.finetune.earlier)
        return [Generation(self.cfg, d["generation"], d["champion"], self.folder.parent, self.deadline, self.writer,
                           teacher=d["teacher"], labels=d["labels"], rolled_out=d.get("rolled_out", 0))
                for d in self.decided[-count:]] if count else []

    def pooled_labels(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This generation's labelled candidates and those of :meth:`earlier`, turns numbered apart.
        An earlier generation's candidates and labels are made again from their seeds if its
        folder lost them (a fresh clone keeps only the curve)."""
        parts = [self.labelled()]
        for g in self.earlier():
            g.folder.mkdir(parents=True, exist_ok=True)
            g.candidates()
            g.labels()
            parts.append(g.labelled())
        offsets = np.cumsum([0] + [int(turns.max()) + 1 for _, turns, _ in parts[:-1]])
        return (np.concatenate([b for b, _, _ in parts]), np.concatenate([t + o for (_, t, _), o in zip(parts, offsets)]),
                np.concatenate([y for _, _, y in parts]))

    def finetune(self) -> None:
        if self.student_path.exists():
            return
        from bgzero.learn.distill import distill
        from bgzero.learn.search_targets import rank_fine_tune
        from bgzero.value.checkpoint import load_checkpoint, load_evaluator, net_fields, save_checkpoint
        from bgzero.value.net import widened

        ft = self.cfg.finetune
        boards, turns, targets = self.pooled_labels()
        state = load_checkpoint(self.champion)
        evaluator = load_evaluator(self.champion, frozen=False)
        if ft.widen:
            evaluator.net = widened(evaluator.net, ft.widen, self.seed("finetune"))
        route = evaluator.route(boards)
        report = {"labelled": len(boards), "turns": int(len(np.unique(turns))),
                  "earlier": [g.number for g in self.earlier()]}
        nets = [("contact", "", CONTACT, evaluator.net, evaluator.encoder)]
        if ft.race and evaluator.race_net is not None:
            nets.append(("race", "race_", RACE, evaluator.race_net, evaluator.race_encoder))
        start = time.time()
        for name, prefix, cls, net, encoder in nets:
            mine = route == cls
            if mine.sum() < 2:
                continue
            history = rank_fine_tune(net, encoder, boards[mine], turns[mine], targets[mine], epochs=ft.epochs,
                                     lr=ft.lr, anchor=ft.anchor, calibrate=ft.calibrate, seed=self.seed("finetune"),
                                     progress=f"gen {self.number} fine-tune {name}" if self.cfg.progress else None)
            report[name] = {"positions": int(mine.sum()), "centred_mse": history}
            state.update(net_fields(net, prefix))
            self._log(f"{name} net: {int(mine.sum()):,} labelled positions, turn-centred squared error "
                      f"{', '.join(f'{h:.6f}' for h in history)} by epoch")
            self._scalars({f"finetune/{name}_centred_mse": history[-1]})
        evaluator.pruner = None
        prune, prune_report = distill(evaluator, positions=ft.prune_positions, seed=self.seed("finetune"))
        state.pop("optimizer", None)  # the TD optimizer's moments no longer fit the fine-tuned net
        if "net" in state.get("config", {}):
            state["config"]["net"]["hidden"] = evaluator.net.config_dict()["hidden"]
        report["seconds"] = round(time.time() - start, 1)
        state.update(net_fields(prune, "prune_"), prune_report=asdict(prune_report),
                     generation={"number": self.number, "from": self.champion, "teacher": self.teacher,
                                 "ply": int(self.cfg.labelling.ply), **report})
        atomic_write_text(self.folder / "finetune.json", json.dumps(report, indent=2))
        save_checkpoint(self.student_path, state)

    def gate(self) -> None:
        g = self.cfg.gate
        for opponent in [self.champion, *g.opponents]:
            key = _opponent_key(opponent, self.champion)
            self._duplicate(key, opponent)
        if g.move_errors and not (self.gate_folder / "move_errors.json").exists():
            from bgzero.agents.specs import make_agent
            from bgzero.judge.move_errors import CLASSES as ERROR_CLASSES
            from bgzero.judge.move_errors import agent_losses, shipped_reference

            ref = shipped_reference()
            loss = agent_losses(make_agent(f"checkpoint:{self.student_path}@0"), ref)
            figures = {"all": _mean_ci(loss)} | {c: _mean_ci(loss[ref.classes == k]) for k, c in enumerate(ERROR_CLASSES)}
            atomic_write_text(self.gate_folder / "move_errors.json", json.dumps(figures, indent=2))
            self._scalars({f"gate/move_error_{k}": v["mean"] for k, v in figures.items()})
        if g.cube and self.cube_bench is not None and not (self.gate_folder / "cube.json").exists():
            figures = self.cube_bench(str(self.student_path), [int(p) for p in g.cube])
            atomic_write_text(self.gate_folder / "cube.json", json.dumps(figures, indent=2))
            self._scalars({f"gate/cube_{ply}ply_{who}": v[who] for ply, v in figures.items() for who in ("doubler", "taker")})

    def _duplicate(self, key: str, opponent: str) -> None:
        g = self.cfg.gate
        student = f"checkpoint:{self.student_path}@{g.ply}"
        spec = f"checkpoint:{opponent}@{g.ply}" if opponent == self.champion else opponent
        for k in range(chunk_count(g.games, g.chunk)):
            path = self.gate_folder / f"{key}-{k:03d}.json"
            if path.exists():
                continue
            if self.out_of_time():
                raise Stopped("gate")
            games = min(g.chunk, g.games - k * g.chunk)
            result = play_duplicate_from_specs(student, spec, games, seed=self.seed("gate") * 1000 + k,
                                               processes=g.processes, progress=self.cfg.progress)
            atomic_write_text(path, json.dumps({"opponent": spec, **result.as_dict()}, indent=2))
        result = self.pooled(key)
        self._scalars({f"gate/ppg_vs_{key}": result.ppg, f"gate/ci95_vs_{key}": result.ci95})

    def pooled(self, key: str) -> MatchResult:
        fields = MatchResult.__dataclass_fields__
        chunks = sorted(self.gate_folder.glob(f"{key}-*.json"))
        return pooled([MatchResult(**{k: v for k, v in json.loads(p.read_text()).items() if k in fields})
                       for p in chunks])

    def decide(self) -> None:
        if self.decision_path.exists():
            return
        versus = self.pooled("champion")
        promoted = versus.ppg > self.cfg.gate.margin
        figures = {"generation": self.number, "champion": self.champion, "student": str(self.student_path),
                   "teacher": self.teacher, "labels": self.wanted_labels(), "rolled_out": len(self.chosen),
                   "promoted": promoted,
                   "vs_champion": versus.as_dict()}
        for key in (_opponent_key(opponent, self.champion) for opponent in self.cfg.gate.opponents):
            figures[f"vs_{key}"] = self.pooled(key).as_dict()
        for name in ("move_errors", "cube"):
            path = self.gate_folder / f"{name}.json"
            if path.exists():
                figures[name] = json.loads(path.read_text())
        atomic_write_text(self.decision_path, json.dumps(figures, indent=2))
        self._scalars({"decide/promoted": float(promoted)})
        self._log(f"generation {self.number}: {versus.ppg:+.3f} ± {versus.ci95:.3f} ppg against the champion over "
                  f"{versus.games:,} games: {'promoted' if promoted else 'rejected'}")

    # ------------------------------------------------------------------ reporting
    def _log(self, line: str) -> None:
        print(f"[gen {self.number}] {line}", flush=True)

    def _scalars(self, values: dict) -> None:
        if self.writer is not None:
            for key, value in values.items():
                self.writer.add_scalar(key, float(value), self.number)
            self.writer.flush()


def _opponent_key(opponent: str, champion: str) -> str:
    """A file-name-safe key per opponent: ``champion`` for the generation before, else the spec."""
    return "champion" if opponent == champion else re.sub(r"[^A-Za-z0-9_.@-]+", "_", opponent)


def _mean_ci(loss: np.ndarray) -> dict:
    """Mean loss x1000 and its 95% normal half-width, with the count."""
    n = len(loss)
    half = 1960 * loss.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
    return {"mean": float(1000 * loss.mean()) if n else float("nan"), "ci95": float(half), "positions": n}


def check_config(cfg: DictConfig) -> None:
    """Every option, the start checkpoint, the teacher and the gate's opponents, before any work."""
    from bgzero.agents.specs import make_agent
    from bgzero.value.checkpoint import load_checkpoint

    check(cfg, Iterate)
    for key in ("start", "labelling.teacher", "labelling.rollout.player"):
        path = OmegaConf.select(cfg, key)
        if path is not None:
            if not Path(path).is_file():
                raise ConfigError(f"{key}={path}: no such checkpoint")
            load_checkpoint(path)
    for spec in cfg.gate.opponents:
        make_agent(spec)


def iterate(cfg: DictConfig, cube_bench=None) -> dict:
    """Run generations until ``cfg.generations`` are decided or the budget ends; the run's state.
    ``cube_bench(checkpoint, plies)``: the gate's cube figures (``gate.cube``), or None for none."""
    check_config(cfg)
    seconds = seconds_of("budget", cfg.budget)
    deadline = None if seconds is None else time.monotonic() + seconds
    out = Path(cfg.out_dir)
    with RunLock(out):
        state_path = out / "state.json"
        state: dict[str, Any] = json.loads(state_path.read_text()) if state_path.exists() else {
            "start": str(cfg.start), "champion": str(cfg.start), "generations": []}
        if state["start"] != str(cfg.start):
            raise ConfigError(f"{out} holds a run from start={state['start']}, not {cfg.start}; use another out_dir")
        atomic_write_text(out / "config.yaml", OmegaConf.to_yaml(cfg))
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(out / "tb"))
        try:
            while len(state["generations"]) < cfg.generations:
                generation = Generation(cfg, len(state["generations"]) + 1, state["champion"], out, deadline, writer,
                                        decided=state["generations"], cube_bench=cube_bench)
                try:
                    decision = generation.run()
                except Stopped as stop:
                    print(f"bgzero-iterate: the budget ran out in generation {generation.number}'s {stop} step; "
                          f"everything finished is in {generation.folder}; run the same command again to resume",
                          flush=True)
                    state["stopped"] = {"generation": generation.number, "step": str(stop)}
                    break
                if decision["promoted"]:
                    state["champion"] = decision["student"]
                state["generations"].append(decision)
                state.pop("stopped", None)
                atomic_write_text(state_path, json.dumps(state, indent=2))
            atomic_write_text(state_path, json.dumps(state, indent=2))
        finally:
            writer.close()
    return state
