"""Where dartboard writes (issue 29): report files and MLflow keys.

* Every writer (``Evaluation.to_html``, ``write_json``, ``write_report``, the pair
  writer of the demo, ``dartboard evaluate --report``, ``compare --report``,
  ``report -o``, ``demo --out``) replaces regular files only: a FIFO, a link to one
  or a directory is refused with an error naming it and left as it was (the oracle:
  ``os.stat`` before and after). Tested with a FIFO and links in tmp_path, never with
  a device node.
* MLflow keys of distinct rows are distinct (the oracle: a plain loop over the rows
  and MLflow's own name check), and a clash left is an error naming it.
"""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest
from _quiet import quiet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import dartboard as db
from dartboard.cli import app
from dartboard.report import write_json, write_report
from dartboard.report._write import write_texts_atomic

posix = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and links are POSIX")
runner = CliRunner()


@pytest.fixture(scope="module")
def ev():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 80)
    return quiet(db.evaluate, y, y_score=np.clip(0.3 * y + 0.7 * rng.random(80), 0, 1),
                 metrics=["accuracy", "roc_auc"], n_resamples=50, random_state=0)


def _special(tmp_path, kind):
    """A FIFO, a link to a FIFO or a directory named ``out.html``; and its os.stat."""
    target = tmp_path / "out.html"
    if kind == "directory":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        os.mkfifo(tmp_path / "pipe")
        os.symlink("pipe", target)
    return target, os.stat(target)


def _cli(argv):
    return runner.invoke(app, [str(a) for a in argv])


def _table(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40)
    path = tmp_path / "preds.csv"
    pd.DataFrame({"y": y, "s": rng.random(40), "a": y, "b": 1 - y, "c": y}).to_csv(path,
                                                                                   index=False)
    return path


WRITERS = {
    "Evaluation.to_html": lambda ev, path, tmp: ev.to_html(path),
    "write_json": lambda ev, path, tmp: write_json({"x": 1}, path),
    "write_report": lambda ev, path, tmp: write_report({"title": "t"}, path),
    "pair, second special": lambda ev, path, tmp: write_texts_atomic(
        {tmp / "results.json": "{}", path: "<html>"}),
    "dartboard evaluate --report": lambda ev, path, tmp: _cli(
        ["evaluate", _table(tmp), "--y-true", "y", "--y-score", "s", "--report", path]),
    "dartboard compare --report": lambda ev, path, tmp: _cli(
        ["compare", _table(tmp), "--y-true", "y", "--a", "a", "--b", "b", "--model", "c",
         "--report", path]),
    "dartboard report -o": lambda ev, path, tmp: _cli(
        ["report", _results(tmp), "-o", path]),
    "dartboard demo --out": lambda ev, path, tmp: _cli(
        ["demo", "--quick", "--out", _renamed(path, "report.html")]),
}


def _results(tmp):
    path = tmp / "in.json"
    path.write_text('{"regression": {"metrics": []}}')
    return path


def _renamed(path, name):
    """The demo writes report.html into its --out directory: the special file takes
    that name there."""
    path.rename(path.parent / name)
    return path.parent


@posix
@pytest.mark.parametrize("kind", ["fifo", "link to a fifo", "directory"])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_no_writer_replaces_a_special_file(tmp_path, ev, writer, kind):
    # issue 29.5: a rename replaced a FIFO (as root, /dev/null) by a regular file
    target, before = _special(tmp_path, kind)
    listing = sorted(p.name for p in tmp_path.iterdir())
    if writer.startswith("dartboard"):
        res = WRITERS[writer](ev, target, tmp_path)
        lines = res.stderr.strip().splitlines()
        assert res.exit_code == 2 and len(lines) == 1, res.output
        assert "cannot write" in lines[0] and ("FIFO" in lines[0] or "directory" in lines[0])
        if writer.endswith("--out"):
            target = tmp_path / "report.html"
    else:
        with pytest.raises(ValueError, match=r"cannot write .*out\.html: it is a "
                                             r"(FIFO|directory)"):
            WRITERS[writer](ev, target, tmp_path)
    after = os.stat(target)
    assert (after.st_dev, after.st_ino, stat.S_IFMT(after.st_mode)) == \
        (before.st_dev, before.st_ino, stat.S_IFMT(before.st_mode))
    if kind == "link to a fifo":
        assert os.path.islink(target)
    left = sorted(p.name for p in tmp_path.iterdir() if p.name not in ("preds.csv", "in.json"))
    assert left == sorted(n if n != "out.html" or not writer.endswith("--out")
                          else "report.html" for n in listing)


@posix
def test_a_link_to_a_regular_file_is_followed_and_stays_a_link(tmp_path, ev):
    real = tmp_path / "reports" / "latest.html"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "report.html"
    os.symlink(real, link)
    ev.to_html(link)
    assert os.path.islink(link) and os.readlink(link) == str(real)
    assert real.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in real.parent.iterdir()) == ["latest.html"]  # no temporary


