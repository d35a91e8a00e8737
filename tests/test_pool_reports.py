"""Pooling match results run in chunks on different seeds: bgzero.arena.duplicate.pooled, bgzero.arena.reports'
pooled table, and scripts/pool_reports.py, which prints it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bgzero.arena import reports
from bgzero.arena.duplicate import pooled, summarise_pairs
from bgzero.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def random_pairs(rng, n):
    """(n, 2) signed points with a realistic spread: mostly ±1, some gammons and backgammons."""
    return rng.choice([-3, -2, -1, 1, 2, 3], p=[0.01, 0.12, 0.37, 0.36, 0.13, 0.01], size=(n, 2))


def test_pooling_chunks_matches_the_whole_match():
    points = random_pairs(np.random.default_rng(0), 20_000)
    whole = summarise_pairs(points, 10.0)
    chunks = [summarise_pairs(points[lo:lo + 2_500], 1.25) for lo in range(0, 20_000, 2_500)]
    p = pooled(chunks)
    assert p.games == whole.games == 40_000
    for field in ("ppg", "win_rate", "a_gammon_rate", "a_backgammon_rate", "b_gammon_rate", "b_backgammon_rate"):
        assert getattr(p, field) == pytest.approx(getattr(whole, field), abs=1e-12)
    assert p.ci95 == pytest.approx(whole.ci95, rel=0.02)
    assert p.seconds == pytest.approx(10.0)


def test_pooling_weights_by_games_and_needs_results():
    rng = np.random.default_rng(1)
    small, big = summarise_pairs(random_pairs(rng, 100), 1.0), summarise_pairs(random_pairs(rng, 900), 1.0)
    assert pooled([small, big]).ppg == pytest.approx((200 * small.ppg + 1800 * big.ppg) / 2000)
    assert pooled([small]).as_dict() == pytest.approx(small.as_dict())
    with pytest.raises(ValueError, match="nothing to pool"):
        pooled([])


def write_report(path, rows):
    path.write_text(json.dumps(rows))
    return str(path)


def report_row(agent, seed, ppg, games=500):
    r = summarise_pairs(np.full((games // 2, 2), 1), 1.0).as_dict()
    return {"agent": agent, "opponent": "gnubg", "seed": seed, **r, "ppg": ppg}


def test_pooled_per_agent_and_opponent(tmp_path):
    a = write_report(tmp_path / "a.json", [report_row("x@2", 1, 0.1), report_row("y@0", 1, -0.5)])
    b = write_report(tmp_path / "b.json", [report_row("x@2", 2, -0.3, games=1500)])
    lines = reports.pooled_table([a, b]).splitlines()
    assert "| x@2 | gnubg | 2,000 | -0.200 ± 0.000 |" in lines[2]
    assert "| 1 … 2 (2) |" in lines[2]
    assert "| y@0 | gnubg | 500 | -0.500 ± 0.000 |" in lines[3]


def test_a_repeated_seed_and_bad_files_are_refused(tmp_path):
    a = write_report(tmp_path / "a.json", [report_row("x@2", 7, 0.1)])
    b = write_report(tmp_path / "b.json", [report_row("x@2", 7, 0.2)])
    with pytest.raises(ConfigError, match="seed 7 appears twice"):
        reports.pooled_table([a, b])
    row = report_row("x@2", 7, 0.1)
    del row["seed"]
    with pytest.raises(ConfigError, match=r"row 0 of .*c.json lacks seed"):
        reports.pooled_table([write_report(tmp_path / "c.json", [row])])
    (tmp_path / "d.json").write_text("{truncated")
    with pytest.raises(ConfigError, match=r"cannot read report .*d.json"):
        reports.pooled_table([str(tmp_path / "d.json")])


def test_the_script_prints_the_table_and_refuses_in_one_line(tmp_path):
    a = write_report(tmp_path / "a.json", [report_row("x@2", 1, 0.1)])
    b = write_report(tmp_path / "b.json", [report_row("x@2", 1, 0.2)])

    def script(*paths):
        return subprocess.run([sys.executable, str(ROOT / "scripts" / "pool_reports.py"), *paths], capture_output=True,
                              text=True, cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})

    done = script(a)
    assert done.returncode == 0 and done.stdout.splitlines()[2].startswith("| x@2 | gnubg | 500 | +0.100 ± 0.000 |")
    done = script(a, b)
    assert done.returncode == 1 and done.stderr.strip() == ("error: x@2 vs gnubg: seed 1 appears twice; "
                                                            "the same dice would be counted twice")
