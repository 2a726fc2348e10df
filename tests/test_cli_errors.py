"""The command line's error mapping and its files under hostile conditions (issue 16).

- numpy's own ValueErrors (shapes that do not broadcast, empty reductions, quantiles
  out of range) are bugs: exit 1 and ``internal error: ...``, never a disguised
  ``error: ...`` bad-input line; dartboard's checks stay exit 2.
- a hand-edited results.json names the field that is wrong (exit 2), whichever field
  the report draws from.
- SIGKILL cannot be caught: the temporary file of a killed write stays, and the next
  write of the same output removes it (only files it can prove are its own and stale).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from dartboard.cli import app
from dartboard.cli._io import is_bad_input

runner = CliRunner()


def _raised(func):
    try:
        func()
    except Exception as exc:  # noqa: BLE001 - the exception is what is tested
        return exc
    raise AssertionError("no exception")



def test_bad_input_is_told_from_a_bug_by_class():
    """dartboard's input errors and OSError are bad input; every other exception, a
    ValueError or TypeError that dartboard did not raise on purpose included, is a bug."""
    from dartboard._validation import check_int, check_option
    from dartboard.exceptions import InputError

    assert is_bad_input(_raised(lambda: check_int("3", "n_resamples")))  # a check: exit 2
    assert is_bad_input(_raised(lambda: check_option("x", "ci", ("auto",))))
    assert is_bad_input(_raised(_a_check_quoting_numpy))  # its class says: deliberate
    assert is_bad_input(_raised(lambda: open("/nonexistent/dartboard/file")))  # OSError
    assert is_bad_input(InputError("y_true is empty"))
    assert not is_bad_input(_raised(lambda: float("x")))  # not dartboard's refusal
    assert not is_bad_input(_raised(lambda: json.loads("{")))
    assert not is_bad_input(_raised(lambda: np.add(np.array(["a"]), None)))  # inside numpy
    assert not is_bad_input(_raised(lambda: {}["missing"]))
    assert not is_bad_input(_raised(lambda: None.shape))  # AttributeError: always a bug
    assert not is_bad_input(ValueError("a ValueError dartboard did not mean"))
    assert not is_bad_input(TypeError("a TypeError dartboard did not mean"))


def _numpy_broadcast():
    return np.ones(2) + np.ones(3)  # an operation, raised from numpy's C code


def _numpy_quantile():
    return np.quantile(np.ones(3), [np.nan, 0.5])  # raised in numpy's Python code


def _numpy_empty_max():
    return np.max(np.array([]))


def _a_check_quoting_numpy():
    from dartboard.exceptions import InputError

    raise InputError("y_pred: operands could not be broadcast with y_true; give one "
                     "value per row")


@pytest.mark.parametrize("func", [_numpy_broadcast, _numpy_quantile, _numpy_empty_max,
                                  lambda: np.ones(2).reshape(3),
                                  lambda: np.concatenate([np.ones((2, 2)), np.ones((2, 3))]),
                                  lambda: np.ones(2).sum(axis=1)])
def test_numpy_value_errors_are_internal_errors(func):
    assert not is_bad_input(_raised(func))


@pytest.fixture
def preds(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    path = tmp_path / "preds.csv"
    path.write_text("y,s\n" + "\n".join(f"{a},{b:.3f}" for a, b in zip(y, rng.random(50))))
    return path


@pytest.mark.parametrize("bug, bad_input", [(_numpy_broadcast, False),
                                            (_numpy_quantile, False),
                                            (_a_check_quoting_numpy, True)])
def test_cli_maps_numpy_errors_to_exit_1_and_checks_to_exit_2(preds, monkeypatch, bug,
                                                              bad_input):
    import dartboard.evaluation

    monkeypatch.setattr(dartboard.evaluation, "evaluate", lambda *a, **k: bug())
    res = runner.invoke(app, ["evaluate", str(preds), "--y-true", "y", "--y-score", "s"])
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output
    if bad_input:
        assert res.exit_code == 2 and lines[0].startswith("error: y_pred: operands")
    else:
        assert res.exit_code == 1 and lines[0].startswith("internal error: ValueError: ")
        assert "--debug" in lines[0]


# ------------------------------------------------------------ hand-edited results.json

def _results():
    from dartboard.evaluation._engine import evaluate_predictions

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 60)
    s = np.clip(0.3 * y + 0.7 * rng.random(60), 0, 1)
    res = evaluate_predictions(y, y_score=s, n_resamples=50, random_state=0).to_dict()
    return {"classification": json.loads(json.dumps(res, default=float))}


@pytest.mark.parametrize("field, value", [("roc", "zz"), ("pr", 3), ("confusion", "zz"),
                                          ("calibration", [1, 2])])
def test_report_names_a_hand_edited_figure_field(tmp_path, field, value):
    # these fields failed deep in the report with "string indices must be integers"
    data = _results()
    data["classification"][field] = value
    (tmp_path / "results.json").write_text(json.dumps(data))
    out = tmp_path / "out.html"
    res = runner.invoke(app, ["report", str(tmp_path / "results.json"), "-o", str(out)])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"'classification.{field}' must be a JSON object" in lines[0]
    assert not out.exists()


# ------------------------------------------------------------------- SIGKILL

_KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    from dartboard.report import _write

    def killed(*args):  # the process dies between writing and renaming
        os.kill(os.getpid(), signal.SIGKILL)

    _write.os.replace = killed
    _write.write_texts_atomic({sys.argv[1]: "<html>half"})
""")


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL and process probes are POSIX")
def test_a_killed_write_leaves_a_temporary_the_next_run_removes(tmp_path):
    out = tmp_path / "out.html"
    proc = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    stale = [p.name for p in tmp_path.iterdir()]
    assert len(stale) == 1 and stale[0].startswith(".out.html.") and stale[0].endswith(".tmp")
    assert not out.exists()
    # not ours: another file's temporary, a name the writer never makes, and the
    # temporary of a writer that is still running
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        keep = [f".other.html.{sleeper.pid + 1}.abc.tmp", ".out.html.notes.tmp",
                f".out.html.{sleeper.pid}.live_1.tmp"]
        for name in keep:
            (tmp_path / name).write_text("x")
        (tmp_path / "results.json").write_text(json.dumps(_results()))
        res = runner.invoke(app, ["report", str(tmp_path / "results.json"), "-o", str(out)])
        assert res.exit_code == 0, res.output
    finally:
        sleeper.kill()
        sleeper.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(keep + ["out.html",
                                                                         "results.json"])
    assert out.read_text().startswith("<!")


