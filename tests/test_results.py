"""Result objects: JSON-ready ``to_dict`` and a compact ``repr``."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

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


def test_repr_is_compact_for_long_arrays():
    text = repr(make())
    assert text.startswith("Toy(estimate=0.8125, low=nan, counts=array(shape=(10000,), "
                           "[0, 1, 2, ...]), method='wilson'")
    assert "DataFrame(shape=(2, 2))" in text
    assert "hidden" not in text  # repr=False fields stay out
    assert len(text) < 300


def test_repr_shows_short_arrays_in_full():
    text = repr(make(counts=np.array([0.123456, 2.0]), table=None, extra=None))
    assert "counts=[0.1235, 2.    ]" in text
    assert "table=None" in text


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
