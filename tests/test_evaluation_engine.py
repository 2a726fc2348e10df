"""The evaluation engine: every row equals the public metric (scikit-learn or a plain
formula as the oracle) with the interval ``dartboard.interval`` gives for the method
the registry implies; labels 0/1, -1/1 and strings; scores, probabilities and labels;
multiclass, regression and groups; thinned curves keep their ends; and the faces
(report, plots) compute nothing."""

import ast
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm

import dartboard
from dartboard import interval
from dartboard.evaluation import (
    TASKS,
    EvaluationResult,
    calibration_points,
    infer_task,
)
from dartboard.evaluation._engine import evaluate_predictions
from dartboard.evaluation._points import thin
from dartboard.metrics._registry import get_spec, specs

SRC = Path(dartboard.__file__).parent


def section(y_true, **kwargs):
    """The JSON section the CLI and the demo save."""
    return evaluate_predictions(y_true, **kwargs).to_dict()


# ---------------------------------------------------------------- moved from test_report

def test_binary_scores_match_sklearn(binary_data):
    y, proba = binary_data
    sec = section(y, y_score=proba, n_resamples=300)
    values = {m["metric"]: m for m in sec["metrics"]}
    pred = (proba >= 0.5).astype(int)
    oracle = {"accuracy": skm.accuracy_score(y, pred), "precision": skm.precision_score(y, pred),
              "recall": skm.recall_score(y, pred), "f1": skm.f1_score(y, pred),
              "matthews_corrcoef": skm.matthews_corrcoef(y, pred),
              "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
              "roc_auc": skm.roc_auc_score(y, proba),
              "average_precision": skm.average_precision_score(y, proba),
              "log_loss": skm.log_loss(y, proba), "brier_score_loss":
              skm.brier_score_loss(y, proba)}
    for name, expected in oracle.items():
        assert values[name]["estimate"] == pytest.approx(expected, abs=1e-12), name
        assert values[name]["low"] <= values[name]["estimate"] <= values[name]["high"], name
    assert values["accuracy"]["method"] == "wilson" and values["roc_auc"]["method"] == "delong"
    np.testing.assert_array_equal(sec["confusion"]["matrix"], skm.confusion_matrix(y, pred))
    fpr, tpr, _ = skm.roc_curve(y, proba)
    np.testing.assert_allclose(sec["roc"]["fpr"], fpr, atol=1e-6)
    np.testing.assert_allclose(sec["roc"]["tpr"], tpr, atol=1e-6)


@pytest.mark.parametrize("labels", [("cat", "dog"), (1, 2)])
def test_binary_section_with_labels_other_than_0_1(binary_data, labels):
    # string labels crashed (positive.item()) and the score metrics that take pos_label
    # (average precision, PR AUC, Brier) kept sklearn's default pos_label=1
    y01, proba = binary_data
    y = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[y01]
    with pytest.raises(ValueError, match="which one is the positive class .* pos_label="):
        section(y, y_score=proba, n_resamples=100)  # not guessed: say which one
    sec = section(y, y_score=proba, n_resamples=100, pos_label=labels[1])
    assert sec["positive_label"] == labels[1]
    values = {m["metric"]: m["estimate"] for m in sec["metrics"]}
    pos = y == labels[1]
    pred = np.where(proba >= 0.5, labels[1], labels[0])
    oracle = {"f1": skm.f1_score(y, pred, pos_label=labels[1]),
              "roc_auc": skm.roc_auc_score(pos, proba),
              "average_precision": skm.average_precision_score(pos, proba),
              "brier_score_loss": skm.brier_score_loss(pos, proba),
              "log_loss": skm.log_loss(pos, proba)}
    for name, expected in oracle.items():
        assert values[name] == pytest.approx(expected, abs=1e-12), name
    assert section(y, y_pred=pred, n_resamples=100, pos_label=labels[1])["positive_label"] \
        == labels[1]