# ------------------------------------------- well-formed files with bad contents

def _table(kind):
    rng = np.random.default_rng(0)
    n = 40
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 3)
    t = {"y": y.tolist(), "s": s.tolist(), "a": (s > 0.5).astype(int).tolist(),
         "x0": rng.random(n).round(3).tolist(), "x1": rng.random(n).round(3).tolist()}
    changes = {"one row": lambda: {k: v[:1] for k, v in t.items()},
               "one class": lambda: {**t, "y": [0] * n},
               "text scores": lambda: {**t, "s": ["x"] * n},
               "missing score": lambda: {**t, "s": [""] + t["s"][1:]},
               "infinite score": lambda: {**t, "s": ["inf"] + t["s"][1:]},
               "continuous labels": lambda: {**t, "y": [v + 0.5 for v in t["y"]]},
               "text features": lambda: {**t, "x0": ["q"] * n}}
    out = changes[kind]()
    return "\n".join([",".join(out)] + [",".join(map(str, row)) for row in zip(*out.values())])


BAD_CONTENT = {
    "evaluate": ["evaluate", "{f}", "--y-true", "y", "--y-score", "s", "--n-resamples", "30"],
    "compare": ["compare", "{f}", "--y-true", "y", "--a", "s", "--b", "x0", "--metric",
                "roc_auc", "--n-resamples", "30"],
    "audit": ["audit", "{f}", "--target", "y", "--model",
              "sklearn.tree.DecisionTreeClassifier", "--n-estimators", "3"],
}


@pytest.mark.parametrize("command, kind", [
    (c, k) for c in BAD_CONTENT for k in ("one row", "one class", "text scores",
                                          "missing score", "infinite score",
                                          "continuous labels", "text features")
    if not (c != "audit" and k == "text features")
    and not (c == "audit" and k in ("text scores", "missing score", "infinite score"))])
def test_bad_contents_exit_2_with_one_line(tmp_path, command, kind):
    # an audit of every subcommand against well-formed files with bad contents: each
    # is the user's mistake, said in one line, never an internal error or a traceback
    path = tmp_path / "in.csv"
    text = _table(kind)
    if command == "audit":  # features and target only
        rows = [line.split(",") for line in text.splitlines()]
        keep = [i for i, name in enumerate(rows[0]) if name in ("y", "x0", "x1")]
        text = "\n".join(",".join(r[i] for i in keep) for r in rows)
    path.write_text(text + "\n")
    res = runner.invoke(app, [a.replace("{f}", str(path)) for a in BAD_CONTENT[command]])
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2, res.output
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""


def test_warnings_once_each_after_success(tmp_path):
    # six rows: many bootstrap resamples miss a class, each warns; one line says so
    (tmp_path / "w.csv").write_text("y,s\n0,0.1\n0,0.4\n1,0.35\n1,0.8\n0,0.2\n1,0.7\n")
    res = runner.invoke(app, ["evaluate", str(tmp_path / "w.csv"), "--y-true", "y",
                              "--y-score", "s", "--n-resamples", "50"])
    assert res.exit_code == 0, res.output
    lines = res.stderr.strip().splitlines()
    assert lines and all(line.startswith("warning: ") for line in lines)
    assert len(lines) == len(set(lines))
