"""Encoders: exact values on hand-built positions, and plain-Python references.

The shot and escape counts are checked against brute force that plays out every order of
the dice one checker step at a time, so a slip in the bitmask kernels cannot hide.
"""

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgzero.engine.board import START, swap_sides
from bgzero.engine.game import random_positions
from bgzero.errors import ConfigError, InvalidPositionError
from bgzero.value.encode import (
    CELL_SUM_FEATURES,
    CONTACT_FEATURES,
    ENCODERS,
    contact_features_kernel,
    encode,
    feature_names,
    get_encoder,
)
from tests.boards import board as make_board

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]  # the 36 ordered rolls


def feat(board, name, encoder="contact"):
    """One named input of one board."""
    return float(encode(board[None], encoder)[0, feature_names(encoder).index(name)])


def random_board(rng):
    """A valid board: up to 15 checkers a side, no point held by both."""
    board = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        for _ in range(rng.integers(0, 16)):
            col = rng.integers(0, 25)
            if col == 24 or board[1 - side, 23 - col] == 0:
                board[side, col] += 1
    return board


seeds = st.integers(0, 2**32 - 1)


# --- registry, shapes, validation ---------------------------------------------------------


@pytest.mark.parametrize("name, n", [("tesauro198", 198), ("contact", 250), ("race", 216)])
def test_shapes_and_names(name, n):
    rng = np.random.default_rng(1)
    boards = np.stack([random_board(rng) for _ in range(5)])
    out = encode(boards, name)
    assert out.shape == (5, n) and out.dtype == np.float32
    assert get_encoder(name).num_inputs == n == len(set(feature_names(name)))
    assert encode(np.zeros((0, 2, 25), np.int8), name).shape == (0, n)


@pytest.mark.parametrize("name", list(ENCODERS))
def test_fn_writes_every_element(name):
    rng = np.random.default_rng(2)
    boards = np.stack([random_board(rng) for _ in range(20)])
    out = np.full((20, ENCODERS[name].num_inputs), np.nan, np.float32)
    ENCODERS[name].fn(boards, out)
    assert np.isfinite(out).all()


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_cell_sum_features_are_sums_over_the_points(seed):
    """What the frozen net tabulates with the point units: each such feature, in both sides'
    blocks, is the sum of its values on boards holding one of the points alone."""
    board = random_board(np.random.default_rng(seed))
    names = [f"{side}.{f}" for side in ("me", "opp") for f in CELL_SUM_FEATURES]
    cols = [feature_names("contact").index(n) for n in names]
    alone = np.zeros((50, 2, 25), np.int8)
    for k, (side, cell) in enumerate(np.ndindex(2, 25)):
        alone[k, side, cell] = board[side, cell]
    np.testing.assert_allclose(encode(alone, "contact")[:, cols].sum(axis=0), encode(board[None], "contact")[0, cols],
                               atol=1e-5)
    np.testing.assert_array_equal(encode(np.zeros((1, 2, 25), np.int8), "contact")[0, cols], 0.0)


def test_contact_features_kernel_gives_the_contact_inputs_beyond_the_point_units():
    boards, _ = random_positions(500, seed=3)
    features = np.empty((len(boards), 2 * len(CONTACT_FEATURES)), np.float32)
    contact_features_kernel(boards, features)
    names = feature_names("contact")
    columns = [names.index(f"{side}.{name}") for side in ("me", "opp") for name in CONTACT_FEATURES]
    np.testing.assert_array_equal(features, encode(boards, "contact")[:, columns])
    untouched = np.full_like(features, np.nan)
    contact_features_kernel(boards, untouched, False)  # for a net that tables the cell sums
    summed = np.array([name in CELL_SUM_FEATURES for name in CONTACT_FEATURES] * 2)
    assert np.isnan(untouched[:, summed]).all()
    np.testing.assert_array_equal(untouched[:, ~summed], features[:, ~summed])


def test_unknown_name_lists_valid_ones():
    with pytest.raises(ConfigError, match="contact, race, tesauro198"):
        get_encoder("gnubg")
    with pytest.raises(ConfigError):
        feature_names("nope")


@pytest.mark.parametrize("bad", [START, np.zeros((3, 2, 24), np.int8), START[None].astype(float)])
def test_bad_batch_raises(bad):
    with pytest.raises(InvalidPositionError):
        encode(bad, "contact")