def test_multiclass_proba_and_groups():
    rng = np.random.default_rng(5)
    y = rng.choice(["x", "y", "z"], 240)
    proba = rng.dirichlet([1, 1, 1], 240)
    proba[np.arange(240), np.searchsorted(["x", "y", "z"], y)] += 0.3
    proba /= proba.sum(1, keepdims=True)
    groups = rng.choice(["g1", "g2"], 240)
    sec = section(y, y_proba=proba, n_resamples=200, groups=groups)
    assert sec["task"] == "multiclass"
    values = {m["metric"]: m["estimate"] for m in sec["metrics"]}
    pred = np.array(["x", "y", "z"])[proba.argmax(1)]
    assert values["f1_macro"] == pytest.approx(skm.f1_score(y, pred, average="macro"))
    assert values["roc_auc"] == pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovr"))
    g1 = [r for r in sec["groups"] if r["group"] == "g1" and r["metric"] == "accuracy"][0]
    mask = groups == "g1"
    assert g1["n"] == mask.sum()
    assert g1["estimate"] == pytest.approx(skm.accuracy_score(y[mask], pred[mask]))


def test_regression_matches_sklearn():
    rng = np.random.default_rng(2)
    y = rng.normal(10, 2, 150)
    pred = y + rng.normal(0, 1, 150)
    sec = section(y, y_pred=pred, task="regression", n_resamples=300)
    values = {m["metric"]: m["estimate"] for m in sec["metrics"]}
    assert values["mean_absolute_error"] == pytest.approx(skm.mean_absolute_error(y, pred))
    assert values["r2"] == pytest.approx(skm.r2_score(y, pred))
    assert values["median_absolute_error"] == pytest.approx(skm.median_absolute_error(y, pred))
    np.testing.assert_allclose(sec["errors"], np.sort(y - pred), atol=1e-6)


def test_infer_task():
    assert infer_task([0, 1, 1], y_pred=[1, 1, 0]) == "binary"
    assert infer_task([0, 1, 2], y_pred=[1, 1, 0]) == "multiclass"
    assert infer_task([0.5, 1.2, 3.0], y_pred=[1.0, 1.1, 2.9]) == "regression"
    assert infer_task([0, 1], y_score=[0.3, 0.6]) == "binary"


def test_bad_input_is_a_clear_error(binary_data):
    y, proba = binary_data
    with pytest.raises(ValueError, match="give y_score .* or y_proba .*, not both"):
        section(y, y_score=proba, y_proba=np.column_stack([1 - proba, proba]))
    with pytest.raises(ValueError, match="give y_pred .*, y_score .* or y_proba"):
        section(y)
    with pytest.raises(ValueError, match="proba must have one column per class"):
        section(y, y_proba=np.ones((300, 3)) / 3)
    with pytest.raises(ValueError, match="y_score needs binary y_true"):
        section(np.arange(300) % 3, y_score=proba)


# ---------------------------------------------------------------- rows against oracles

def _binary_oracle(y, pred, score, pos, probabilities):
    """Each binary row's value from scikit-learn or a plain count."""
    t, p = y == pos, pred == pos
    prec, rec, _ = skm.precision_recall_curve(t, score)
    out = {"accuracy": skm.accuracy_score(y, pred),
           "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
           "precision": skm.precision_score(y, pred, pos_label=pos),
           "recall": skm.recall_score(y, pred, pos_label=pos),
           "specificity": np.mean(~p[~t]), "f1": skm.f1_score(y, pred, pos_label=pos),
           "matthews_corrcoef": skm.matthews_corrcoef(y, pred),
           "false_positive_rate": np.mean(p[~t]), "false_negative_rate": np.mean(~p[t]),
           "selection_rate": np.mean(p), "roc_auc": skm.roc_auc_score(t, score),
           "average_precision": skm.average_precision_score(t, score),
           "pr_auc": skm.auc(rec, prec)}
    if probabilities:
        out.update(log_loss=skm.log_loss(t, score), brier_score_loss=skm.brier_score_loss(t, score),
                   ece=_ece_loop(score, t))
    return out


def _ece_loop(conf, hit, n_bins=15):
    """torchmetrics' binned ECE as a loop: bins [b/15, (b+1)/15), p == 1 alone."""
    bins = {}
    for c, h in zip(conf, hit):
        bins.setdefault(int(np.floor(c * n_bins)), []).append((c, float(h)))
    return sum(abs(np.mean([h for _, h in rows]) - np.mean([c for c, _ in rows]))
               * len(rows) / len(conf) for rows in bins.values())


