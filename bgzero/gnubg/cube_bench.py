"""The cube benchmark (``bgzero-bench cube``): the neural agent's cube decisions against GNU Backgammon's 2-ply ``hint``.

Positions come from gnubg 0-ply self-play, each put in a random context where the side on
roll may double: money (Jacoby off, no beavers) with the cube centred or owned at 2 or 4 by
the side on roll, or a match of 3 to 11 points at a random score (the cube centred or owned
at 2), a fifth of them post-Crawford games with the trailer on roll. Positions likely to be
doubles are oversampled (by gnubg's 0-ply cubeless win chance) and kept by gnubg's 2-ply
verdict in fixed shares (:data:`SHARES`): 40% real doubles, half of them takes, 40% no
double; "too good" positions are kept whenever self-play produces them.

The reference -- gnubg's 2-ply verdicts and cubeful equities, its 0- and 1-ply verdicts and
its 0-ply cubeless probabilities -- is cached as JSON: the package ships the 600 positions of
seed 1 and the 300 of seed 0 in ``bgzero/data/`` (so the benchmark runs without gnubg); another
size or seed is built with gnubg into ``~/.cache/bgzero/``. bgzero decides at each ``ply``
exactly as :class:`~bgzero.agents.neural.NeuralAgent` plays, by the cubeful search
(:func:`bgzero.agents.cubeful.cube_decisions`); the row "n-ply probs, 0-ply cube" is the
agent before it (n-ply cubeless probabilities through 0-ply Janowski). A naive rule
(double at 68-85% cubeless wins, take at 25% or more) gives the scale.

A tie counts as agreement: where gnubg's 2-ply equities of doubling and not doubling (or of
take and pass) print the same to its 3 decimals, both answers are right -- a post-Crawford
game lost whatever happens (no double = double/take = -1.000), a won race where no double
and double/pass both print +1.000. The tables give the ties in each count; "no double" and
"too good" both keep the cube, so they never tie. ``misses=true`` lists every other
disagreement with both sides' equities. ``gnubg_probs=true`` adds bgzero's search run on
gnubg's own 0-ply net (``gnubg-nn``) instead of the checkpoint: it reproduces gnubg's
``hint`` at the same depth, so the rows show how much of the rest is the network's.

    bgzero-bench cube checkpoint=checkpoints/strong.pt positions=600 seed=1 ply=[0,1]
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from bgzero import paths
from bgzero.agents.cube import cube_lives
from bgzero.agents.cubeful import cube_decisions
from bgzero.agents.gnubg import GnubgAgent, GnubgNet
from bgzero.agents.specs import checkpoint_file
from bgzero.atomic import atomic_write_text
from bgzero.cube import (
    CENTRED,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NO_DOUBLE,
    PASS,
    TAKE,
    TOO_GOOD,
    CubeDecision,
    cube_decision,
    from_match_info,
    may_double,
)
from bgzero.engine.board import start_board
from bgzero.engine.game import game_results, opening_roll
from bgzero.engine.ids import MatchInfo, board_from_position_id, match_id, match_info_from_id, position_id
from bgzero.engine.movegen import generate
from bgzero.errors import ConfigError
from bgzero.gnubg.cube_hints import (
    DOUBLE,
    DOUBLER_ACTIONS,
    Agreement,
    CubeHint,
    GnubgCube,
    Verdict,
    doubler_agreement,
    taker_agreement,
)
from bgzero.value.checkpoint import load_evaluator

DATA = paths.DATA
"""Where the shipped references are (``cube_reference_n600_seed1.json``, ``cube_reference_n300_seed0.json``)."""
CACHE = Path.home() / ".cache" / "bgzero"
"""Where a reference built afresh is saved."""
# The set's make-up by gnubg's 2-ply verdict: 40% real doubles, half of them takes, 40% no
# double; too good positions are not capped (the others fill their shares first).
SHARES = {(DOUBLE, TAKE): 0.2, (DOUBLE, PASS): 0.2, NO_DOUBLE: 0.4}
LENGTHS = (3, 11)  # match lengths drawn from, inclusive
POST_CRAWFORD = 0.2  # share of match contexts that are post-Crawford games
NAIVE_DOUBLE, NAIVE_TOO_GOOD, NAIVE_TAKE = 0.68, 0.85, 0.25
REFERENCE_PLIES = 2
SKIP_PLIES = 4  # the opening moves hold no cube decisions worth testing


def self_play_boards(rng: np.random.Generator):
    """Endless positions (side on roll, before it rolls) from gnubg 0-ply self-play games."""
    agent = GnubgAgent(0)
    while True:
        _, dice = opening_roll(rng)
        board, plies = start_board(), 0
        while True:
            moves = generate(board[None], np.array([dice], np.int8))
            board = moves.results[agent.choose(board[None], np.array([dice]), moves)[0]]
            plies += 1
            if game_results(board[None])[0]:
                break
            if plies >= SKIP_PLIES:
                yield board
            dice = tuple(int(d) for d in rng.integers(1, 7, size=2))


def random_context(rng: np.random.Generator) -> MatchInfo:
    """Money or a match, where the side on roll may double (checked by bgzero's rules)."""
    on_roll = int(rng.integers(2))
    if rng.random() < 0.4:
        cube, owner = ((int(rng.choice([2, 4])), on_roll) if rng.random() < 0.4 else (1, CENTRED))
        return MatchInfo(cube_value=cube, cube_owner=owner, dice_owner=on_roll, turn=on_roll)
    n = int(rng.integers(LENGTHS[0], LENGTHS[1] + 1))
    if rng.random() < POST_CRAWFORD:  # the leader is 1-away; only the trailer (on roll) may double
        score = [0, 0]
        score[1 - on_roll], score[on_roll] = n - 1, int(rng.integers(0, n - 1))
        return MatchInfo(dice_owner=on_roll, turn=on_roll, match_length=n, score=tuple(score))
    score = tuple(int(s) for s in rng.integers(0, n - 1, size=2))
    cube, owner = (2, on_roll) if rng.random() < 0.3 else (1, CENTRED)
    info = MatchInfo(cube_value=cube, cube_owner=owner, dice_owner=on_roll, turn=on_roll, match_length=n, score=score)
    if not may_double(from_match_info(info), on_roll):  # a redouble that would overshoot the match
        info = MatchInfo(dice_owner=on_roll, turn=on_roll, match_length=n, score=score)
    return info


def context_kind(info: MatchInfo) -> str:
    """The subset a context is reported in."""
    if not info.match_length:
        return "money, centred" if info.cube_owner == CENTRED else "money, owned"
    return "post-Crawford" if info.match_length - 1 in info.score else "match"


def keep_chance(p_win: float) -> float:
    """How likely a candidate is kept, by its cubeless win chance: doubles are rare in play."""
    return 1.0 if p_win >= 0.62 else 0.4 if p_win >= 0.5 else 0.1


def build_reference(n: int, seed: int, progress: bool = True) -> dict:
    """Draw ``n`` positions and gnubg's verdicts on them (see the module docstring)."""
    rng = np.random.default_rng(seed)
    gnubg = GnubgCube()
    quota = {kind: math.ceil(share * n) for kind, share in SHARES.items()}
    records, seen, tried, start = [], set(), 0, time.time()
    for board in self_play_boards(rng):
        info = random_context(rng)
        pid, mid = position_id(board), match_id(info)
        probs = gnubg.cubeless(pid)
        if (pid, mid) in seen or rng.random() >= keep_chance(probs[0]):
            continue
        seen.add((pid, mid))
        tried += 1
        deep = gnubg.hint(pid, mid, REFERENCE_PLIES)
        kind = (DOUBLE, deep.verdict.taker) if deep.verdict.doubler == DOUBLE else deep.verdict.doubler
        full = not any(quota.values())
        if kind != TOO_GOOD and not quota[kind] and not full:
            continue
        if quota.get(kind):
            quota[kind] -= 1
        hints = {str(REFERENCE_PLIES): deep, **{str(p): gnubg.hint(pid, mid, p) for p in (0, 1)}}
        records.append({"position_id": pid, "match_id": mid, "cubeless": [round(p, 6) for p in probs],
                        "gnubg": {ply: vars(h) for ply, h in hints.items()}})
        if progress and len(records) % 50 == 0:
            print(f"  {len(records)}/{n} positions ({tried} analysed, {time.time() - start:.0f} s)", flush=True)
        if len(records) >= n and not any(quota.values()):
            break
    return {
        "about": "gnubg cube verdicts for bgzero-bench cube: equities are normalised (money units, "
                 "match play as gnubg's money equivalent), cubeless = gnubg 0-ply (w, wg, wbg, lg, lbg) "
                 "of the side on roll before it rolls",
        "seed": seed,
        "gnubg_settings": "set beavers 0; set output mwc off; cube decisions at 0, 1 and 2 plies (defaults otherwise)",
        "positions": records,
    }


def reference_path(reference: str | Path | None, n: int, seed: int) -> Path:
    """The reference file: ``reference`` if given, else the shipped one for ``n`` positions from
    ``seed`` (in :data:`DATA`), else its place in :data:`CACHE`."""
    if reference is not None:
        return Path(reference)
    name = f"cube_reference_n{n}_seed{seed}.json"
    return DATA / name if (DATA / name).exists() else CACHE / name


def load_reference(path: Path, n: int, seed: int) -> dict:
    """The cached reference at ``path``, built (with gnubg) and written there first if missing."""
    if path.exists():
        try:
            reference = json.loads(path.read_text())
            reference["positions"][0]["gnubg"]
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            raise ConfigError(f"cannot read the cube reference {path}: {e!r}") from None
        return reference
    print(f"building the gnubg reference for {n} positions (seed {seed}) into {path}", flush=True)
    reference = build_reference(n, seed)
    atomic_write_text(path, json.dumps(reference, indent=0) + "\n")
    return reference


def verdict(decision: CubeDecision) -> Verdict:
    """A decision as the agent acts on it: it doubles on "double, take" or "double, pass" only."""
    doubler = DOUBLE if decision.action in (DOUBLE_TAKE, DOUBLE_PASS) else \
        TOO_GOOD if decision.action == TOO_GOOD else NO_DOUBLE
    return Verdict(doubler, PASS if decision.response == PASS else TAKE)


def bgzero_verdicts(evaluator, boards: np.ndarray, infos: list[MatchInfo],
                    ply: int) -> tuple[list[Verdict], list[CubeDecision], np.ndarray]:
    """The neural agent's verdicts (the cubeful search its double and take decisions use), the decisions behind them, its probabilities."""
    states = [from_match_info(info) for info in infos]
    decisions, probs = cube_decisions(evaluator, boards, states, [info.dice_owner for info in infos], ply)
    return [verdict(d) for d in decisions], decisions, probs


def shallow_cube_verdicts(probs: np.ndarray, boards: np.ndarray, infos: list[MatchInfo]) -> list[Verdict]:
    """The agent before the cubeful search: n-ply cubeless probabilities through 0-ply Janowski."""
    lives = cube_lives(boards)
    return [verdict(cube_decision(p, from_match_info(info), info.dice_owner, float(x)))
            for p, x, info in zip(probs, lives, infos)]


def naive_verdict(p_win: float) -> Verdict:
    """Double with 68-85% cubeless wins (too good above), take with at least 25%: no gammons, no score."""
    doubler = TOO_GOOD if p_win >= NAIVE_TOO_GOOD else DOUBLE if p_win >= NAIVE_DOUBLE else NO_DOUBLE
    return Verdict(doubler, TAKE if 1 - p_win >= NAIVE_TAKE else PASS)


def table_row(name: str, doubler: Agreement, taker: Agreement) -> str:
    def cell(a: Agreement) -> str:
        ties = f", {a.ties} {'tie' if a.ties == 1 else 'ties'}" if a.ties else ""
        return f"{100 * a.rate:.1f}% ({a.agreed}/{a.decisions}{ties}) | {a.mean_cost:.3f}" if a.decisions else "– | –"

    return f"| {name} | {cell(doubler)} | {cell(taker)} |"


def misses(reference: list[CubeHint], verdicts: list[Verdict]) -> tuple[list[int], list[int]]:
    """Indices of the doubler's and of the taker's disagreements with the reference, ties not counted."""
    doubler = [i for i, (h, v) in enumerate(zip(reference, verdicts)) if not doubler_agreement([h], [v]).agreed]
    taker = [i for i, (h, v) in enumerate(zip(reference, verdicts))
             if h.verdict.doubler == DOUBLE and not taker_agreement([h], [v]).agreed]
    return doubler, taker


def print_misses(ply: int, records: list[dict], infos: list[MatchInfo], decisions: list[CubeDecision]) -> None:
    """Every disagreement of bgzero at ``ply``: the position, the score, both sides' equities, gnubg's own verdict at ``ply``."""
    reference = [CubeHint(**r["gnubg"][str(REFERENCE_PLIES)]) for r in records]
    doubler, taker = misses(reference, [verdict(d) for d in decisions])
    same = ply != REFERENCE_PLIES and str(ply) in records[0]["gnubg"]  # gnubg's own verdict at bgzero's depth
    print(f"\nbgzero {ply}-ply disagreements (D doubler, T taker; equities normalised, ND / DT):\n")
    print(f"| # | miss | context | position:match ID | gnubg {REFERENCE_PLIES}-ply | ND / DT | "
          + (f"gnubg {ply}-ply | " if same else "") + "bgzero | ND / DT |")
    print("|---|---|---|---|---|---|" + ("---|" if same else "") + "---|---|")
    for i in sorted(set(doubler) | set(taker)):
        info, hint, mine = infos[i], reference[i], decisions[i]
        score = f", {info.match_length}-point {info.score[info.dice_owner]}-{info.score[1 - info.dice_owner]}" \
            if info.match_length else ""
        own = f"{CubeHint(**records[i]['gnubg'][str(ply)]).action} | " if same else ""
        ours = verdict(mine)
        print(f"| {i} | {'D' * (i in doubler)}{'T' * (i in taker)} | {context_kind(info)}{score}, cube {info.cube_value} "
              f"| {records[i]['position_id']}:{records[i]['match_id']} | {hint.action} | "
              f"{hint.no_double:+.3f} / {hint.double_take:+.3f} | {own}{ours.doubler}, {ours.taker} | "
              f"{mine.equities.no_double:+.3f} / {mine.equities.double_take:+.3f} |")


def reference_positions(path: Path, positions: int, seed: int) -> tuple[list[dict], list[CubeHint], np.ndarray, list[MatchInfo]]:
    """The reference's records, gnubg's 2-ply hints, the boards and their match states."""
    records = load_reference(path, positions, seed)["positions"]
    return (records, [CubeHint(**r["gnubg"][str(REFERENCE_PLIES)]) for r in records],
            np.stack([board_from_position_id(r["position_id"]) for r in records]),
            [match_info_from_id(r["match_id"]) for r in records])


def agreement(checkpoint: str | Path, plies=(0, 1), positions: int = 600, seed: int = 1) -> dict:
    """``checkpoint``'s doubler and taker agreement with gnubg's 2-ply verdicts at each of ``plies``,
    on the shipped reference: what ``bgzero-iterate``'s gate records, so that a drift of the cube
    across generations shows where it happens."""
    evaluator = load_evaluator(checkpoint)
    _, reference, boards, infos = reference_positions(reference_path(None, positions, seed), positions, seed)
    figures = {}
    for ply in plies:
        verdicts = bgzero_verdicts(evaluator, boards, infos, ply)[0]
        doubler, taker = doubler_agreement(reference, verdicts), taker_agreement(reference, verdicts)
        figures[str(ply)] = {"doubler": doubler.rate, "taker": taker.rate, "decisions": doubler.decisions,
                             "doubles": taker.decisions}
    return figures


def report(checkpoint: str | Path, positions: int = 600, seed: int = 1, plies: list[int] | tuple[int, ...] = (0,),
           reference: str | Path | None = None, show_misses: bool = False, gnubg_probs: bool = False) -> None:
    """Print the benchmark's tables for ``checkpoint`` at each of ``plies`` on the reference of
    ``positions`` positions from ``seed`` (or the file ``reference``): agreement with gnubg's
    2-ply verdicts per context, per gnubg decision, and bgzero's doubler actions against gnubg's;
    with ``show_misses`` every disagreement; with ``gnubg_probs`` bgzero's search on gnubg's own net."""
    path = reference_path(reference, positions, seed)
    checkpoint = checkpoint_file(str(checkpoint)) or str(checkpoint)  # a shipped name (strong) is its play file
    evaluator = load_evaluator(checkpoint)  # a bad checkpoint is refused before a reference is built
    records, reference, boards, infos = reference_positions(path, positions, seed)

    name, deciders, seconds, decisions = Path(checkpoint).stem, {}, {}, {}
    for ply in plies:
        start = time.time()
        deciders[f"bgzero {name} {ply}-ply"], decisions[ply], probs = bgzero_verdicts(evaluator, boards, infos, ply)
        seconds[ply] = time.time() - start
        deciders[f"bgzero {name} {ply}-ply probs, 0-ply cube"] = shallow_cube_verdicts(probs, boards, infos)
    if gnubg_probs:
        gnubg_net = GnubgNet("gnubg_probs=true")  # in the checkpoint's place for the search
        deciders.update({f"bgzero {ply}-ply search on gnubg 0-ply probs": bgzero_verdicts(gnubg_net, boards, infos, ply)[0]
                         for ply in plies})
    deciders["naive: double 68-85% wins, take ≥ 25%"] = [naive_verdict(r["cubeless"][0]) for r in records]
    deciders.update({f"gnubg {p}-ply": [CubeHint(**r["gnubg"][str(p)]).verdict for r in records] for p in (0, 1)})

    kinds = [context_kind(info) for info in infos]
    counts = {a: sum(h.verdict.doubler == a for h in reference) for a in DOUBLER_ACTIONS}
    passes = sum(h.verdict.doubler == DOUBLE and h.verdict.taker == PASS for h in reference)
    lengths = sorted({info.match_length for info in infos if info.match_length})
    print(f"\n{len(records)} positions from gnubg self-play ("
          + ", ".join(f"{kinds.count(k)} {k}" for k in dict.fromkeys(sorted(kinds)))
          + (f"; match lengths {lengths[0]}-{lengths[-1]}" if lengths else "") + f"); gnubg {REFERENCE_PLIES}-ply: {counts[DOUBLE]} double "
          f"({counts[DOUBLE] - passes} take, {passes} pass), {counts[TOO_GOOD]} too good, "
          f"{counts[NO_DOUBLE]} no double. Reference: {path}\n")
    subsets = {"all": range(len(records)), **{k: [i for i, kk in enumerate(kinds) if kk == k]
                                                for k in dict.fromkeys(sorted(kinds))}}
    print("| decider | positions | doubler agrees | mean cost | taker agrees | mean cost |")
    print("|---|---|---|---|---|---|")
    for decider, verdicts in deciders.items():
        for subset, pick in subsets.items():
            theirs, mine = [reference[i] for i in pick], [verdicts[i] for i in pick]
            print(table_row(f"{decider} | {subset}", doubler_agreement(theirs, mine), taker_agreement(theirs, mine)))
    print("\nMean cost: equity (normalised, gnubg's 2-ply cubeful) lost per disagreement; the taker is "
          "judged on gnubg's real doubles.")

    by_ref = {"no double": lambda h: h.verdict.doubler == NO_DOUBLE,
              "double, take": lambda h: h.verdict == Verdict(DOUBLE, TAKE),
              "double, pass": lambda h: h.verdict == Verdict(DOUBLE, PASS),
              "too good": lambda h: h.verdict.doubler == TOO_GOOD}
    print("\nAgreement by gnubg's 2-ply decision (doubler; taker where gnubg doubles):\n")
    print("| decider | " + " | ".join(f"{k} ({sum(map(f, reference))})" for k, f in by_ref.items()) + " |")
    print("|---|" + "---|" * len(by_ref))
    for decider, verdicts in deciders.items():
        cells = []
        for key, pick in by_ref.items():
            idx = [i for i, h in enumerate(reference) if pick(h)]
            doubler = doubler_agreement([reference[i] for i in idx], [verdicts[i] for i in idx])
            cell = f"{100 * doubler.rate:.1f}%" if idx else "–"
            if key.startswith("double"):
                taker = taker_agreement([reference[i] for i in idx], [verdicts[i] for i in idx])
                cell += f" / {100 * taker.rate:.1f}%" if idx else ""
            cells.append(cell)
        print(f"| {decider} | " + " | ".join(cells) + " |")

    for ply in plies:
        ours = deciders[f"bgzero {name} {ply}-ply"]
        print(f"\nbgzero {ply}-ply doubler actions against gnubg's ({seconds[ply]:.1f} s for bgzero's verdicts):\n")
        print("| gnubg \\ bgzero | " + " | ".join(DOUBLER_ACTIONS) + " |")
        print("|---|" + "---|" * len(DOUBLER_ACTIONS))
        for theirs in DOUBLER_ACTIONS:
            row = [sum(h.verdict.doubler == theirs and v.doubler == mine for h, v in zip(reference, ours))
                   for mine in DOUBLER_ACTIONS]
            print(f"| {theirs} | " + " | ".join(map(str, row)) + " |")
        doubler, taker = misses(reference, ours)
        if ply != REFERENCE_PLIES and str(ply) in records[0]["gnubg"]:
            own = [CubeHint(**r["gnubg"][str(ply)]).verdict for r in records]
            print(f"\n{len(doubler)} doubler and {len(taker)} taker disagreements at {ply} ply, ties aside; gnubg's own "
                  f"{ply}-ply verdict is bgzero's in {sum(own[i].doubler == ours[i].doubler for i in doubler)} and "
                  f"{sum(own[i].taker == ours[i].taker for i in taker)} of them.")
        if show_misses:
            print_misses(ply, records, infos, decisions[ply])
