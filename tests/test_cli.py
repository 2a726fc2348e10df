"""The ``dartboard`` command through typer's runner: every subcommand, ``--json``
equal to the table, and bad input ending in exit code 2 with one ``error:`` line,
no traceback and no output file. (``demo`` is run in tests/test_demo.py.)"""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier
from typer.testing import CliRunner

from dartboard import __version__
from dartboard.cli import app
from dartboard.evaluation._engine import evaluate_predictions
from dartboard.report import write_json

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    s_a = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    s_b = np.clip(0.1 * y + 0.9 * rng.random(n), 0, 1)
    yr = rng.normal(size=n)
    proba = rng.dirichlet([1, 1, 1], n)
    y3 = np.array(["a", "b", "c"])[np.where(rng.random(n) < 0.6, proba.argmax(1),
                                            rng.integers(0, 3, n))]
    preds = pd.DataFrame({"y": y, "score": s_a, "score_b": s_b, "pred": (s_a >= 0.5) * 1,
                          "pred_b": (s_b >= 0.5) * 1, "g": rng.choice(["u", "v"], n),
                          "yr": yr, "yhat": yr + rng.normal(scale=0.5, size=n),
                          "y3": y3, "pa": proba[:, 0], "pb": proba[:, 1], "pc": proba[:, 2],
                          "text": rng.choice(["low", "high"], n)})
    preds.to_csv(d / "preds.csv", index=False)
    preds.to_parquet(d / "preds.parquet")
    (d / "parts").mkdir()
    preds.iloc[:120].to_parquet(d / "parts" / "a.parquet")
    preds.iloc[120:].to_parquet(d / "parts" / "b.parquet")
    (d / "corrupt.parquet").write_bytes(b"PAR1 this is not a parquet file")
    (d / "incomplete.json").write_text('{"selection": {"configs": ["a"], "precision": 1}}')
    (d / "header_only.csv").write_text("y,score\n")
    (d / "edited.json").write_text('{"classification": {"metrics": null}}')
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"y": [0, 1, 0, 1], "p": [[1, 2], [3], [4], [5]]}),
                   d / "nested.parquet")

    X, target = load_breast_cancer(return_X_y=True)
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": [1, 2, 4]},
                          cv=5).fit(X[:, :5], target)
    cv = pd.DataFrame(search.cv_results_)
    cv.to_csv(d / "cv.csv", index=False)
    cv.to_parquet(d / "cv.parquet")
    cv.to_json(d / "cv.json")
    pd.DataFrame({"config": ["deep", "shallow"], "f0": [0.95, 0.88], "f1": [0.80, 0.87],
                  "f2": [0.97, 0.89], "f3": [0.84, 0.88]}).to_csv(d / "folds.csv", index=False)
    train = pd.DataFrame(X[:240, :4], columns=["f0", "f1", "f2", "f3"])
    train["target"] = target[:240]
    train["grp"] = np.where(X[:240, 0] > 14, "big", "small")
    train.to_csv(d / "train.csv", index=False)
    train.drop(columns="grp").to_parquet(d / "train.parquet")
    return d


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def table_rows(stdout):
    """Cells of every body row of the rich tables printed on stdout."""
    return [[c.strip() for c in line.split("│")] for line in stdout.splitlines()
            if "│" in line]


def assert_table_equals_json(stdout, records, key="metric", columns=("estimate", "low", "high")):
    rows = {r[0]: r for r in table_rows(stdout)}
    assert rows, stdout
    for rec in records:
        cells = rows[str(rec[key])]
        for i, col in enumerate(columns, start=1):
            assert cells[i] == f"{rec[col]:.4f}", (rec, cells)


# ---------------------------------------------------------------- happy paths

def test_version_and_help():
    assert run("--version").stdout.strip() == f"dartboard {__version__}"
    res = run()
    assert res.exit_code == 0 and "evaluate" in res.stdout and "demo" in res.stdout


@pytest.mark.parametrize("source", ["preds.csv", "preds.parquet"])
def test_evaluate_scores_json_equals_table_and_sklearn(files, source):
    args = ("evaluate", files / source, "--y-true", "y", "--y-score", "score",
            "--n-resamples", "500")
    table = run(*args)
    assert table.exit_code == 0, table.output
    js = run(*args, "--json")
    payload = json.loads(js.stdout)
    assert payload["task"] == "binary" and payload["n"] == 300
    assert_table_equals_json(table.stdout, payload["metrics"])
    df = pd.read_csv(files / "preds.csv")
    values = {m["metric"]: m["estimate"] for m in payload["metrics"]}
    assert values["roc_auc"] == pytest.approx(skm.roc_auc_score(df.y, df.score))
    assert values["accuracy"] == pytest.approx(skm.accuracy_score(df.y, df.score >= 0.5))


def test_evaluate_predictions_by_group(files):
    args = ("evaluate", files / "preds.parquet", "--y-true", "y", "--y-pred", "pred",
            "--group", "g", "--ci", "clopper-pearson", "--n-resamples", "500")
    payload = json.loads(run(*args, "--json").stdout)
    accuracy = [m for m in payload["metrics"] if m["metric"] == "accuracy"][0]
    assert accuracy["method"] == "clopper-pearson"
    df = pd.read_parquet(files / "preds.parquet")
    for row in payload["groups"]:
        if row["metric"] == "recall":
            mask = df.g == row["group"]
            assert row["estimate"] == pytest.approx(skm.recall_score(df.y[mask], df.pred[mask]))
    table = run(*args).stdout
    grouped = {(r[0], r[2]): r for r in table_rows(table) if r[0] in ("u", "v")}
    for row in payload["groups"]:
        assert grouped[(row["group"], row["metric"])][3] == f"{row['estimate']:.4f}"


