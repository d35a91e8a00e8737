"""Cube decisions of the neural agent against GNU Backgammon's 2-ply ``hint``.

Positions come from gnubg 0-ply self-play, each put in a random context where the side on
roll may double: money (Jacoby off, no beavers) or a 7-point match at a random score with
each side 2 to 7 away (never Crawford), the cube centred at 1 or owned at 2 by the side on
roll. Positions likely to be doubles are oversampled (by gnubg's 0-ply cubeless win chance)
and kept by gnubg's 2-ply verdict in fixed shares (:data:`SHARES`): 40% real doubles, half of
them takes, 20% too good, 40% no double.

The reference -- gnubg's 2-ply verdicts and cubeful equities, its 0- and 1-ply verdicts and
its 0-ply cubeless probabilities -- is cached in ``scripts/data/`` (the committed file makes
the benchmark reproducible without gnubg). bgzero decides with the checkpoint at ``--ply``
exactly as :class:`~bgzero.agents.neural.NeuralAgent` plays: its probabilities through
:func:`bgzero.agents.cube.cube_lives` and :func:`bgzero.cube.state.cube_decision`. A naive rule
(double at 68-85% cubeless wins, take at 25% or more) gives the scale.

    python scripts/bench_cube.py --checkpoint checkpoints/reference.pt --positions 300 --seed 0 --ply 0
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from bgzero.agents.cube import cube_lives
from bgzero.agents.gnubg import GnubgAgent
from bgzero.agents.search import evaluate_ply
from bgzero.cube import CENTRED, NO_DOUBLE, PASS, TAKE, TOO_GOOD, cube_decision, from_match_info, may_double
from bgzero.engine.board import start_board
from bgzero.engine.game import game_results, opening_roll
from bgzero.engine.ids import MatchInfo, board_from_position_id, match_id, match_info_from_id, position_id
from bgzero.engine.movegen import generate
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

DATA = Path(__file__).resolve().parent / "data"
# The set's make-up by gnubg's 2-ply verdict: 40% real doubles (the issue asks for at least a
# third), half of them takes; too good is capped as it is the easiest call.
SHARES = {(DOUBLE, TAKE): 0.2, (DOUBLE, PASS): 0.2, TOO_GOOD: 0.2, NO_DOUBLE: 0.4}
MATCH_LENGTH = 7
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
    """Money or a 7-point match, where the side on roll may double (checked by bgzero's rules)."""
    on_roll = int(rng.integers(2))
    money = rng.random() < 0.5
    score = (0, 0) if money else tuple(int(s) for s in rng.integers(0, MATCH_LENGTH - 1, size=2))
    cube, owner = (2, on_roll) if rng.random() < 0.3 else (1, CENTRED)
    info = MatchInfo(cube_value=cube, cube_owner=owner, dice_owner=on_roll, turn=on_roll,
                     match_length=0 if money else MATCH_LENGTH, score=score)
    if not may_double(from_match_info(info), on_roll):  # a redouble that would overshoot the match
        info = MatchInfo(dice_owner=on_roll, turn=on_roll, match_length=MATCH_LENGTH, score=score)
    return info


def keep_chance(p_win: float) -> float:
    """How likely a candidate is kept, by its cubeless win chance: doubles are rare in play."""
    return 1.0 if p_win >= 0.62 else 0.4 if p_win >= 0.5 else 0.1


def build_reference(n: int, seed: int, progress: bool = True) -> dict:
    """Draw ``n`` positions and gnubg's verdicts on them (see the module docstring)."""
    rng = np.random.default_rng(seed)
    gnubg = GnubgCube()
    quota = {kind: math.ceil(share * n) for kind, share in SHARES.items()}
    quota[NO_DOUBLE] = n - sum(quota.values()) + quota[NO_DOUBLE]
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
        if not quota[kind]:
            continue
        quota[kind] -= 1
        hints = {str(REFERENCE_PLIES): deep, **{str(p): gnubg.hint(pid, mid, p) for p in (0, 1)}}
        records.append({"position_id": pid, "match_id": mid, "cubeless": [round(p, 6) for p in probs],
                        "gnubg": {ply: vars(h) for ply, h in hints.items()}})
        if progress and len(records) % 50 == 0:
            print(f"  {len(records)}/{n} positions ({tried} analysed, {time.time() - start:.0f} s)", flush=True)
        if len(records) == n:
            break
    return {
        "about": "gnubg cube verdicts for scripts/bench_cube.py: equities are normalised (money units, "
                 "match play as gnubg's money equivalent), cubeless = gnubg 0-ply (w, wg, wbg, lg, lbg) "
                 "of the side on roll before it rolls",
        "seed": seed,
        "gnubg_settings": "set beavers 0; set output mwc off; cube decisions at 0, 1 and 2 plies (defaults otherwise)",
        "positions": records,
    }


def load_reference(path: Path, n: int, seed: int) -> dict:
    """The cached reference at ``path``, built (with gnubg) and written there first if missing."""
    if path.exists():
        return json.loads(path.read_text())
    print(f"building the gnubg reference for {n} positions (seed {seed}) into {path}", flush=True)
    reference = build_reference(n, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(reference, indent=0) + "\n")
    return reference


def bgzero_verdicts(probs: np.ndarray, boards: np.ndarray, infos: list[MatchInfo]) -> list[Verdict]:
    """The neural agent's verdicts from its probabilities: the cube lives and decision its cube_actions use."""
    lives = cube_lives(boards)
    verdicts = []
    for p, x, info in zip(probs, lives, infos):
        decision = cube_decision(p, from_match_info(info), info.dice_owner, float(x))
        doubler = NO_DOUBLE if decision.action == NO_DOUBLE else TOO_GOOD if decision.action == TOO_GOOD else DOUBLE
        verdicts.append(Verdict(doubler, PASS if decision.response == PASS else TAKE))
    return verdicts


def naive_verdict(p_win: float) -> Verdict:
    """Double with 68-85% cubeless wins (too good above), take with at least 25%: no gammons, no score."""
    doubler = TOO_GOOD if p_win >= NAIVE_TOO_GOOD else DOUBLE if p_win >= NAIVE_DOUBLE else NO_DOUBLE
    return Verdict(doubler, TAKE if 1 - p_win >= NAIVE_TAKE else PASS)


def table_row(name: str, doubler: Agreement, taker: Agreement) -> str:
    def cell(a: Agreement) -> str:
        return f"{100 * a.rate:.1f}% ({a.agreed}/{a.decisions}) | {a.mean_cost:.3f}" if a.decisions else "– | –"

    return f"| {name} | {cell(doubler)} | {cell(taker)} |"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ply", type=int, default=0, help="bgzero's evaluation depth for the cube")
    ap.add_argument("--reference", type=Path, default=None,
                    help="reference JSON (default scripts/data/cube_reference_n{positions}_seed{seed}.json)")
    args = ap.parse_args(argv)
    path = args.reference or DATA / f"cube_reference_n{args.positions}_seed{args.seed}.json"
    records = load_reference(path, args.positions, args.seed)["positions"]
    reference = [CubeHint(**r["gnubg"][str(REFERENCE_PLIES)]) for r in records]
    boards = np.stack([board_from_position_id(r["position_id"]) for r in records])
    infos = [match_info_from_id(r["match_id"]) for r in records]

    start = time.time()
    probs = evaluate_ply(load_evaluator(args.checkpoint), boards, args.ply)
    ours = bgzero_verdicts(probs, boards, infos)
    seconds = time.time() - start
    deciders = {
        f"bgzero {Path(args.checkpoint).name} {args.ply}-ply": ours,
        "naive: double 68-85% wins, take ≥ 25%": [naive_verdict(r["cubeless"][0]) for r in records],
        **{f"gnubg {p}-ply": [CubeHint(**r["gnubg"][str(p)]).verdict for r in records] for p in (0, 1)},
    }

    money = sum(info.match_length == 0 for info in infos)
    counts = {a: sum(h.verdict.doubler == a for h in reference) for a in DOUBLER_ACTIONS}
    passes = sum(h.verdict.doubler == DOUBLE and h.verdict.taker == PASS for h in reference)
    print(f"\n{len(records)} positions from gnubg self-play ({money} money, {len(records) - money} "
          f"{MATCH_LENGTH}-point match); gnubg {REFERENCE_PLIES}-ply: {counts[DOUBLE]} double "
          f"({counts[DOUBLE] - passes} take, {passes} pass), {counts[TOO_GOOD]} too good, "
          f"{counts[NO_DOUBLE]} no double. Reference: {path}\n")
    subsets = {"all": range(len(records)),
               "money": [i for i, info in enumerate(infos) if info.match_length == 0],
               "match": [i for i, info in enumerate(infos) if info.match_length != 0]}
    print("| decider | positions | doubler agrees | mean cost | taker agrees | mean cost |")
    print("|---|---|---|---|---|---|")
    for name, verdicts in deciders.items():
        for subset, pick in subsets.items():
            theirs, mine = [reference[i] for i in pick], [verdicts[i] for i in pick]
            print(table_row(f"{name} | {subset}", doubler_agreement(theirs, mine), taker_agreement(theirs, mine)))
    print("\nMean cost: equity (normalised, gnubg's 2-ply cubeful) lost per disagreement; the taker is "
          "judged on gnubg's real doubles.")
    print(f"\nbgzero doubler actions against gnubg's ({seconds:.1f} s for bgzero's {args.ply}-ply verdicts):\n")
    print("| gnubg \\ bgzero | " + " | ".join(DOUBLER_ACTIONS) + " |")
    print("|---|" + "---|" * len(DOUBLER_ACTIONS))
    for theirs in DOUBLER_ACTIONS:
        row = [sum(h.verdict.doubler == theirs and v.doubler == mine for h, v in zip(reference, ours))
               for mine in DOUBLER_ACTIONS]
        print(f"| {theirs} | " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
