"""Matches and money sessions with the doubling cube, between two agents.

A match is played to ``length`` points (docs/rules.md section 8); ``length=0`` is a money
session of ``games`` games (section 7). Agent A is always player 0 and B player 1. Each game
starts with the opening roll; afterwards the side on roll may double before rolling where
:func:`~bgzero.cube.state.may_double` allows it (the Crawford game, dead cubes and ownership
included), the opponent takes or passes, and a game borne off scores its result times the
cube (:func:`~bgzero.cube.state.points_for`).

Many matches run in lockstep, so each agent sees one batch per turn, like
:mod:`bgzero.arena.duplicate`. The dice of a match come only from its own seed, and processes get
fixed shards of seeds drawn in the parent, with agents built afresh per shard: the records
do not depend on the number of processes. Every action is recorded
(:mod:`bgzero.match.record`) for the ``.mat`` transcript (:mod:`bgzero.match.mat`).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from tqdm import tqdm

from bgzero.agents.base import Agent
from bgzero.agents.specs import make_agent, spec_name
from bgzero.cube import PASS, MatchState, award, may_double
from bgzero.engine.movegen import generate
from bgzero.errors import ConfigError
from bgzero.interrupts import follow_the_main_process, starting_workers
from bgzero.match.game import Game
from bgzero.match.record import DOUBLE, MatchGame, MatchRecord
from bgzero.value.threads import set_torch_threads


class _Live:
    """One match in progress: its score, the game being played and the games done."""

    def __init__(self, seed: int, length: int, games: int, jacoby: bool):
        self.rng = np.random.default_rng(seed)
        self.state = MatchState(length, jacoby=jacoby)  # as the game in progress began
        self.games = games
        self.records: list[MatchGame] = []
        self._new_game()

    def _new_game(self) -> None:
        self.game = Game(self.state)
        self.game.opening(self.rng)

    @property
    def on_roll(self) -> int:
        """The player on roll: known from the opening roll that starts each game."""
        assert self.game.on_roll is not None
        return self.game.on_roll

    @property
    def done(self) -> bool:
        return self.state.over if self.state.match_length else len(self.records) == self.games

    def settle(self) -> None:
        """Score the game if it has ended, and start the next unless the match is over."""
        end = self.game.end
        if end is None:
            return
        self.records.append(self.game.record())
        self.state = award(self.game.state, end.winner, end.points)
        if not self.done:
            self._new_game()


def _ask(agents: Sequence[Agent], method: str, live: list[_Live], askee) -> np.ndarray:
    """(len(live),) bool: each agent's ``method`` answer for the matches where ``askee(m)`` is its player."""
    out = np.zeros(len(live), bool)
    for player in (0, 1):
        idx = [i for i, m in enumerate(live) if askee(m) == player]
        if idx:
            group = [live[i].game for i in idx]
            answer = getattr(agents[player], method)(
                np.stack([g.board for g in group]), [g.state for g in group], np.array([g.on_roll for g in group]))
            out[idx] = np.asarray(answer, bool).reshape(len(idx))
    return out


def _cube_turn(agents: Sequence[Agent], live: list[_Live]) -> None:
    """The side on roll may double before rolling; a take doubles the cube, a pass ends the game."""
    ready = [m for m in live if m.game.dice is None and may_double(m.game.state, m.on_roll)]
    if not ready:
        return
    doubled = [m for m, yes in zip(ready, _ask(agents, "double_decision", ready, lambda m: m.on_roll)) if yes]
    if not doubled:
        return
    takes = _ask(agents, "take_decision", doubled, lambda m: 1 - m.on_roll)
    for m, take in zip(doubled, takes):
        doubler = m.on_roll
        m.game.double(doubler)
        m.game.answer(1 - doubler, bool(take))
        m.settle()


def _move_turn(agents: Sequence[Agent], live: list[_Live]) -> None:
    """Every live match rolls (if not already) and its side on roll moves; a bear-off ends the game."""
    for m in live:
        if m.game.dice is None:
            m.game.roll(m.rng)
    groups = [[m for m in live if m.game.on_roll == player] for player in (0, 1)]  # before anyone moves
    for player, group in enumerate(groups):
        if not group:
            continue
        boards = np.stack([m.game.board for m in group])
        dice = np.array([m.game.dice for m in group], np.int8)
        moves = generate(boards, dice)
        chosen = agents[player].choose_for_score(boards, dice, moves, [m.game.state for m in group],
                                                 np.full(len(group), player))
        for m, k in zip(group, chosen):
            rolled = m.game.dice
            assert rolled is not None  # every match rolled above
            m.game.move(player, rolled, moves.steps_of(k), result=moves.results[k].copy())
            m.settle()


def play_matches(agent_a: Agent, agent_b: Agent, seeds: Sequence[int], length: int = 7, games: int = 1,
                 jacoby: bool = False, names: tuple[str, str] | None = None) -> list[MatchRecord]:
    """One match per seed, A (player 0) against B, all in lockstep in this process.

    ``length`` 0 plays money sessions of ``games`` games each, with the Jacoby rule if
    ``jacoby``; in a match ``games`` is ignored.
    """
    if length < 0 or (not length and games < 1):
        raise ConfigError(f"length={length}, games={games}: a match needs length >= 1, money games >= 1")
    agents = (agent_a, agent_b)
    matches = [_Live(int(seed), length, games, jacoby) for seed in seeds]
    live = list(matches)
    while live:
        _cube_turn(agents, live)
        live = [m for m in live if not m.done]  # a pass can end a match
        _move_turn(agents, live)
        live = [m for m in live if not m.done]
    names = names or (agent_a.name, agent_b.name)
    return [MatchRecord(length, names, tuple(m.records), m.state.score, m.state.jacoby) for m in matches]