@pytest.mark.parametrize("sep", [";", "\t"])
def test_evaluate_semicolon_or_tab_separated_csv_with_string_labels(tmp_path, sep):
    # a ';' file was read as one column "y;pred" and its columns reported "not found"
    rng = np.random.default_rng(4)
    y = rng.choice(["no", "yes"], 120)
    df = pd.DataFrame({"y": y, "pred": np.where(rng.random(120) < 0.7, y, "no")})
    df.to_csv(tmp_path / "preds.csv", sep=sep, index=False)
    res = run("evaluate", tmp_path / "preds.csv", "--y-true", "y", "--y-pred", "pred",
              "--n-resamples", "100", "--json", "--pos-label", "yes")
    assert res.exit_code == 0, res.output
    values = {m["metric"]: m["estimate"] for m in json.loads(res.stdout)["metrics"]}
    assert values["f1"] == pytest.approx(skm.f1_score(df.y, df.pred, pos_label="yes"))

def test_evaluate_regression_and_multiclass(files):
    payload = json.loads(run("evaluate", files / "preds.csv", "--y-true", "yr", "--y-pred",
                             "yhat", "--json", "--n-resamples", "300").stdout)
    assert payload["task"] == "regression"
    df = pd.read_csv(files / "preds.csv")
    values = {m["metric"]: m["estimate"] for m in payload["metrics"]}
    assert values["mean_squared_error"] == pytest.approx(skm.mean_squared_error(df.yr, df.yhat))
    multi = json.loads(run("evaluate", files / "preds.csv", "--y-true", "y3", "--proba", "pa",
                           "--proba", "pb", "--proba", "pc", "--json",
                           "--n-resamples", "300").stdout)
    assert multi["task"] == "multiclass"
    values = {m["metric"]: m["estimate"] for m in multi["metrics"]}
    assert values["log_loss"] == pytest.approx(skm.log_loss(df.y3, df[["pa", "pb", "pc"]]))


def test_evaluate_writes_report(files, tmp_path):
    out = tmp_path / "eval.html"
    res = run("evaluate", files / "preds.csv", "--y-true", "y", "--y-score", "score",
              "--report", out, "--n-resamples", "300")
    assert res.exit_code == 0, res.output
    html = out.read_text()
    for fig_id in ("roc", "pr", "confusion", "calibration"):
        assert f'data-figure="{fig_id}"' in html


def test_evaluate_report_with_groups_and_regression(files, tmp_path):
    out = tmp_path / "groups.html"
    res = run("evaluate", files / "preds.csv", "--y-true", "y", "--y-pred", "pred", "--group",
              "g", "--report", out, "--n-resamples", "200")
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert "By group (g)" in html and 'data-figure="confusion"' in html
    res = run("evaluate", files / "preds.csv", "--y-true", "yr", "--y-pred", "yhat", "--report",
              out, "--n-resamples", "200")
    assert res.exit_code == 0, res.output
    assert 'data-figure="error-distribution"' in out.read_text()


