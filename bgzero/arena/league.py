"""League: every checkpoint of a run against pubeval and against each other.

Ratings are in points per game relative to pubeval: the least-squares solution of
``ppg[i, j] ≈ r[i] - r[j]`` over every pair played, with pubeval pinned at 0. A rating
of +0.5 means "expected to beat pubeval by half a point a game", and differences between
checkpoints read the same way.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from bgzero.arena.duplicate import play_duplicate_from_specs
from bgzero.atomic import atomic_write, atomic_write_text
from bgzero.errors import Interrupted

PUBEVAL = "pubeval"


@dataclass
class LeagueTable:
    names: list[str]  # pubeval first, then the checkpoints by games trained
    games_trained: list[int | None]
    ppg: np.ndarray  # ppg[i, j]: i's points per game against j (nan where not played)
    ci95: np.ndarray
    ratings: np.ndarray


def checkpoint_games(path: Path) -> int:
    """Games trained, read from the checkpoint's file name ``games_000012345.pt``."""
    m = re.search(r"games_(\d+)", path.name)
    return int(m.group(1)) if m else -1


def select_checkpoints(run_dir: str | Path, limit: int) -> list[Path]:
    """At most ``limit`` checkpoints of a run, evenly spread over training, always the last."""
    paths = sorted(Path(run_dir, "checkpoints").glob("games_*.pt"), key=checkpoint_games)
    if not paths:
        raise FileNotFoundError(f"no checkpoints under {Path(run_dir, 'checkpoints')}")
    if len(paths) <= limit:
        return paths
    picks = np.unique(np.linspace(len(paths) - 1, 0, limit).round().astype(int))  # from the last: limit=1 is it
    return [paths[i] for i in picks]


def fit_ratings(ppg: np.ndarray) -> np.ndarray:
    """Least-squares ratings with ``r[0] = 0`` from an antisymmetric ppg matrix (nan = unplayed)."""
    n = len(ppg)
    rows, rhs = [], []
    for i in range(n):
        for j in range(i + 1, n):
            if not np.isnan(ppg[i, j]):
                row = np.zeros(n)
                row[i], row[j] = 1.0, -1.0
                rows.append(row)
                rhs.append(ppg[i, j])
    anchor = np.zeros(n)
    anchor[0] = 1.0
    a = np.vstack(rows + [anchor])
    b = np.array(rhs + [0.0])
    ratings = np.linalg.lstsq(a, b, rcond=None)[0]
    return ratings - ratings[0]  # exactly 0, not a rounding error's -0.000


def run_league(run_dir: str | Path, limit: int = 8, games_vs_pubeval: int = 1000, games_per_pair: int = 400,
               seed: int = 0, processes: int = 1, ply: int = 0, progress: bool = False) -> LeagueTable:
    """Play the league and return its table; ``progress``: a bar of the pairs played, on stderr."""
    ckpts = select_checkpoints(run_dir, limit)
    specs = [PUBEVAL] + [f"checkpoint:{p}@{ply}" for p in ckpts]
    n = len(specs)
    ppg = np.full((n, n), np.nan)
    ci = np.full((n, n), np.nan)
    pairs = [(i, j) for i in range(1, n) for j in range(i)]
    done = 0
    try:
        for i, j in tqdm(pairs, unit="pair", desc="league", disable=not progress, dynamic_ncols=True):
            games = games_vs_pubeval if j == 0 else games_per_pair
            r = play_duplicate_from_specs(specs[i], specs[j], games, seed=seed + i * n + j, processes=processes)
            ppg[i, j], ppg[j, i] = r.ppg, -r.ppg
            ci[i, j] = ci[j, i] = r.ci95
            done += 1
    except (Interrupted, KeyboardInterrupt):  # a table needs every pair: say how far it got, write nothing
        raise Interrupted(f"{done} of {len(pairs)} pairs were played; no league table was written") from None
    return LeagueTable([PUBEVAL] + [str(p) for p in ckpts], [None] + [checkpoint_games(p) for p in ckpts],
                       ppg, ci, fit_ratings(ppg))


def write_table(table: LeagueTable, out_dir: str | Path) -> Path:
    """league.csv (the ppg matrix), league.json and league.png (strength vs games trained)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    def write_csv(f) -> None:
        w = csv.writer(f)
        w.writerow(["player", "games_trained", "rating"] + table.names)
        for i, name in enumerate(table.names):
            w.writerow([name, table.games_trained[i], f"{table.ratings[i]:+.3f}"]
                       + ["" if np.isnan(v) else f"{v:+.3f}" for v in table.ppg[i]])

    atomic_write(out / "league.csv", write_csv)
    atomic_write_text(out / "league.json", json.dumps({
        "names": table.names, "games_trained": table.games_trained, "ratings": table.ratings.tolist(),
        # numpy's stubs reject None as np.where's fill; at run time it gives an object array, None for JSON's null
        "ppg": np.where(np.isnan(table.ppg), None, table.ppg).tolist(),  # type: ignore[call-overload]
        "ci95": np.where(np.isnan(table.ci95), None, table.ci95).tolist()}, indent=2))  # type: ignore[call-overload]
    games = np.array(table.games_trained[1:], float)
    vs_pub = table.ppg[1:, 0]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(games, vs_pub, yerr=table.ci95[1:, 0], fmt="o-", capsize=3, label="ppg vs pubeval (95% CI)")
    ax.plot(games, table.ratings[1:], "s--", label="league rating")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("self-play games trained")
    ax.set_ylabel("points per game")
    ax.set_title("Strength against games trained")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "league.png", dpi=120)
    plt.close(fig)
    return out / "league.png"


def format_table(table: LeagueTable) -> str:
    """A markdown table: rating and ppg vs pubeval per checkpoint."""
    lines = ["| checkpoint | games trained | rating (ppg vs pubeval scale) | ppg vs pubeval ± 95% |", "|---|---|---|---|"]
    for i in range(1, len(table.names)):
        lines.append(f"| {Path(table.names[i]).name} | {table.games_trained[i]} | {table.ratings[i]:+.3f} | "
                     f"{table.ppg[i, 0]:+.3f} ± {table.ci95[i, 0]:.3f} |")
    return "\n".join(lines)
