"""pubeval must score and choose exactly like Tesauro's C code and GNU Backgammon's copy.

The reference below is a literal transcription of ``pubeval.c`` (its 0..27 ``pos`` array,
``setx`` and the dot product) so that a mistake in the vectorised encoding cannot hide.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from bgzero.agents.pubeval import pubeval_choose, pubeval_scores
from bgzero.engine.board import START_ROW, from_gnubg, start_board, swap_sides
from bgzero.engine.classify import is_race
from tests.boards import board as make_board

_DATA = json.loads((Path(__file__).parents[1] / "bgzero/data/pubeval_weights.json").read_text())
WR = _DATA["race_weights_wr"]
WC = _DATA["contact_weights_wc"]


# --- plain transcription of pubeval.c -------------------------------------------------


def to_pos(board):
    """pubeval.c's ``pos[28]`` for a bgzero board whose row 0 is the 'computer'."""
    me, opp = [int(v) for v in board[0]], [int(v) for v in board[1]]
    pos = [0] * 28
    for k in range(1, 25):
        pos[k] = me[k - 1] - opp[24 - k]
    pos[25] = me[24]
    pos[0] = -opp[24]
    pos[26] = 15 - sum(me)
    pos[27] = -(15 - sum(opp))
    return pos


def setx(pos):
    x = [0.0] * 122
    for j in range(1, 25):
        jm1 = j - 1
        n = pos[25 - j]
        if n != 0:
            if n == -1:
                x[5 * jm1 + 0] = 1.0
            if n == 1:
                x[5 * jm1 + 1] = 1.0
            if n >= 2:
                x[5 * jm1 + 2] = 1.0
            if n == 3:
                x[5 * jm1 + 3] = 1.0
            if n >= 4:
                x[5 * jm1 + 4] = (n - 3) / 2.0
    x[120] = -pos[0] / 2.0
    x[121] = pos[26] / 15.0
    return x


def ref_pubeval(race, pos):
    if pos[26] == 15:
        return 99999999.0
    x = setx(pos)
    w = WR if race else WC
    score = 0.0
    for i in range(122):
        score += w[i] * x[i]
    return score


def ref_is_race(pos):
    """The computer (moving 24 -> 1) has passed the opponent (moving 0 -> 24)."""
    mine = [k for k in range(1, 26) if pos[k] > 0]
    theirs = [k for k in range(0, 25) if pos[k] < 0]
    return not mine or not theirs or max(mine) < min(theirs)


def ref_choose(before, after, offsets):
    chosen = []
    for b in range(len(before)):
        race = ref_is_race(to_pos(before[b]))
        best, best_score = -1, -float("inf")
        for i in range(offsets[b], offsets[b + 1]):
            s = ref_pubeval(race, to_pos(after[i]))
            if s > best_score:
                best, best_score = i, s
        chosen.append(best)
    return np.array(chosen)


# --- random legal-looking boards (no move generator needed) ------------------------------


def random_board(rng, race):
    """A valid board; ``race`` keeps the sides apart, otherwise they interleave (and may use the bar)."""
    board = np.zeros((2, 25), dtype=np.int8)
    if race:
        split = int(rng.integers(1, 24))
        columns = [np.arange(split), np.arange(24 - split)]
    else:
        physical = rng.permutation(24)
        k = int(rng.integers(1, 24))
        columns = [physical[:k], 23 - physical[k:]]
    for side in (0, 1):
        off = int(rng.integers(0, 13)) if rng.random() < 0.3 else 0
        bar = 0 if race or rng.random() < 0.7 else int(rng.integers(1, 3))
        pts = rng.choice(columns[side], size=int(rng.integers(1, len(columns[side]) + 1)), replace=False)
        board[side, pts] = rng.multinomial(15 - off - bar, np.full(len(pts), 1 / len(pts)))
        board[side, 24] = bar
    return board


@pytest.fixture(scope="module")
def random_boards():
    rng = np.random.default_rng(7)
    return np.array([random_board(rng, race=i % 3 == 0) for i in range(1500)])


def test_is_race_matches_reference(random_boards):
    expected = [ref_is_race(to_pos(b)) for b in random_boards]
    assert is_race(random_boards).tolist() == expected
    assert 300 < sum(expected) < 1200


def test_scores_match_reference(random_boards):
    race = np.arange(len(random_boards)) % 2 == 0
    expected = [ref_pubeval(r, to_pos(b)) for r, b in zip(race, random_boards)]
    np.testing.assert_allclose(pubeval_scores(random_boards, race), expected, rtol=0, atol=1e-9)


def test_choose_matches_reference(random_boards):
    rng = np.random.default_rng(11)
    sizes = rng.integers(0, 25, 120)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    after = random_boards[rng.integers(0, len(random_boards), offsets[-1])]
    before = np.array([random_board(rng, race=i % 2 == 0) for i in range(len(sizes))])
    assert pubeval_choose(before, after, offsets).tolist() == ref_choose(before, after, offsets).tolist()


# --- hand-made positions -----------------------------------------------------------------


