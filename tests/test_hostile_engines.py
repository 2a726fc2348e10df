"""Read-only and Fortran-ordered input to the engines that fit models and read files
(issue 16): stability_audit, profile_pipeline, dart_refit, dart_sweep,
evaluate_parquet on a file made read-only with chmod, and evaluate_dask over a dask
DataFrame built from read-only numpy arrays. Each must leave its inputs exactly as
they were and give the answer it gives on plain, writable, C-ordered arrays.
"""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest
from _layouts import LAYOUTS as ALL_LAYOUTS
from _layouts import assert_untouched, held
from _quiet import quiet
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

import dartboard as db

RNG = np.random.default_rng(16)
N = 80
X = RNG.normal(size=(N, 3))
Y = (X[:, 0] + 0.5 * RNG.normal(size=N) > 0).astype(np.int64)
GROUPS = np.where(RNG.random(N) < 0.5, "a", "b")


# the engines' tests take the layouts that keep a whole array (not a strided view)
LAYOUTS = {k: v for k, v in ALL_LAYOUTS.items() if k != "strided"}




@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_stability_audit_leaves_inputs_and_gives_the_plain_answer(layout):
    (xtr, ytr, xte, yte, g), copies = held(layout, X[:50], Y[:50], X[50:], Y[50:],
                                            GROUPS[50:])
    kw = {"n_estimators": 4, "random_state": 0}
    got = quiet(db.stability_audit, LogisticRegression(), xtr, ytr, xte, yte, groups=g, **kw)
    expected = quiet(db.stability_audit, LogisticRegression(), X[:50], Y[:50], X[50:],
                     Y[50:], groups=GROUPS[50:], **kw)
    assert_untouched((xtr, ytr, xte, yte, g), copies)
    # scikit-learn's own arithmetic on a Fortran matrix may differ in the last bit
    np.testing.assert_allclose(got.probas, expected.probas, rtol=1e-12, atol=1e-15)
    assert got.summary == pytest.approx(expected.summary, rel=1e-9, nan_ok=True)
    pd.testing.assert_frame_equal(got.by_group, expected.by_group, rtol=1e-9)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_profile_pipeline_leaves_inputs_as_they_were(layout):
    (xtr, ytr, xte), copies = held(layout, X[:50], Y[:50], X[50:])
    prof = db.profile_pipeline(DecisionTreeClassifier(random_state=0), xtr, ytr, xte,
                               repeats=1, memory=False)
    plain = db.profile_pipeline(DecisionTreeClassifier(random_state=0), X[:50], Y[:50],
                                X[50:], repeats=1, memory=False)
    assert_untouched((xtr, ytr, xte), copies)
    assert (prof.n_train, prof.n_test, prof.model_size) == (plain.n_train, plain.n_test,
                                                            plain.model_size)


def _cv_results(layout):
    """A cv_results_ dict whose score columns are arrays in ``layout``."""
    rng = np.random.default_rng(3)
    scores = np.clip(0.8 + 0.05 * rng.normal(size=(6, 5)), 0, 1)
    plain = {"params": [{"c": i} for i in range(6)],
             **{f"split{k}_test_score": scores[:, k].copy() for k in range(5)},
             "mean_test_score": scores.mean(axis=1), "std_test_score": scores.std(axis=1)}
    # one Fortran matrix, its columns handed out as views (as a table's columns are)
    matrix = LAYOUTS[layout](np.column_stack([plain[k] for k in plain if k != "params"]))
    odd = {"params": plain["params"],
           **{k: matrix[:, i] for i, k in enumerate(k for k in plain if k != "params")}}
    return plain, odd


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_dart_refit_and_sweep_leave_cv_results_as_they_were(layout):
    plain, odd = _cv_results(layout)
    copies = {k: np.copy(v) for k, v in odd.items() if k != "params"}
    for p in (0.0, 1.0, 10.0):
        assert db.dart_refit(p)(odd) == db.dart_refit(p)(plain)
    got, expected = db.dart_sweep(odd), db.dart_sweep(plain)
    np.testing.assert_array_equal(got.precisions, expected.precisions)
    for table in ("configurations", "rankings", "winners", "crossings"):
        pd.testing.assert_frame_equal(getattr(got, table), getattr(expected, table))
    for k, c in copies.items():
        np.testing.assert_array_equal(odd[k], c)
        assert not odd[k].flags.writeable or layout == "fortran"


