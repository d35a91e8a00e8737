"""The bear-off databases (one-sided, exact two-sided): indexing, exact small cases, cache
integrity, routing in bearoff_probs, gnubg agreement."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgzero.engine.bearoff import one_sided as bo
from bgzero.engine.bearoff import two_sided as bt
from bgzero.engine.bearoff.probs import bearoff_probs
from bgzero.engine.board import swap_sides, to_gnubg
from bgzero.engine.movegen import generate
from bgzero.errors import InvalidPositionError
from tests.boards import board as pos

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """The one-sided database built into a temporary cache folder, installed as the process
    singleton; the two-sided singleton is reset to the same folder."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BGZERO_CACHE", str(tmp_path_factory.mktemp("cache")))
        bo.get_database.cache_clear()
        bt.get_database.cache_clear()
        yield bo.get_database()
    bo.get_database.cache_clear()
    bt.get_database.cache_clear()


@pytest.fixture(scope="module")
def two_sided(db):
    """The two-sided table, built into the same temporary cache folder."""
    return bt.get_database()


# --------------------------------------------------------------------------- indexing


def test_positions_are_a_bijection_onto_the_index():
    table = bo.positions()
    assert bo.NUM_POSITIONS == 54_264 == len(table)
    assert len(np.unique(table, axis=0)) == len(table)
    assert table.sum(axis=1).max() == 15 and table.min() == 0
    np.testing.assert_array_equal(bo.position_index(table), np.arange(len(table)))


def test_index_follows_gnubg_position_bearoff():
    # gnubg's PositionBearoff(board, 6, 15) values, checked with gnubg.positionbearoff.
    assert bo.position_index([0, 0, 0, 0, 0, 0]) == 0
    assert bo.position_index([1, 0, 0, 0, 0, 0]) == 1
    assert bo.position_index([0, 1, 0, 0, 0, 0]) == 2
    assert bo.position_index([2, 0, 0, 0, 0, 0]) == 7
    assert bo.position_index([0, 0, 0, 0, 0, 15]) == 54_263


def test_every_move_lowers_the_index():
    """The property the one-pass dynamic programme rests on."""
    table = bo.positions()
    step = bo.single_moves(table)
    legal = step >= 0
    assert (step[legal] < np.broadcast_to(np.arange(len(table))[:, None, None], step.shape)[legal]).all()


def test_bad_counts_are_rejected():
    with pytest.raises(InvalidPositionError):
        bo.position_index([16, 0, 0, 0, 0, 0])
    with pytest.raises(InvalidPositionError):
        bo.position_index([1, 2, 3])


# --------------------------------------------------------------------------- the tables


def reference_tables(max_checkers: int):
    """Exact (Fraction) distributions by a slow, separate route: moves from bgzero.engine.movegen.

    Each roll is played to minimise the expected rolls, exact ties going to the lowest
    index (the database's documented rule).
    """
    table = bo.positions()
    ids = np.nonzero(table.sum(axis=1) <= max_checkers)[0]
    dist = {0: {0: Fraction(1)}}
    mean = {0: Fraction(0)}
    for i in ids[1:]:
        boards = np.repeat(pos(dict(enumerate(table[i], 1)))[None], len(ROLLS), axis=0)  # counts on points 1-6
        moves = generate(boards, np.array(ROLLS))
        after = bo.position_index(moves.results[:, 1, :6])  # results are swapped: row 1 is the mover
        acc, m = {}, Fraction(1)
        for r, (d1, d2) in enumerate(ROLLS):
            w = Fraction(1 if d1 == d2 else 2, 36)
            options = sorted(set(after[moves.offsets[r]:moves.offsets[r + 1]].tolist()))
            best = min(options, key=lambda j: (mean[j], j))
            m += w * mean[best]
            for n, p in dist[best].items():
                acc[n + 1] = acc.get(n + 1, 0) + w * p
        dist[int(i)], mean[int(i)] = acc, m
    return dist


def test_matches_an_exact_brute_force_up_to_four_checkers(db):
    ref = reference_tables(4)
    assert len(ref) == 210
    for i, d in ref.items():
        want = np.zeros(bo.MAX_ROLLS)
        for n, p in d.items():
            want[n] = float(p)
        np.testing.assert_allclose(db.off[i], want, atol=1e-12, err_msg=f"position {bo.positions()[i]}")


