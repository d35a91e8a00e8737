"""gnubg move notation: docs/rules.md sections 3-5 in notation, round trips, gnubg, fuzzing."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bgzero.engine.notation
from bgzero.engine.board import START, to_gnubg
from bgzero.engine.movegen import generate, legal_results
from bgzero.engine.notation import format_move, format_steps, parse_move, play_text
from bgzero.errors import IllegalMoveError, InvalidDiceError
from tests.boards import board as pos


def plays(board, dice) -> set[str]:
    """Every legal play, formatted."""
    _, steps = legal_results(board, dice)
    return {format_move(board, s) for s in steps}


def results_of(board, dice, texts) -> set[bytes]:
    return {parse_move(board, dice, t).tobytes() for t in texts}


def all_results(board, dice) -> set[bytes]:
    return {r.tobytes() for r in legal_results(board, dice)[0]}


def assert_legal_plays_are(board, dice, texts) -> None:
    """The texts (any spelling) name exactly the legal plays, one each."""
    assert results_of(board, dice, texts) == all_results(board, dice)
    assert len(texts) == len(all_results(board, dice))


def random_positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Boards and rolls met in random play from the start, a new game after each one ends."""
    rng = np.random.default_rng(seed)
    boards, rolls = [], []
    board = START
    while len(boards) < n:
        roll = rng.integers(1, 7, 2)
        boards.append(board)
        rolls.append(roll)
        results = generate(board[None], roll[None]).results
        board = results[rng.integers(len(results))]
        if (board.sum(axis=1) == 0).any():
            board = START
    return np.stack(boards), np.stack(rolls)


@pytest.fixture(scope="module")
def positions():
    return random_positions(2000, seed=20)


def test_doctests():
    assert doctest.testmod(bgzero.engine.notation).failed == 0


# --- docs/rules.md section 3: moving ------------------------------------------------------


def test_rule7_both_landing_points_blocked_forbids_the_jump():
    board = pos({24: 1, 6: 14}, {5: 2, 3: 2})  # they hold my 20 and 22
    with pytest.raises(IllegalMoveError, match="not a legal play for 4-2"):
        parse_move(board, (4, 2), "24/18")
    assert not any(p.startswith("24/") for p in plays(board, (4, 2)))


def test_rule7_one_open_landing_point_allows_the_jump():
    board = pos({24: 1, 6: 14}, {5: 2})  # they hold my 20
    assert "24/18" in plays(board, (4, 2))
    same = results_of(board, (4, 2), ["24/18", "24/22/18", "24/22 22/18"])
    assert len(same) == 1
    with pytest.raises(IllegalMoveError, match="point 20 is held by 2 opposing checkers"):
        parse_move(board, (4, 2), "24/20/18")


def test_rule8_land_on_blot_hits_pass_over_blocks():
    board = pos({24: 2, 6: 13}, {7: 1, 6: 2, 5: 2, 4: 2, 3: 2})  # my 19-22 blocked, a blot on my 18
    after = parse_move(board, (6, 5), "24/18* 6/1")
    assert after[0, 24] == 1  # the blot is on the bar; sides are swapped, so it is row 0
    assert (parse_move(board, (6, 5), "24/18 6/1") == after).all()  # '*' is optional
    assert "24/18*/13" in plays(board, (6, 5))  # passing over 19-22 is fine
    with pytest.raises(IllegalMoveError, match="point 19 is held by 2"):
        parse_move(board, (6, 5), "24/19 24/18")


def test_rule9_one_checker_hits_two_blots():
    board = pos({24: 1, 6: 14}, {6: 1, 2: 1})  # blots on my 19 and 23
    assert "24/23*/19*" in plays(board, (4, 1))
    after = parse_move(board, (4, 1), "24/23*/19*")
    assert after[0, 24] == 2
    assert (parse_move(board, (4, 1), "24/23/19") == after).all()


