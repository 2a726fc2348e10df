"""Hostile files and folders for the streamed evaluations (issue 29): a directory link
that loops, one file reached by several names, weights that are all zero, a damaged
page, a batch size beyond pyarrow's. The oracles: ``os.stat`` (which names are one
file), the in-memory :func:`dartboard.evaluate` on the rows of the distinct files, and
pyarrow's own reading of each file.
"""

from __future__ import annotations

import glob
import os

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from _quiet import quiet

import dartboard as db
from dartboard.scale import evaluate_parquet

posix = pytest.mark.skipif(os.name != "posix", reason="symbolic and hard links")


def _evaluate_dask(source, **kw):
    pytest.importorskip("dask.dataframe")
    from dartboard.scale import evaluate_dask

    return evaluate_dask(source, scheduler="synchronous", **kw)


STREAMERS = {"parquet": evaluate_parquet, "dask": _evaluate_dask}


def _frame(seed, n=60, weights=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1), 3)
    return pd.DataFrame({"y": y, "s": score, "p": (score >= 0.5).astype(np.int64),
                         "v": y + score, "w": rng.integers(1, 4, n) if weights is None
                         else weights})


def _estimates(ev):
    return ev.overall["estimate"].to_dict()


# ------------------------------------------------------------------ links


@posix
@pytest.mark.parametrize("engine", sorted(STREAMERS))
@pytest.mark.parametrize("how", ["directory", "recursive glob"])
def test_a_directory_link_that_loops_is_refused_naming_the_link(tmp_path, engine, how):
    # issue 29.3: 100 rows were read as 4,100 "from 41 files", the estimates weighted x41
    data = tmp_path / "preds"
    (data / "2024").mkdir(parents=True)
    _frame(0).to_parquet(data / "2024" / "part0.parquet")
    os.symlink("..", data / "2024" / "back")  # preds/2024/back -> preds
    source = str(data) if how == "directory" else str(data / "**" / "*.parquet")
    with pytest.raises(ValueError, match=r"back' links back to .*preds'.*repeat its files"):
        STREAMERS[engine](source, y_true="y", y_score="s")


def _identities(names):
    """os.stat's answer to "which of these names are one file"."""
    return {(os.stat(n).st_dev, os.stat(n).st_ino) for n in names}


@posix
@pytest.mark.parametrize("engine", sorted(STREAMERS))
def test_every_file_is_read_once_whatever_names_reach_it(tmp_path, engine):
    data = tmp_path / "preds"
    (data / "a").mkdir(parents=True)
    frames = [_frame(1), _frame(2, n=45)]
    frames[0].to_parquet(data / "a" / "part0.parquet")
    frames[1].to_parquet(data / "a" / "part1.parquet")
    os.symlink("a", data / "mirror")  # a second name for the directory (no loop)
    os.link(data / "a" / "part0.parquet", data / "hard.parquet")  # a hard link
    names = glob.glob(str(data / "**" / "*.parquet"), recursive=True)
    assert len(names) == 5 and len(_identities(names)) == 2
    plain = db.evaluate(pd.concat(frames).y.to_numpy(), y_score=pd.concat(frames).s.to_numpy(),
                        metrics=["roc_auc", "average_precision"], n_resamples=50,
                        random_state=0)
    spelled = [str(data / "a" / "part0.parquet"), str(data / "mirror" / "part0.parquet"),
               str(data / "a" / ".." / "a" / "part1.parquet"), str(data)]
    for source in (str(data), str(data / "**" / "*.parquet"), spelled):
        ev = STREAMERS[engine](source, y_true="y", y_score="s", n_resamples=50,
                               metrics=["roc_auc", "average_precision"], random_state=0)
        assert ev.n_files == len(_identities(names)) == 2, source
        assert ev.n_rows == sum(len(f) for f in frames)
        assert _estimates(ev) == pytest.approx(_estimates(plain), rel=1e-12)


# ------------------------------------------------------------------ weights


@pytest.mark.parametrize("engine", sorted(STREAMERS))
@pytest.mark.parametrize("columns", [{"y_score": "s"}, {"y_pred": "p"},
                                     {"y_pred": "v", "task": "regression"}])
def test_weights_that_are_all_zero_are_refused_as_in_memory(tmp_path, engine, columns):
    # issue 29.8: AP and PR AUC came out as 0.0 where memory refuses the weights
    zero = np.zeros(60)
    for i in range(2):
        _frame(i, weights=zero).to_parquet(tmp_path / f"part{i}.parquet")
    frame = pd.concat([_frame(i, weights=zero) for i in range(2)])
    given = {k: frame[v].to_numpy() for k, v in columns.items() if k != "task"}
    truth = frame.y.to_numpy(dtype=float if "task" in columns else np.int64)
    with pytest.raises(ValueError):  # the oracle: memory refuses the same weights
        quiet(db.evaluate, truth, sample_weight=frame.w.to_numpy(), **given)
    with pytest.raises(ValueError, match="sample_weight column 'w' sums to zero over all "
                                         "120 rows"):
        quiet(STREAMERS[engine], str(tmp_path), y_true="y", sample_weight="w", **columns)