@settings(max_examples=40, deadline=None)
@given(st.lists(seeds, min_size=1, max_size=8))
def test_batch_neighbours_do_not_matter(seed_list):
    boards = np.stack([random_board(np.random.default_rng(s)) for s in seed_list])
    for name in ENCODERS:
        whole = encode(boards, name)
        for b in range(len(boards)):
            np.testing.assert_array_equal(whole[b], encode(boards[b : b + 1], name)[0])


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_swapping_sides_swaps_blocks(seed):
    board = random_board(np.random.default_rng(seed))
    for name, side in (("contact", 125), ("race", 108), ("tesauro198", 98)):
        a, b = encode(board[None], name)[0], encode(swap_sides(board)[None], name)[0]
        np.testing.assert_array_equal(a[:side], b[side : 2 * side])
        np.testing.assert_array_equal(a[side : 2 * side], b[:side])


# --- tesauro198 -----------------------------------------------------------------------------


def tesauro_reference(board):
    """Tesauro's 198 TD-Gammon inputs (Tesauro 1992) written out plainly."""
    x = []
    for row in board.astype(int):
        for n in row[:24]:
            x += [n >= 1, n >= 2, n >= 3, (n - 3) / 2 if n > 3 else 0.0]
        x += [row[24] / 2, (15 - row.sum()) / 15]
    return np.array(x + [1, 0], np.float32)


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_tesauro_matches_reference(seed):
    board = random_board(np.random.default_rng(seed))
    np.testing.assert_allclose(encode(board[None], "tesauro198")[0], tesauro_reference(board), rtol=1e-6)


def test_tesauro_hand_values():
    x = dict(zip(feature_names("tesauro198"), encode(START[None], "tesauro198")[0]))
    assert [x[f"me.p6.{u}"] for u in ("ge1", "ge2", "ge3", "over3")] == [1, 1, 1, 1.0]
    assert [x[f"opp.p24.{u}"] for u in ("ge1", "ge2", "ge3", "over3")] == [1, 1, 0, 0]
    assert (x["me.bar"], x["me.off"], x["turn.me"], x["turn.opp"]) == (0, 0, 1, 0)
    board = make_board({"bar": 3, 1: 7})
    assert feat(board, "me.bar", "tesauro198") == 1.5
    assert feat(board, "me.off", "tesauro198") == pytest.approx(5 / 15)
    assert feat(board, "me.p1.over3", "tesauro198") == 2.0


# --- contact: point units and hand-made features --------------------------------------------


def test_contact_point_and_bar_units():
    x = dict(zip(feature_names("contact"), encode(make_board({1: 1, 2: 2, 3: 3, 4: 5, "bar": 2})[None], "contact")[0]))
    units = lambda p: [x[f"me.p{p}.{u}"] for u in ("eq1", "eq2", "ge3", "over3")]
    assert (units(1), units(2), units(3), units(4)) == ([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1])
    assert [x[f"me.bar.{u}"] for u in ("ge1", "ge2", "ge3", "over3")] == [1, 1, 0, 0]


START_FEATURES = {
    "pips": 1.0,
    "off1": 0, "off2": 0, "off3": 0, "bar": 0,
    "home_points": 1 / 6,  # the 6-point
    "points": 4 / 7,  # 6, 8, 13, 24
    "prime": 1 / 6,
    # from 24, pass the 19 and 17 (5 and 7 away): 12 non-doubles with sum >= 8, and 22 33 44 66
    "escapes": 16 / 36,
    # worst spot is the bar: past my 6 and 8 (their 19 and 17) only 63 54 64 65 and 55
    "contain": 27 / 36,
    "back_checker": 23 / 24, "back_anchor": 23 / 24,
    "forward_anchor": 1 / 6, "anchors": 1 / 3,
    "blots": 0, "p1": 0, "piploss": 0,
    "enter": 35 / 36, "enter2": 25 / 36,
    "break_contact": 152 / 152,  # every checker must pass their 24-point checkers on my 1
    "behind": 1.0, "pip_diff": 0,
    "timing": 0.92,  # 2*18 + 5*7 + 3*2 outside, 3*5 for the 6-point spares
    "home_checkers": 5 / 15, "home_blots": 0,
}


