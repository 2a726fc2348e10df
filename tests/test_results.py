"""Result objects: JSON-ready ``to_dict``, a short ``repr`` and a notebook view."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import dartboard
from dartboard._results import Result, to_jsonable


@dataclasses.dataclass(frozen=True, repr=False)
class Toy(Result):
    estimate: float
    low: float
    counts: np.ndarray
    method: str
    table: pd.DataFrame | None = None
    extra: dict | None = None
    hidden: int = dataclasses.field(default=0, repr=False)


def make(**over):
    fields = dict(estimate=np.float64(0.8125), low=float("nan"),
                  counts=np.arange(10_000, dtype=np.int64), method="wilson",
                  table=pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]}),
                  extra={"inf": np.inf, 3: np.int32(7), "nested": (np.float32(0.5), None),
                         "flag": np.bool_(True)})
    fields.update(over)
    return Toy(**fields)


def test_to_dict_is_json_serialisable():
    d = make().to_dict()
    text = json.dumps(d, allow_nan=False)  # raises if a NaN or inf slipped through
    back = json.loads(text)
    assert back["estimate"] == 0.8125
    assert back["low"] is None  # NaN -> None
    assert back["counts"][:3] == [0, 1, 2] and len(back["counts"]) == 10_000
    assert back["method"] == "wilson"
    assert back["table"] == [{"a": 1.0, "b": "x"}, {"a": None, "b": "y"}]
    assert back["extra"] == {"inf": None, "3": 7, "nested": [0.5, None], "flag": True}
    assert back["hidden"] == 0


def test_to_dict_types_are_plain_python():
    d = make().to_dict()
    assert type(d["estimate"]) is float
    assert type(d["counts"][0]) is int
    assert type(d["extra"]["3"]) is int
    assert type(d["extra"]["flag"]) is bool


def test_nested_results_and_2d_arrays():
    inner = make(counts=np.array([[1.5, np.nan], [np.inf, 2.0]]))
    d = to_jsonable({"inner": inner, "series": pd.Series([1.0, np.nan], index=["p", "q"])})
    assert d["inner"]["counts"] == [[1.5, None], [None, 2.0]]
    assert d["series"] == {"p": 1.0, "q": None}
    json.dumps(d, allow_nan=False)


def test_repr_leaves_long_arrays_out():
    text = repr(make())
    assert text.startswith("Toy(estimate=0.8125, low=nan, method='wilson', "
                           "table=DataFrame(shape=(2, 2)), extra=<dict of 4>")
    assert "counts" not in text and "10000" not in text
    assert "hidden" not in text  # repr=False fields stay out
    assert len(text) < 100


def test_repr_shows_short_arrays_in_full_and_leaves_none_out():
    text = repr(make(counts=np.array([0.123456, 2.0]), table=None, extra=None))
    assert text == "Toy(estimate=0.8125, low=nan, counts=[0.1235, 2.    ], method='wilson')"


def test_html_view_names_the_arrays_it_leaves_out():
    html = make()._repr_html_()
    assert "<caption>Toy</caption>" in html
    assert "<th>estimate</th><td>0.8125</td>" in html and "<td>n/a</td>" in html
    assert "counts (10000,)" in html
    assert "<th>extra: inf</th><td>inf</td>" in html
    assert "<table" in html and "<script" not in html


def test_results_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        make().estimate = 1.0


def test_other_python_and_pandas_values_become_json():
    import datetime
    import pathlib

    value = {"path": pathlib.Path("/tmp/report.html"), "when": datetime.date(2020, 1, 2),
             "stamp": pd.Timestamp("2020-01-01 12:00"), "na": pd.NA, "nat": pd.NaT,
             "set": {3, 1, 2}, "index": pd.Index(["a", "b"]), "metric": len,
             "cplx": complex(1, 2)}
    d = to_jsonable(value)
    json.dumps(d, allow_nan=False)
    assert d == {"path": "/tmp/report.html", "when": "2020-01-02",
                 "stamp": "2020-01-01T12:00:00", "na": None, "nat": None, "set": [1, 2, 3],
                 "index": ["a", "b"], "metric": "len", "cplx": "(1+2j)"}


# ------------------------------------------------------------------ the real results

def _every_result():
    """One of each public result type, on small data (name -> result)."""
    import warnings

    import dartboard
    from dartboard.metrics import brier_decomposition, error_distribution, f1_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    score = rng.random(200) * 0.5 + 0.3 * y
    pred, other = (score > 0.5).astype(int), rng.integers(0, 2, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "Interval": dartboard.interval(f1_score, y, pred, n_resamples=2000,
                                           random_state=0),
            "Comparison": dartboard.compare_models(f1_score, y, pred, other,
                                                   n_resamples=2000, random_state=0),
            "TestResult": dartboard.permutation_test(rng.random(12), rng.random(12),
                                                     random_state=0),
            "DeLong": dartboard.delong_test(y, score, rng.random(200)),
            "OperatingPoint": dartboard.select_threshold(y, score, criterion="youden",
                                                         n_resamples=200, random_state=0),
            "CurveBand": dartboard.roc_band(y, score, n_resamples=200, random_state=0),
            "RankResult": dartboard.rank_models(rng.random((10, 4))),
            "StabilityResult": dartboard.stability_metrics(rng.random((5, 300)),
                                                           rng.integers(0, 2, 300)),
            "ErrorDistribution": error_distribution(rng.random(500), rng.random(500)),
            "BrierDecomposition": brier_decomposition(y, rng.random(200)),
            "cv_interval": dartboard.cv_interval([0.81, 0.84, 0.80, 0.86]),
        }


RESULTS = _every_result()


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_result_has_a_short_repr_and_a_notebook_view(name):
    result = RESULTS[name]
    text = repr(result)
    # no bootstrap or null distribution, no curve grid (700 characters before): the
    # longest is the operating point's seven quantities, each with its interval
    assert len(text) <= 300, text
    assert "array(" not in text and "..." not in text
    html = result._repr_html_()
    assert f"<caption>{type(result).__name__}</caption>" in html and "<script" not in html


def test_short_reprs_say_estimate_interval_pvalue_and_method():
    iv, cmp = RESULTS["Interval"], RESULTS["Comparison"]
    assert repr(iv) == (f"Interval(estimate={iv.estimate:.4g}, low={iv.low:.4g}, "
                        f"high={iv.high:.4g}, confidence_level=0.95, method='bca', "
                        "metric='f1_score')")
    assert f"interval=[{cmp.interval.low:.4g}, {cmp.interval.high:.4g}]" in repr(cmp)
    assert f"pvalue={cmp.pvalue:.4g}" in repr(cmp) and "method=" in repr(cmp)
    point = RESULTS["OperatingPoint"]
    tpr = point.intervals["tpr"]
    assert f"tpr: {tpr.estimate:.4g} [{tpr.low:.4g}, {tpr.high:.4g}]" in repr(point)
    assert repr(RESULTS["ErrorDistribution"]) == "ErrorDistribution(n=500)"


def test_html_views_show_the_numbers_and_name_the_arrays():
    html = RESULTS["Comparison"]._repr_html_()
    assert "bootstrap_distribution" not in html  # the nested interval's: shown as a row
    assert "null_distribution (2000,)" in html
    assert "<th>interval</th>" in html and "paired bootstrap percentile" in html
    band = RESULTS["CurveBand"]._repr_html_()
    assert "grid (101,)" in band and "<th>kind</th><td>pointwise</td>" in band
    assert "<th>grid</th>" not in band and len(band) < 2500  # named, not printed


def test_a_series_field_is_shown_on_one_line():
    # KModelComparison.estimates is a Series: its repr once spread over several lines
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    preds = [np.where(rng.random(200) < q, y, 1 - y) for q in (0.7, 0.8, 0.9)]
    text = repr(dartboard.compare_k_models("accuracy", y, preds, n_resamples=100,
                                           random_state=0))
    assert "\n" not in text
    assert "estimates={model 0: " in text


def test_an_operating_points_table_holds_numbers():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    frame = dartboard.select_threshold(y, rng.random(200) + 0.5 * y, n_resamples=100,
                                       random_state=0).to_frame()
    assert all(frame[c].dtype == np.float64 for c in ("estimate", "low", "high"))
    assert frame.round(2)["estimate"].to_numpy().dtype == np.float64