def test_rule10_a_double_is_four_moves():
    assert "13/7(2)" in plays(START, (3, 3))
    results, steps = legal_results(START, (3, 3))
    k = next(k for k, s in enumerate(steps) if format_move(START, s) == "13/7(2)")
    assert (steps[k, :, 0] >= 0).sum() == 4
    assert (parse_move(START, (3, 3), "13/10/7 13/10/7") == results[k]).all()
    with pytest.raises(IllegalMoveError, match="needs more moves than 3-3 allows"):
        parse_move(START, (3, 3), "24/21(2) 13/10(2) 8/5")


def test_rule11_both_dice_must_be_played():
    with pytest.raises(IllegalMoveError, match="not a legal play for 6-5"):
        parse_move(START, (6, 5), "24/18")


def test_rule11_larger_die_when_only_one_can_be_played():
    board = pos({13: 1}, {23: 2})  # 13/7 or 13/8, but then my 2 (their 23) is blocked
    assert plays(board, (6, 5)) == {"13/7"}
    with pytest.raises(IllegalMoveError, match="legal plays: 13/7$"):
        parse_move(board, (6, 5), "13/8")


def test_rule11_the_only_playable_die():
    board = pos({13: 1}, {23: 2, 18: 2})  # they hold my 2 and 7
    assert plays(board, (6, 5)) == {"13/8"}


def test_rule11_no_play_is_the_empty_move():
    board = pos({13: 1}, {18: 2, 17: 2})  # 13/2 is open, but only through my 7 or 8, which they hold
    assert plays(board, (6, 5)) == {""}
    after = parse_move(board, (6, 5), "  ")
    assert (after == board[::-1]).all()
    with pytest.raises(IllegalMoveError, match="6-5 cannot be played here"):
        parse_move(board, (6, 5), "13/2")


def test_rule11_as_many_moves_of_a_double_as_possible():
    board = pos({13: 1}, {24: 2})  # they hold my 1
    assert plays(board, (3, 3)) == {"13/4"}


def test_rule12_same_result_same_play():
    spellings = ["24/13", "24/18/13", "24/18 18/13", "18/13 24/18", "24/18/13*"]
    assert len(results_of(START, (6, 5), spellings)) == 1
    results, _ = legal_results(START, (6, 5))
    assert len({r.tobytes() for r in results}) == len(results)


# --- section 4: the bar -------------------------------------------------------------------

THEIRS_22_BLOCKED = {24: 2, 13: 5, 9: 3, 6: 3, 3: 2}  # the roller's 22 (their 3) blocked, 20 and 17 open


def test_rule13_bar_checkers_first():
    board = pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5})
    with pytest.raises(IllegalMoveError, match="not a legal play for 6-4"):
        parse_move(board, (6, 4), "13/7 13/9")
    assert {"bar/21 13/7", "bar/19 24/20", "bar/15"} <= plays(board, (6, 4))
    assert all(p.startswith("bar/") for p in plays(board, (6, 4)))


def test_rule14_entering_points():
    board = pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5}, {3: 1})  # their blot on my 22
    assert {"bar/24 13/10", "bar/22* 13/12"} <= plays(board, (3, 1))  # a 1 enters on 24, a 3 on 22
    assert parse_move(board, (3, 1), "bar/22* 24/23")[0, 24] == 1  # hitting on entry
    assert {"bar/19 13/12", "bar/24 13/7"} <= plays(board, (6, 1))  # a 6 enters on 19
    closed = pos({"bar": 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2})  # my 19-24 closed
    assert plays(closed, (6, 1)) == {""}


def test_rule15_entered_checker_frees_the_other_die():
    board = pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5}, THEIRS_22_BLOCKED)
    legal = plays(board, (5, 3))
    assert {"bar/17", "bar/20 13/10", "bar/20 24/21"} <= legal  # bar/17 is bar/20 20/17
    assert all(p.startswith("bar/20") or p == "bar/17" for p in legal)
    assert (parse_move(board, (3, 5), "bar/20 20/17") == parse_move(board, (5, 3), "bar/17")).all()
    with pytest.raises(IllegalMoveError, match="point 22 is held by 2"):
        parse_move(board, (5, 3), "bar/22 13/8")