AUTO = "what dartboard.interval(method='auto') picks"


def _expected_method(spec, task, ci):
    """The interval method a row must carry: the asked one where it applies, else auto's
    choice (wilson for proportions, DeLong for binary AUC, BCa otherwise)."""
    if spec.default_interval is None:
        return "n/a (sample maximum)"
    # a macro average of proportions is not a proportion
    proportion = spec.proportion is not None and \
        (task == "binary" or "average" not in spec.multiclass)
    binary_auc = spec.name == "roc_auc_score" and task == "binary"
    if ci in ("wald", "wilson", "clopper-pearson", "agresti-coull", "jeffreys"):
        ci = ci if proportion else "auto"
    elif ci == "delong":
        ci = ci if binary_auc else "auto"
    if ci == "auto":
        # beyond proportions, auto's choice depends on the sample size (the registry's
        # auto_interval): _check_rows asks dartboard.interval for it
        bootstrap = spec.default_interval in ("percentile", "basic", "bca", "bin-pivot")
        return "wilson" if proportion else AUTO if spec.auto_interval else \
            spec.default_interval if bootstrap else "bca"
    return ci


def _check_rows(rows, oracle, task, y, inputs, kwargs_of, ci="auto", n_resamples=200):
    by_label = {s.table_label(task): s for s in specs(task=task)}
    assert {r.metric for r in rows} == set(oracle)
    for row in rows:
        spec = by_label[row.metric]
        assert row.estimate == pytest.approx(oracle[row.metric], abs=1e-12), row.metric
        expected = _expected_method(spec, task, ci)
        if expected == AUTO:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = interval(spec.function, y, inputs[spec.input], n_resamples=20,
                                    random_state=0, **kwargs_of(spec)).method
        assert row.method == expected, row.metric
        # n: a proportion's own denominator (x / n with x a whole count), else the rows
        proportion = spec.proportion is not None and \
            (task == "binary" or "average" not in spec.multiclass)
        if proportion and row.n != len(y):
            assert 0 <= row.n < len(y), row.metric
            assert row.estimate * row.n == pytest.approx(round(row.estimate * row.n),
                                                         abs=1e-9), row.metric
        else:
            assert row.n == len(y), row.metric
        if spec.default_interval is None:
            assert row.low is None and row.high is None
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            iv = interval(spec.function, y, inputs[spec.input], method=row.method,
                          n_resamples=n_resamples, random_state=0, **kwargs_of(spec))
        assert (row.low, row.high) == (iv.low, iv.high), row.metric
        assert row.low <= row.estimate <= row.high, row.metric


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), ("no", "yes")])
@pytest.mark.parametrize("ci", ["auto", "clopper-pearson", "delong", "percentile"])
def test_binary_rows_equal_metrics_and_interval(binary_data, labels, ci):
    y01, proba = binary_data
    y = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[y01]
    pos = labels[1]  # the greater label; other than 0/1 and -1/1 it must be named
    res = evaluate_predictions(y, y_score=proba, ci=ci, n_resamples=200,
                               pos_label=None if labels[0] in (0, -1) else pos)
    assert res.task == "binary" and res.positive_label == pos
    assert [r.metric for r in res.metrics] == [s.table_label("binary")
                                               for s in specs(task="binary")]
    pred = np.where(proba >= 0.5, pos, labels[0])
    _check_rows(res.metrics, _binary_oracle(y, pred, proba, pos, True), "binary", y,
                {"labels": pred, "scores": proba, "probabilities": proba},
                lambda s: {"pos_label": pos} if s.pos_label else {}, ci=ci)


