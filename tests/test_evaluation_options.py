"""One options object for every entry point: :class:`dartboard.EvaluationOptions`.

Every entry point (``evaluate`` on arrays and tables, ``evaluate_parquet``,
``evaluate_dask``, ``evaluate_spark``) takes the same options under the same names and
defaults as the object (a signature check, so they cannot drift); an options object
gives the numbers its keywords give, from every source; a bad option is refused with
the same message by every entry point before any row is read; an option given both
ways is refused by name.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import typing

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _same_rows import same_rows

import dartboard
from dartboard.evaluation._options import OPTION_NAMES, TASKS
from dartboard.exceptions import InputError, InputTypeError
from dartboard.scale import evaluate_dask, evaluate_parquet

try:
    from dartboard.evaluation._spark import evaluate_spark
except ImportError:  # pragma: no cover - the module imports pyspark lazily
    evaluate_spark = None

ENTRY_POINTS = {"evaluate": dartboard.evaluate, "evaluate_parquet": evaluate_parquet,
                "evaluate_dask": evaluate_dask}
if evaluate_spark is not None:
    ENTRY_POINTS["evaluate_spark"] = evaluate_spark


def _frame(n: int = 500, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"label": y, "score": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1),
                         "region": rng.choice(["a", "b", "c"], n),
                         "patient": rng.integers(0, 30, n)})


def _sources(df: pd.DataFrame, tmp_path) -> dict[str, object]:
    dd = pytest.importorskip("dask.dataframe")
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False),
                   os.path.join(tmp_path, "part0.parquet"))
    return {"pandas": df, "pyarrow": pa.Table.from_pandas(df, preserve_index=False),
            "parquet": str(tmp_path), "dask": dd.from_pandas(df, npartitions=2)}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_entry_point_takes_every_option_with_the_objects_default(name):
    """The options are declared once: each entry point's keywords are the object's
    fields, with its defaults (confidence_level's may be 0.95 without None), and an
    ``options`` keyword."""
    params = inspect.signature(ENTRY_POINTS[name]).parameters
    defaults = {f.name: f.default for f in dataclasses.fields(dartboard.EvaluationOptions)}
    for option in OPTION_NAMES:
        assert option in params, (name, option)
        assert params[option].kind is inspect.Parameter.KEYWORD_ONLY, (name, option)
        assert params[option].default == defaults[option], (name, option)
    assert params["options"].default is None


def test_the_literal_types_name_what_the_checks_accept():
    """The fields' ``Literal`` types and the constructor's checks agree: every value
    the type names is accepted, and a value outside it is refused naming the field."""
    from dartboard.uncertainty._interval import METHODS

    hints = typing.get_type_hints(dartboard.EvaluationOptions)

    def literals(tp):
        out = set()
        for arg in typing.get_args(tp):
            out |= literals(arg) if typing.get_args(arg) else {arg}
        return out if typing.get_origin(tp) is not None else {tp}

    assert literals(hints["task"]) == set(TASKS)
    assert literals(hints["ci"]) == set(METHODS)
    criteria = literals(hints["threshold_criterion"]) - {type(None)}
    for criterion in criteria:
        target = 0.8 if criterion.startswith(("min_", "max_")) else None
        options = dartboard.EvaluationOptions(threshold_criterion=criterion,
                                              threshold_target=target)
        assert options.threshold_criterion == criterion
    for field, bad in (("task", "binray"), ("ci", "wilsn"),
                       ("threshold_criterion", "youdn")):
        with pytest.raises(InputError, match=field):
            dartboard.EvaluationOptions(**{field: bad})


@pytest.mark.parametrize("field, bad, error", [
    ("confidence_level", 1.5, InputError),
    ("confidence_level", "high", InputTypeError),
    ("n_resamples", 0, InputError),
    ("n_resamples", 2.5, InputTypeError),
    ("random_state", "seed", InputTypeError),
    ("threshold", float("nan"), InputError),
    ("threshold_target", 0.9, InputError),  # a target without its criterion
    ("curve_bands", "yes", InputTypeError),
    ("model", "", InputTypeError),
    ("metrics", [], InputError),
])
def test_a_bad_option_is_refused_alike_by_every_entry_point_before_any_row(tmp_path, field,
                                                                         bad, error):
    """The same class and message from the object, from ``evaluate`` on arrays and on
    a table, and from every streamed entry point, whose source here does not exist
    (so the option is checked before anything is read)."""
    with pytest.raises(error) as direct:
        dartboard.EvaluationOptions(**{field: bad})
    message = str(direct.value)
    assert field in message
    missing = os.path.join(tmp_path, "nothing-here.parquet")
    calls = {
        "arrays": lambda: dartboard.evaluate([0, 1, 1, 0], [0, 1, 0, 0], **{field: bad}),
        "table": lambda: dartboard.evaluate(pd.DataFrame({"y": [0, 1], "p": [0, 1]}),
                                            y_true="y", y_pred="p", **{field: bad}),
        "parquet": lambda: evaluate_parquet(missing, y_true="y", y_score="s",
                                            **{field: bad}),
        "evaluate(parquet path)": lambda: dartboard.evaluate(missing, y_true="y",
                                                             y_score="s", **{field: bad}),
    }
    for where, call in calls.items():
        with pytest.raises(error) as found:
            call()
        assert str(found.value) == message, where


@pytest.mark.parametrize("source", ["arrays", "pandas", "pyarrow", "parquet", "dask"])
def test_an_options_object_gives_its_keywords_numbers_on_every_source(tmp_path, source):
    """Groups, clusters and a threshold criterion: ``options=`` equals the keywords."""
    df = _frame()
    keywords = dict(metrics=["accuracy", "recall", "roc_auc", "brier_score_loss"],
                    ci="auto", n_resamples=300, random_state=7,
                    threshold_criterion="min_recall", threshold_target=0.8, model="m")
    options = dartboard.EvaluationOptions(**keywords)
    if source == "arrays":
        columns = dict(y_score=df["score"].to_numpy(),
                       groups={"region": df["region"].to_numpy()},
                       clusters=df["patient"].to_numpy())
        by_keywords = dartboard.evaluate(df["label"].to_numpy(), **columns, **keywords,
                                         progress=False)
        by_object = dartboard.evaluate(df["label"].to_numpy(), **columns, options=options,
                                       progress=False)
    else:
        data = _sources(df, tmp_path)[source]
        columns = dict(y_true="label", y_score="score", groups="region", clusters="patient")
        by_keywords = dartboard.evaluate(data, **columns, **keywords, progress=False)
        by_object = dartboard.evaluate(data, **columns, options=options, progress=False)
    same_rows(by_object, by_keywords)
    assert by_object.result.operating_point is not None
    assert by_object.model == "m"


def test_the_streamed_entry_points_take_the_object_too(tmp_path):
    df = _frame()
    path = _sources(df, tmp_path)["parquet"]
    options = dartboard.EvaluationOptions(metrics=["accuracy", "roc_auc"], n_resamples=200,
                                          random_state=1, threshold=0.4)
    by_object = evaluate_parquet(path, y_true="label", y_score="score", options=options,
                                 progress=False)
    by_keywords = evaluate_parquet(path, y_true="label", y_score="score",
                                   metrics=["accuracy", "roc_auc"], n_resamples=200,
                                   random_state=1, threshold=0.4, progress=False)
    same_rows(by_object, by_keywords)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_an_option_given_both_ways_is_refused_by_name(name, tmp_path):
    options = dartboard.EvaluationOptions(n_resamples=500)
    if name == "evaluate":
        call = lambda: dartboard.evaluate([0, 1], [0, 1], options=options, n_resamples=600)  # noqa: E731
    else:
        call = lambda: ENTRY_POINTS[name](str(tmp_path), y_true="y", y_pred="p",  # noqa: E731
                                          options=options, n_resamples=600)
    with pytest.raises(InputTypeError, match="n_resamples is given twice"):
        call()
    with pytest.raises(InputTypeError, match="options must be a dartboard.EvaluationOptions"):
        dartboard.evaluate([0, 1], [0, 1], options={"n_resamples": 500})


def test_a_changed_copy_is_checked_again_and_the_object_is_frozen():
    options = dartboard.EvaluationOptions(metrics="f1")
    assert options.metrics == ("f1",)
    with pytest.raises(InputError, match="confidence_level"):
        dataclasses.replace(options, confidence_level=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.ci = "bca"  # type: ignore[misc]


def test_curve_bands_that_are_not_a_bool_are_refused_in_memory_as_when_streamed():
    """In memory ``curve_bands="no"`` was taken as True (``bool("no")``); streamed it was
    refused: now both refuse it."""
    with pytest.raises(InputTypeError, match="curve_bands must be True or False"):
        dartboard.evaluate([0, 1] * 10, y_score=np.linspace(0, 1, 20), curve_bands="no")


def test_a_pos_label_in_the_options_is_checked_against_the_labels():
    options = dartboard.EvaluationOptions(pos_label=5)
    with pytest.raises(InputError, match="pos_label"):
        dartboard.evaluate([0, 1, 1, 0], [0, 1, 0, 0], options=options)
    ev = dartboard.evaluate(["no", "yes", "yes", "no"] * 5, ["no", "yes", "no", "no"] * 5,
                            options=dartboard.EvaluationOptions(pos_label="yes",
                                                                metrics=["recall"]))
    assert float(ev.overall.loc["recall", "estimate"]) == 0.5


def test_the_command_line_reads_one_options_object(tmp_path, monkeypatch):
    """``dartboard evaluate`` hands the engine one checked options object: a bad
    ``--confidence-level`` is refused (exit 2) before the file is read."""
    from typer.testing import CliRunner

    from dartboard.cli import app

    seen = []
    real = dartboard.evaluation._evaluate.evaluate

    def spy(*args, **kwargs):
        seen.append(kwargs.get("options"))
        return real(*args, **kwargs)

    monkeypatch.setattr(dartboard.evaluation, "evaluate", spy)
    df = _frame(200)
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    runner = CliRunner()
    out = runner.invoke(app, ["evaluate", str(path), "--y-true", "label", "--y-score", "score",
                              "--n-resamples", "200", "--json"])
    assert out.exit_code == 0, out.output
    assert isinstance(seen[0], dartboard.EvaluationOptions)
    assert seen[0].n_resamples == 200 and seen[0].random_state == 0
    bad = runner.invoke(app, ["evaluate", str(tmp_path / "absent.csv"), "--y-true", "label",
                              "--y-score", "score", "--confidence-level", "1.5"])
    assert bad.exit_code == 2
    assert "confidence_level" in bad.output and "absent" not in bad.output


def test_an_evaluation_keeps_its_options_to_ask_the_same_of_other_data(tmp_path):
    """``ev.options`` is the checked object, from keywords or ``options=``, in memory and
    streamed; handed to another evaluation it gives that evaluation's keyword numbers."""
    df = _frame()
    first = dartboard.evaluate(df, y_true="label", y_score="score", n_resamples=300,
                               random_state=3, metrics=["accuracy", "roc_auc"],
                               progress=False)
    assert first.options == dartboard.EvaluationOptions(
        n_resamples=300, random_state=3, metrics=("accuracy", "roc_auc"))
    other = _frame(seed=9)
    path = _sources(other, tmp_path)["parquet"]
    again = dartboard.evaluate(path, y_true="label", y_score="score",
                               options=first.options, progress=False)
    same_rows(again, dartboard.evaluate(other, y_true="label", y_score="score",
                                        n_resamples=300, random_state=3,
                                        metrics=["accuracy", "roc_auc"], progress=False))
    assert again.options is first.options