@pytest.mark.parametrize("name, value", START_FEATURES.items())
def test_start_features(name, value):
    assert feat(START, f"me.{name}") == pytest.approx(value)
    assert feat(START, f"opp.{name}") == pytest.approx(value)


@pytest.mark.parametrize("n_off, units", [(0, (0, 0, 0)), (3, (0.6, 0, 0)), (7, (1, 0.4, 0)), (12, (1, 1, 0.4))])
def test_off_units(n_off, units):
    board = make_board({1: 15 - n_off}, {1: 15})
    assert tuple(feat(board, f"me.off{k}") for k in (1, 2, 3)) == pytest.approx(units)


def test_structure_features():
    board = make_board({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 10: 1, 20: 2, 22: 2}, {1: 2})
    assert feat(board, "me.prime") == pytest.approx(5 / 6)
    assert feat(board, "me.home_points") == pytest.approx(3 / 6)
    assert feat(board, "me.points") == pytest.approx(7 / 7)
    assert feat(board, "me.back_checker") == pytest.approx(21 / 24)
    assert feat(board, "me.back_anchor") == pytest.approx(21 / 24)
    assert feat(board, "me.forward_anchor") == pytest.approx(5 / 6)
    assert feat(board, "me.anchors") == pytest.approx(2 / 3)
    assert feat(board, "me.blots") == pytest.approx(1 / 8)
    assert feat(board, "me.home_blots") == 0
    assert feat(board, "me.home_checkers") == pytest.approx(6 / 15)
    assert feat(board, "me.enter") == pytest.approx(1 - 9 / 36)
    assert feat(board, "me.enter2") == pytest.approx(9 / 36)
    assert feat(make_board({3: 1, 5: 1, 9: 1}), "me.home_blots") == pytest.approx(2 / 6)
    on_bar = make_board({"bar": 2, 1: 1})
    assert feat(on_bar, "me.bar") == 0.5 and feat(on_bar, "me.back_checker") == 1.0


def test_race_like_features():
    # their rearmost checker is on their 10 = my 15; mine on 20 and the bar must pass it
    board = make_board({20: 2, "bar": 1, 6: 4, 1: 3}, {10: 1, 3: 5})
    assert feat(board, "me.break_contact") == pytest.approx((2 * 5 + 10) / 152)
    assert feat(board, "me.behind") == pytest.approx(3 / 15)
    assert feat(board, "me.pip_diff") == pytest.approx((25 - 92) / 100)
    # outside: 2*14 + 19; home spares: 2 on the 6 (5 pips each), 1 on the 1 (none)
    assert feat(board, "me.timing") == pytest.approx((28 + 19 + 10) / 100)
    assert feat(board, "opp.break_contact") == pytest.approx(25 / 152)  # my bar checker is behind all
    assert feat(make_board({6: 3}, {6: 3}), "me.break_contact") == 0  # no contact


# --- shots: hand counts and brute force --------------------------------------------------------


def brute_shots(board):
    """(rolls hitting, summed worst pip loss) by playing out every die order, one step at a time."""
    me, opp = board.astype(int)
    blots = {p for p in range(1, 25) if me[p - 1] == 1}
    made = {p for p in range(1, 25) if me[p - 1] >= 2}

    @lru_cache(maxsize=None)
    def hit(pos, dice):
        """Blots (my points) hit by some play of ``dice`` from ``pos`` (sorted, 0 = bar)."""
        if not dice:
            return frozenset()
        found = set()
        for h in ([0] if 0 in pos else sorted(set(pos))):
            t = h + dice[0]
            if t > 24 or t in made:
                continue
            if t in blots:
                found.add(t)
            rest = list(pos)
            rest.remove(h)
            found |= hit(tuple(sorted(rest + [t])), dice[1:])
        return frozenset(found)

    start = tuple(sorted([0] * opp[24] + [25 - q for q in range(1, 25) for _ in range(opp[q - 1])]))
    hits = loss = 0
    for a, b in ROLLS:
        got = hit(start, (a,) * 4) if a == b else hit(start, (a, b)) | hit(start, (b, a))
        if got:
            hits += 1
            loss += 25 - min(got)
    return hits, loss


def shot_features(board):
    return feat(board, "me.p1") * 36, feat(board, "me.piploss") * 36 * 24