def test_decision_scores_are_not_probabilities(binary_data):
    y01, proba = binary_data
    y = np.where(y01 == 1, 1, -1)
    score = 4 * proba - 2  # a decision function: labels at 0, no log loss, no calibration
    res = evaluate_predictions(y, y_score=score, n_resamples=200)
    pred = np.where(score >= 0, 1, -1)
    _check_rows(res.metrics, _binary_oracle(y, pred, score, 1, False), "binary", y,
                {"labels": pred, "scores": score},
                lambda s: {"pos_label": 1} if s.pos_label else {})
    assert res.calibration is None and res.roc is not None
    np.testing.assert_array_equal(res.confusion.matrix, skm.confusion_matrix(y, pred))


def test_probability_matrix_equals_positive_column(binary_data):
    y, proba = binary_data
    a = section(y, y_proba=np.column_stack([1 - proba, proba]), n_resamples=200)
    b = section(y, y_score=proba, n_resamples=200)
    # the same numbers; what was assumed to get them is said differently
    assert a.pop("assumptions")["labels"]["value"] == "argmax of y_proba"
    assert b.pop("assumptions")["threshold"]["value"] == 0.5
    assert a == b


def test_labels_only_report_the_label_metrics(binary_data):
    y, proba = binary_data
    pred = (proba >= 0.4).astype(int)
    res = evaluate_predictions(y, y_pred=pred, n_resamples=200)
    label_specs = [s for s in specs(task="binary") if s.input == "labels"]
    assert [r.metric for r in res.metrics] == [s.table_label("binary") for s in label_specs]
    oracle = {k: v for k, v in _binary_oracle(y, pred, proba, 1, False).items()
              if k in {r.metric for r in res.metrics}}
    _check_rows(res.metrics, oracle, "binary", y, {"labels": pred},
                lambda s: {"pos_label": 1} if s.pos_label else {})
    assert res.roc is None and res.pr is None and res.calibration is None


@pytest.fixture(scope="module")
def multiclass_data():
    rng = np.random.default_rng(5)
    y = rng.choice(["x", "y", "z"], 240)
    proba = rng.dirichlet([1, 1, 1], 240)
    proba[np.arange(240), np.searchsorted(["x", "y", "z"], y)] += 0.3
    proba /= proba.sum(1, keepdims=True)
    return y, proba, rng.choice(["g1", "g2"], 240)


@pytest.mark.parametrize("ci", ["auto", "wilson"])
def test_multiclass_rows_equal_metrics_and_interval(multiclass_data, ci):
    # ci="wilson" failed on the macro averages (not proportions) instead of giving
    # them their default
    y, proba, _ = multiclass_data
    classes = np.array(["x", "y", "z"])
    pred = classes[proba.argmax(1)]
    res = evaluate_predictions(y, y_proba=proba, ci=ci, n_resamples=200)
    assert res.task == "multiclass" and res.positive_label is None
    oracle = {"accuracy": skm.accuracy_score(y, pred),
              "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
              "precision_macro": skm.precision_score(y, pred, average="macro"),
              "recall_macro": skm.recall_score(y, pred, average="macro"),
              "f1_macro": skm.f1_score(y, pred, average="macro"),
              "matthews_corrcoef": skm.matthews_corrcoef(y, pred),
              "cohen_kappa": skm.cohen_kappa_score(y, pred),
              "roc_auc": skm.roc_auc_score(y, proba, multi_class="ovr"),
              "log_loss": skm.log_loss(y, proba, labels=classes),
              "ece": _ece_loop(proba.max(1), pred == y)}

    def kwargs_of(spec):
        kw = dict(spec.multiclass)
        if spec.input == "probabilities":
            kw["labels"] = classes
        return kw

    _check_rows(res.metrics, oracle, "multiclass", y,
                {"labels": pred, "scores": proba, "probabilities": proba}, kwargs_of, ci=ci)
    np.testing.assert_array_equal(res.confusion.matrix, skm.confusion_matrix(y, pred))


def test_group_rows_equal_the_rows_of_each_group(multiclass_data):
    y, proba, groups = multiclass_data
    whole = evaluate_predictions(y, y_proba=proba, n_resamples=200, groups=groups)
    for g in ("g1", "g2"):
        mask = groups == g
        alone = evaluate_predictions(y[mask], y_proba=proba[mask], n_resamples=200)
        rows = [r for r in whole.groups if r.group == g]
        assert [r.metric for r in rows] == [r.metric for r in alone.metrics]
        for row, ref in zip(rows, alone.metrics):
            assert row.n == mask.sum() == ref.n
            assert (row.estimate, row.low, row.high, row.method) == \
                (ref.estimate, ref.low, ref.high, ref.method)
    assert [r["group"] for r in whole.to_dict()["groups"]][0] == "g1"


