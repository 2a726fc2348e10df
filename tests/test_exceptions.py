"""dartboard.exceptions: input errors that are also the built-in class callers catch,
raised by every check; the command line tells bad input from a bug by class alone."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest
from typer.testing import CliRunner

import dartboard as db
import dartboard.metrics as dm
from dartboard.cli import app
from dartboard.exceptions import (
    DartboardError,
    FileFormatError,
    InputError,
    InputTypeError,
    InvalidParameterError,
)

SRC = pathlib.Path(db.__file__).parent
Y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
P = np.array([0, 1, 0, 0, 1, 1, 1, 1])
S = np.linspace(0.1, 0.9, 8)


def test_classes_are_the_builtins_callers_catch():
    assert issubclass(InputError, ValueError) and issubclass(InputError, DartboardError)
    assert issubclass(InputTypeError, TypeError) and issubclass(InputTypeError, DartboardError)
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    assert issubclass(FileFormatError, InputError)
    assert db.exceptions.InputError is InputError  # public, reached from the package


# (call, built-in class, message fragment): a check of each layer and face
BAD_VALUES = [
    (lambda: dm.accuracy_score(Y, P[:5]), ValueError, "inconsistent numbers of samples"),
    (lambda: dm.precision_score(Y, P, pos_label=5), ValueError, "pos_label=5 is not a valid"),
    (lambda: dm.roc_auc_score(Y, S, max_fpr=2), ValueError, "max_fpr"),
    (lambda: dm.sensitivity_at_specificity(Y, S, specificity=1.5), ValueError,
     "specificity must be at most 1"),
    (lambda: dm.log_loss(Y, np.c_[S, S]), ValueError, "rows must sum to 1"),
    (lambda: db.interval("accuracy", Y, P, method="normal"), ValueError, "method"),
    (lambda: db.interval("no_such_metric", Y, P), ValueError, "unknown metric"),
    (lambda: db.evaluate(Y, P, metrics=["log_loss"]), ValueError, "log_loss needs"),
    (lambda: db.compare_models("accuracy", Y, P, P[:5]), ValueError, "samples"),
    (lambda: db.cv_interval([0.9]), ValueError, "at least 2 folds"),
    (lambda: db.select_threshold(Y, S, criterion="best"), ValueError, "criterion"),
    (lambda: db.dart_score([0.9, 0.8], precision=-1), ValueError, "precision"),
]
BAD_TYPES = [
    (lambda: dm.accuracy_score(None, P), TypeError, "y_true"),
    (lambda: db.interval(3, Y, P), TypeError, "metric must be"),
    (lambda: db.interval("accuracy", Y, P, random_state="seed"), TypeError, "random_state"),
    (lambda: db.evaluate(Y, P, metrics=3), TypeError, "metrics must be"),
    (lambda: dm.sensitivity_at_specificity(Y, S, specificity="0.9"), TypeError,
     "specificity must be a real number"),
]


@pytest.mark.parametrize("call, builtin, match", BAD_VALUES + BAD_TYPES)
def test_checks_raise_dartboards_classes_caught_as_builtins(call, builtin, match):
    with pytest.raises(builtin, match=match) as info:
        call()
    expected = InputError if builtin is ValueError else InputTypeError
    assert isinstance(info.value, expected), type(info.value)


def test_unreadable_file_is_a_file_format_error(tmp_path):
    from dartboard.cli._io import read_table

    path = tmp_path / "t.parquet"
    path.write_bytes(b"PAR1 not really parquet")
    with pytest.raises(FileFormatError, match="cannot read Parquet file"):
        read_table(str(path))


def test_no_bare_builtin_raise_left_in_the_package():
    """Every deliberate ValueError/TypeError is one of dartboard.exceptions' classes, so
    the command line's class rule sees it; the one left is an internal contract."""
    internal = {("metrics/_operating_points.py",
                 'raise TypeError("give exactly one of specificity and sensitivity")')}
    found = set()
    for path in SRC.rglob("*.py"):
        for line in path.read_text().splitlines():
            if re.search(r"\b(raise|return) (ValueError|TypeError)\(", line):
                found.add((str(path.relative_to(SRC)), line.strip()))
    assert found == internal


# ------------------------------------------------------------------ the command line

runner = CliRunner()


@pytest.fixture
def preds(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("y,s\n" + "\n".join(f"{a},{b:.3f}" for a, b in zip(Y, S)))
    return path


def _bug(exc):
    def evaluate(*args, **kwargs):
        raise exc
    return evaluate


@pytest.mark.parametrize("exc", [ValueError("a bug that says value"),
                                 TypeError("unsupported operand type(s)"),
                                 KeyError("missing"), IndexError("index 3 is out of bounds"),
                                 ZeroDivisionError("division by zero")])
def test_an_injected_bug_is_an_internal_error(preds, monkeypatch, exc):
    import dartboard.evaluation

    monkeypatch.setattr(dartboard.evaluation, "evaluate", _bug(exc))
    res = runner.invoke(app, ["evaluate", str(preds), "--y-true", "y", "--y-score", "s"])
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 1 and len(lines) == 1, res.output
    assert lines[0].startswith(f"internal error: {type(exc).__name__}: ")
    assert "rerun with --debug for the traceback" in lines[0]
    res = runner.invoke(app, ["evaluate", str(preds), "--y-true", "y", "--y-score", "s",
                              "--debug"])
    assert res.exit_code == 1 and "Traceback (most recent call last)" in res.stderr


@pytest.mark.parametrize("exc", [InputError("y_score: bad scores"),
                                 InputTypeError("y_score: not numbers"),
                                 InvalidParameterError("ci must be one of ...")])
def test_an_input_error_is_one_line_and_exit_2(preds, monkeypatch, exc):
    import dartboard.evaluation

    monkeypatch.setattr(dartboard.evaluation, "evaluate", _bug(exc))
    res = runner.invoke(app, ["evaluate", str(preds), "--y-true", "y", "--y-score", "s"])
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and lines == [f"error: {exc}"], res.output