def test_direct_six_is_17_shots():
    board = make_board({18: 1}, {13: 1})  # their checker on my 12, six pips behind my blot
    assert shot_features(board) == pytest.approx((17, 17 * 7))


def test_blocked_indirect_shots():
    # my points on 13, 15 and 17 (1, 3, 5 away) leave the 11 sixes, 42 and 22
    board = make_board({18: 1, 13: 2, 15: 2, 17: 2}, {13: 1})
    assert shot_features(board)[0] == pytest.approx(14)


def test_shots_from_the_bar():
    # one on the bar: 11 threes, 21 either way, 11 (enter on 1, step to 3)
    assert shot_features(make_board({3: 1}, {"bar": 1}))[0] == pytest.approx(14)
    # two on the bar and a checker on my 1: a non-double only enters (10 threes, and 33);
    # 11 and 22 enter twice and step from my 1 onto the 3 with what is left
    assert shot_features(make_board({3: 1}, {"bar": 2, 24: 1}))[0] == pytest.approx(13)


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_shots_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    board = random_board(rng)
    if rng.random() < 0.3:
        board[1, 24] = rng.integers(1, 4)
    if board[1].sum() <= 15:
        assert shot_features(board) == pytest.approx(brute_shots(board))


# --- escapes and containment -----------------------------------------------------------------


def brute_escapes(c, blocked):
    """Rolls on which a checker on c passes the lowest blocked point on 13..c-1, never
    stopping on a blocked point (``blocked``: points in the mover's numbering)."""
    window = [p for p in blocked if 13 <= p < c]
    if not window:
        return 36
    low = min(window)

    def walk(steps):
        pos = c
        for d in steps:
            pos -= d
            if pos < low:
                return True
            if pos in blocked:
                return False
        return False

    return sum(walk((a,) * 4) if a == b else walk((a, b)) or walk((b, a)) for a, b in ROLLS)


def test_escape_past_one_point():
    # my checker on 24, their only point on my 18: sums of 7+ not via the 6, plus 44 and 55
    assert feat(make_board({24: 1}, {7: 2}), "me.escapes") == pytest.approx(20 / 36)
    assert feat(make_board({12: 1}, {7: 2}), "me.escapes") == 1.0  # already on my side


def test_full_prime_contains():
    assert feat(make_board({p: 2 for p in range(2, 8)}, {24: 1}), "me.contain") == 1.0


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_escapes_and_contain_match_brute_force(seed):
    board = random_board(np.random.default_rng(seed))
    me, opp = board.astype(int)
    back = max([p for p in range(1, 26) if me[p - 1]], default=0)
    their_points = {25 - q for q in range(1, 25) if opp[q - 1] >= 2}
    my_points = {25 - p for p in range(1, 25) if me[p - 1] >= 2}
    assert feat(board, "me.escapes") * 36 == pytest.approx(brute_escapes(back, their_points))
    worst = min(brute_escapes(c, my_points) for c in range(13, 26))
    assert feat(board, "me.contain") == pytest.approx((36 - worst) / 36)


# --- race ------------------------------------------------------------------------------------


def race_reference(board):
    """gnubg's race inputs plus pips, written out plainly."""
    x = []
    for row in board.astype(int):
        for n in row[:23]:
            x += [n == 1, n == 2, n >= 3, (n - 3) / 2 if n > 3 else 0.0]
        off = 15 - row.sum()
        x += [off == k for k in range(1, 15)]
        x += [sum(row[i] * (i // 6) for i in range(6, 24)) / 10, row @ np.arange(1, 26) / 167]
    return np.array(x, np.float32)


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_race_matches_reference(seed):
    board = random_board(np.random.default_rng(seed))
    np.testing.assert_allclose(encode(board[None], "race")[0], race_reference(board), rtol=1e-6)


def test_race_hand_values():
    board = make_board({1: 2, 8: 3, 20: 1}, {2: 4})
    x = dict(zip(feature_names("race"), encode(board[None], "race")[0]))
    assert x["me.off.eq9"] == 1 and sum(x[f"me.off.eq{k}"] for k in range(1, 15)) == 1
    assert x["opp.off.eq11"] == 1
    assert x["me.crossovers"] == pytest.approx((3 * 1 + 1 * 3) / 10)
    assert x["me.pips"] == pytest.approx(46 / 167)
    assert feat(START, "me.crossovers", "race") == pytest.approx(1.9)