@pytest.mark.parametrize("ci", ["auto", "percentile", "wilson"])
def test_regression_rows_equal_metrics_and_interval(ci):
    rng = np.random.default_rng(2)
    y = rng.normal(10, 2, 150)
    pred = y + rng.normal(0, 1, 150)
    e = y - pred
    res = evaluate_predictions(y, y_pred=pred, ci=ci, n_resamples=200)
    assert res.task == "regression"
    oracle = {"mean_absolute_error": skm.mean_absolute_error(y, pred),
              "mean_squared_error": skm.mean_squared_error(y, pred),
              "root_mean_squared_error": skm.root_mean_squared_error(y, pred),
              "r2": skm.r2_score(y, pred),
              "explained_variance": skm.explained_variance_score(y, pred),
              "mean_absolute_percentage_error": skm.mean_absolute_percentage_error(y, pred),
              "weighted_mean_absolute_percentage_error": np.abs(e).sum() / np.abs(y).sum(),
              "median_absolute_error": skm.median_absolute_error(y, pred),
              "median_absolute_deviation": np.median(np.abs(e - np.median(e))),
              "max_error": skm.max_error(y, pred)}
    _check_rows(res.metrics, oracle, "regression", y, {"values": pred}, lambda s: {}, ci=ci)
    summary = dict(res.errors.summary)
    assert summary["error quantile 0.5"] == pytest.approx(np.median(e))
    assert summary["90% of absolute errors are below"] == pytest.approx(
        np.quantile(np.abs(e), 0.9))


def test_calibration_points_equal_sklearn_with_string_labels(binary_data):
    from sklearn.calibration import calibration_curve

    y01, proba = binary_data
    y = np.array(["neg", "pos"])[y01]
    cal = evaluate_predictions(y, y_score=proba, n_resamples=100, pos_label="pos").calibration
    # the report's bins are calibration_error's, so the figure and its ECE agree
    from dartboard.metrics._calibration import DEFAULT_N_BINS

    prob_true, prob_pred = calibration_curve(y01, proba, n_bins=DEFAULT_N_BINS)
    np.testing.assert_allclose(cal.prob_true, prob_true, rtol=1e-12)
    np.testing.assert_allclose(cal.prob_pred, prob_pred, rtol=1e-12)
    assert sum(cal.counts) == len(y)
    assert cal.to_dict() == calibration_points(y, proba, pos_label="pos")


# ---------------------------------------------------------------- points, result, tasks

def test_thinning_keeps_the_ends_and_bounds_the_size():
    kept = thin(np.arange(1000.0), np.arange(1000.0) ** 2)
    assert len(kept[0]) <= 400 and kept[0][0] == 0 and kept[0][-1] == 999
    assert kept[1][-1] == 999.0 ** 2 and np.all(np.diff(kept[0]) > 0)
    assert thin(np.array([0.1234567, 1.0])) == [[0.123457, 1.0]]  # short: all kept
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 3000)
    score = rng.normal(size=3000) + y  # decision scores: no resampled probability losses
    res = evaluate_predictions(y, y_score=score, n_resamples=50)
    assert len(res.roc.fpr) <= 400 and len(res.pr.recall) <= 400
    assert (res.roc.fpr[0], res.roc.tpr[0], res.roc.fpr[-1], res.roc.tpr[-1]) == (0, 0, 1, 1)
    precision, recall, _ = skm.precision_recall_curve(y, score)
    assert (res.pr.precision[0], res.pr.recall[-1]) == (round(precision[0], 6), 0.0)


