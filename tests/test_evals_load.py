"""dartboard.evals.load and interval on files the tools wrote themselves
(tests/data/evals/make_fixtures.py): estimates equal the mean of the file's scores,
the naive standard error equals the tool's own (lm-eval's ``acc_stderr``, Inspect's
``stderr()``), the clustered one statsmodels' cluster-robust OLS and Inspect's
``stderr(cluster=...)``; bad files are refused naming the file, line and field."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dartboard.evals import interval, load
from dartboard.exceptions import FileFormatError, InputError, InputTypeError

DATA = Path(__file__).parent / "data" / "evals"
LM_A = next((DATA / "lm_eval" / "model_a").glob("samples_*.jsonl"))
LM_B = next((DATA / "lm_eval" / "model_b").glob("samples_*.jsonl"))
INSPECT_JSON = DATA / "inspect" / "passages_a.json"
INSPECT_DEFLATE = DATA / "inspect" / "passages_a_deflate.eval"
INSPECT_ZSTD = DATA / "inspect" / "passages_a.eval"
HELM = DATA / "helm" / "per_instance_stats.json"
TABLES = [DATA / "table" / f"scores.{ext}" for ext in ("csv", "jsonl", "parquet")]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _statsmodels_cluster_se(values: np.ndarray, groups: np.ndarray) -> float:
    sm = pytest.importorskip("statsmodels.api")
    fit = sm.OLS(values, np.ones((values.shape[0], 1))).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]})
    # statsmodels' factor G/(G-1) (N-1)/(N-K) is G/(G-1) with K = 1: CR1 as dartboard
    return float(fit.bse[0])


# ------------------------------------------------------------------ lm-evaluation-harness

def test_lm_eval_estimate_is_the_mean_of_the_file_and_naive_se_its_acc_stderr():
    lines = _lines(LM_A)
    run = load(LM_A)
    res = interval(run)
    acc = np.array([line["acc"] for line in lines])
    assert run.metric == "acc" and run.source == "lm-eval"
    assert run.n_questions == len(lines) == 30
    assert res.estimate == pytest.approx(acc.mean(), abs=1e-15)
    assert res.estimate == pytest.approx(run.reported["estimate"], abs=1e-15)
    assert res.naive_standard_error == pytest.approx(run.reported["standard_error"],
                                                     rel=1e-12)
    # without clusters the interval's standard error is the naive one
    assert res.standard_error == pytest.approx(res.naive_standard_error, rel=1e-12)


def test_lm_eval_naive_se_equals_lm_eval_mean_stderr():
    metrics = pytest.importorskip("lm_eval.api.metrics")
    for key in ("acc", "acc_norm"):
        run = load(LM_B, metric=key)
        values = [line[key] for line in _lines(LM_B)]
        assert interval(run).naive_standard_error == pytest.approx(
            metrics.mean_stderr(values), rel=1e-12)


def test_lm_eval_clustered_se_equals_statsmodels():
    lines = _lines(LM_A)
    res = interval(load(LM_A, cluster="doc.passage_id"))
    acc = np.array([line["acc"] for line in lines], dtype=float)
    passages = np.array([line["doc"]["passage_id"] for line in lines])
    assert res.n_clusters == 6 and res.degrees_of_freedom == 5
    assert res.standard_error == pytest.approx(_statsmodels_cluster_se(acc, passages),
                                               rel=1e-10)
    assert res.design_effect == pytest.approx(
        (res.standard_error / res.naive_standard_error) ** 2)
    # a path without the "doc." prefix is looked up in the document too
    assert interval(load(LM_A, cluster="passage_id")).standard_error == res.standard_error


def test_lm_eval_keeps_doc_hashes_and_tool_number():
    run = load(LM_A)
    assert run.table["hash"].tolist() == [line["doc_hash"] for line in _lines(LM_A)]
    assert Path(run.reported["file"]).name.startswith("results_")


# ---------------------------------------------------------------------------- Inspect

def _inspect_paths():
    paths = [INSPECT_JSON, INSPECT_DEFLATE]
    if sys.version_info < (3, 14):
        try:
            import zipfile_zstd  # noqa: F401
        except ImportError:
            return paths
    return [*paths, INSPECT_ZSTD]


@pytest.mark.parametrize("path", _inspect_paths(), ids=lambda p: p.name)
def test_inspect_matches_its_own_metrics(path):
    run = load(path, cluster="passage")
    res = interval(run)
    assert run.source == "inspect" and run.metric == "graded"
    assert run.n_errored == 1  # q17's third epoch failed: left out, counted
    assert run.n_answers == 18 * 3 - 1
    assert res.estimate == pytest.approx(run.reported["estimate"], rel=1e-12)
    assert res.naive_standard_error == pytest.approx(run.reported["standard_error"],
                                                     rel=1e-12)
    assert res.standard_error == pytest.approx(
        run.reported["clustered_standard_error"]["passage"], rel=1e-12)


def test_inspect_read_by_its_own_reader():
    """inspect_ai's read_eval_log as the oracle of the values and the epochs."""
    log_api = pytest.importorskip("inspect_ai.log")
    from inspect_ai.scorer import value_to_float

    log = log_api.read_eval_log(str(INSPECT_JSON))
    to_float = value_to_float()
    expected = {(s.id, s.epoch): to_float(s.scores["graded"].value)
                for s in log.samples if s.error is None}
    run = load(INSPECT_JSON, cluster="metadata.passage")
    got = {(q, e): v for q, e, v in run.table[["question", "epoch", "score"]].itertuples(
        index=False)}
    assert got == expected
    clusters = {s.id: s.metadata["passage"] for s in log.samples}
    assert dict(zip(run.table["question"], run.table["cluster"])) == clusters
    # each question's epochs are averaged first (Inspect's mean reducer)
    means = pd.Series(expected).groupby(level=0).mean()
    assert interval(run).estimate == pytest.approx(means.mean(), rel=1e-12)