def test_evaluate_streams_a_directory_of_parquet(files):
    res = run("evaluate", files / "parts", "--y-true", "y", "--y-pred", "pred", "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    df = pd.read_csv(files / "preds.csv")
    values = {m["metric"]: m["estimate"] for m in payload["metrics"]}
    assert payload["n"] == 300
    assert values["accuracy"] == pytest.approx(skm.accuracy_score(df.y, df.pred))
    table = run("evaluate", files / "parts", "--y-true", "y", "--y-pred", "pred")
    assert "streamed" in table.stdout
    rows = {r[0]: r for r in table_rows(table.stdout)}
    assert rows["accuracy"][1] == f"{values['accuracy']:.4f}"


def test_streamed_groups_print_the_in_memory_tables(files):
    # a directory of Parquet files with --group goes through evaluate_parquet (states, no
    # rows) and gives the tables and JSON of the one file read in memory
    common = ("--y-true", "y", "--y-pred", "pred", "--group", "g", "--group", "text",
              "--n-resamples", "300", "--seed", "2")
    whole = run("evaluate", files / "preds.csv", *common)
    parts = run("evaluate", files / "parts", *common)
    assert whole.exit_code == 0 and parts.exit_code == 0, parts.output
    assert "streamed" in parts.stdout and "streamed" not in whole.stdout
    # every table after the title line is the same: metrics, by group, gaps, fairness
    assert table_rows(parts.stdout) == table_rows(whole.stdout)
    memory = json.loads(run("evaluate", files / "preds.csv", *common, "--json").stdout)
    streamed = json.loads(run("evaluate", files / "parts", *common, "--json").stdout)
    # the in-memory metrics are all there: nothing is left out
    assert streamed.pop("streamed") == {"source": "parquet", "n_rows": 300, "n_files": 2,
                                        "mode": "exact", "unit": "Parquet file",
                                        "left_out": []}
    for key in ("metrics", "groups", "difference", "ratio", "fairness", "pairwise",
                "group_columns", "confusion", "task", "n", "classes", "positive_label"):
        assert streamed[key] == pytest.approx(memory[key]) if key == "n" else \
            streamed[key] == memory[key], key


def test_a_threshold_criterion_on_streamed_files_is_the_single_files(files):
    # --threshold-criterion on a folder of Parquet files: the operating point of the one
    # file read whole (the rows are read in the order of their values either way)
    common = ("--y-true", "y", "--y-score", "score", "--threshold-criterion", "min_recall",
              "--threshold-target", "0.8", "--n-resamples", "300", "--seed", "5", "--json")
    whole = json.loads(run("evaluate", files / "preds.parquet", *common).stdout)
    streamed = json.loads(run("evaluate", files / "parts", *common).stdout)
    assert "streamed" in streamed and "streamed" not in whole
    assert streamed["operating_point"]["threshold"] == whole["operating_point"]["threshold"]
    for name, iv in whole["operating_point"]["intervals"].items():
        for key in ("estimate", "low", "high"):
            assert streamed["operating_point"]["intervals"][name][key] == \
                pytest.approx(iv[key], abs=1e-12), (name, key)


def test_streamed_bootstrap_interval_equals_in_memory(files):
    from dartboard import interval
    from dartboard.metrics import f1_score

    res = run("evaluate", files / "parts", "--y-true", "y", "--y-pred", "pred", "--json",
              "--ci", "bca", "--n-resamples", "300", "--seed", "3")
    assert res.exit_code == 0, res.output
    f1 = {m["metric"]: m for m in json.loads(res.stdout)["metrics"]}["f1"]
    df = pd.read_csv(files / "preds.csv")
    expected = interval(f1_score, df.y, df.pred, method="bca", n_resamples=300,
                        random_state=3)
    assert f1["method"] == "bca"
    assert (f1["low"], f1["high"]) == pytest.approx((expected.low, expected.high), rel=1e-12)


def test_compare_json_equals_table_and_verdict(files):
    args = ("compare", files / "preds.csv", "--y-true", "y", "--a", "pred", "--b", "pred_b",
            "--n-resamples", "2000")
    payload = json.loads(run(*args, "--json").stdout)
    df = pd.read_csv(files / "preds.csv")
    assert payload["estimate_a"] == pytest.approx(skm.accuracy_score(df.y, df.pred))
    assert payload["estimate_b"] == pytest.approx(skm.accuracy_score(df.y, df.pred_b))
    assert payload["difference"] == pytest.approx(payload["estimate_a"] - payload["estimate_b"])
    assert 0 < payload["pvalue"] <= 1
    assert payload["low"] <= payload["difference"] <= payload["high"]
    res = run(*args)
    values = [r[1] for r in table_rows(res.stdout)]
    expected = [payload[k] for k in ("estimate_a", "estimate_b", "difference", "low", "high",
                                     "pvalue")]
    assert values == [f"{v:.4f}" for v in expected]
    assert res.stdout.strip().splitlines()[-1] == payload["verdict"]


def test_compare_auc_of_scores(files):
    payload = json.loads(run("compare", files / "preds.csv", "--y-true", "y", "--a", "score",
                             "--b", "score_b", "--metric", "roc_auc", "--json").stdout)
    df = pd.read_csv(files / "preds.csv")
    assert payload["estimate_a"] == pytest.approx(skm.roc_auc_score(df.y, df.score))
    assert payload["verdict"].startswith(("score is better", "No significant"))


@pytest.mark.parametrize("metric, a, b", [("f1", "pa", "pb"), ("precision", "pa", "pb"),
                                          ("average_precision", "sa", "sb"),
                                          ("brier_score_loss", "sa", "sb")])
def test_compare_string_labels_need_pos_label(tmp_path, metric, a, b):
    # sklearn's default pos_label=1 made these fail on string labels; the greater label
    # was then guessed: now it is named, as dartboard evaluate wants it
    rng = np.random.default_rng(3)
    y = rng.choice(["cat", "dog"], 150)
    df = pd.DataFrame({"y": y, "pa": np.where(rng.random(150) < 0.8, y, "cat"),
                       "pb": np.where(rng.random(150) < 0.6, y, "dog"),
                       "sa": rng.random(150), "sb": rng.random(150)})
    df.to_csv(tmp_path / "labels.csv", index=False)
    args = ("compare", tmp_path / "labels.csv", "--y-true", "y", "--a", a, "--b", b,
            "--metric", metric, "--n-resamples", "200", "--json")
    refused = run(*args)
    assert refused.exit_code == 2 and "--pos-label" in refused.output
    res = run(*args, "--pos-label", "dog")
    assert res.exit_code == 0, res.output
    func = getattr(skm, metric if metric == "brier_score_loss" else f"{metric}_score")
    expected = (func(df.y == "dog", df[a]) if a == "sa" else func(df.y, df[a], pos_label="dog"))
    assert json.loads(res.stdout)["estimate_a"] == pytest.approx(expected, abs=1e-12)

@pytest.mark.parametrize("source", ["cv.csv", "cv.parquet", "cv.json"])
def test_select_cv_results_json_equals_table_ddof1(files, source):
    payload = json.loads(run("select", files / source, "--precision", "3", "--json").stdout)
    cv = pd.read_csv(files / "cv.csv")
    folds = cv[[f"split{k}_test_score" for k in range(5)]].to_numpy()
    by_index = {r["index"]: r for r in payload["ranking"]}
    assert sorted(by_index) == [0, 1, 2]
    # params saved as text (CSV, JSON) are read back as literals, as Parquet keeps them
    assert [by_index[i]["configuration"] for i in range(3)] == \
        ["max_depth=1", "max_depth=2", "max_depth=4"]
    for i, row in enumerate(folds):
        rec = by_index[i]
        assert rec["std"] == pytest.approx(np.std(row, ddof=1))
        dart = (1 + np.log2(row.mean())) / np.exp(3 * np.std(row, ddof=1))
        assert rec["dart"] == pytest.approx(dart)
    res = run("select", files / source, "--precision", "3")
    ranking, intervals = res.stdout.split("fold-bootstrap intervals")
    assert_table_equals_json(ranking, payload["ranking"], key="configuration",
                             columns=("mean", "std", "dart", "p_best"))
    for rec in payload["ranking"]:
        cells = {r[0]: r for r in table_rows(intervals)}[rec["configuration"]]
        assert cells[1:] == [f"[{rec['mean_low']:.4f}, {rec['mean_high']:.4f}]",
                             f"[{rec['dart_low']:.4f}, {rec['dart_high']:.4f}]"]
    # the same seed gives the same replicates; another seed other ones
    assert json.loads(run("select", files / source, "--precision", "3", "--json").stdout) \
        == payload
    other = json.loads(run("select", files / source, "--precision", "3", "--seed", "1",
                           "--json").stdout)
    assert [r["p_best"] for r in other["ranking"]] != [r["p_best"] for r in payload["ranking"]]


def test_select_reads_numpy_scalar_params_back_from_csv(tmp_path):
    # numpy >= 2 writes RandomizedSearchCV params as "{'C': np.float64(0.5)}"; they were
    # kept as text and labelled by the raw dict repr
    cv = pd.DataFrame({"params": [{"C": np.float64(0.5), "fit": np.True_},
                                  {"C": np.float64(2.0), "fit": np.False_}],
                       "split0_test_score": [0.8, 0.9], "split1_test_score": [0.82, 0.88]})
    cv.to_csv(tmp_path / "random.csv", index=False)
    payload = json.loads(run("select", tmp_path / "random.csv", "--json").stdout)
    assert sorted(r["configuration"] for r in payload["ranking"]) == \
        ["C=0.5, fit=True", "C=2.0, fit=False"]

def test_select_wide_table_saved_with_its_default_index(tmp_path):
    # DataFrame.to_csv writes the row numbers 0, 1 under a blank header; they were read
    # as one more fold (scores 0 and 1) and reversed the ranking
    folds = pd.DataFrame([[0.9, 0.8, 0.85], [0.7, 0.75, 0.72]])
    folds.to_csv(tmp_path / "folds.csv")
    payload = json.loads(run("select", tmp_path / "folds.csv", "--json").stdout)
    by_name = {r["configuration"]: r for r in payload["ranking"]}
    assert by_name["0"]["rank"] == 1
    assert by_name["0"]["mean"] == pytest.approx(0.85)
    assert by_name["1"]["std"] == pytest.approx(np.std([0.7, 0.75, 0.72], ddof=1))
    # the same reader feeds audit/profile: row numbers must not become a feature
    from dartboard.cli._io import read_table as _read_table
    pd.DataFrame({"f0": [0.1, 0.2], "label": ["a", "b"]}).to_csv(tmp_path / "train.csv")
    assert list(_read_table(str(tmp_path / "train.csv")).columns) == ["f0", "label"]

def test_select_wide_fold_table_with_sweep(files):
    payload = json.loads(run("select", files / "folds.csv", "--precision", "0", "--sweep",
                             "--json").stdout)
    assert [r["configuration"] for r in payload["ranking"]] == ["deep", "shallow"]
    assert [w["configuration"] for w in payload["winners"]] == ["deep", "shallow"]
    assert payload["crossings"][0]["p"] == pytest.approx(0.2649, abs=1e-4)
    res = run("select", files / "folds.csv", "--precision", "0", "--sweep")
    assert "winner by precision" in res.stdout


def test_audit_json_equals_table(files):
    args = ("audit", files / "train.csv", "--target", "target", "--model",
            "sklearn.tree.DecisionTreeClassifier", "--params", '{"max_depth": 3}',
            "--n-estimators", "5", "--group", "grp")
    res = run(*args, "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    summary = {r["quantity"]: r["value"] for r in payload["summary"]}
    assert summary["n_models"] == 5 and 0 <= summary["label_stability"] <= 1
    assert {r["group"] for r in payload["by_group"]} == {"big", "small"}
    table = run(*args)
    rows = {r[0]: r[1] for r in table_rows(table.stdout)}
    for quantity, value in summary.items():
        expected = str(value) if isinstance(value, int) else f"{value:.4f}"
        assert rows[quantity] == expected


def test_profile_json_and_table(files):
    args = ("profile", files / "train.parquet", "--target", "target", "--model",
            "sklearn.tree.DecisionTreeClassifier", "--params", '{"max_depth": 3}',
            "--repeats", "2")
    payload = json.loads(run(*args, "--json").stdout)
    assert payload["fit_time"] > 0 and payload["model_size"] > 0 and payload["repeats"] == 2
    assert payload["n_train"] == 168 and payload["n_test"] == 72
    rows = {r[0]: r[1] for r in table_rows(run(*args).stdout)}
    assert rows["n_train"] == "168" and rows["repeats"] == "2"


def test_audit_names_the_group_column(files):
    args = ("audit", files / "train.csv", "--target", "target", "--model",
            "sklearn.tree.DecisionTreeClassifier", "--params", '{"max_depth": 3}',
            "--n-estimators", "3", "--group", "grp")
    table = run(*args).stdout
    header = next(line for line in table.splitlines() if "┃" in line and "metric" in line)
    assert [c.strip() for c in header.split("┃")][:3] == ["grp", "n", "metric"]
    assert "attribute" not in table and "group" not in header
    payload = json.loads(run(*args, "--json").stdout)
    assert {r["attribute"] for r in payload["by_group"]} == {"grp"}


def test_profile_prints_units_and_drops_columns(files, tmp_path):
    train = pd.read_csv(files / "train.csv")
    train["id"] = [f"row{i}" for i in range(len(train))]
    train.to_csv(tmp_path / "train.csv", index=False)
    args = ("profile", tmp_path / "train.csv", "--target", "target", "--model",
            "sklearn.tree.DecisionTreeClassifier", "--repeats", "1")
    refused = run(*args)
    assert refused.exit_code == 2
    assert "not numeric in" in refused.output and "--drop grp --drop id" in refused.output
    res = run(*args, "--drop", "grp", "--drop", "id")
    assert res.exit_code == 0, res.output
    units = {r[0]: r[2] for r in table_rows(res.stdout)}
    assert units["fit_time"] == units["predict_time"] == "s"
    assert units["fit_peak_python"] == units["model_size"] == "bytes"
    assert units["throughput"] == "rows/s" and units["n_train"] == "rows"
    assert run(*args, "--drop", "nope").output.startswith("error: column 'nope' (--drop)")
    assert "never a feature" in run(*args, "--drop", "target").output


def test_grouped_regression_table_keeps_its_group_column(files):
    # the long regression metric names made the table wider than the console, which
    # squeezed the group column to nothing and cut the numbers
    res = run("evaluate", files / "preds.csv", "--y-true", "yr", "--y-pred", "yhat",
              "--task", "regression", "--group", "g", "--n-resamples", "100")
    assert res.exit_code == 0, res.output
    payload = json.loads(run("evaluate", files / "preds.csv", "--y-true", "yr", "--y-pred",
                             "yhat", "--task", "regression", "--group", "g",
                             "--n-resamples", "100", "--json").stdout)
    rows = {(r[0], r[2]): r for r in table_rows(res.stdout) if r[0] in ("u", "v")}
    assert len(rows) == len(payload["groups"])
    for row in payload["groups"]:
        cells = rows[(row["group"], row["metric"])]
        assert cells[1] == str(row["n"])
        assert float(cells[3].replace(",", "")) == pytest.approx(row["estimate"], abs=0.005)


def test_help_shows_whole_command_summaries():
    for width in (60, 80, 200):
        res = runner.invoke(app, ["--help"], terminal_width=width)
        commands = res.output.split("Commands:")[1]
        assert res.exit_code == 0 and "..." not in commands, res.output
    text = " ".join(run("--help").output.split())
    assert ("select, test, audit, profile and evaluate models on data that ships with "
            "scikit-learn; write report.html and results.json.") in text


def test_evaluate_help_lists_every_interval_method():
    from dartboard._kernels._methods import METHODS

    text = " ".join(run("evaluate", "--help").output.split())
    # every method of dartboard.interval, from the one list (rewrapped lines rejoined)
    listed = text.split("Interval method:")[1].split(".")[0].replace("- ", "-")
    assert [m.strip() for m in listed.replace(" or ", ", ").split(",")] == list(METHODS)


def test_cli_help_loads_no_scientific_library():
    import subprocess
    import sys

    code = ("import sys; from dartboard.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(m for m in ('scipy', 'sklearn', 'pandas', 'matplotlib') "
            "if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, "evaluate", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert "delong-logit" in out.stdout and out.stderr.strip() == ""


def test_report_from_saved_results(files, tmp_path):
    df = pd.read_csv(files / "preds.csv")
    section = evaluate_predictions(df.y, y_score=df.score, n_resamples=200).to_dict()
    saved = write_json({"classification": section}, tmp_path / "results.json")
    out = tmp_path / "report.html"
    res = run("report", saved, "-o", out)
    assert res.exit_code == 0, res.output
    assert 'data-figure="roc"' in out.read_text()


# ---------------------------------------------------------------- bad input

BAD = [
    ("missing file", ["evaluate", "{d}/nope.csv", "--y-true", "y", "--y-pred", "pred"],
     "does not exist"),
    ("missing column", ["evaluate", "{d}/preds.csv", "--y-true", "nope", "--y-pred", "pred"],
     "column 'nope' (--y-true) not found"),
    ("corrupt parquet", ["evaluate", "{d}/corrupt.parquet", "--y-true", "y", "--y-pred",
                         "pred"], "cannot read Parquet file"),
    ("non-numeric score", ["evaluate", "{d}/preds.csv", "--y-true", "y", "--y-score", "text"],
     "column 'text' (--y-score) must be numeric"),
    ("two score kinds", ["evaluate", "{d}/preds.csv", "--y-true", "y", "--y-score", "score",
                         "--proba", "score"], "give --y-score or --proba, not both"),
    ("bad task", ["evaluate", "{d}/preds.csv", "--y-true", "y", "--y-pred", "pred", "--task",
                  "ranking"], "--task must be one of"),
    ("bad interval method", ["evaluate", "{d}/preds.csv", "--y-true", "y", "--y-pred", "pred",
                             "--ci", "magic"], "magic"),
    ("streamed target without a criterion", ["evaluate", "{d}/parts", "--y-true", "y",
                                             "--y-score", "score", "--threshold-target", "0.9"],
     "threshold_target needs threshold_criterion"),
    ("header-only CSV", ["evaluate", "{d}/header_only.csv", "--y-true", "y", "--y-score",
                         "score"], "has no rows"),
    ("header-only training data", ["audit", "{d}/header_only.csv", "--target", "y",
                                   "--model", "sklearn.tree.DecisionTreeClassifier"],
     "has no rows"),
    ("demo into a file", ["demo", "--quick", "--out", "{d}/preds.csv"], "is a file"),
    ("unknown metric", ["compare", "{d}/preds.csv", "--y-true", "y", "--a", "pred", "--b",
                        "pred_b", "--metric", "awesomeness"], "unknown metric 'awesomeness'"),
    ("unknown cv metric", ["select", "{d}/cv.csv", "--metric", "f1"], "metric 'f1'"),
    ("bad JSON params", ["audit", "{d}/train.csv", "--target", "target", "--model",
                         "sklearn.linear_model.LogisticRegression", "--params", "{C: 1}"],
     "--params is not valid JSON"),
    ("params not accepted", ["profile", "{d}/train.csv", "--target", "target", "--model",
                             "sklearn.linear_model.LogisticRegression", "--params",
                             '{"wings": 2}'], "--params do not fit LogisticRegression"),
    ("unknown model class", ["audit", "{d}/train.csv", "--target", "target", "--model",
                             "sklearn.linear_model.NoSuchModel"], "has no 'NoSuchModel'"),
    ("unknown model module", ["profile", "{d}/train.csv", "--target", "target", "--model",
                              "sklearn.nosuchpackage.Model"],
     "cannot import module 'sklearn.nosuchpackage'"),
    ("not an estimator", ["audit", "{d}/train.csv", "--target", "target", "--model",
                          "sklearn.metrics.accuracy_score"],
     "must name an estimator class with a fit method"),
    ("transformer, not an estimator", ["audit", "{d}/train.csv", "--target", "target",
                                       "--model", "sklearn.preprocessing.StandardScaler"],
     "must name an estimator class with a fit method and predict or predict_proba"),
    ("model outside the allowed modules", ["audit", "{d}/train.csv", "--target", "target",
                                           "--model", "json.JSONDecoder"],
     "module 'json' is not allowed"),
    ("allowed prefix is a whole module name", ["audit", "{d}/train.csv", "--target",
                                               "target", "--model", "sklearnx.Model"],
     "module 'sklearnx' is not allowed"),
    ("report into a directory", ["evaluate", "{d}/preds.csv", "--y-true", "y", "--y-score",
                                 "score", "--report", "{d}"], "is a directory"),
    ("demo into an unwritable place", ["demo", "--quick", "--out", "{d}/preds.csv/sub"],
     "is not a writable directory"),
    # issue 16: probability columns that do not sum to 1 gave an AUC (0.148), exit 0
    ("probabilities not summing to 1", ["evaluate", "{d}/preds.csv", "--y-true", "y",
                                        "--proba", "score", "--proba", "score"],
     "proba rows must sum to 1"),
    # issue 16: a nested Parquet column leaked "unhashable type: 'numpy.ndarray'"
    ("nested parquet column", ["evaluate", "{d}/nested.parquet", "--y-true", "y", "--y-pred",
                               "p"], "column 'p' (--y-pred) in"),
    # issue 16: a hand-edited results.json leaked "'NoneType' object is not iterable"
    ("hand-edited results", ["report", "{d}/edited.json", "-o", "{out}"],
     "'classification' needs the field 'metrics'"),
    ("missing target", ["audit", "{d}/train.csv", "--target", "label", "--model",
                        "sklearn.linear_model.LogisticRegression"], "column 'label'"),
    ("not results", ["report", "{d}/preds.csv", "-o", "{out}"], "not valid JSON"),
    ("incomplete results", ["report", "{d}/incomplete.json", "-o", "{out}"],
     "'selection' needs the field 'ranking'"),
    ("unknown option", ["evaluate", "{d}/preds.csv", "--y-true", "y", "--frobnicate"],
     "No such option"),
    ("report into a missing directory", ["report", "{d}/incomplete.json", "-o",
                                         "{out}/../typo/report.html"], "does not exist"),
]


@pytest.mark.parametrize("case, args, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_exit_2_one_line_no_traceback_no_file(files, tmp_path, case, args, message):
    out = tmp_path / "out.html"
    argv = [a.replace("{d}", str(files)).replace("{out}", str(out)) for a in args]
    if argv[0] == "evaluate" and "--frobnicate" not in argv and "--report" not in argv:
        argv += ["--report", str(out)]
    res = runner.invoke(app, argv)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert message in lines[0]
    assert "Traceback" not in res.output
    assert res.stdout == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_streamed_and_single_file_agree_on_string_labels(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.choice(["cat", "dog"], 400)
    pred = np.where(rng.random(400) < 0.8, y, rng.choice(["cat", "dog"], 400))
    frame = pd.DataFrame({"y": y, "pred": pred})
    frame.to_csv(tmp_path / "one.csv", index=False)
    (tmp_path / "parts").mkdir()
    frame.iloc[:150].to_parquet(tmp_path / "parts" / "a.parquet")
    frame.iloc[150:].to_parquet(tmp_path / "parts" / "b.parquet")
    outputs = []
    for source in ("one.csv", "parts"):
        res = run("evaluate", tmp_path / source, "--y-true", "y", "--y-pred", "pred", "--json",
                  "--n-resamples", "100", "--pos-label", "dog")
        assert res.exit_code == 0, res.output
        outputs.append({m["metric"]: m["estimate"] for m in json.loads(res.stdout)["metrics"]})
    for name in ("accuracy", "precision", "recall", "f1"):
        assert outputs[0][name] == pytest.approx(outputs[1][name], rel=1e-12), name
    assert outputs[0]["f1"] == pytest.approx(skm.f1_score(y, pred, pos_label="dog"))


def test_select_chance_level_moves_the_numerators_zero(tmp_path):
    from dartboard import dart_rank

    folds = pd.DataFrame({"config": ["a", "b"], "f0": [0.40, 0.45], "f1": [0.42, 0.30],
                          "f2": [0.44, 0.50]})
    folds.to_csv(tmp_path / "folds.csv", index=False)
    res = run("select", tmp_path / "folds.csv", "--chance-level", str(1 / 3), "--json")
    assert res.exit_code == 0, res.output
    got = {r["configuration"]: r["dart"] for r in json.loads(res.stdout)["ranking"]}
    want = dart_rank({"a": [0.40, 0.42, 0.44], "b": [0.45, 0.30, 0.50]}, 2.0,
                     chance_level=1 / 3).set_index("configuration")["dart"]
    assert got == pytest.approx(want.to_dict(), rel=1e-12)
    assert min(got.values()) > 0  # above a three-class chance, negative at the default 0.5
    bad = run("select", tmp_path / "folds.csv", "--chance-level", "1.5")
    assert bad.exit_code == 2 and "chance_level" in bad.stderr


@pytest.mark.parametrize("truth", ["y", "y3"])
def test_streamed_and_in_memory_evaluate_report_the_same_metrics(files, tmp_path, truth):
    # one default set of metrics and one label per metric, whether the file is read
    # whole or streamed (multiclass averages are labelled as such in both)
    df = pd.read_csv(files / "preds.csv")
    pred = df["pred"] if truth == "y" else \
        np.array(["a", "b", "c"])[df[["pa", "pb", "pc"]].to_numpy().argmax(1)]
    frame = pd.DataFrame({"t": df[truth], "p": pred})
    frame.to_csv(tmp_path / "labels.csv", index=False)
    (tmp_path / "parts").mkdir()
    frame.iloc[:100].to_parquet(tmp_path / "parts" / "a.parquet")
    frame.iloc[100:].to_parquet(tmp_path / "parts" / "b.parquet")
    common = ("--y-true", "t", "--y-pred", "p", "--json", "--n-resamples", "200")
    whole = json.loads(run("evaluate", tmp_path / "labels.csv", *common).stdout)
    streamed = json.loads(run("evaluate", tmp_path / "parts", *common).stdout)
    assert streamed["task"] == whole["task"] == ("binary" if truth == "y" else "multiclass")
    in_memory = {m["metric"]: m["estimate"] for m in whole["metrics"]}
    from_states = {m["metric"]: m["estimate"] for m in streamed["metrics"]}
    assert list(from_states) == list(in_memory)
    for name, value in in_memory.items():
        assert from_states[name] == pytest.approx(value, rel=1e-12), name


# ---------------------------------------------------------------- issue 16: hostile use

def _cli(*args, env_path=None, **kw):
    """The real command line in a fresh interpreter (imports and signals as a user has
    them)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    paths = [p for p in (env_path, env.get("PYTHONPATH")) if p]
    env["PYTHONPATH"] = os.pathsep.join(map(str, paths))
    return subprocess.Popen([sys.executable, "-c", "from dartboard.cli import main; main()",
                             *map(str, args)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.parametrize("command", ["audit", "profile"])
def test_model_outside_the_allowlist_is_never_imported(files, tmp_path, command):
    # issue 16: `--model some.module.Name` imported the module before any check
    marker = tmp_path / "imported"
    (tmp_path / "planted.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "class Model:\n    def fit(self, X, y): return self\n"
        "    def predict(self, X): return X[:, 0]\n")
    proc = _cli(command, files / "train.csv", "--target", "target", "--model",
                "planted.Model", env_path=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert err.strip().splitlines() == [err.strip()] and "not allowed" in err
    assert "--allow-module planted" in err
    assert not marker.exists()
    assert out == ""


def test_model_this_prints_no_zen(files):
    # issue 16: `--model this.X` printed the Zen of Python
    proc = _cli("audit", files / "train.csv", "--target", "target", "--model", "this.X")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert "Zen" not in out + err and "Beautiful is better" not in out + err
    assert err.startswith("error: --model 'this.X': module 'this' is not allowed")


def test_allow_module_is_the_only_way_in(files, tmp_path, monkeypatch):
    """A prefix named with --allow-module is imported and used; the class must still be
    an estimator."""
    marker = tmp_path / "imported"
    (tmp_path / "trusted_models.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "from sklearn.tree import DecisionTreeClassifier as Tree\n"
        "class Half:\n    def fit(self, X, y): return self\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    base = ["profile", str(files / "train.parquet"), "--target", "target", "--repeats", "1",
            "--allow-module", "trusted_models", "--json"]
    res = runner.invoke(app, base + ["--model", "trusted_models.Tree"])
    assert res.exit_code == 0, res.output
    assert marker.exists() and json.loads(res.stdout)["model"] == "trusted_models.Tree"
    res = runner.invoke(app, base + ["--model", "trusted_models.Half"])
    assert res.exit_code == 2 and "predict or predict_proba" in res.stderr


def test_internal_error_exit_1_one_line_and_traceback_with_debug(files, monkeypatch):
    # issue 16: an internal TypeError was reported as bad input (exit 2)
    import dartboard.evaluation

    def broken(*args, **kwargs):
        return sorted([None, 1])  # a bug: TypeError from an operation, not a check

    monkeypatch.setattr(dartboard.evaluation, "evaluate", broken)
    argv = ["evaluate", str(files / "preds.csv"), "--y-true", "y", "--y-score", "score"]
    res = runner.invoke(app, argv)
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("internal error: TypeError: ")
    assert "--debug" in lines[0] and "Traceback" not in res.stderr
    res = runner.invoke(app, argv + ["--debug"])
    assert res.exit_code == 1
    assert "Traceback" in res.stderr and "in broken" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("internal error: TypeError: ")


def test_existing_path_is_a_file_before_a_glob(tmp_path):
    # issue 16: a CSV named with [, ], * or ? was taken for a Parquet glob
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    s = np.clip(0.4 * y + 0.6 * rng.random(60), 0, 1)
    for name in ("run[1].csv", "a*b?.csv"):
        pd.DataFrame({"y": y, "s": s}).to_csv(tmp_path / name, index=False)
        res = runner.invoke(app, ["evaluate", str(tmp_path / name), "--y-true", "y",
                                  "--y-score", "s", "--json", "--n-resamples", "50"])
        assert res.exit_code == 0, res.output
        auc = next(m for m in json.loads(res.stdout)["metrics"] if m["metric"] == "roc_auc")
        assert auc["estimate"] == pytest.approx(skm.roc_auc_score(y, s))


@pytest.mark.parametrize("fail_at", ["write", "rename"])
def test_a_pair_of_files_appears_whole_or_not_at_all(tmp_path, monkeypatch, fail_at):
    # issue 16: an interrupted demo could leave results.json without report.html
    import os

    from dartboard.report import _write

    calls = {"n": 0}
    real_replace, real_chmod = os.replace, os.chmod

    def second_fails(real):
        def wrapped(*args):
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt if fail_at == "write" else OSError("disk full")
            return real(*args)
        return wrapped

    if fail_at == "write":
        monkeypatch.setattr(_write.os, "chmod", second_fails(real_chmod))
    else:
        monkeypatch.setattr(_write.os, "replace", second_fails(real_replace))
    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises((KeyboardInterrupt, OSError)):
        _write.write_texts_atomic({tmp_path / "results.json": "{}",
                                    tmp_path / "report.html": "<html>"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    monkeypatch.undo()
    _write.write_texts_atomic({tmp_path / "results.json": "{}",
                                tmp_path / "report.html": "<html>"})
    assert (tmp_path / "report.html").read_text() == "<html>"


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"),
                    reason="reads the caught-signal mask from /proc")
@pytest.mark.parametrize("signame, code, message", [("SIGINT", 130, "interrupted"),
                                                    ("SIGTERM", 143, "terminated")])
def test_signal_during_evaluate_report_leaves_nothing(tmp_path, signame, code, message):
    # issue 16: SIGTERM could leave a hidden .out.html.XXXX.tmp; Ctrl-C said nothing
    import signal
    import time

    rng = np.random.default_rng(4)
    n = 5000
    y = rng.integers(0, 2, n)
    pd.DataFrame({"y": y, "s": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)}).to_csv(
        tmp_path / "big.csv", index=False)
    out = tmp_path / "out.html"
    # --ci bca: resampled rows keep the command busy (auto's intervals are now formulas)
    proc = _cli("evaluate", tmp_path / "big.csv", "--y-true", "y", "--y-score", "s",
                "--ci", "bca", "--n-resamples", "200000", "--report", out)
    deadline = time.monotonic() + 60
    while not _catches(proc.pid, signal.SIGTERM):  # the command is running
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(getattr(signal, signame))
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == code, stderr
    assert stderr.strip() == message and stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.csv"]


def _catches(pid, signum):
    """Whether process ``pid`` has a Python handler for ``signum`` (SigCgt mask)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            mask = next(line for line in status if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return False
    return bool(int(mask.split()[1], 16) >> (signum - 1) & 1)