def test_result_is_frozen_and_tasks_are_checked(binary_data):
    y, proba = binary_data
    res = evaluate_predictions(y, y_score=proba, n_resamples=50)
    assert isinstance(res, EvaluationResult)
    with pytest.raises(AttributeError):
        res.task = "multiclass"
    with pytest.raises(AttributeError):
        res.metrics[0].estimate = 0.0
    assert TASKS == ("auto", "binary", "multiclass", "regression")
    with pytest.raises(ValueError, match="task must be one of"):
        evaluate_predictions(y, y_score=proba, task="ranking")
    with pytest.raises(ValueError, match="task='regression' needs y_pred"):
        evaluate_predictions(y, y_score=proba, task="regression")
    with pytest.raises(ValueError, match="task='binary' needs two classes"):
        evaluate_predictions(np.arange(300) % 3, y_pred=np.arange(300) % 3, task="binary")


def test_auto_task_of_float_predictions_is_regression():
    y = np.array([1.5, 2.0, 3.25, 4.0, 0.5, 2.5, 3.0, 1.0])
    pred = y + np.array([0.1, -0.3, 0.25, 0.0, -0.1, 0.4, -0.2, 0.15])
    auto = section(y, y_pred=pred, n_resamples=50)
    assert auto.pop("assumptions") == {"task": {
        "value": "regression", "why": "y_true holds non-integer values (e.g. 1.5)"}}
    assert auto == section(y, y_pred=pred, task="regression", n_resamples=50)


# ---------------------------------------------------------------- layering

_COMPUTING = ("dartboard.metrics", "dartboard.uncertainty", "dartboard.selection",
              "dartboard.stability", "dartboard.compare", "dartboard.evaluation",
              "dartboard.profiling", "dartboard.scale", "dartboard._delong")


def _imports(path):
    """(module, name) of every import in a source file (name None for ``import m``)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = ".".join(["dartboard", path.parent.name] + ([module] if module else []))
            yield from ((module, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names)


def test_report_imports_no_computing_function():
    import importlib

    for path in sorted((SRC / "report").glob("*.py")):
        for module, name in _imports(path):
            if module == "dartboard" and name is not None:
                assert name == "__version__" or isinstance(getattr(dartboard, name), type), \
                    (path.name, name)
            elif module.startswith(_COMPUTING):
                assert name is not None, (path.name, module)
                value = getattr(importlib.import_module(module), name)
                assert isinstance(value, type), f"{path.name} imports {name} from {module}"


def test_plots_bin_no_calibration_themselves():
    import dartboard.plots._metrics as plots_metrics

    assert plots_metrics.calibration_points is calibration_points
    for path in (SRC / "plots").glob("*.py"):
        defined = {n.name for n in ast.walk(ast.parse(path.read_text()))
                   if isinstance(n, ast.FunctionDef)}
        assert "calibration_points" not in defined, path.name


def _string_constants(path):
    return {n.value for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_engine_holds_no_list_of_metric_names():
    # which metrics, with which keywords and intervals: the registry's facts
    names = {s.name for s in specs()}
    assert get_spec("max_error").name in names
    for path in (SRC / "evaluation").glob("*.py"):
        assert not _string_constants(path) & names, path.name
    labels = {s.table_label(t) for s in specs() for t in ("binary", "multiclass")}
    assert not _string_constants(SRC / "evaluation" / "_engine.py") & labels


def test_engine_imports_only_the_layers_below():
    allowed = ("dartboard._validation", "dartboard._labels", "dartboard._rng", "dartboard._typing",
               "dartboard._progress", "dartboard._frames", "dartboard._files",
               "dartboard.exceptions",
               "dartboard._lazy", "dartboard._format", "dartboard._figures",
               "dartboard._version", "dartboard.metrics", "dartboard._kernels",
               "dartboard.uncertainty", "dartboard.families", "dartboard.evaluation")
    # Evaluation.to_html hands the evaluation to the report (a face; the figure of
    # Evaluation.plot is drawn in evaluation/_figure.py):
    # imports inside those methods only, never at import time
    delegated = {"dartboard.report"}
    for path in sorted((SRC / "evaluation").glob("*.py")):
        tree = ast.parse(path.read_text())
        top = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
        for module, _ in _imports(path):
            if module.startswith("dartboard") and not module.startswith(allowed):
                assert path.name == "_evaluation.py" and module in delegated \
                    and module not in top, (path.name, module)