def test_inspect_clustered_se_equals_statsmodels_on_question_means():
    run = load(INSPECT_JSON, cluster="passage")
    means = run.table.groupby("question", sort=False).agg(score=("score", "mean"),
                                                           cluster=("cluster", "first"))
    assert interval(run).standard_error == pytest.approx(
        _statsmodels_cluster_se(means["score"].to_numpy(), means["cluster"].to_numpy()),
        rel=1e-10)


def test_inspect_within_question_share_and_more_answers():
    res = interval(load(INSPECT_JSON, cluster="passage"))
    table = load(INSPECT_JSON).table
    within = table.groupby("question")["score"].var(ddof=1)
    sizes = table.groupby("question").size()
    pooled = float(((sizes - 1) * within).sum() / (sizes - 1).sum())
    assert res.within_sd == pytest.approx(np.sqrt(pooled), rel=1e-12)
    means = table.groupby("question")["score"].mean()
    share = pooled * np.mean(1.0 / sizes) / means.var(ddof=1)
    assert res.within_share == pytest.approx(share, rel=1e-12)
    more = res.more_answers.set_index("answers")
    # more answers per question narrow the interval; fewer widen it
    assert more.loc[20, "standard_error"] < res.standard_error < more.loc[1,
                                                                          "standard_error"]
    n = means.shape[0]
    expected = np.sqrt(res.standard_error ** 2
                       - pooled * (np.mean(1.0 / sizes) - 1.0 / 10) / n)
    assert more.loc[10, "standard_error"] == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------ HELM, tables

def test_helm_reads_trials_and_skips_perturbed_copies():
    entries = json.loads(HELM.read_text())
    run = load(HELM)
    plain = [e for e in entries if not e.get("perturbation")]
    assert run.n_skipped == len(entries) - len(plain) == 1
    assert run.n_answers == len(plain)
    assert sorted(run.table["epoch"].unique()) == [0, 1]
    scores = [next(s["sum"] / s["count"] for s in e["stats"]
                   if s["name"]["name"] == "exact_match") for e in plain]
    assert run.mean == pytest.approx(np.mean(scores))
    assert run.reported["estimate"] == pytest.approx(run.mean)