@pytest.mark.parametrize("engine", sorted(STREAMERS))
def test_a_file_of_zero_weights_beside_others_counts_for_nothing(tmp_path, engine):
    frames = [_frame(3, weights=np.zeros(60, dtype=np.int64)), _frame(4)]
    for i, frame in enumerate(frames):
        frame.to_parquet(tmp_path / f"part{i}.parquet")
    import sklearn.metrics as skm

    whole = pd.concat(frames)
    oracles = {"accuracy": (skm.accuracy_score, "p"), "f1": (skm.f1_score, "p"),
               "roc_auc": (skm.roc_auc_score, "s"),
               "average_precision": (skm.average_precision_score, "s")}
    ev = quiet(STREAMERS[engine], str(tmp_path), y_true="y", y_pred="p", y_score="s",
               sample_weight="w", metrics=list(oracles), n_resamples=50, random_state=0)
    for name, (function, column) in oracles.items():
        expected = function(whole.y, whole[column], sample_weight=whole.w)
        assert ev.overall.loc[name, "estimate"] == pytest.approx(expected, rel=1e-12), name


# ------------------------------------------------------------------ damaged files


def _damage_a_page(path, column):
    """Overwrite the header of ``column``'s first data page (the footer stays readable)."""
    meta = pq.ParquetFile(path).metadata.row_group(0)
    chunk = next(meta.column(j) for j in range(meta.num_columns)
                 if meta.column(j).path_in_schema == column)
    data = bytearray(path.read_bytes())
    start = chunk.data_page_offset
    data[start:start + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("engine", sorted(STREAMERS))
def test_a_damaged_page_is_an_error_naming_the_file(tmp_path, engine):
    # issue 29.20: pyarrow's OSError did not say which file
    _frame(5, n=500).to_parquet(tmp_path / "good.parquet")
    bad = tmp_path / "bad.parquet"
    _frame(6, n=500).to_parquet(bad)
    _damage_a_page(bad, "s")
    with pytest.raises(OSError):  # the oracle: pyarrow cannot read it either
        pq.read_table(bad)
    with pytest.raises(ValueError, match=r"file '.*bad\.parquet' could not be read: "):
        STREAMERS[engine](str(tmp_path), y_true="y", y_score="s")


@pytest.mark.parametrize("exact", [True, False])
def test_a_batch_size_beyond_pyarrows_reads_each_file_whole(tmp_path, exact):
    # issue 29.20: batch_size=10**12 raised OverflowError from pyarrow
    for i in range(2):
        _frame(7 + i).to_parquet(tmp_path / f"part{i}.parquet")
    kw = {"y_true": "y", "y_pred": "p", "y_score": "s", "exact": exact, "n_resamples": 50,
          "random_state": 0}
    big = evaluate_parquet(tmp_path, batch_size=10**12, **kw)
    small = evaluate_parquet(tmp_path, batch_size=7, **kw)
    assert big.n_rows == 120
    pd.testing.assert_frame_equal(big.overall, small.overall)


# ------------------------------------------------------------------ left out


def _columns(kind, seed=8, n=90):
    rng = np.random.default_rng(seed)
    if kind == "regression":
        y = rng.normal(size=n)
        return {"y": y, "v": y + rng.normal(scale=0.5, size=n)}
    k = 3 if kind == "multiclass" else 2
    y = rng.integers(0, k, n)
    proba = rng.dirichlet(np.ones(k), size=n)
    proba[np.arange(n), y] += 1.0
    proba /= proba.sum(axis=1, keepdims=True)
    return {"y": y, "p": proba.argmax(axis=1), "s": proba[:, -1],
            **{f"p{c}": proba[:, c] for c in range(k)}}


CASES = {  # streamed columns, the same data given to evaluate()
    "scores": ("binary", {"y_score": "s"}, lambda c: {"y_score": c["s"]}),
    "binned scores": ("binary", {"y_score": "s", "exact": False},
                      lambda c: {"y_score": c["s"]}),
    "labels": ("binary", {"y_pred": "p"}, lambda c: {"y_pred": c["p"]}),
    "probabilities": ("binary", {"y_proba": ["p0", "p1"]},
                      lambda c: {"y_proba": np.column_stack([c["p0"], c["p1"]])}),
    "multiclass labels": ("multiclass", {"y_pred": "p"}, lambda c: {"y_pred": c["p"]}),
    "multiclass probabilities": ("multiclass", {"y_proba": ["p0", "p1", "p2"]},
                                 lambda c: {"y_proba": np.column_stack(
                                     [c["p0"], c["p1"], c["p2"]])}),
    "regression": ("regression", {"y_pred": "v"}, lambda c: {"y_pred": c["v"]}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_streamed_evaluation_names_every_metric_it_leaves_out(tmp_path, case):
    # issue 25.7: a glob gave 3 of the 16 metrics of the same file read whole, silently
    kind, streamed_kw, memory_kw = CASES[case]
    columns = _columns(kind)
    pd.DataFrame(columns).to_parquet(tmp_path / "part0.parquet")
    memory = quiet(db.evaluate, columns["y"], n_resamples=50, random_state=0,
                   **memory_kw(columns))
    ev = quiet(evaluate_parquet, str(tmp_path), y_true="y", n_resamples=50, random_state=0,
               **streamed_kw)
    left = dict(ev.result.streamed.left_out)
    assert not set(left) & set(ev.metrics)
    assert sorted([*ev.metrics, *left]) == sorted(memory.metrics), case
    for metric, why in left.items():
        assert why.startswith(("needs ", "has no error bound")), (metric, why)
        assert metric in repr(ev) and why in repr(ev)
    payload = ev.to_dict()["streamed"]["left_out"]
    assert [(r["metric"], r["why"]) for r in payload] == list(ev.result.streamed.left_out)
