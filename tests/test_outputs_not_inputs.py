"""An output file is never one of the inputs: the command line refuses ``--report``
(and ``-o``) that is, or leads to, the file it reads (the same path, another path to
it, a symbolic link, a hard link) with exit code 2 and one line, before any work, and
the input's bytes are unchanged; the writers that know their inputs refuse too."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from dartboard import evaluate
from dartboard.cli import app
from dartboard.report import check_target, write_json, write_report
from dartboard.scale import evaluate_parquet

runner = CliRunner()


def _preds() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 80)
    score = np.clip(0.4 * y + 0.6 * rng.random(80), 0, 1)
    return pd.DataFrame({"y": y, "score": score, "pred": (score >= 0.5).astype(int),
                         "b": rng.integers(0, 2, 80), "c": rng.integers(0, 2, 80)})


def _aliases(path, kind):
    """A second name of ``path``: itself, by a path through '.', a symbolic link, a
    hard link."""
    if kind == "same":
        return path
    if kind == "dotted":
        return path.parent / "." / path.name
    alias = path.parent / f"alias_{kind}{path.suffix}"
    (os.symlink if kind == "symlink" else os.link)(path, alias)
    return alias


ALIASES = ["same", "dotted", "symlink", "hardlink"]


def _refused(result, shown):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: -") and "it is the input file" in lines[0]
    assert "Traceback" not in result.output
    assert shown in lines[0]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("kind", ALIASES)
def test_evaluate_refuses_a_report_over_its_input(tmp_path, kind, suffix):
    data = tmp_path / f"data{suffix}"
    frame = _preds()
    frame.to_csv(data, index=False) if suffix == ".csv" else frame.to_parquet(data)
    before = data.read_bytes()
    target = _aliases(data, kind)
    result = runner.invoke(app, ["evaluate", str(data), "--y-true", "y", "--y-score", "score",
                                 "--report", str(target)])
    _refused(result, "--report")
    assert data.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {data.name, target.name})  # no temporary left either


@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink"])
def test_streamed_evaluate_refuses_a_report_over_one_of_its_files(tmp_path, kind):
    parts = tmp_path / "parts"
    parts.mkdir()
    frame = _preds()
    frame.iloc[:40].to_parquet(parts / "a.parquet")
    frame.iloc[40:].to_parquet(parts / "b.parquet")
    before = (parts / "b.parquet").read_bytes()
    target = _aliases(parts / "b.parquet", kind)
    if kind != "same":  # the link lies outside the directory, not among the files read
        target = target.rename(tmp_path / target.name)
    result = runner.invoke(app, ["evaluate", str(parts), "--y-true", "y", "--y-pred", "pred",
                                 "--report", str(target)])
    _refused(result, "b.parquet")
    assert (parts / "b.parquet").read_bytes() == before


@pytest.mark.parametrize("kind", ALIASES)
def test_compare_refuses_a_report_over_its_input(tmp_path, kind):
    data = tmp_path / "data.csv"
    _preds().to_csv(data, index=False)
    before = data.read_bytes()
    target = _aliases(data, kind)
    result = runner.invoke(app, ["compare", str(data), "--y-true", "y", "--a", "pred",
                                 "--b", "b", "--model", "c", "--n-resamples", "99",
                                 "--report", str(target)])
    _refused(result, "--report")
    assert data.read_bytes() == before


@pytest.mark.parametrize("kind", ALIASES)
def test_report_refuses_to_write_over_its_results(tmp_path, kind):
    results = tmp_path / "results.json"
    write_json({"title": "t", "classification": {"metrics": []}}, results)
    before = results.read_bytes()
    target = _aliases(results, kind)
    result = runner.invoke(app, ["report", str(results), "-o", str(target)])
    _refused(result, "-o")
    assert results.read_bytes() == before


def test_a_report_beside_the_input_is_written(tmp_path):
    data = tmp_path / "data.csv"
    _preds().to_csv(data, index=False)
    result = runner.invoke(app, ["evaluate", str(data), "--y-true", "y", "--y-score", "score",
                                 "--report", str(tmp_path / "report.html"), "--json"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("kind", ALIASES)
def test_writers_refuse_their_inputs(tmp_path, kind):
    data = tmp_path / "data.csv"
    data.write_text("y,p\n1,1\n0,0\n")
    before = data.read_bytes()
    target = _aliases(data, kind)
    with pytest.raises(ValueError, match="it is the input file"):
        check_target(target, inputs=[data])
    with pytest.raises(ValueError, match="it is the input file"):
        write_report({"title": "t"}, target, inputs=[str(data)])
    with pytest.raises(ValueError, match="it is the input file"):
        write_json({"a": 1}, target, inputs=[data])
    frame = _preds()
    ev = evaluate(frame["y"], frame["pred"], random_state=0)
    with pytest.raises(ValueError, match="it is the input file"):
        ev.to_html(target, inputs=[data])
    assert data.read_bytes() == before
    # an input that does not exist, or another file, is no obstacle
    assert check_target(target, inputs=[tmp_path / "gone.csv"]) is not None


def test_a_streamed_evaluation_never_writes_its_report_over_a_file_it_read(tmp_path):
    frame = _preds()
    frame.iloc[:40].to_parquet(tmp_path / "a.parquet")
    frame.iloc[40:].to_parquet(tmp_path / "b.parquet")
    before = (tmp_path / "a.parquet").read_bytes()
    ev = evaluate_parquet(str(tmp_path), y_true="y", y_pred="pred", random_state=0)
    link = tmp_path.parent / f"{tmp_path.name}_link.parquet"
    os.symlink(tmp_path / "a.parquet", link)
    for target in (tmp_path / "a.parquet", link):
        with pytest.raises(ValueError, match="it is the input file .*a.parquet"):
            ev.to_html(target)
    assert (tmp_path / "a.parquet").read_bytes() == before
    assert ev.to_html(tmp_path / "report.html").exists()