def _play_matches_shard(args) -> list[MatchRecord]:
    spec_a, spec_b, seeds, length, games, jacoby = args
    agent_a, agent_b = make_agent(spec_a), make_agent(spec_b)
    set_torch_threads(1)  # only the workers pin torch to one thread each
    return play_matches(agent_a, agent_b, seeds, length, games, jacoby, names=(spec_name(spec_a), spec_name(spec_b)))


def play_matches_from_specs(spec_a: str, spec_b: str, matches: int, length: int = 7, games: int = 1, jacoby: bool = False,
                     seed: int = 0, processes: int = 1, shard: int = 8,
                     progress: bool = False, on_record=None) -> tuple[list[MatchRecord], float]:
    """:func:`play_matches` for agents named by spec strings, over ``processes`` processes.

    ``on_record(i, record)`` runs for each match (numbered from 1, in seed order) as soon as
    its shard is done, so a caller shows and saves matches while the rest are played.
    Returns the records, in seed order, and the seconds taken. Seeds are drawn here and
    cut into shards of ``shard`` matches, each played with freshly built agents (gnubg's
    engine is global state, and a fresh agent starts its own randomness afresh), so the
    records depend on ``seed`` and ``shard`` but not on ``processes``.
    """
    if matches < 1 or shard < 1 or processes < 1:
        raise ConfigError(f"matches={matches}, shard={shard}, processes={processes}: each must be at least 1")
    make_agent(spec_a), make_agent(spec_b)  # fail fast, in this process, on a bad spec
    seeds = np.random.default_rng(seed).integers(2**63, size=matches)
    jobs = [(spec_a, spec_b, seeds[lo:lo + shard], length, games, jacoby) for lo in range(0, matches, shard)]
    start = time.perf_counter()
    records: list[MatchRecord] = []
    with tqdm(total=matches, unit="match", disable=not progress, dynamic_ncols=True) as bar:
        for res in _shards(jobs, processes):
            for record in res:
                records.append(record)
                if on_record:
                    on_record(len(records), record)
            bar.update(len(res))
    return records, time.perf_counter() - start


def _shards(jobs: list, processes: int):
    """Each job's records, in order: here, or in a pool of spawned processes."""
    if processes == 1:
        yield from map(_play_matches_shard, jobs)
        return
    with starting_workers():
        pool = mp.get_context("spawn").Pool(min(processes, len(jobs)), initializer=follow_the_main_process)
    with pool:
        yield from pool.imap(_play_matches_shard, jobs)


# --------------------------------------------------------------------------- statistics


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a win rate: sound near 0 and 1 and for few matches."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class MatchSummary:
    """Results from A's side. ``wins`` counts matches won, or in money games won, out of ``decided``.

    ``ppg`` is A's points per game (signed, cube included) with a normal 95% half-width;
    gammon rates count games borne off with a gammon (backgammons included) or a
    backgammon; the cube counts are per game.
    """

    length: int
    matches: int
    games: int
    wins: int
    decided: int
    win_rate: float
    win_low: float
    win_high: float
    ppg: float
    ppg_ci95: float
    a_gammon_rate: float
    a_backgammon_rate: float
    b_gammon_rate: float
    b_backgammon_rate: float
    doubles_per_game: float
    drops_per_game: float
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        unit = "games" if self.length == 0 else "matches"
        head = (f"A wins {self.wins}/{self.decided} {unit} ({100 * self.win_rate:.1f}%, "
                f"95% {100 * self.win_low:.1f}-{100 * self.win_high:.1f}%)")
        return (f"{head}, {self.ppg:+.3f} ± {self.ppg_ci95:.3f} ppg over {self.games} games; gammons A "
                f"{100 * self.a_gammon_rate:.1f}% B {100 * self.b_gammon_rate:.1f}%; "
                f"{self.doubles_per_game:.2f} doubles and {self.drops_per_game:.2f} drops per game; "
                f"{self.seconds:.1f}s")


def summarise_matches(records: Sequence[MatchRecord], seconds: float = 0.0) -> MatchSummary:
    """The statistics of ``records`` (all of one kind: matches or money sessions)."""
    games = [g for r in records for g in r.games]
    points = np.array([g.points if g.winner == 0 else -g.points for g in games], float)
    length = records[0].length if records else 0
    if length:
        wins, decided = sum(r.winner == 0 for r in records), len(records)
    else:
        wins, decided = int((points > 0).sum()), len(games)
    low, high = wilson_interval(wins, decided)
    n = max(len(games), 1)

    def rate(player: int, kind: int) -> float:
        return sum(g.winner == player and g.kind >= kind for g in games) / n

    actions = [a.kind for g in games for a in g.actions]
    return MatchSummary(
        length=length,
        matches=len(records),
        games=len(games),
        wins=wins,
        decided=decided,
        win_rate=wins / decided if decided else 0.0,
        win_low=low,
        win_high=high,
        ppg=float(points.mean()) if len(games) else 0.0,
        ppg_ci95=float(1.96 * points.std(ddof=1) / math.sqrt(len(games))) if len(games) > 1 else 0.0,
        a_gammon_rate=rate(0, 2),
        a_backgammon_rate=rate(0, 3),
        b_gammon_rate=rate(1, 2),
        b_backgammon_rate=rate(1, 3),
        doubles_per_game=actions.count(DOUBLE) / n,
        drops_per_game=actions.count(PASS) / n,
        seconds=seconds,
    )
