"""A neutral judge of checker play: candidate plays valued by variance-reduced rollouts.

gnubg 2-ply judging gnubg 0-ply is partial to gnubg (its search shares the net's blind
spots), and bgzero's own search is partial to bgzero. Rollouts are the referee both sides
accept. The decisions come from varied play (bgzero's ``strong``, gnubg 0-ply and pubeval,
each choosing a random legal play one time in ten), with quotas per class so that crashed
positions, races and bear-offs are not drowned by contact.

Each decision's plays are ranked by two 0-ply filters together (the mean of ``strong``'s and
gnubg's equities); up to ``TOP`` plays within ``WINDOW`` of the best are rolled out, all with
the same dice. A play outside that set keeps its filter gap below the best rolled-out play:
it was judged clearly worse by both nets, and its loss counts as that gap.

The build is resumable: each chunk of decisions is saved as its own file, tied to the
settings; :func:`assemble` turns the finished chunks into a :class:`~bgzero.judge.move_errors.Reference`
that :func:`~bgzero.judge.move_errors.agent_losses` scores like gnubg's.
``scripts/build_rollout_judge.py`` runs it; the package ships the 1,000-decision build.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgzero import paths
from bgzero.agents.specs import make_agent
from bgzero.atomic import atomic_write
from bgzero.engine.board import START, to_gnubg
from bgzero.engine.classify import BEAROFF, classify
from bgzero.engine.game import game_results
from bgzero.engine.movegen import generate
from bgzero.errors import ConfigError
from bgzero.judge.move_errors import CLASSES, Reference
from bgzero.rollout import PlayerSpec, RolloutSettings, rollout
from bgzero.value.probs import equity

PLAYERS = ("strong", "gnubg@0", "pubeval")
NOISE = 0.1  # chance a player of the sampled games plays a random legal play instead
KEEP = 0.2  # chance a non-forced decision is offered to the quotas
QUOTA = {"contact": 0.4, "crashed": 0.2, "race": 0.25, "bearoff": 0.15}  # shares of the decisions
WINDOW = 0.10  # plays within this of the filters' best are rolled out ...
TOP = 5  # ... at most this many
CHUNK = 20  # decisions per saved chunk: what a stop can lose


@dataclass(frozen=True)
class JudgeSettings:
    """What a build depends on; a chunk made under other settings is refused."""

    decisions: int = 1000
    seed: int = 0
    trials: int = 324
    player: str = "strong_td"

    def check(self) -> JudgeSettings:
        if self.decisions < 1:
            raise ConfigError(f"decisions={self.decisions}: need at least 1")
        if self.trials < 36:
            raise ConfigError(f"trials={self.trials}: at least 36, so every first roll is thrown")
        if self.seed < 0:
            raise ConfigError(f"seed={self.seed}: seeds are whole numbers >= 0")
        return self


def file_name(settings: JudgeSettings) -> str:
    return f"rollout_judge_{settings.seed}_{settings.decisions}.npz"


def shipped_judge() -> Reference:
    """The package's rollout judge: 1,000 decisions (seed 0), 324 trials a play."""
    return Reference.load(paths.DATA / file_name(JudgeSettings()))


# --------------------------------------------------------------------------- decisions


def _quota_class(board: np.ndarray) -> str:
    """gnubg's class of the position (contact, crashed, race), with bear-offs apart."""
    import gnubg_nn

    if classify(board[None])[0] == BEAROFF:
        return "bearoff"
    cls = gnubg_nn.classify(to_gnubg(board))
    return "contact" if cls == gnubg_nn.c_contact else "crashed" if cls == gnubg_nn.c_crashed else "race"


