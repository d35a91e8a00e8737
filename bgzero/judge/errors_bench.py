"""The move-error benchmark's tables (``bgzero-bench errors``): mean equity loss x1000 per move,
judged by gnubg's n-ply evaluation or by rollouts.

The positions, the judges and the loss arithmetic are :mod:`bgzero.judge.move_errors` (gnubg
n-ply) and :mod:`bgzero.judge.rollout_judge` (``judge=rollout``: 1,000 decisions from varied
play, every play within 0.10 of the best rolled out); this makes the table. gnubg 0-ply, gnubg
1-ply and pubeval are always shown as yardsticks (a dash where gnubg-nn is absent). Cells are
the mean loss x1000 with a 95% normal interval (mean +- 1.96 sd / sqrt n), overall and per
class, and how often the agent found the judge's best move. ``worst=N`` adds each agent's share
of its loss in its N worst positions, and the worst of them by Position ID, to look at.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bgzero.agents.specs import make_agent
from bgzero.engine.ids import position_id
from bgzero.errors import ConfigError
from bgzero.judge.move_errors import CACHE, CLASSES, Reference, agent_losses, get_reference
from bgzero.judge.rollout_judge import shipped_judge

YARDSTICKS = ("gnubg@0", "gnubg@1", "pubeval")
"""The agents every table shows first, for scale."""


def cell(loss: np.ndarray) -> str:
    """Mean loss x1000 with the half-width of a 95% normal interval."""
    if len(loss) == 0:
        return "—"
    if len(loss) == 1:
        return f"{1000 * loss[0]:.2f}"
    return f"{1000 * loss.mean():.2f} ± {1960 * loss.std(ddof=1) / np.sqrt(len(loss)):.2f}"


def table(rows: list[tuple[str, np.ndarray | None, float]], classes: np.ndarray) -> str:
    """Markdown: one row per agent (``None`` losses: the agent is unavailable)."""
    counts = [int((classes == c).sum()) for c in range(len(CLASSES))]
    head = ["agent", f"all ({len(classes)})"] + [f"{c} ({k})" for c, k in zip(CLASSES, counts)] + ["best move", "s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, loss, seconds in rows:
        if loss is None:
            cells = ["—"] * (len(head) - 1)
        else:
            cells = [cell(loss)] + [cell(loss[classes == c]) for c in range(len(CLASSES))]
            cells += [f"{100 * (loss <= 1e-9).mean():.1f}%", f"{seconds:.1f}"]
        lines.append("| " + " | ".join([name] + cells) + " |")
    return "\n".join(lines)


def worst(name: str, loss: np.ndarray, ref: Reference, n: int, shown: int = 5) -> str:
    """How much of the agent's total loss its ``n`` worst positions carry, and the worst
    few by gnubg Position ID: a heavy tail says the agent blunders in a few positions
    (look at them); a flat one says it is a little off everywhere."""
    order = np.argsort(-loss, kind="stable")
    share = loss[order[:n]].sum() / max(loss.sum(), 1e-12)
    worst_few = ", ".join(f"{position_id(ref.boards[p])} {ref.dice[p][0]}{ref.dice[p][1]} ({1000 * loss[p]:.0f})"
                          for p in order[:shown])
    return f"{name}: the worst {n} positions carry {100 * share:.0f}% of the loss; worst: {worst_few}"


def class_counts(ref: Reference) -> str:
    """``contact 712 (71%), ...``: the positions of each class."""
    return ", ".join(f"{k} {c} ({100 * k / len(ref.boards):.0f}%)"
                     for c, k in zip(CLASSES, np.bincount(ref.classes, minlength=len(CLASSES))))


def load_judge(judge: str, judge_file: str | Path | None, positions: int, seed: int, ref_plies: int,
               cache: str | Path | None, workers: int) -> tuple[Reference, list[str]]:
    """The judge's reference and the lines that say what it is: the rollout judge (the shipped one,
    or ``judge_file``), or gnubg ``ref_plies``-ply on ``positions`` positions from ``seed``
    (the shipped one, or one cached in ``cache``, or built there)."""
    if judge == "rollout":
        try:
            ref = Reference.load(Path(judge_file)) if judge_file else shipped_judge()
        except (OSError, ValueError, EOFError, KeyError) as exc:
            raise ConfigError(f"cannot read the rollout judge {judge_file or 'shipped'}: {exc}") from None
        m = ref.meta
        return ref, [
            f"{len(ref.boards)} decisions from {m['counts']['games']} noisy games of {', '.join(m['players'])} "
            f"(seed {m['settings']['seed']}; {m['counts']['bearoff']} bear-offs counted as race): {class_counts(ref)}",
            f"judge: {m['judge']}, {m['rolled_plays']} plays within {m['window']} of the best (at most {m['top']}), "
            f"mean standard error {m['mean_se']:.4f}; other plays keep their 0-ply gap"]
    ref, where = get_reference(positions, seed, ref_plies, Path(cache) if cache is not None else CACHE, workers)
    m = ref.meta
    return ref, [
        f"{len(ref.boards)} positions from {m['games']} gnubg 0-ply self-play games (seed {m['seed']}): "
        + class_counts(ref),
        f"reference: gnubg {m['plies']}-ply cubeless equity of all {len(ref.results)} results "
        f"({m['ms_per_evaluation']:.3g} ms per evaluation per process), {where}"]


def measure(specs: list[str], ref: Reference) -> list[tuple[str, np.ndarray | None, float]]:
    """Each agent's losses on ``ref`` and its seconds to choose, the yardsticks first, each agent
    once; a gnubg agent without gnubg-nn is a row of dashes (said on stderr), any other agent's
    error is raised."""
    rows: list[tuple[str, np.ndarray | None, float]] = []
    for spec in dict.fromkeys([*YARDSTICKS, *specs]):
        try:
            agent = make_agent(spec)
        except ConfigError as exc:
            if not spec.startswith("gnubg"):
                raise
            print(f"{spec}: {exc}", file=sys.stderr)
            rows.append((spec, None, 0.0))
            continue
        t = time.perf_counter()
        loss = agent_losses(agent, ref)
        rows.append((spec, loss, time.perf_counter() - t))
    return rows


def report(specs: list[str], judge: str = "gnubg", judge_file: str | Path | None = None, positions: int = 1000,
           seed: int = 0, ref_plies: int = 2, cache: str | Path | None = None, workers: int = 0, worst_n: int = 0,
           out: Callable[[str], None] = print) -> list[tuple[str, np.ndarray | None, float]]:
    """The whole benchmark: what the judge is, the table, and with ``worst_n`` each agent's worst
    positions, each line given to ``out``; returns the rows (agent, losses, seconds)."""
    for spec in specs:  # a mistyped agent is refused before the reference is built
        if not str(spec).startswith("gnubg"):
            make_agent(spec)
    ref, about = load_judge(judge, judge_file, positions, seed, ref_plies, cache, workers)
    for line in about:
        out(line)
    out("cells: mean equity loss x1000 per move ± 95% interval; best move: share of the reference's best "
        "played; s: seconds to choose\n")
    rows = measure(specs, ref)
    out(table(rows, ref.classes))
    if worst_n > 0:
        out("")
        for name, loss, _ in rows:
            if loss is not None:
                out(worst(name, loss, ref, worst_n))
    return rows
