"""``bgzero-eval report=FILE``: each match appends its row to a strength report (bgzero.arena.reports), the JSON
the model cards' tables come from; written atomically, and never over an input or another output."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bgzero.arena import reports
from bgzero.cli import eval as eval_cli
from bgzero.errors import ConfigError, OutputError
from tests.conftest import compose_config

ROOT = Path(__file__).resolve().parents[1]


def _eval(tmp_path, *overrides):
    return eval_cli.run(compose_config("eval", "a=pubeval", "b=random:1", "games=4", "processes=1", "progress=false",
                             f"out={tmp_path / 'e'}", *overrides))


def test_rows_are_appended_in_the_shipped_reports_format(tmp_path, capsys):
    report = tmp_path / "r.json"
    _eval(tmp_path, f"report={report}", "seed=2026")
    _eval(tmp_path, f"report={report}", "seed=2027")
    rows = json.loads(report.read_text())
    assert [(r["agent"], r["opponent"], r["seed"], r["games"]) for r in rows] == [
        ("pubeval", "random:1", 2026, 4), ("pubeval", "random:1", 2027, 4)]
    shipped = json.loads((ROOT / "checkpoints" / "reference.report.json").read_text())
    assert all(list(r) == list(shipped[0]) for r in rows)  # the same fields, in the same order
    out = capsys.readouterr().out
    assert out.count(reports.HEADER) == 2 and f"| pubeval | random:1 | 4 | {rows[1]['ppg']:+.3f} ± " in out
    assert f"report: {report}" in out


def test_the_shipped_reports_read_back_as_table_lines():
    for path in sorted((ROOT / "checkpoints").glob("*.report.json")):
        rows = reports.read(path)
        assert rows and all(reports.line(row).startswith("| ") for row in rows)
    row = reports.read(ROOT / "checkpoints" / "reference.report.json")[0]
    assert reports.line(row).startswith("| reference.pt 0-ply | pubeval | 20000 | +0.530 ± 0.018 | 67.6 | 23.0 / 7.3 |")


def test_the_report_is_written_atomically(tmp_path, monkeypatch):
    """A failure while writing leaves the report as it was, and no temporary file beside it."""
    report = tmp_path / "r.json"
    _eval(tmp_path, f"report={report}")
    before = report.read_text()

    def refuse(src, dst):
        if Path(dst) == report:
            raise OSError(28, "No space left on device")
        return os.rename(src, dst)

    monkeypatch.setattr("bgzero.atomic.os.replace", refuse)
    with pytest.raises(OutputError, match="No space left on device"):
        _eval(tmp_path, f"report={report}", "seed=1")
    assert report.read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == ["e", "r.json"]


def test_a_file_that_is_not_a_report_is_refused_before_the_games(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"agent": "x"}')
    with pytest.raises(ConfigError, match="is not a report"):
        _eval(tmp_path, f"report={bad}")
    assert bad.read_text() == '{"agent": "x"}' and not (tmp_path / "e").exists()


def test_a_report_that_is_an_input_or_the_result_is_refused(tmp_path):
    checkpoint = ROOT / "checkpoints" / "reference.safetensors"
    with pytest.raises(ConfigError, match=r"report=.* is also the input a=.*writing it would destroy that file"):
        eval_cli.run(compose_config("eval", f"a=checkpoint:{checkpoint}@0", "b=pubeval", "games=4", f"out={tmp_path / 'e'}",
                          f"report={checkpoint}"))
    with pytest.raises(ConfigError, match=r"report=.* is also the output out="):
        _eval(tmp_path, f"report={tmp_path / 'e' / 'result.json'}")
    with pytest.raises(ConfigError, match="report=.* is a directory"):
        _eval(tmp_path, f"report={tmp_path}")
    assert not (tmp_path / "e").exists()


def test_the_command_refuses_it_before_hydra_makes_the_output_folder(tmp_path):
    """The preflight: Hydra would make ``out`` and its ``.hydra/`` before the command ran."""
    checkpoint = ROOT / "checkpoints" / "reference.safetensors"
    done = subprocess.run([sys.executable, "-m", "bgzero.cli.eval", f"a=checkpoint:{checkpoint}@0", "b=pubeval",
                           "games=4", f"out={tmp_path / 'e'}", f"report={checkpoint}"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1 and "is also the input a=" in done.stderr
    assert not (tmp_path / "e").exists()