@posix
def test_a_dangling_link_writes_the_file_it_names(tmp_path):
    link = tmp_path / "results.json"
    os.symlink("saved.json", link)
    write_json({"x": 1.5}, link)
    assert os.path.islink(link) and (tmp_path / "saved.json").read_text() == '{"x":1.5}\n'


@posix
def test_a_link_that_loops_is_refused(tmp_path):
    os.symlink("b.json", tmp_path / "a.json")
    os.symlink("a.json", tmp_path / "b.json")
    with pytest.raises(ValueError, match="cannot write .*a.json: Too many levels"):
        write_json({}, tmp_path / "a.json")


# ------------------------------------------------------------------ MLflow keys


def _grouped(labels, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.asarray(labels, dtype=object), 4)
    y = np.tile([0, 1, 1, 0], len(labels))
    pred = np.where(rng.random(y.size) < 0.7, y, 1 - y)
    return quiet(db.evaluate, y, pred, groups=groups, metrics=["accuracy", "recall"],
                 n_resamples=20, random_state=seed)


def _expected(evaluation):
    """The plain loop: every finite estimate and bound of every row, by row."""
    out = []
    for row in (*evaluation.result.metrics, *evaluation.result.groups):
        for value in (row.estimate, row.low, row.high):
            if value is not None and np.isfinite(value):
                out.append(value)
    return out


_LABEL = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labels=st.lists(_LABEL, min_size=2, max_size=5, unique=True))
def test_mlflow_keys_of_distinct_groups_are_distinct_and_valid(labels):
    # issue 29.4: "a?b" and "a_b" became one key, one group's numbers overwriting
    from dartboard.evaluation._mlflow import metric_values

    validation = pytest.importorskip("mlflow.utils.validation")
    evaluation = _grouped(labels)
    values = metric_values(evaluation)
    assert sorted(values.values()) == sorted(_expected(evaluation))
    for key in values:
        validation._validate_metric_name(key)  # raises on a name MLflow refuses


def test_mlflow_keys_keep_readable_labels_and_encode_the_rest():
    from dartboard.evaluation._mlflow import metric_values

    evaluation = _grouped(["a?b", "a_b", "x/y", "..", "", "Ünïcode", "F, 30-40"])
    keys = {k.split("/")[1] for k in metric_values(evaluation) if k.startswith("by_group/")}
    assert len(keys) == 7 and {"a_b", "Ünïcode"} < keys
    assert all(k in ("a_b", "Ünïcode") or k[-9] == "-" for k in keys)


def test_two_groups_printed_alike_are_an_error_naming_the_label():
    from dartboard.evaluation._mlflow import metric_values

    groups = {"c1": np.array(["a, b", "a"] * 4), "c2": np.array(["c", "b, c"] * 4)}
    evaluation = quiet(db.evaluate, np.tile([0, 1, 1, 0], 2), np.tile([0, 1, 0, 0], 2),
                       groups=groups, metrics=["accuracy"], n_resamples=20)
    with pytest.raises(ValueError, match=r"keys clash: two groups print as 'a, b, c' .*"
                                         r"group columns c1, c2"):
        metric_values(evaluation)


@pytest.mark.parametrize("prefix", ["a//b", "/a", "a/", "a?", "..", 3])
def test_a_prefix_mlflow_cannot_take_is_refused(prefix):
    from dartboard.evaluation._mlflow import metric_values

    with pytest.raises((ValueError, TypeError), match="prefix must"):
        metric_values(_grouped(["a", "b"]), prefix)


def test_groups_that_once_shared_a_key_all_reach_mlflow(tmp_path, monkeypatch):
    # issue 29.4 end to end: with one key, "a_b"'s numbers overwrote "a?b"'s in the run
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # a fast store for this test
    before = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    try:
        mlflow.set_experiment("keys")
        groups = np.array(["a?b"] * 6 + ["a_b"] * 6 + ["a b"] * 6, dtype=object)
        y = np.tile([0, 1, 1, 0, 1, 0], 3)
        pred = np.concatenate([y[:6], 1 - y[6:12], y[12:]])  # a?b: 1.0, a_b: 0.0
        evaluation = quiet(db.evaluate, y, pred, groups=groups, metrics=["accuracy"],
                           n_resamples=20, random_state=0)
        run_id = evaluation.log_mlflow(report=False)
        logged = mlflow.tracking.MlflowClient().get_run(run_id).data.metrics
    finally:
        mlflow.set_tracking_uri(before)
    by_group = sorted(v for k, v in logged.items() if k.startswith("by_group/")
                      and k.endswith("/accuracy"))
    assert by_group == sorted(r.estimate for r in evaluation.result.groups) == [0.0, 1.0, 1.0]
    assert len(logged) == len(_expected(evaluation))
