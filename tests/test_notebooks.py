"""The notebooks run top to bottom on a tiny run's logs, so they cannot rot."""

from pathlib import Path

import pytest

from bgzero.learn.train import train
from bgzero.ui.draw import EXAMPLE, save_board
from tests.conftest import compose_train

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("notebooks") / "run"
    train(compose_train("experiment=tiny", f"train.out_dir={run}"))
    return run


def test_the_readme_board_picture_draws(tmp_path):
    png = save_board(tmp_path / "board.png", **EXAMPLE)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000


def test_the_three_notebooks_are_there():
    assert {p.stem for p in NOTEBOOKS} == {"training_curves", "position_explorer", "league"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path, tiny_run, tmp_path, monkeypatch):
    monkeypatch.setenv("BGZERO_RUN", str(tiny_run))
    monkeypatch.setenv("BGZERO_LEAGUE_GAMES", "10")
    monkeypatch.setenv("BGZERO_LEAGUE_LIMIT", "2")
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the pictures were drawn


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_named_run_that_is_missing_stops_the_notebook(path, tmp_path, monkeypatch):
    monkeypatch.setenv("BGZERO_RUN", str(tmp_path / "reference"))
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if c.cell_type == "code"][:1]  # the cell that finds the run
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="no run at"):
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert not (tmp_path / "reference").exists()  # and nothing was trained in its place