def test_rule15_two_on_the_bar_lose_the_blocked_die():
    board = pos({"bar": 2, 13: 5, 8: 3, 6: 5}, THEIRS_22_BLOCKED)
    assert plays(board, (5, 3)) == {"bar/20"}
    with pytest.raises(IllegalMoveError, match="not a legal play for 5-3; legal plays: bar/20$"):
        parse_move(board, (5, 3), "bar/20 20/17")


# --- section 5: bearing off ---------------------------------------------------------------


def test_rule16_bear_off_only_when_all_home():
    board = pos({8: 1, 6: 14})
    with pytest.raises(IllegalMoveError, match="not a legal play for 6-5"):
        parse_move(board, (6, 5), "6/off 6/1")
    assert {"8/3 6/off", "8/2 6/1"} <= plays(board, (6, 5))
    assert "8/off" in plays(board, (6, 2))  # 8/6 brings it home, then 6/off


def test_rule16_hit_checker_must_come_home_first():
    board = pos({"bar": 1, 6: 14}, {6: 1})  # their blot on my 19
    legal = plays(board, (6, 5))
    assert legal and not any("off" in p for p in legal)
    assert "bar/19*/14" in legal


def test_rule17_exact_die_bears_off_its_point():
    # 6/off and 4/off by the exact dice; or the 4 moves 6/2 and the 6 then takes the highest.
    assert_legal_plays_are(pos({6: 1, 4: 1}), (6, 4), ["6/off 4/off", "6/2 4/off"])


def test_rule18_higher_checker_forces_a_move_inside():
    board = pos({6: 1, 3: 1})
    # 5-2: the 5 may not bear off the 3-point checker while the 6 (or, after 6/4, the 4) is occupied.
    assert_legal_plays_are(board, (5, 2), ["6/1 3/1", "6/4 4/off"])
    assert plays(board, (5, 2)) == {"6/1 3/1", "6/off"}
    for illegal in ("6/4 3/off", "3/off 6/4"):
        with pytest.raises(IllegalMoveError, match="not a legal play for 5-2"):
            parse_move(board, (5, 2), illegal)


def test_rule19_larger_die_bears_off_the_highest():
    assert_legal_plays_are(pos({3: 1, 2: 1}), (6, 5), ["3/off 2/off"])


def test_rule20_example_4_3():
    board = pos({6: 1, 5: 1, 2: 1, 1: 1})
    assert_legal_plays_are(board, (4, 3), ["6/2 5/2", "6/3 5/1"])
    assert plays(board, (4, 3)) == {"6/2 5/2", "6/3 5/1"}


def test_rule20_example_6_1():
    board = pos({6: 1, 5: 1, 2: 1, 1: 1})
    assert_legal_plays_are(board, (6, 1), ["6/off 1/off", "6/off 2/1", "6/off 5/4", "6/5 5/off"])
    # gnubg writes the last one as a single checker's move: 6/5 then 5/off is 6/off.
    assert plays(board, (6, 1)) == {"6/off 1/off", "6/off 2/1", "6/off 5/4", "6/off"}


def test_rule20_example_5_3_roll_6_3():
    assert_legal_plays_are(pos({5: 1, 3: 1}), (6, 3), ["5/off 3/off", "5/2 3/off"])


def test_rule20_example_4_1_roll_6_3():
    board = pos({4: 1, 1: 1})
    assert_legal_plays_are(board, (6, 3), ["4/off 1/off", "4/1 1/off"])
    assert plays(board, (6, 3)) == {"4/off 1/off", "4/off"}


# --- formatting -----------------------------------------------------------------------------

BLOTS_20_21_17 = pos({24: 2, 13: 5, 8: 3, 6: 5}, {8: 1, 5: 1, 4: 1})  # their blots on my 17, 20 and 21