def test_helm_clusters_from_a_mapping():
    run = load(HELM, cluster={f"id{i}": i // 4 for i in range(12)})
    assert run.n_clusters == 3
    with pytest.raises(InputError, match="question 'id11' .* not in the mapping"):
        load(HELM, cluster={f"id{i}": 0 for i in range(11)})
    with pytest.raises(InputError, match="HELM's per-instance stats hold no instance"):
        load(HELM, cluster="passage")


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.suffix)
def test_plain_tables(path):
    frame = pd.read_csv(TABLES[0])
    run = load(path, cluster="passage")
    res = interval(run)
    means = frame.groupby("question")["score"].mean()
    assert run.n_questions == 12 and run.n_answers == 24 and run.n_clusters == 4
    assert res.estimate == pytest.approx(frame["score"].mean(), rel=1e-12)
    groups = frame.groupby("question")["passage"].first().loc[means.index]
    assert res.standard_error == pytest.approx(
        _statsmodels_cluster_se(means.to_numpy(), groups.to_numpy()), rel=1e-10)


def test_table_with_other_column_names_and_a_data_frame():
    frame = pd.DataFrame({"id": [1, 1, 2, 2, 3, 3], "rep": [0, 1] * 3,
                          "correct": [1, 0, 1, 1, 0, 0]})
    run = load(frame, metric="correct", question="id", epoch="rep")
    assert run.path is None and run.n_questions == 3
    assert run.mean == pytest.approx(0.5)
    # unequal answers: the mean of question means, not of all rows
    uneven = load(pd.DataFrame({"question": [1, 1, 1, 2], "score": [1, 1, 1, 0],
                                "epoch": [0, 1, 2, 0]}))
    assert uneven.mean == pytest.approx(0.5)


# ------------------------------------------------------------------------ refusals

def test_bad_lm_eval_lines_name_file_line_and_field(tmp_path):
    lines = LM_A.read_text().splitlines()
    bad = tmp_path / LM_A.name
    broken = json.loads(lines[2])
    broken["acc"] = "yes"
    bad.write_text("\n".join([lines[0], lines[1], json.dumps(broken)]) + "\n")
    with pytest.raises(FileFormatError, match=rf"{LM_A.name}:3: field 'acc' must be a "
                                              "number"):
        load(bad)
    bad.write_text(lines[0] + "\n{not json\n")
    with pytest.raises(FileFormatError, match=r":2: not a JSON line"):
        load(bad)
    with pytest.raises(FileFormatError, match=r":1: no field 'bleu'"):
        load(LM_A, metric="bleu")
    with pytest.raises(FileFormatError, match=r":1: no cluster field 'doc.topic'"):
        load(LM_A, cluster="doc.topic")
    bare = dict(json.loads(lines[0]))
    del bare["metrics"]
    bad.write_text(json.dumps(bare) + "\n")
    with pytest.raises(FileFormatError, match=r":1: no field 'metrics' naming the scores; "
                                              "give metric="):
        load(bad)
    assert load(bad, metric="acc").n_questions == 1
    del bare["doc_id"]
    bad.write_text(json.dumps(bare) + "\n")
    with pytest.raises(FileFormatError, match=r":1: no field 'doc_id'"):
        load(bad, metric="acc")
    twice = tmp_path / "samples_twice_2024-01-01T00-00-00.000000.jsonl"
    twice.write_text(lines[0] + "\n" + lines[0] + "\n")
    with pytest.raises(InputError, match="question 0 epoch 0 appears twice"):
        load(twice)


def test_lm_eval_filters_must_be_chosen(tmp_path):
    lines = _lines(LM_A)[:4]
    other = [dict(line, filter="strict-match") for line in lines]
    path = tmp_path / "samples_t_2024-01-01T00-00-00.000000.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines + other))
    with pytest.raises(FileFormatError, match=r"filters \['none', 'strict-match'\]: choose "
                                              "one with filter="):
        load(path)
    assert load(path, filter="strict-match").n_questions == 4
    with pytest.raises(FileFormatError, match="no samples with filter 'flexible'"):
        load(path, filter="flexible")


def test_lm_eval_results_file_is_refused_with_the_fix():
    results = next((DATA / "lm_eval" / "model_a").glob("results_*.json"))
    with pytest.raises(FileFormatError, match="results file: give the samples_"):
        load(results)


def test_bad_inspect_samples_name_the_member(tmp_path):
    path = tmp_path / "bad.eval"
    with zipfile.ZipFile(INSPECT_DEFLATE) as src, zipfile.ZipFile(path, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "samples/q3_epoch_2.json":
                sample = json.loads(data)
                sample["scores"]["graded"]["value"] = "maybe"
                data = json.dumps(sample).encode()
            dst.writestr(name, data)
    with pytest.raises(FileFormatError, match=r"bad.eval \[samples/q3_epoch_2.json\]: "
                                              r"field 'scores.graded' must be a number"):
        load(path)
    with pytest.raises(FileFormatError, match=r"no score 'other'"):
        load(INSPECT_DEFLATE, metric="other")
    with pytest.raises(FileFormatError, match=r"no cluster field 'topic'"):
        load(INSPECT_DEFLATE, cluster="topic")
    notzip = tmp_path / "x.eval"
    notzip.write_text("hello")
    with pytest.raises(FileFormatError, match="not a zip file"):
        load(notzip)


def test_bad_tables_and_arguments(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("question,score\na,1\nb,high\n")
    with pytest.raises(FileFormatError, match=r"t.csv: row 1: column 'score' must be a "
                                              "number; got 'high'"):
        load(path)
    path.write_text("id,score\na,1\n")
    with pytest.raises(FileFormatError, match=r"no column 'question' \(give its name as "
                                              "question=\\)"):
        load(path)
    with pytest.raises(InputError, match="path: no such file"):
        load(tmp_path / "missing.csv")
    with pytest.raises(InputTypeError, match="path must be a file path or a pandas"):
        load(3)
    with pytest.raises(InputTypeError, match="metric must be a string"):
        load(TABLES[0], metric=1)
    with pytest.raises(InputError, match="format must be one of"):
        load(TABLES[0], format="csv")
    broken = tmp_path / "t.jsonl"
    broken.write_text('{"question": 1, "score": 1}\n{"question": 2, "score": \n')
    with pytest.raises(FileFormatError, match=r"t.jsonl: cannot be read as a table \(JSON "
                                              r"parse error: .* row 1\)"):
        load(broken)
    odd = tmp_path / "scores.txt"
    odd.write_text("x")
    with pytest.raises(FileFormatError, match="cannot tell the format"):
        load(odd)
    with pytest.raises(InputError, match="has answers with different cluster values"):
        load(pd.DataFrame({"question": [1, 1], "epoch": [0, 1], "score": [1, 0],
                           "c": ["a", "b"]}), cluster="c")


def test_interval_arguments():
    run = load(TABLES[0])
    with pytest.raises(InputTypeError, match="run must be a Run"):
        interval("file.csv")
    with pytest.raises(InputError, match="confidence_level must be strictly between"):
        interval(run, confidence_level=95)
    one = load(pd.DataFrame({"question": [1, 2], "score": [1, 0], "c": [0, 0]}),
               cluster="c")
    with pytest.raises(InputError, match="at least two clusters; got 1"):
        interval(one)
    res = interval(run, confidence_level=0.9)
    from scipy import stats
    half = stats.t.ppf(0.95, res.degrees_of_freedom) * res.standard_error
    assert (res.low, res.high) == pytest.approx((res.estimate - half, res.estimate + half))
