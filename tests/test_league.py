"""League: rating fit and a tiny league over a tiny run's checkpoints."""

import json

import numpy as np
import pytest

from bgzero.arena.league import fit_ratings, run_league, select_checkpoints, write_table
from bgzero.learn.train import train


def test_ratings_recover_consistent_differences():
    r = np.array([0.0, 0.4, 0.9, -0.3])
    ppg = r[:, None] - r[None, :]
    np.testing.assert_allclose(fit_ratings(ppg), r, atol=1e-9)


def test_ratings_with_unplayed_pairs():
    ppg = np.full((3, 3), np.nan)
    ppg[1, 0], ppg[0, 1] = 0.5, -0.5
    ppg[2, 1], ppg[1, 2] = 0.25, -0.25
    np.testing.assert_allclose(fit_ratings(ppg), [0, 0.5, 0.75], atol=1e-9)


def test_league_over_a_tiny_run(tiny_cfg, tmp_path, capsys):
    train(tiny_cfg)
    run = tmp_path / "run"
    every = select_checkpoints(run, 100)
    assert select_checkpoints(run, 1) == every[-1:] and select_checkpoints(run, 2) == [every[0], every[-1]]
    capsys.readouterr()
    table = run_league(run, limit=2, games_vs_pubeval=10, games_per_pair=10, progress=True)
    err = capsys.readouterr().err
    assert "league" in err and "3/3" in err  # the bar bgzero-league shows on a terminal
    assert table.names[0] == "pubeval" and len(table.names) == 3
    assert np.allclose(table.ppg, -table.ppg.T, equal_nan=True)
    png = write_table(table, tmp_path / "league")
    assert png.stat().st_size > 1000
    assert len(json.loads((tmp_path / "league" / "league.json").read_text())["ratings"]) == 3


def test_a_run_without_checkpoints_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoints"):
        select_checkpoints(tmp_path, 3)