@pytest.mark.parametrize(
    ("board", "steps", "text"),
    [  # each text is what gnubg.movetupletostring gives for these steps
        (START, [(24, 18), (13, 11)], "24/18 13/11"),
        (START, [(13, 11), (24, 18)], "24/18 13/11"),
        (START, [(24, 20), (20, 16)], "24/16"),
        (START, [(13, 9), (9, 5), (13, 9), (9, 5)], "13/5(2)"),
        (START, [(13, 9), (13, 9), (9, 5)], "13/5 13/9"),
        (START, [(6, 5), (6, 5), (8, 7), (8, 7)], "8/7(2) 6/5(2)"),
        (START, [(6, 0), (5, 0)], "6/off 5/off"),
        (START, [(6, 5), (5, 0)], "6/off"),
        (START, [(25, 22)], "bar/22"),
        (START, [], ""),
        (START, np.full((4, 2), -1), ""),
        (BLOTS_20_21_17, [(24, 20), (20, 16)], "24/20*/16"),
        (BLOTS_20_21_17, [(24, 20), (20, 16), (16, 12), (12, 8)], "24/20*/8"),
        (BLOTS_20_21_17, [(24, 21), (24, 21), (21, 20)], "24/21*/20* 24/21"),
        (BLOTS_20_21_17, [(24, 20), (24, 20)], "24/20*(2)"),
        (BLOTS_20_21_17, [(24, 21), (21, 17), (24, 20), (20, 16)], "24/21*/17* 24/20*/16"),
    ],
)
def test_format_like_gnubg(board, steps, text):
    assert format_move(board, steps) == text


@pytest.mark.parametrize(
    ("steps", "problem"),
    [
        ([(26, 20)], "step 26/20"),
        ([(20, 25)], "step 20/25"),
        ([(6, 8)], "step 6/8"),
        ([(24, 20)] * 5, "at most 4 steps"),
        ([(24, 20, 1)], "shape"),
        ("24/20", "integer pairs"),
    ],
)
def test_format_rejects_bad_steps(steps, problem):
    with pytest.raises(IllegalMoveError, match=problem):
        format_move(START, steps)


# --- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "spellings"),
    [
        ((6, 2), ["24/18 13/11", "  24 / 18   13/11 ", "13/11 24/18", "24/18,13/11"]),
        ((3, 3), ["13/7(2)", "13/7 (2)", "13/7( 2 )", "13/10/7(2)", "13/10/7 13/10/7", "13/7 13/7"]),
        ((6, 6), ["24/18(2) 13/7(2)", "24/18*(2) 13/7(2)"]),
        ((5, 2), ["13/8 13/11", "13/11 13/8"]),
        ((4, 2), ["8/4 6/4", "8/4* 6/4*", "6/4 8/4"]),
    ],
)
def test_parse_spellings(dice, spellings):
    assert len(results_of(START, dice, spellings)) == 1


@pytest.mark.parametrize("entry", ["bar/22*", "BAR/22", "b/22", "B/22*", "25/22", "Bar/22"])
def test_parse_bar_spellings(entry):
    board = pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5}, {3: 1})  # their blot on my 22
    after = parse_move(board, (3, 1), f"{entry} 24/23")
    assert after[1, 21] == 1 and after[1, 24] == 0 and after[0, 24] == 1