def sample_decisions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """``n`` non-forced decisions from noisy games of :data:`PLAYERS` against each other,
    filled class by class to :data:`QUOTA`: (boards, dice, classes into CLASSES, counts)."""
    agents = [make_agent(spec) for spec in PLAYERS]
    rng = np.random.default_rng(seed)
    wanted = {c: int(round(share * n)) for c, share in QUOTA.items()}
    wanted["contact"] += n - sum(wanted.values())
    taken: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {c: [] for c in QUOTA}
    games = 0
    while any(len(taken[c]) < wanted[c] for c in QUOTA):
        games += 1
        sides = rng.choice(len(agents), size=2)
        board, first, turn = START.copy(), True, 0
        while True:
            roll = rng.integers(1, 7, size=2, dtype=np.int8)
            if first and roll[0] == roll[1]:
                continue  # the opening roll is never a double
            first = False
            moves = generate(board[None], roll[None])
            count = int(moves.counts()[0])
            if count > 1 and rng.random() < KEEP:
                cls = _quota_class(board)
                if len(taken[cls]) < wanted[cls]:
                    taken[cls].append((board.copy(), roll.copy()))
            if rng.random() < NOISE:
                pick = int(rng.integers(count))
            else:
                pick = int(agents[sides[turn % 2]].choose(board[None], roll[None], moves)[0])
            board = moves.results[pick].copy()
            turn += 1
            if board[1].sum() == 0:  # the mover has borne off its last checker
                break
    order = [(c, b, r) for c in QUOTA for b, r in taken[c]]
    perm = rng.permutation(len(order))  # chunks mix the classes, so a partial build covers them all
    order = [order[i] for i in perm]
    boards = np.array([b for _, b, _ in order], np.int8)
    dice = np.array([r for _, _, r in order], np.int8)
    classes = np.array([CLASSES.index("race" if c == "bearoff" else c) for c, _, _ in order], np.int8)
    counts = {c: len(taken[c]) for c in QUOTA} | {"games": games}
    return boards, dice, classes, counts


def filter_equities(results: np.ndarray, strong, gnubg_probabilities) -> np.ndarray:
    """The mover's 0-ply equity of each result (opponent on roll), by ``strong`` and gnubg together."""
    ours = -equity(strong.evaluator.probs(results).astype(np.float64))
    theirs = -equity(np.array([gnubg_probabilities(to_gnubg(r), 0) for r in results], np.float64))
    return (ours + theirs) / 2


def candidates(filtered: np.ndarray) -> np.ndarray:
    """Indices of the plays to roll out: the best :data:`TOP` within :data:`WINDOW` of the best."""
    order = np.argsort(-filtered, kind="stable")
    return order[filtered[order] >= filtered[order[0]] - WINDOW][:TOP]


# --------------------------------------------------------------------------- the build


def _decisions_path(folder: Path) -> Path:
    return folder / "decisions.npz"


def _chunk_path(folder: Path, index: int) -> Path:
    return folder / f"chunk-{index:05d}.npz"


def _load_decisions(folder: Path, settings: JudgeSettings) -> dict:
    """The sampled decisions and their filtered plays, made once and reused on resume."""
    path = _decisions_path(folder)
    if path.exists():
        with np.load(path) as z:
            saved = json.loads(str(z["settings"]))
            if saved != asdict(settings):
                raise ConfigError(f"{folder} holds a build with other settings ({saved}): use another folder")
            return {k: z[k] for k in z.files if k != "settings"} | {"counts": json.loads(str(z["counts"]))}
    import gnubg_nn

    boards, dice, classes, counts = sample_decisions(settings.decisions, settings.seed)
    strong = make_agent("strong")
    moves = generate(boards, dice)
    filtered = np.concatenate([filter_equities(moves.results[lo:hi], strong, gnubg_nn.probabilities)
                               for lo, hi in zip(moves.offsets[:-1], moves.offsets[1:])])
    data = dict(boards=boards, dice=dice, classes=classes, offsets=moves.offsets.astype(np.int64),
                results=moves.results, filtered=filtered)
    folder.mkdir(parents=True, exist_ok=True)
    # mypy lets **data fill savez's allow_pickle: bool; data holds arrays by name only
    atomic_write(path, lambda f: np.savez(f, settings=json.dumps(asdict(settings)), counts=json.dumps(counts),
                                          **data), mode="wb")  # type: ignore[arg-type]
    return data | {"counts": counts}