def test_hand_checked_cases(db):
    one_on_ace = bo.position_index([1, 0, 0, 0, 0, 0])
    assert db.off[one_on_ace, 1] == pytest.approx(1.0)
    # Two on the 6-point come off in one roll only with 3-3, 4-4, 5-5 or 6-6.
    two_on_six = bo.position_index([0, 0, 0, 0, 0, 2])
    assert db.off[two_on_six, 1] == pytest.approx(4 / 36)
    assert db.off[two_on_six, 0] == 0
    # 15 on the 6-point: four 6-6 in a row is the fastest finish; any 6, 5-1, 4-2, 3-3 or
    # 2-2 gets the first checker off at once (11 + 2 + 2 + 1 + 1 of 36).
    fifteen = bo.position_index([0, 0, 0, 0, 0, 15])
    assert db.off[fifteen, :4].sum() == 0
    assert db.off[fifteen, 4] == pytest.approx(36.0**-4)
    assert db.first_off[fifteen, 1] == pytest.approx(17 / 36)
    assert db.first_off[bo.position_index([15, 0, 0, 0, 0, 0]), 1] == pytest.approx(1.0)
    # Fewer than 15 on the board: a checker is already off.
    assert db.first_off[two_on_six, 0] == 1.0


def test_distributions_are_complete(db):
    np.testing.assert_allclose(db.off.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(db.first_off.sum(axis=1), 1.0, atol=1e-12)
    assert db.off.min() >= 0 and db.first_off.min() >= 0


def test_expected_rolls_grow_with_checkers_and_pips(db):
    table = bo.positions().astype(np.int64)
    mean = db.expected_rolls(np.arange(bo.NUM_POSITIONS))
    # One more checker anywhere never helps. (Moving one a point back can: it may fill a gap.)
    can_add = table.sum(axis=1) < 15
    for p in range(6):
        plus = table[can_add].copy()
        plus[:, p] += 1
        assert (mean[bo.position_index(plus)] >= mean[can_add] - 1e-12).all()
    # k checkers stacked on one point: slower the further back and the taller the stack.
    stack = np.zeros((16, 6, 6), np.int64)
    for p in range(6):
        stack[:, p, p] = np.arange(16)
    stacked = mean[bo.position_index(stack)]  # (k, point)
    assert (np.diff(stacked, axis=0) >= 0).all() and (np.diff(stacked, axis=1) >= 0).all()
    assert (np.diff(stacked[2:], axis=1) > 0).all()
    np.testing.assert_allclose(stacked[1, :3], 1.0)


# --------------------------------------------------------------------------- evaluation


def test_is_bearoff():
    boards = np.stack([
        pos({1: 2, 2: 3}, {3: 4}),
        pos({1: 2, 2: 3, 7: 1}, {3: 4}),  # one of mine not home yet
        pos({1: 2}, {1: 1, "bar": 1}),  # one of theirs on the bar
    ])
    assert bo.is_bearoff(boards).tolist() == [True, False, False]
    assert bo.is_bearoff(boards[0]).shape == ()


def test_bearoff_probs_rejects_contact_positions(db):
    board = pos({1: 2}, {1: 3, 13: 1})  # their checker on my 12: contact
    with pytest.raises(InvalidPositionError, match="not a bear-off position"):
        bearoff_probs(board[None])
    crowded = np.stack([pos({1: 2}, {1: 3})] * 3)
    crowded[2, 0, 0] = 16  # more than 15 checkers, set by hand: the builder refuses it
    with pytest.raises(InvalidPositionError, match=r"board \(2,\) is not a bear-off position"):
        bearoff_probs(crowded)


def test_simple_races(db):
    # One checker each on the ace: the side on roll wins at once.
    np.testing.assert_allclose(bearoff_probs(pos({1: 1}, {1: 1})), [1, 0, 0, 0, 0])
    # 15 on my ace against 1 on the opponent's: I cannot finish first but always get checkers off.
    np.testing.assert_allclose(bearoff_probs(pos({1: 15}, {1: 1})), [0, 0, 0, 0, 0], atol=1e-7)
    # Two on my 6-point against one on the opponent's ace: I must finish in one roll.
    assert bearoff_probs(pos({6: 2}, {1: 1}))[0] == pytest.approx(4 / 36)
    # 15 on my 6-point against one on the opponent's ace: gammoned unless I get one off now.
    w, wg, wbg, lg, lbg = bearoff_probs(pos({6: 15}, {1: 1}))
    assert (w, wg, wbg, lbg) == (0, 0, 0, 0)
    assert lg == pytest.approx(19 / 36)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_probabilities_are_consistent(db, seed):
    boards = bo.random_bearoff_boards(64, np.random.default_rng(seed))
    p = bearoff_probs(boards).astype(np.float64)
    w, wg, wbg, lg, lbg = p.T
    eps = 1e-6
    assert (0 <= wbg).all() and (wbg <= wg + eps).all() and (wg <= w + eps).all() and (w <= 1 + eps).all()
    assert (0 <= lbg).all() and (lbg <= lg + eps).all() and (lg <= 1 - w + eps).all()
    assert (wbg == 0).all() and (lbg == 0).all()
    on15 = boards.sum(axis=2) == 15
    assert (wg[~on15[:, 1]] == 0).all() and (lg[~on15[:, 0]] == 0).all()
    # Moving first, with fixed one-sided policies: P(I win on roll) + P(you win on roll)
    # = 1 + P(we need the same number of rolls). (The two-sided table plays to win instead.)
    me, opp = bo.position_index(boards[:, 0, :6]), bo.position_index(boards[:, 1, :6])
    tie = (db.off[me] * db.off[opp]).sum(axis=1)
    long = (boards.sum(axis=2) > bt.MAX_CHECKERS).any(axis=1)
    w_swapped = bearoff_probs(swap_sides(boards))[:, 0]
    np.testing.assert_allclose(w[long] + w_swapped[long], 1 + tie[long], atol=1e-5)


# --------------------------------------------------------------------------- the two-sided table


def test_two_sided_table_satisfies_its_recurrence(two_sided):
    """One step of optimal play by brute force over bgzero.engine.movegen's legal moves."""
    rng = np.random.default_rng(3)
    pairs = np.concatenate([rng.integers(1, bt.NUM_POSITIONS, (300, 2)), rng.integers(1, 28, (60, 2))])
    table = bo.positions()
    boards = np.zeros((len(pairs), len(ROLLS), 2, 25), np.int8)
    boards[:, :, 0, :6] = table[pairs[:, 0], None]
    boards[:, :, 1, :6] = table[pairs[:, 1], None]
    moves = generate(boards.reshape(-1, 2, 25), np.tile(ROLLS, (len(pairs), 1)))
    after = bo.position_index(moves.results[:, 1, :6])  # results are swapped: row 1 is the mover
    weights = np.array([1 if d1 == d2 else 2 for d1, d2 in ROLLS]) / 36
    for p, (a, b) in enumerate(pairs):
        want = sum(w * max(1 - two_sided.win[b, r] for r in after[moves.offsets[k]:moves.offsets[k + 1]])
                   for w, k in zip(weights, range(p * len(ROLLS), (p + 1) * len(ROLLS))))
        assert two_sided.win[a, b] == pytest.approx(want, abs=1e-6), f"{table[a]} vs {table[b]}"


def test_two_sided_exact_values(two_sided):
    win = two_sided.win
    assert bt.NUM_POSITIONS == 924 and win.shape == (924, 924)
    assert bo.positions()[:924].sum(axis=1).max() == 6 < bo.positions()[924].sum()
    # One checker on my ace wins against anything.
    np.testing.assert_array_equal(win[bo.position_index([1, 0, 0, 0, 0, 0]), 1:], 1.0)
    # One on my 6-point against one on the opponent's ace: I must finish now. Any double
    # but 1-1 (5 of 36) and any non-double summing to >= 6 (11 pairs, 22 of 36) does it.
    six, ace = bo.position_index([0, 0, 0, 0, 0, 1]), bo.position_index([1, 0, 0, 0, 0, 0])
    assert win[six, ace] == pytest.approx(27 / 36, abs=1e-12)
    # Against two on the opponent's 6-point: if I miss (9 of 36) I am on my 1-3 point and
    # finish next time, unless they roll 3-3, 4-4, 5-5 or 6-6 first.
    assert win[six, bo.position_index([0, 0, 0, 0, 0, 2])] == pytest.approx(27 / 36 + 9 / 36 * 32 / 36, abs=1e-12)
    # The same answers through bearoff_probs.
    np.testing.assert_allclose(bearoff_probs(pos({6: 1}, {1: 1})), [27 / 36, 0, 0, 0, 0], atol=1e-7)
    assert (win >= 0).all() and (win <= 1).all()


def test_two_sided_cache_round_trip_and_corrupt_file_rebuilt(two_sided, tmp_path, caplog):
    path = tmp_path / "sub" / bt.CACHE_NAME
    bt.save(two_sided, path)
    np.testing.assert_array_equal(bt.load_or_build(path).win, two_sided.win)
    assert not list(path.parent.glob("*.tmp"))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(bt.CorruptCacheError):
        bt.load(path)
    with caplog.at_level("WARNING", logger="bgzero.engine.bearoff.two_sided"):
        rebuilt = bt.load_or_build(path)
    assert "rebuilding the two-sided bear-off database" in caplog.text
    np.testing.assert_array_equal(rebuilt.win, two_sided.win)
    np.testing.assert_array_equal(bt.load(path).win, two_sided.win)


def test_two_sided_cache_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BGZERO_CACHE", str(tmp_path))
    assert bt.cache_path() == tmp_path / "bearoff2.npz"


def test_bearoff_probs_uses_the_two_sided_table_where_both_sides_are_short(two_sided):
    rng = np.random.default_rng(4)
    boards = np.zeros((4000, 2, 25), np.int8)
    count = rng.integers(1, 10, (len(boards), 2))  # about half the boards have both sides <= 6
    for b in range(len(boards)):
        for side in range(2):
            boards[b, side, :6] = rng.multinomial(count[b, side], rng.dirichlet(np.ones(6)))
    short = (count <= bt.MAX_CHECKERS).all(axis=1)
    got, one_sided = bearoff_probs(boards), bo.one_sided_probs(boards)
    np.testing.assert_array_equal(got[~short], one_sided[~short])
    me, opp = bo.position_index(boards[:, 0, :6]), bo.position_index(boards[:, 1, :6])
    np.testing.assert_allclose(got[short, 0], two_sided.win[me[short], opp[short]], atol=1e-7)
    assert (got[short, 1:] == 0).all()
    # Playing to win beats (for the side whose choice matters) or matches the fixed policies.
    assert np.abs(got[short, 0] - one_sided[short, 0]).max() > 0.003


# --------------------------------------------------------------------------- the cache


def test_cache_round_trip(db, tmp_path):
    path = tmp_path / "sub" / bo.CACHE_NAME
    bo.save(db, path)
    again = bo.load_or_build(path)
    np.testing.assert_array_equal(again.off, db.off)
    np.testing.assert_array_equal(again.first_off, db.first_off)
    assert not list(path.parent.glob("*.tmp"))


def test_default_cache_path_follows_the_environment(db, tmp_path, monkeypatch):
    monkeypatch.setenv("BGZERO_CACHE", str(tmp_path))
    assert bo.cache_path() == tmp_path / "bearoff1.npz"
    monkeypatch.delenv("BGZERO_CACHE")
    assert bo.cache_path().parts[-3:] == (".cache", "bgzero", "bearoff1.npz")


def test_tampered_tables_fail_the_checksum(db, tmp_path):
    path = tmp_path / bo.CACHE_NAME
    off = db.off.copy()
    off[123, 4] += 1e-9
    np.savez(path, off=off, first_off=db.first_off, sha256=np.array(db.checksum()))
    with pytest.raises(bo.CorruptCacheError, match="SHA-256"):
        bo.load(path)
    np.savez(path, off=db.off[:100], first_off=db.first_off[:100], sha256=np.array(db.checksum()))
    with pytest.raises(bo.CorruptCacheError, match="tables"):
        bo.load(path)


def test_corrupt_cache_is_rebuilt(db, tmp_path, caplog):
    path = tmp_path / bo.CACHE_NAME
    bo.save(db, path)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(bo.CorruptCacheError):
        bo.load(path)
    with caplog.at_level("WARNING", logger="bgzero.engine.bearoff.one_sided"):
        rebuilt = bo.load_or_build(path)
    assert "rebuilding the bear-off database" in caplog.text
    np.testing.assert_array_equal(rebuilt.off, db.off)
    np.testing.assert_array_equal(bo.load(path).first_off, db.first_off)


def test_unwritable_cache_still_gives_the_database(db, tmp_path, caplog):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with caplog.at_level("WARNING", logger="bgzero.engine.bearoff.one_sided"):
        got = bo.load_or_build(blocker / bo.CACHE_NAME)
    assert "could not cache" in caplog.text
    np.testing.assert_array_equal(got.off, db.off)


# --------------------------------------------------------------------------- GNU Backgammon


@pytest.mark.gnubg
def test_index_agrees_with_gnubg():
    gnubg = pytest.importorskip("gnubg")
    table = bo.positions()
    for i in np.random.default_rng(0).choice(len(table), 500, replace=False):
        assert gnubg.positionbearoff(table[i].tolist() + [0] * 19, 6, 15) == i


@pytest.mark.gnubg
def test_table_agrees_with_gnubg_one_sided_database(db):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    theirs = np.zeros_like(db.off)
    theirs[0, 0] = 1
    for i, counts in enumerate(bo.positions()[1:].tolist(), start=1):
        p = gnubg_nn.bearoff_probabilities(tuple(counts))  # P(1 roll), P(2 rolls), ...
        theirs[i, 1:1 + len(p)] = p
    # gnubg stores 16-bit fractions and picks moves by rounded means, so near-ties can differ.
    assert np.abs(theirs - db.off).max() < 0.005
    rolls = np.arange(bo.MAX_ROLLS)
    assert np.abs((theirs - db.off) @ rolls).max() < 1e-3


@pytest.mark.gnubg
def test_probs_agree_with_gnubg_evaluate(db):
    gnubg = pytest.importorskip("gnubg")
    cubeless, zero_ply = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0), gnubg.evalcontext(0, 0, 1, 0, 0.0)
    rng = np.random.default_rng(2)
    gammons = np.zeros((100, 2, 25), np.int8)  # 15 checkers well back against a short race
    for b in gammons:
        b[0, 3:6] = rng.multinomial(15, [0.2, 0.3, 0.5])
        b[1, :6] = rng.multinomial(rng.integers(1, 5), np.ones(6) / 6)
    boards = np.concatenate([bo.random_bearoff_boards(200, np.random.default_rng(1)), gammons])
    boards = np.concatenate([boards, swap_sides(boards)])  # each side on roll
    ours = bearoff_probs(boards)
    theirs = np.array([gnubg.evaluate(to_gnubg(b), cubeless, zero_ply)[:5] for b in boards])
    # gnubg answers from its exact two-sided database when both sides have <= 6 checkers,
    # and so does bearoff_probs.
    two_sided = (boards.sum(axis=2) <= 6).all(axis=1)
    d = np.abs(ours - theirs)
    assert (~two_sided).sum() >= 400 and two_sided.sum() >= 20
    assert d[:, 0].max() < 0.001
    assert d[:, 1:].max() < 0.001
    assert (ours[:, 1] > 0.01).sum() >= 20 and (ours[:, 3] > 0.01).sum() >= 20


@pytest.mark.gnubg
def test_two_sided_table_agrees_with_gnubg_two_sided_database(two_sided):
    gnubg = pytest.importorskip("gnubg")
    from scripts import check_bearoff_gnubg

    theirs = check_bearoff_gnubg.read_gnubg_two_sided(Path(gnubg.__file__).parent / "data" / "gnubg_ts0.bd")
    # gnubg stores P(win) as a 16-bit fraction (computed in float32).
    assert np.abs(theirs - two_sided.win).max() < 1e-4


@pytest.mark.gnubg
def test_check_script_passes(db, two_sided, capsys):
    pytest.importorskip("gnubg")
    from scripts import check_bearoff_gnubg

    assert check_bearoff_gnubg.main(["--positions", "400", "--seed", "1"]) == 0
    assert "two-sided (BEAROFF2" in capsys.readouterr().out