@pytest.mark.parametrize("text", ["6/off 5/off", "6/0 5/0", "6/OFF 5/o", "6/o 5/Off"])
def test_parse_off_spellings(text):
    after = parse_move(pos({6: 2, 5: 2}), (6, 5), text)
    assert after[1, 5] == 1 and after[1, 4] == 1


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("24-18", "malformed move '24-18'"),
        ("24/", "malformed move '24/'"),
        ("/18", "malformed move '/18'"),
        ("24//18", "malformed move '24//18'"),
        ("24/18 x", "malformed move 'x'"),
        ("24/18(2", "malformed move '24/18\\(2'"),
        ("13/7(0)", r"count \(0\) in '13/7\(0\)' must be 1-4"),
        ("13/7(5)", r"count \(5\)"),
        ("26/20", "'26/20' moves from 26: a move starts on 1-24 or the bar"),
        ("0/5", "moves from off"),
        ("6/bar", "moves to bar"),
        ("18/24", "moves from 18 to 24: checkers move to lower points"),
        ("13/13", "moves from 13 to 13"),
        ("100/99", "point '100' in '100/99' is out of range"),
        ("24/15", "'24/15' moves 9 pips; 6-4 moves 4, 6 or 10"),
        ("6/off", "'6/off' needs 6 pips to bear off; 2-1 moves 1, 2 or 3"),
        ("24/18 13/7", "'24/18 13/7' needs more moves than 6-4 allows"),
        ("24/14 13/9", "needs more moves than 6-4 allows"),
        ("12/8 13/7", "'12/8': no checker of the side on roll on point 12"),
        ("bar/21 13/7", "no checker of the side on roll on the bar"),
        ("13/7 12/8", "no checker of the side on roll on point 12"),
        ("24/20 13/7", "'24/20': point 20"),
        ("24/18 24/20", "point 20 is held by 2 opposing checkers"),
    ],
)
def test_parse_errors_name_the_problem(text, problem):
    board = START.copy()
    board[1, 23 - 19] = 2  # the other side holds the side on roll's 20-point
    board[1, 5] -= 2
    dice = (2, 1) if text == "6/off" else (6, 4)
    with pytest.raises(IllegalMoveError, match=problem):
        parse_move(board, dice, text)


def test_illegal_play_lists_some_legal_plays():
    with pytest.raises(IllegalMoveError) as info:
        parse_move(START, (4, 2), " 13/9 ")
    message = str(info.value)
    assert "\n" not in message
    head, shown = message.split("; legal plays: ")
    assert head == "'13/9' is not a legal play for 4-2"
    shown = shown.removesuffix(" and 12 more").split(", ")  # 18 plays, 6 shown
    assert len(shown) == 6 and set(shown) <= plays(START, (4, 2))
    with pytest.raises(IllegalMoveError, match="the empty move is not a legal play for 4-2"):
        parse_move(START, (4, 2), "")


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (3, -1), (1,), (1, 2, 3), "42", (1.0, 2), None, 5])
def test_bad_dice(dice):
    with pytest.raises(InvalidDiceError):
        parse_move(START, dice, "24/18")


def test_dice_in_either_order_and_as_arrays():
    assert (parse_move(START, (1, 3), "8/5 6/5") == parse_move(START, np.array([3, 1]), "8/5 6/5")).all()


def test_text_must_be_a_string():
    with pytest.raises(IllegalMoveError, match="must be a str"):
        parse_move(START, (3, 1), b"8/5 6/5")


# --- round trips and gnubg ------------------------------------------------------------------


def test_round_trip_every_legal_move_of_2000_positions(positions):
    """format_move then parse gives back each result, via the batched generator's steps."""
    boards, rolls = positions
    batch = generate(boards, rolls)
    checked = 0
    for b, (board, roll) in enumerate(zip(boards, rolls)):
        lo, hi = batch.offsets[b], batch.offsets[b + 1]
        dice = tuple(sorted(roll.tolist(), reverse=True))
        index = {batch.results[k].tobytes(): k for k in range(lo, hi)}
        for k in range(lo, hi):
            pairs = [(a, c) for a, c in batch.steps[k].tolist() if a >= 0]
            text = format_steps(board, pairs)
            assert index.get(play_text(board, dice, text).tobytes()) == k, (board.tolist(), dice, text)
            checked += 1
    assert len(boards) >= 2000 and checked > 30_000
    assert (batch.counts() == 1).sum() > 0  # some rolls that cannot be played, or are forced