# --------------------------------------------------------------- files and dask

def _frame():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(200), 0, 1), 3)
    return pd.DataFrame({"y": y, "p": (s >= 0.5).astype(np.int64), "s": s,
                         "w": rng.integers(1, 4, 200).astype(np.float64)})


def _metrics(result):
    """The Evaluation's estimates and bounds, nan spelled out so that equal is equal."""
    table = result.overall[["estimate", "low", "high"]]
    return {f"{k}.{c}": ("nan" if np.isnan(v) else v)
            for k, row in table.iterrows() for c, v in row.items()}


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_evaluate_parquet_reads_a_read_only_file_and_leaves_it(tmp_path):
    from dartboard.scale import evaluate_parquet

    frame = _frame()
    path = tmp_path / "preds.parquet"
    frame.to_parquet(path)
    before = path.read_bytes()
    os.chmod(path, stat.S_IRUSR)
    os.chmod(tmp_path, stat.S_IRUSR | stat.S_IXUSR)  # nothing is to be written beside it
    try:
        kw = {"y_true": "y", "y_pred": "p", "y_score": "s", "sample_weight": "w",
              "confidence_level": 0.95, "random_state": 0, "n_resamples": 200}
        got = quiet(evaluate_parquet, str(path), **kw)
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["preds.parquet"]
    finally:
        os.chmod(tmp_path, stat.S_IRWXU)
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    frame.to_parquet(tmp_path / "writable.parquet")
    expected = quiet(evaluate_parquet, str(tmp_path / "writable.parquet"), **kw)
    assert _metrics(got) == _metrics(expected)
    import dartboard.metrics as dm

    assert got.overall.loc["roc_auc", "estimate"] == pytest.approx(dm.roc_auc_score(
        frame["y"], frame["s"], sample_weight=frame["w"]), rel=1e-12)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_evaluate_dask_over_read_only_arrays(layout):
    dd = pytest.importorskip("dask.dataframe")
    from dartboard.scale import evaluate_dask

    frame = _frame()
    columns = {c: LAYOUTS[layout](frame[c].to_numpy()) for c in frame.columns}
    copies = {c: a.copy(order="K") for c, a in columns.items()}
    # a Fortran block as the source of every column (a table read column by column)
    block = LAYOUTS[layout](np.column_stack([frame[c].to_numpy(dtype=np.float64)
                                             for c in frame.columns]))
    ddf = dd.from_pandas(pd.DataFrame({c: columns[c] for c in frame.columns}),
                         npartitions=3, sort=False)
    ddf_block = dd.from_array(block, chunksize=70, columns=list(frame.columns))
    kw = {"y_true": "y", "y_pred": "p", "y_score": "s", "sample_weight": "w",
          "scheduler": "synchronous", "split_every": 2, "random_state": 0}
    got = quiet(evaluate_dask, ddf, **kw)
    got_block = quiet(evaluate_dask, ddf_block.astype({"y": "int64", "p": "int64"}), **kw)
    expected = quiet(evaluate_dask, dd.from_pandas(frame, npartitions=3, sort=False), **kw)
    assert _metrics(got) == pytest.approx(_metrics(expected))
    assert _metrics(got_block) == pytest.approx(_metrics(expected))
    for c, a in columns.items():
        np.testing.assert_array_equal(a, copies[c])
    assert not block.flags.writeable or layout == "fortran"