def build(folder: Path, settings: JudgeSettings = JudgeSettings(), processes: int = 2,
          deadline: float | None = None, progress: Callable[[int, int], None] | None = None) -> int:
    """Roll out the candidates of every chunk not yet saved; returns the chunks done.

    Stops between chunks once ``time.monotonic()`` passes ``deadline``; run it again to go on.
    """
    settings = settings.check()
    data = _load_decisions(folder, settings)
    n, offsets = len(data["boards"]), data["offsets"]
    chunks = -(-n // CHUNK)
    done = sum(_chunk_path(folder, c).exists() for c in range(chunks))
    player = PlayerSpec(settings.player)
    for c in range(chunks):
        if _chunk_path(folder, c).exists():
            continue
        if deadline is not None and time.monotonic() > deadline:
            break
        picks = [candidates(data["filtered"][offsets[p]:offsets[p + 1]]) for p in range(c * CHUNK, min(n, (c + 1) * CHUNK))]
        index = np.concatenate([offsets[p] + k for p, k in zip(range(c * CHUNK, n), picks)])
        roots = data["results"][index]
        value = -game_results(roots).astype(np.float64)  # a play that bears off the last checker has won: exact
        se = np.zeros(len(index))
        live = np.flatnonzero(value == 0)
        if len(live):
            rollout_settings = RolloutSettings(trials=settings.trials, vr=True, seed=settings.seed * 100_003 + c + 1)
            rolled = rollout(roots[live], player, rollout_settings, processes=processes)
            # each play's rollout starts with the opponent on roll: flip to the mover's side
            value[live] = [-r.equity for r in rolled]
            se[live] = [r.equity_se for r in rolled]
        atomic_write(_chunk_path(folder, c), lambda f: np.savez(f, index=index, equity=value, se=se), mode="wb")
        done += 1
        if progress:
            progress(done, chunks)
    return done


def assemble(folder: Path, settings: JudgeSettings = JudgeSettings()) -> Reference:
    """The judge from a finished build; refuses a build with chunks missing."""
    settings = settings.check()
    data = _load_decisions(folder, settings)
    n, offsets = len(data["boards"]), data["offsets"]
    chunks = -(-n // CHUNK)
    missing = [c for c in range(chunks) if not _chunk_path(folder, c).exists()]
    if missing:
        raise ConfigError(f"{folder}: {len(missing)} of {chunks} chunks not built yet; run the build again")
    value = np.full(len(data["results"]), np.nan)
    se = np.full(len(data["results"]), np.nan)
    for c in range(chunks):
        with np.load(_chunk_path(folder, c)) as z:
            value[z["index"]], se[z["index"]] = z["equity"], z["se"]
    rolled = ~np.isnan(value)
    filtered = data["filtered"]
    for p in range(n):
        lo, hi = offsets[p], offsets[p + 1]
        done = rolled[lo:hi]
        best = np.argmax(np.where(done, value[lo:hi], -np.inf))
        # plays not rolled out: the filters' gap to the best rolled-out play, below its rollout value
        value[lo:hi][~done] = value[lo + best] - (filtered[lo + best] - filtered[lo:hi][~done])
    meta = dict(settings=asdict(settings), counts=data["counts"], window=WINDOW, top=TOP, noise=NOISE,
                players=list(PLAYERS), rolled_plays=int(rolled.sum()), mean_se=float(np.nanmean(se)),
                judge=f"{settings.player} 0-ply rollouts, {settings.trials} variance-reduced trials a play")
    return Reference(data["boards"], data["dice"], data["classes"], offsets, data["results"], value, meta,
                     equity_se=se, rolled=rolled)