def test_round_trip_through_parse_move(positions):
    """The public path, on fewer positions: parse_move regenerates the legal plays each call."""
    boards, rolls = positions
    for board, roll in zip(boards[::20], rolls[::20]):
        results, steps = legal_results(board, roll)
        for result, step in zip(results, steps):
            assert (parse_move(board, roll, format_move(board, step)) == result).all()


@pytest.fixture(scope="module")
def gnubg():
    return pytest.importorskip("gnubg", reason="gnubg's Python module formats moves with its own FormatMove")


@pytest.mark.gnubg
def test_format_matches_gnubg_movetupletostring(positions, gnubg):
    """Our formatting of our steps equals gnubg's formatting of the same steps."""
    boards, rolls = positions
    batch = generate(boards[:400], rolls[:400])
    for b, board in enumerate(boards[:400]):
        gboard = to_gnubg(board)
        for k in range(batch.offsets[b], batch.offsets[b + 1]):
            step = batch.steps[k]
            flat = tuple(step[step[:, 0] >= 0].ravel().tolist())
            assert format_move(board, step) == gnubg.movetupletostring(flat, gboard), (board.tolist(), flat)


@pytest.mark.gnubg
def test_each_result_written_as_gnubg_writes_its_own_move(positions, gnubg):
    """For every result, gnubg's string for the steps gnubg's generator picks equals ours."""
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg_nn.moves lists gnubg's own steps per result")
    boards, rolls = positions
    for board, roll in zip(boards[:400], rolls[:400]):
        gboard = to_gnubg(board)
        ours = {}
        results, steps = legal_results(board, roll)
        for result, step in zip(results, steps):
            ours[result[::-1].tobytes()] = format_move(board, step)
        theirs = gnubg_nn.moves(gboard, int(roll[0]), int(roll[1]), 1)
        if not theirs:  # gnubg lists no move when the roll cannot be played
            assert set(ours.values()) == {""}
            continue
        assert len(theirs) == len(ours)
        for key, gsteps in theirs:
            opp, me = gnubg_nn.board_from_position_key(key)
            mine = np.array([me, opp], dtype=np.int8).tobytes()
            flat = tuple(x for pair in gsteps for x in pair)
            assert ours[mine] == gnubg.movetupletostring(flat, gboard)


@pytest.mark.gnubg
def test_parse_agrees_with_gnubg_parsemove(gnubg):
    """gnubg's parser reads our spellings as the same (from, to) moves, before applying them."""
    for text, moves in [
        ("24/18 13/11", ((24, 18), (13, 11))),
        ("bar/22*", ((25, 22),)),
        ("b/22", ((25, 22),)),
        ("6/off", ((6, 0),)),
        ("13/7(2)", ((13, 7), (13, 7))),
        ("24/20/16", ((24, 20), (20, 16))),
    ]:
        assert gnubg.parsemove(text) == moves
        hops = bgzero.engine.notation._hops(text)
        assert sorted(hops, reverse=True) == sorted(moves, reverse=True)


# --- fuzzing --------------------------------------------------------------------------------

FUZZ_BOARDS = [
    START,
    pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5}, THEIRS_22_BLOCKED),
    pos({6: 1, 5: 1, 2: 1, 1: 1}, {1: 3}),
    pos({13: 1}, {18: 2, 17: 2}),
]
NOTATION_ALPHABET = "0123456789/bBaArRoOfF*() ,-\t"


def _parse_or_refuse(board, dice, text):
    try:
        after = parse_move(board, dice, text)
    except (IllegalMoveError, InvalidDiceError):
        return
    assert after.tobytes() in {r.tobytes() for r in legal_results(board, dice)[0]}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FUZZ_BOARDS), st.tuples(st.integers(0, 7), st.integers(0, 7)), st.text(max_size=40))
def test_fuzz_arbitrary_text(board, dice, text):
    _parse_or_refuse(board, dice, text)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(FUZZ_BOARDS),
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    st.text(alphabet=NOTATION_ALPHABET, max_size=30),
)
def test_fuzz_notation_like_text(board, dice, text):
    _parse_or_refuse(board, dice, text)
