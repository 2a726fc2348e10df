"""The HTML report and the sections it is drawn from: one self-contained file,
every figure present, numbers equal to scikit-learn's (test-only oracle), atomic
writes, and a note (not a crash) when part of dartboard is missing."""

import json
import re
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

from dartboard.report import (
    FIGURES,
    render_report,
    write_json,
    write_report,
    write_text_atomic,
)
from dartboard.report._sections import (
    classification_section,
    infer_task,
    regression_section,
)

URL = re.compile(r"""(?:src|href|xlink:href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


@pytest.fixture(scope="module")
def binary_data():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    proba = np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1)
    return y, proba


@pytest.fixture(scope="module")
def results(binary_data):
    y, proba = binary_data
    rng = np.random.default_rng(12)
    yr = rng.normal(size=200)
    folds = {"a": [0.90, 0.92, 0.88, 0.91, 0.90], "b": [0.95, 0.80, 0.97, 0.84, 0.93],
             "c": [0.85, 0.86, 0.84, 0.86, 0.85]}
    probas = np.clip(proba[None, :] + rng.normal(scale=0.1, size=(8, 300)), 0, 1)
    return {
        "title": "test <report>",
        "selection": {"precision": 2.0, "configs": list(folds),
                      "fold_scores": list(folds.values()),
                      "sweep_precisions": np.linspace(0, 10, 11).tolist(),
                      "ranking": [{"configuration": "a", "mean": 0.9, "winner": True}],
                      "ranking_columns": [["configuration", "Configuration"],
                                          ["mean", "Mean"]]},
        "classification": classification_section(y, y_score=proba, n_resamples=300,
                                                 model="m"),
        "stability": {"summary": [{"quantity": "label stability", "value": 0.9}],
                      "probas": probas.tolist(), "y_true": y.tolist()},
        "regression": regression_section(yr, yr + rng.normal(scale=0.2, size=200),
                                         n_resamples=300),
    }


@pytest.fixture(scope="module")
def html(results):
    return render_report(results)


def test_every_figure_is_present_once_with_caption_and_inline_svg(html):
    for fig_id in FIGURES:
        blocks = re.findall(rf'<figure data-figure="{fig_id}"[^>]*>(.*?)</figure>', html, re.S)
        assert len(blocks) == 1, fig_id
        assert "<svg" in blocks[0] and "viewBox" in blocks[0] and "<figcaption>" in blocks[0]
        assert 'width="100%"' in blocks[0]


def test_report_is_one_self_contained_file(html):
    assert html.startswith("<!DOCTYPE html>")
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html
    assert not URL.search(html)
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert "default-src 'none'" in html
    assert '<meta name="viewport"' in html and "@media (max-width" in html


def test_svg_ids_are_unique_across_figures(html):
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    for ref in set(re.findall(r'url\(#([^)]+)\)', html)):
        assert ref in ids


def test_user_text_is_escaped(html):
    assert "test &lt;report&gt;" in html and "test <report>" not in html


def test_classification_section_matches_sklearn(binary_data):
    y, proba = binary_data
    sec = classification_section(y, y_score=proba, n_resamples=300)
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
    sec = classification_section(y, y_score=proba, n_resamples=100)
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
    assert classification_section(y, y_pred=pred, n_resamples=100)["positive_label"] \
        == labels[1]

def test_multiclass_proba_and_groups():
    rng = np.random.default_rng(5)
    y = rng.choice(["x", "y", "z"], 240)
    proba = rng.dirichlet([1, 1, 1], 240)
    proba[np.arange(240), np.searchsorted(["x", "y", "z"], y)] += 0.3
    proba /= proba.sum(1, keepdims=True)
    groups = rng.choice(["g1", "g2"], 240)
    sec = classification_section(y, proba=proba, n_resamples=200, groups=groups)
    assert sec["task"] == "multiclass"
    values = {m["metric"]: m["estimate"] for m in sec["metrics"]}
    pred = np.array(["x", "y", "z"])[proba.argmax(1)]
    assert values["f1_macro"] == pytest.approx(skm.f1_score(y, pred, average="macro"))
    assert values["roc_auc"] == pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovr"))
    g1 = [r for r in sec["groups"] if r["group"] == "g1" and r["metric"] == "accuracy"][0]
    mask = groups == "g1"
    assert g1["n"] == mask.sum()
    assert g1["estimate"] == pytest.approx(skm.accuracy_score(y[mask], pred[mask]))


def test_regression_section_matches_sklearn():
    rng = np.random.default_rng(2)
    y = rng.normal(10, 2, 150)
    pred = y + rng.normal(0, 1, 150)
    sec = regression_section(y, pred, n_resamples=300)
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


def test_sections_reject_bad_input(binary_data):
    y, proba = binary_data
    with pytest.raises(ValueError, match="give exactly one of y_pred, y_score or proba"):
        classification_section(y, y_pred=y, y_score=proba)
    with pytest.raises(ValueError, match="proba must have one column per class"):
        classification_section(y, proba=np.ones((300, 3)) / 3)
    with pytest.raises(ValueError, match="y_score needs binary y_true"):
        classification_section(np.arange(300) % 3, y_score=proba)


def test_write_report_and_json_are_atomic_and_complete(tmp_path, results):
    with pytest.raises(FileNotFoundError, match="does not exist"):  # a typo is no new tree
        write_report({"regression": results["regression"]}, tmp_path / "typo" / "report.html")
    (tmp_path / "sub").mkdir()
    path = write_report({"regression": results["regression"]}, tmp_path / "sub" / "report.html")
    assert path.read_text().rstrip().endswith("</html>")
    out = write_json({"x": float("nan"), "y": np.float64(1.5)}, tmp_path / "r.json")
    assert json.loads(out.read_text()) == {"x": None, "y": 1.5}
    target = tmp_path / "partial.html"
    with pytest.raises(TypeError):
        write_text_atomic(target, None)  # fails while writing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "sub"]


def test_report_renders_from_saved_json(tmp_path, results, html):
    saved = write_json(results, tmp_path / "results.json")
    again = render_report(json.loads(saved.read_text()))
    for fig_id in FIGURES:
        assert f'data-figure="{fig_id}"' in again


def test_missing_module_gives_a_note_not_a_crash(monkeypatch, results):
    monkeypatch.setitem(sys.modules, "dartboard.stability", None)
    html = render_report(results)
    assert 'data-figure="stability"' not in html
    assert "Figure &#39;stability&#39; not available" in html
    assert 'data-figure="roc"' in html