def test_is_race_hand_made():
    start = start_board()
    mine, theirs = {1: 10, 6: 5}, {3: 14, 18: 1}  # opp's rearmost on its 18 = my 7: already passed me
    race = make_board(mine, theirs)
    touching = make_board(mine, {3: 14, 20: 1})  # opp's 20 = my 5: it must still pass my 6 point
    on_bar = make_board({1: 9, 6: 5, "bar": 1}, theirs)  # my checker on the bar is behind everything
    opp_bar = make_board(mine, {3: 13, 18: 1, "bar": 1})
    finished = make_board({}, theirs)  # all my checkers off
    boards = np.array([start, race, touching, on_bar, opp_bar, finished, swap_sides(race)])
    assert is_race(boards).tolist() == [False, True, False, False, False, True, True]


def test_all_off_scores_top_and_bar_men_are_not_inputs():
    board = make_board({}, {11: 15})
    home_one = make_board({1: 1}, {11: 15})
    on_bar = make_board({"bar": 1}, {11: 15})
    scores = pubeval_scores(np.array([board, home_one, on_bar]), np.array([True, True, True]))
    assert scores[0] == 99999999.0
    assert scores[2] == pytest.approx(WR[121] * 14 / 15)  # only 'men off' is seen
    assert scores[1] == pytest.approx(WR[5 * 23 + 1] + WR[121] * 14 / 15)


def test_choose_empty_segments_and_ties():
    after = np.array([start_board()] * 3)
    offsets = np.array([0, 0, 3, 3])
    assert pubeval_choose(np.array([start_board()] * 3), after, offsets).tolist() == [-1, 0, -1]
    with pytest.raises(ValueError):
        pubeval_choose(np.array([start_board()]), after, np.array([0, 2]))


# --- GNU Backgammon's C pubeval --------------------------------------------------------


@pytest.fixture(scope="module")
def gnubg_games():
    """(gnubg board, d1, d2, candidate keys) from uniformly random self-play games."""
    g = pytest.importorskip("gnubg_nn")
    rng = np.random.default_rng(2024)
    samples = []
    while len(samples) < 1500:
        gboard = [START_ROW.tolist(), START_ROW.tolist()]
        while True:
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            keys = g.moves(gboard, d1, d2)
            samples.append((gboard, d1, d2, keys))
            if not keys:
                gboard = [gboard[1], gboard[0]]
                continue
            opp, me = g.board_from_position_key(keys[rng.integers(len(keys))])
            if sum(me) == 0:
                break
            gboard = [list(me), list(opp)]
    return samples


def apply_flat_move(gboard, flat):
    """gnubg's flat ``[from, to, ...]`` (0-based, 24 = bar, -1 = off) applied, hits included."""
    board = from_gnubg(gboard)
    for src, dst in zip(flat[::2], flat[1::2]):
        board[0, src] -= 1
        if dst >= 0:
            board[0, dst] += 1
            if board[1, 23 - dst] == 1:
                board[1, 23 - dst] = 0
                board[1, 24] += 1
    return board


def candidates(g, samples):
    before = np.array([from_gnubg(gb) for gb, *_ in samples])
    after = [from_gnubg(g.board_from_position_key(k)) for *_, keys in samples for k in keys]
    offsets = np.concatenate([[0], np.cumsum([len(keys) for *_, keys in samples])])
    return before, np.array(after), offsets


def test_choose_matches_gnubg_pub_best_move(gnubg_games):
    g = pytest.importorskip("gnubg_nn")
    before, after, offsets = candidates(g, gnubg_games)
    chosen = pubeval_choose(before, after, offsets)
    scores = pubeval_scores(after, np.repeat(is_race(before), np.diff(offsets)))
    played = same = ties = multi = 0
    for b, (gboard, d1, d2, keys) in enumerate(gnubg_games):
        flat = g.pub_best_move(gboard, d1, d2)
        if not keys:
            assert chosen[b] == -1 and list(flat) == []
            continue
        played += 1
        multi += len(keys) > 1
        theirs = apply_flat_move(gboard, flat)
        if (after[chosen[b]] == theirs).all():
            same += 1
            continue
        lo, hi = offsets[b], offsets[b + 1]
        match = [i for i in range(lo, hi) if (after[i] == theirs).all()]
        assert match, f"gnubg's move {flat} is not among the candidates of sample {b}"
        # gnubg scores in float32: only a tie at that precision may go the other way.
        assert scores[match[0]] == pytest.approx(scores[chosen[b]], rel=1e-6, abs=1e-6), (b, flat)
        ties += 1
    assert played >= 1000
    assert is_race(before).sum() >= 100
    print(f"\npubeval vs gnubg: {same}/{played} identical ({multi} with a choice, {int(is_race(before).sum())} race), {ties} float32 ties")


def test_gnubg_positions_match_reference(gnubg_games):
    g = pytest.importorskip("gnubg_nn")
    before, after, offsets = candidates(g, gnubg_games[:300])
    assert pubeval_choose(before, after, offsets).tolist() == ref_choose(before, after, offsets).tolist()
    race = np.repeat(is_race(before), np.diff(offsets))
    expected = [ref_pubeval(r, to_pos(a)) for r, a in zip(race, after)]
    np.testing.assert_allclose(pubeval_scores(after, race), expected, rtol=0, atol=1e-9)
