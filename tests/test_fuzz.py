"""Fuzzing every place a user's text or file comes in: the answer is a right one or a one-line
BgzeroError, never a traceback, a hang or a silently wrong value.

Targets: Position and Match IDs, move notation, the ``.mat`` and ``.sgf`` readers, FIBS board lines,
checkpoint files and config values. Each call must finish within ``_BOUND_S``. Inputs per
target: ``BGZERO_FUZZ_EXAMPLES`` (default 150; checkpoints a third of it, at least 20);
``-s`` prints the counts tried.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgzero.engine.board import START
from bgzero.engine.ids import board_from_position_id, match_id, match_info_from_id, position_id
from bgzero.engine.movegen import legal_results
from bgzero.engine.notation import parse_move
from bgzero.errors import BgzeroError
from bgzero.gnubg.fibs import format_line, parse_line, situation
from bgzero.learn.schemas import Train
from bgzero.match.mat import format_match, parse_match, player_name
from bgzero.match.runner import play_matches
from bgzero.match.sgf import format_sgf, parse_sgf
from bgzero.schema import fields
from bgzero.value.checkpoint import FORMAT, load_evaluator
from bgzero.value.net import NetConfig, ValueNet
from bgzero.value.playfile import play_state
from tests.test_fibs import BAR_AT_2_4, CUBE_AT_2_0, DOUBLED_AT_2_0, START_ON_ROLL
from tests.test_match import RandomCube
from tests.test_matfile import GOLDEN

EXAMPLES = int(os.environ.get("BGZERO_FUZZ_EXAMPLES", "150"))
_BOUND_S = 2.0
COUNTS: Counter = Counter()
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    print(f"\nfuzz inputs tried: {dict(COUNTS)}")


def fuzz(target: str, call, *args):
    """``call(*args)``: its value, or ``None`` after a one-line BgzeroError; anything else fails."""
    COUNTS[target] += 1
    started = time.perf_counter()
    try:
        return call(*args)
    except BgzeroError as e:
        assert "\n" not in str(e) and len(str(e)) < 1000, f"{target}: a long or multi-line message"
        return None
    finally:
        assert time.perf_counter() - started < _BOUND_S, f"{target}: {args!r:.200} took too long"


def _mutations(base: str, alphabet: str | None = None):
    """Texts near ``base``: a character replaced, inserted or deleted, or a slice repeated."""
    chars = st.characters(codec="utf-8") if alphabet is None else st.sampled_from(alphabet)

    @st.composite
    def mutate(draw):
        text = base
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(text)))
            op = draw(st.sampled_from(["replace", "insert", "delete", "repeat"]))
            if op == "replace" and i < len(text):
                text = text[:i] + draw(chars) + text[i + 1:]
            elif op == "insert":
                text = text[:i] + draw(st.text(chars, max_size=8)) + text[i:]
            elif op == "delete":
                text = text[:i] + text[i + draw(st.integers(1, 8)):]
            else:
                j = draw(st.integers(i, min(len(text), i + 40)))
                text = text[:j] + text[i:j] * draw(st.integers(2, 60)) + text[j:]
        return text
    return mutate()


def run(strategy, n: int = EXAMPLES):
    return lambda test: settings(max_examples=n, **_SETTINGS)(given(strategy)(test))


@run(st.one_of(st.text(st.sampled_from(B64), min_size=14, max_size=14), st.text(max_size=30),
               _mutations("4HPwATDgc/ABMA", B64)))
def test_position_ids(text):
    board = fuzz("Position ID", board_from_position_id, text)
    if board is not None:
        assert position_id(board) == text  # decoded means canonical: it encodes back to itself


@run(st.one_of(st.text(st.sampled_from(B64), min_size=12, max_size=12), st.text(max_size=30),
               _mutations("cAkAAAAAAAAA", B64)))
def test_match_ids(text):
    info = fuzz("Match ID", match_info_from_id, text)
    if info is not None:
        assert match_info_from_id(match_id(info)) == info  # the roll's order is not kept: (5, 2) is 52


_LEGAL = {(a, b): {r.tobytes() for r in legal_results(START, (a, b))[0]} for a in range(1, 7) for b in range(1, 7)}


@run(st.tuples(st.integers(1, 6), st.integers(1, 6),
               st.one_of(_mutations("24/18 13/11"), _mutations("bar/22* 6/off(2)", "0123456789/*() barofx,\t"),
                         st.text(st.sampled_from("0123456789/*() barof,\t"), max_size=60))))
def test_move_notation(case):
    a, b, text = case
    result = fuzz("move notation", parse_move, START, (a, b), text)
    if result is not None:
        assert np.asarray(result, np.int8).tobytes() in _LEGAL[(a, b)]  # a parsed move is a legal play


@run(st.one_of(_mutations(GOLDEN.replace("$", "")), st.text(max_size=200)))
def test_mat_reader(text):
    record = fuzz(".mat reader", parse_match, text)
    if record is not None:  # the writer keeps names gnubg's importer reads intact (player_name), nothing else
        assert parse_match(format_match(record)) == replace(record, names=tuple(map(player_name, record.names)))


_SGF = format_sgf(play_matches(RandomCube(1), RandomCube(2), [0], length=3, names=("al;ice", "b(ob)"))[0])


@run(st.one_of(_mutations(_SGF), _mutations(_SGF, "()[];\\WBabcdxyz0123456789+:"), st.text(max_size=200)))
def test_sgf_reader(text):
    record = fuzz(".sgf reader", parse_sgf, text)
    if record is not None:  # a read match writes and reads back the same
        assert parse_sgf(format_sgf(record)) == record


@run(st.one_of(*(_mutations(line) for line in (START_ON_ROLL, BAR_AT_2_4, CUBE_AT_2_0, DOUBLED_AT_2_0)),
               st.text(max_size=200)))
def test_fibs_lines(text):
    def read(line):
        sit = situation(parse_line(line), gnubg_scores=True)
        assert sit.board.shape == (2, 25) and sit.board.min() >= 0
        return sit
    fb = fuzz("FIBS line", read, text)
    if fb is not None:
        fuzz("FIBS line", lambda: parse_line(format_line(parse_line(text))))


_NET = ValueNet(NetConfig(hidden=[4]))
_FIELDS = {"model": _NET.state_dict(), "net_config": _NET.config_dict(), "encoder": "tesauro198", "games": 0}
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(), st.text(max_size=10),
                    st.lists(st.integers(-2, 300), max_size=3),
                    st.dictionaries(st.text(max_size=6), st.integers(-1, 300), max_size=3),
                    st.builds(lambda n, v: torch.full((n,), v), st.integers(0, 4), st.floats(width=32)))
_KEYS = st.sampled_from(["model", "net_config", "encoder", "games", "positions", "rng", "torch_rng", "race_model",
                         "race_net_config", "race_encoder", "prune_model", "exact_bearoff", "wall_seconds", "format",
                         "optimizer"])


@run(st.one_of(st.binary(max_size=400).map(lambda b: ("bytes", b)),
               st.dictionaries(_KEYS, _VALUES, max_size=3).map(lambda d: ("fields", d))),
     n=max(20, EXAMPLES // 3))
def test_checkpoints(tmp_path_factory, case):
    kind, value = case
    path = tmp_path_factory.mktemp("fuzz") / "x.pt"
    if kind == "bytes":
        path.write_bytes(value)
    else:
        torch.save({"format": FORMAT, **_FIELDS, **value}, path)  # written behind save_checkpoint's back
    evaluator = fuzz("checkpoint", load_evaluator, path)
    if evaluator is not None:
        probs = evaluator.probs(START[None])
        assert np.isfinite(probs).all()


_PLAY_ARRAYS, _PLAY_FIELDS = play_state({"format": FORMAT, **_FIELDS})
_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=False),
                               st.text(max_size=10)),
                     lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner,
                                                                                          max_size=3)), max_leaves=6)


def _play_bytes(fields: dict, arrays: dict | None = None) -> bytes:
    from safetensors.numpy import save

    return save(_PLAY_ARRAYS if arrays is None else arrays, metadata={"bgzero": json.dumps(fields)})


_GOOD_PLAY = _play_bytes(_PLAY_FIELDS)


@run(st.one_of(st.binary(max_size=400).map(lambda b: ("bytes", b)),
               st.lists(st.tuples(st.integers(0, len(_GOOD_PLAY) - 1), st.integers(0, 255)), min_size=1,
                        max_size=4).map(lambda edits: ("edits", edits)),
               st.dictionaries(_KEYS, _JSON, max_size=3).map(lambda d: ("fields", d)),
               st.dictionaries(st.sampled_from(sorted(_PLAY_ARRAYS)), st.integers(0, 3), max_size=2)
               .map(lambda d: ("arrays", d))),
     n=max(20, EXAMPLES // 3))
def test_play_files(tmp_path_factory, case):
    kind, value = case
    data = bytearray(_GOOD_PLAY)
    if kind == "bytes":
        data = value
    elif kind == "edits":
        for at, byte in value:
            data[at] = byte
    elif kind == "fields":
        data = _play_bytes({**_PLAY_FIELDS, **value})
    else:  # weights cut to another length
        data = _play_bytes(_PLAY_FIELDS, {**_PLAY_ARRAYS, **{k: _PLAY_ARRAYS[k][:n] for k, n in value.items()}})
    path = tmp_path_factory.mktemp("fuzz") / "x.safetensors"
    path.write_bytes(bytes(data))
    evaluator = fuzz("play file", load_evaluator, path)
    if evaluator is not None:
        assert np.isfinite(evaluator.probs(START[None])).all()


TRAIN_RULES = {f.key: f.rule for f in fields(Train) if f.rule is not None}


@run(st.tuples(st.sampled_from(sorted(TRAIN_RULES)),
               st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
                         st.lists(st.one_of(st.integers(), st.floats()), max_size=3))))
def test_config_values(case):
    key, value = case

    def check():
        TRAIN_RULES[key](key, value)
        return True
    ok = fuzz("config value", check)
    if ok and isinstance(value, float) and not np.isfinite(value):  # Hydra reads name=inf as a float:
        TRAIN_RULES[key](key, str(value))  # only a rule that takes text lets it through, as the word it is
