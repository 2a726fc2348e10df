"""Stability and uncertainty metrics against slow, obviously-right implementations."""

import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from dartboard import StabilityResult, stability_audit, stability_metrics

# ------------------------------------------------------------------ slow oracles


def slow_labels(probas, threshold=0.5):
    """(m, n) labels: threshold for binary, arg-max (first maximum) for multiclass."""
    probas = np.asarray(probas)
    if probas.ndim == 2:
        return (probas >= threshold).astype(int)
    m, n, _ = probas.shape
    return np.array([[int(np.argmax(probas[j, i])) for i in range(n)] for j in range(m)])


def slow_label_stability(labels):
    out = []
    for i in range(labels.shape[1]):
        counts = sorted(Counter(labels[:, i].tolist()).values(), reverse=True) + [0]
        out.append((counts[0] - counts[1]) / labels.shape[0])
    return np.array(out)


def slow_jitter(labels):
    """Per point: fraction of model pairs that disagree, by looping over the pairs."""
    m, n = labels.shape
    pairs = list(itertools.combinations(range(m), 2))
    return np.array([sum(labels[a, i] != labels[b, i] for a, b in pairs) / len(pairs)
                     for i in range(n)])


def mean_pairwise_churn(labels):
    m = labels.shape[0]
    return np.mean([np.mean(labels[a] != labels[b])
                    for a, b in itertools.combinations(range(m), 2)])


def as_vectors(probas):
    """(m, n, C) probability vectors (binary p -> [1 - p, p])."""
    probas = np.asarray(probas, dtype=float)
    return np.stack([1 - probas, probas], axis=2) if probas.ndim == 2 else probas


def slow_uncertainty(probas):
    """Per point: aleatoric, total, mutual information with scipy's entropy in bits."""
    vec = as_vectors(probas)
    m, n, _ = vec.shape
    alea = np.array([np.mean([scipy.stats.entropy(vec[j, i], base=2) for j in range(m)])
                     for i in range(n)])
    total = np.array([scipy.stats.entropy(vec[:, i].mean(axis=0), base=2) for i in range(n)])
    return alea, total, total - alea


def slow_spread(probas):
    """Per point sample std (ddof=1), IQR, population variance of the ensemble's class."""
    binary = np.asarray(probas).ndim == 2
    vec = as_vectors(probas)
    std, iqr, var = [], [], []
    for i in range(vec.shape[1]):
        c = 1 if binary else int(np.argmax(vec[:, i].mean(axis=0)))
        q = vec[:, i, c]
        std.append(np.std(q, ddof=1))
        iqr.append(scipy.stats.iqr(q))
        var.append(np.var(q))
    return np.array(std), np.array(iqr), np.array(var)


# ------------------------------------------------------------------ strategies

@st.composite
def binary_probas(draw):
    m = draw(st.integers(2, 7))
    n = draw(st.integers(1, 8))
    values = st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]) | \
        st.floats(0, 1, allow_nan=False)
    return draw(arrays(np.float64, (m, n), elements=values))


@st.composite
def multiclass_probas(draw):
    m = draw(st.integers(2, 6))
    n = draw(st.integers(1, 6))
    c = draw(st.integers(3, 4))
    raw = draw(arrays(np.float64, (m, n, c), elements=st.floats(0.01, 1.0)))
    # a few exact ties and zeros exercise arg-max ties and 0 log 0
    if draw(st.booleans()):
        raw[0, 0] = 0.0
        raw[0, 0, :2] = 1.0
    return raw / raw.sum(axis=2, keepdims=True)


def check_against_oracles(probas):
    res = stability_metrics(probas)
    pp = res.per_point
    labels = slow_labels(probas)
    np.testing.assert_allclose(pp["label_stability"], slow_label_stability(labels))
    np.testing.assert_allclose(pp["jitter"], slow_jitter(labels))
    np.testing.assert_allclose(res.summary["jitter"], mean_pairwise_churn(labels))
    alea, total, mi = slow_uncertainty(probas)
    np.testing.assert_allclose(pp["aleatoric"], alea, atol=1e-12)
    np.testing.assert_allclose(pp["total"], total, atol=1e-12)
    np.testing.assert_allclose(pp["mutual_information"], mi, atol=1e-12)
    std, iqr, var = slow_spread(probas)
    np.testing.assert_allclose(pp["std"], std, atol=1e-12)
    np.testing.assert_allclose(pp["iqr"], iqr, atol=1e-12)
    np.testing.assert_allclose(pp["epistemic"], var, atol=1e-12)
    for k in ("label_stability", "jitter", "std", "iqr", "epistemic", "aleatoric",
              "total", "mutual_information"):
        assert res.summary[k] == pytest.approx(pp[k].mean())


@settings(max_examples=60, deadline=None)
@given(binary_probas())
def test_binary_metrics_match_slow_oracles(probas):
    check_against_oracles(probas)


@settings(max_examples=60, deadline=None)
@given(multiclass_probas())
def test_multiclass_metrics_match_slow_oracles(probas):
    check_against_oracles(probas)


@settings(max_examples=40, deadline=None)
@given(binary_probas())
def test_binary_label_stability_is_absolute_vote_margin(probas):
    m = probas.shape[0]
    n_pos = (probas >= 0.5).sum(axis=0)
    expected = np.abs(n_pos - (m - n_pos)) / m
    np.testing.assert_allclose(stability_metrics(probas).per_point["label_stability"],
                               expected)


def test_batched_computation_equals_single_batch(monkeypatch):
    rng = np.random.default_rng(3)
    probas = rng.dirichlet(np.ones(3), size=(5, 301))
    whole = stability_metrics(probas).per_point
    import dartboard.stability as mod

    monkeypatch.setattr(mod, "_BATCH_VALUES", 40)  # batches of 2 or 3 points
    pd.testing.assert_frame_equal(stability_metrics(probas).per_point, whole)


def test_two_column_input_equals_binary_input():
    rng = np.random.default_rng(0)
    p = rng.random((6, 50))
    two = stability_metrics(np.stack([1 - p, p], axis=2))
    one = stability_metrics(p)
    pd.testing.assert_frame_equal(two.per_point, one.per_point, atol=1e-12)


# ------------------------------------------------------------------ worked cases

@pytest.mark.parametrize("m", [2, 5, 10])
def test_all_models_agree(m):
    probas = np.tile([0.8, 0.3, 0.95, 0.05], (m, 1))
    res = stability_metrics(probas)
    assert res.summary["label_stability"] == 1.0
    assert res.summary["jitter"] == 0.0
    assert res.summary["epistemic"] == 0.0
    assert res.summary["std"] == 0.0
    assert res.summary["mutual_information"] == pytest.approx(0.0, abs=1e-15)
    # H(0.8) = 0.7219 bits (binary entropy, -0.8 log2 0.8 - 0.2 log2 0.2)
    assert res.per_point["total"].iloc[0] == pytest.approx(0.7219280948873623)


@pytest.mark.parametrize("m", [2, 4, 10, 50])
def test_half_at_0_9_half_at_0_1(m):
    probas = np.repeat([[0.9, 0.9, 0.9], [0.1, 0.1, 0.1]], m // 2, axis=0)
    res = stability_metrics(probas)
    assert res.summary["label_stability"] == 0.0
    assert res.summary["jitter"] == pytest.approx(m / (2 * (m - 1)))
    # {0.1, 0.9} in equal halves: population std 0.4 (variance 0.16), sample std
    # 0.4 sqrt(m / (m - 1)); both entropies H(0.9) = H(0.1)
    assert res.summary["std"] == pytest.approx(0.4 * np.sqrt(m / (m - 1)))
    assert res.summary["epistemic"] == pytest.approx(0.16)
    assert res.summary["total"] == pytest.approx(1.0)  # H(0.5) = 1 bit
    h = -(0.9 * np.log2(0.9) + 0.1 * np.log2(0.1))
    assert res.summary["aleatoric"] == pytest.approx(h)
    assert res.summary["mutual_information"] == pytest.approx(1.0 - h)


@pytest.mark.parametrize("m", [2, 3, 10])
def test_std_is_virnys_sample_std_and_epistemic_the_population_variance(m):
    # Virny reports pandas' std across the models (ddof = 1): written here on its own
    rng = np.random.default_rng(m)
    probas = np.clip(rng.normal(0.6, 0.15, (m, 200)), 0, 1)
    res = stability_metrics(probas)
    virny = pd.DataFrame(probas).std()  # one column per point, one row per model
    np.testing.assert_allclose(res.per_point["std"], virny.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(res.per_point["std"], np.std(probas, axis=0, ddof=1),
                               rtol=1e-12)
    assert res.summary["std"] == pytest.approx(virny.mean(), rel=1e-12)
    np.testing.assert_allclose(res.per_point["epistemic"], np.var(probas, axis=0, ddof=0),
                               rtol=1e-12, atol=1e-15)
    # the two differ by the factor m / (m - 1): 0.1274 (population) is 0.1343 at m = 10
    np.testing.assert_allclose(res.per_point["epistemic"] * m / (m - 1),
                               res.per_point["std"] ** 2, rtol=1e-12, atol=1e-15)


def test_m_2_std_is_half_the_gap_times_sqrt_2():
    # two models: sample std = |a - b| / sqrt(2), population variance = (a - b)^2 / 4
    a, b = np.array([0.9, 0.2, 0.5]), np.array([0.3, 0.2, 0.0])
    res = stability_metrics(np.stack([a, b]))
    np.testing.assert_allclose(res.per_point["std"], np.abs(a - b) / np.sqrt(2), rtol=1e-12)
    np.testing.assert_allclose(res.per_point["epistemic"], (a - b) ** 2 / 4, rtol=1e-12)


def test_one_model_is_an_error():
    # no spread to measure: the sample std (and the jitter of model pairs) needs m >= 2
    with pytest.raises(ValueError, match=r"at least 2 models \(first axis\); got 1"):
        stability_metrics(np.array([[0.3, 0.8, 0.5]]))
    with pytest.raises(ValueError, match="at least 2 models"):
        stability_metrics(np.full((1, 4, 3), 1 / 3))


def test_docstring_style_example_multiclass():
    # three classes, four models: votes 2-1-1 on point 0 -> stability (2-1)/4,
    # disagreeing pairs (16 - 4 - 1 - 1)/2 = 5 of 6
    eye = np.eye(3)
    probas = np.stack([eye[[0]], eye[[0]], eye[[1]], eye[[2]]])
    probas = 0.9 * probas + 0.1 / 3
    res = stability_metrics(probas)
    assert res.per_point["label_stability"].iloc[0] == 0.25
    assert res.per_point["jitter"].iloc[0] == pytest.approx(5 / 6)


# ------------------------------------------------------------------ correctness

def test_correctness_of_mean_prediction_matches_sklearn_binary():
    rng = np.random.default_rng(1)
    probas = rng.random((7, 300))
    y = rng.integers(0, 2, 300)
    res = stability_metrics(probas, y)
    y_hat = (probas.mean(axis=0) >= 0.5).astype(int)
    cm = skm.confusion_matrix(y, y_hat)
    tn, fp, fn, tp = cm.ravel()
    s = res.summary
    assert s["accuracy"] == pytest.approx(skm.accuracy_score(y, y_hat))
    assert s["f1"] == pytest.approx(skm.f1_score(y, y_hat))
    assert s["precision"] == pytest.approx(skm.precision_score(y, y_hat))
    assert s["tpr"] == pytest.approx(skm.recall_score(y, y_hat))
    assert s["tnr"] == pytest.approx(tn / (tn + fp))
    assert s["fpr"] == pytest.approx(fp / (fp + tn))
    assert s["fnr"] == pytest.approx(fn / (fn + tp))
    assert s["selection_rate"] == pytest.approx(y_hat.mean())
    np.testing.assert_array_equal(res.per_point["correct"], y == y_hat)


def test_correctness_with_string_classes_and_multiclass_macro():
    rng = np.random.default_rng(2)
    probas = rng.dirichlet(np.ones(3), size=(5, 200))
    classes = np.array(["cat", "dog", "eel"])
    y = classes[rng.integers(0, 3, 200)]
    res = stability_metrics(probas, y, classes=classes)
    y_hat = classes[probas.mean(axis=0).argmax(axis=1)]
    np.testing.assert_array_equal(res.per_point["y_pred"], y_hat)
    assert res.summary["accuracy"] == pytest.approx(skm.accuracy_score(y, y_hat))
    assert res.summary["f1"] == pytest.approx(skm.f1_score(y, y_hat, average="macro"))
    assert res.summary["tpr"] == pytest.approx(skm.recall_score(y, y_hat, average="macro"))
    assert res.summary["precision"] == pytest.approx(
        skm.precision_score(y, y_hat, average="macro"))


def test_binary_labels_mapped_through_classes():
    probas = np.array([[0.9, 0.2], [0.8, 0.4]])
    res = stability_metrics(probas, ["yes", "no"], classes=["no", "yes"])
    assert res.summary["accuracy"] == 1.0
    with pytest.raises(ValueError, match=r"y_true contains labels \['yes', 'no'\] that "
                                         r"are not among the classes \[0, 1\]"):
        stability_metrics(probas, ["yes", "no"])


# ------------------------------------------------------------------ groups

def test_group_values_equal_metrics_on_each_subset():
    rng = np.random.default_rng(4)
    probas = rng.random((6, 120))
    y = rng.integers(0, 2, 120)
    sex = rng.choice(["F", "M"], 120, p=[0.3, 0.7])
    res = stability_metrics(probas, y, pd.Series(sex, name="sex"))
    table = res.by_group
    assert list(table.columns) == ["attribute", "group", "n", "metric", "value",
                                   "difference", "ratio"]
    assert set(table["attribute"]) == {"sex"}
    for g in ("F", "M"):
        sub = stability_metrics(probas[:, sex == g], y[sex == g]).summary
        rows = table[table["group"] == g].set_index("metric")
        assert (rows["n"] == (sex == g).sum()).all()
        for metric, value in rows["value"].items():
            assert value == pytest.approx(sub[metric]), metric
    # reference = the largest group, M
    ref = table[table["group"] == "M"].set_index("metric")["value"]
    f_rows = table[table["group"] == "F"].set_index("metric")
    np.testing.assert_allclose(f_rows["difference"], f_rows["value"] - ref)
    np.testing.assert_allclose(f_rows["ratio"], f_rows["value"] / ref)


def test_several_columns_intersections_and_explicit_reference():
    rng = np.random.default_rng(5)
    n = 200
    probas = rng.random((4, n))
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], n),
                          "race": rng.choice(["a", "b", "c"], n)})
    res = stability_metrics(probas, groups=frame, intersections=[("sex", "race")],
                            reference_group={"sex": "F"})
    t = res.by_group
    assert list(pd.unique(t["attribute"])) == ["sex", "race", "sex & race"]
    inter = t[(t["attribute"] == "sex & race") & (t["metric"] == "jitter")]
    assert set(inter["group"]) == {f"{s} & {r}" for s in "FM" for r in "abc"}
    mask = ((frame["sex"] == "M") & (frame["race"] == "b")).to_numpy()
    row = inter[inter["group"] == "M & b"].iloc[0]
    assert row["n"] == mask.sum()
    assert row["value"] == pytest.approx(stability_metrics(probas[:, mask]).summary["jitter"])
    sex_ref = t[(t["attribute"] == "sex") & (t["group"] == "F")]
    assert (sex_ref["difference"] == 0).all() and (sex_ref["ratio"] == 1).all()
    as_dict = stability_metrics(probas, groups=dict(frame), intersections=True).by_group
    assert "sex & race" in set(as_dict["attribute"])


def test_zero_reference_ratio_convention_without_warning():
    # group "a" agrees everywhere (jitter 0); group "b" does not
    probas = np.array([[0.9, 0.9, 0.9, 0.1], [0.9, 0.9, 0.9, 0.9]])
    groups = np.array(["a", "a", "a", "b"])
    with np.errstate(all="raise"):
        t = stability_metrics(probas, groups=groups).by_group
    jit = t[t["metric"] == "jitter"].set_index("group")
    assert jit.loc["a", "ratio"] == 1.0  # 0 / 0: equal values, by convention
    assert jit.loc["b", "ratio"] == np.inf
    assert jit.loc["b", "difference"] == 1.0


# ------------------------------------------------------------------ results

def test_result_repr_and_small_json():
    rng = np.random.default_rng(6)
    res = stability_metrics(rng.random((5, 5000)), rng.integers(0, 2, 5000),
                            groups=rng.integers(0, 3, 5000))
    assert isinstance(res, StabilityResult)
    assert "StabilityResult(" in repr(res) and "DataFrame(shape=(5000" in repr(res)
    text = json.dumps(res.to_dict())
    assert len(text) < 20_000
    d = json.loads(text)
    assert d["summary"]["n_models"] == 5
    assert d["per_point_summary"]["jitter"]["count"] == 5000
    assert "probas" not in d and "per_point" not in d


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("probas, match", [
    (np.array([[0.5, 1.2], [0.1, 0.2]]), r"probas must be probabilities in \[0, 1\]"),
    (np.array([[0.5, -0.1], [0.1, 0.2]]), r"probas must be probabilities"),
    (np.array([[0.5, 0.2]]), "at least 2 models"),
    (np.array([[0.5, np.nan], [0.1, 0.2]]), "probas contains 1 NaN"),
    (np.full((2, 3, 3), 0.5), "sum to 1"),
    (np.array([0.5, 0.2]), "probas must be 2-D or 3-D"),
])
def test_bad_probas(probas, match):
    with pytest.raises(ValueError, match=match):
        stability_metrics(probas)


def test_bad_arguments():
    p = np.full((3, 4), 0.5)
    with pytest.raises(ValueError, match=r"groups must have one group label per test "
                                         r"point \(4\); got 3"):
        stability_metrics(p, groups=[0, 1, 0])
    with pytest.raises(ValueError, match=r"groups\['b'\] must have one group label"):
        stability_metrics(p, groups={"a": [0, 1, 0, 1], "b": [1, 2]})
    with pytest.raises(ValueError, match="y_true has 3, probas has 4"):
        stability_metrics(p, y_true=[0, 1, 0])
    with pytest.raises(ValueError, match="threshold must be a number strictly between"):
        stability_metrics(p, threshold=1.0)
    with pytest.raises(ValueError, match="reference_group 'z' is not a group"):
        stability_metrics(p, groups=["a", "b", "a", "b"], reference_group="z")
    with pytest.raises(ValueError, match="intersections must be pairs"):
        stability_metrics(p, groups={"a": [0, 1, 0, 1]}, intersections=[("a", "q")])
    with pytest.raises(TypeError, match="probas must be numeric"):
        stability_metrics(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="classes must list 2 labels"):
        stability_metrics(p, classes=[0, 1, 2])


# ------------------------------------------------------------------ audit

@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[idx[:300]], y[idx[:300]], X[idx[300:450]], y[idx[300:450]]


def test_audit_is_deterministic_across_n_jobs(cancer):
    X, y, Xt, yt = cancer
    est = DecisionTreeClassifier(max_depth=3, max_features=0.5)
    one = stability_audit(est, X, y, Xt, yt, n_estimators=6, random_state=11, n_jobs=1)
    two = stability_audit(est, X, y, Xt, yt, n_estimators=6, random_state=11, n_jobs=2)
    np.testing.assert_array_equal(one.probas, two.probas)
    assert one.probas.shape == (6, 150)
    threads = stability_audit(est, X, y, Xt, yt, n_estimators=6, random_state=11, n_jobs=2,
                              backend="threading", progress=True)
    np.testing.assert_array_equal(one.probas, threads.probas)
    # models differ from one another (own bootstrap and own random_state)
    assert not np.array_equal(one.probas[0], one.probas[1])
    other = stability_audit(est, X, y, Xt, yt, n_estimators=6, random_state=12)
    assert not np.array_equal(one.probas, other.probas)
    assert 0.0 <= one.summary["jitter"] <= 1.0 and one.summary["accuracy"] > 0.8


def test_audit_models_reproduce_by_hand(cancer):
    # model j is a clone fitted on rows drawn by its own spawned seed
    from dartboard._rng import child as _child_seed
    from dartboard._rng import spawn as spawn_seeds

    X, y, Xt, yt = cancer
    est = LogisticRegression(max_iter=2000)
    res = stability_audit(est, X, y, Xt, n_estimators=3, random_state=5,
                          bootstrap_fraction=0.5)
    seed = spawn_seeds(5, 3)[2]
    idx = np.random.default_rng(_child_seed(seed, 0)).integers(0, len(y), 150)
    manual = LogisticRegression(max_iter=2000).fit(X[idx], y[idx]).predict_proba(Xt)[:, 1]
    np.testing.assert_allclose(res.probas[2], manual)


@pytest.mark.filterwarnings("ignore::dartboard.metrics.UndefinedMetricWarning")
def test_audit_multiclass_pretrained_models_and_groups():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(1)
    idx = rng.permutation(150)
    X, y = X[idx], y[idx]
    res = stability_audit(LogisticRegression(max_iter=1000), X[:100], y[:100], X[100:],
                          y[100:], n_estimators=4, random_state=0,
                          groups=(X[100:, 0] > 5.8).astype(int))
    assert res.probas.shape == (4, 50, 3)
    assert set(res.by_group["group"]) == {0, 1}
    # macro averages per group over the classes present there, as sklearn
    g = (X[100:, 0] > 5.8).astype(int)
    y_hat = res.per_point["y_pred"].to_numpy()
    for group in (0, 1):
        row = res.by_group[(res.by_group["group"] == group)].set_index("metric")["value"]
        yt, yp = y[100:][g == group], y_hat[g == group]
        assert row["f1"] == pytest.approx(skm.f1_score(yt, yp, average="macro",
                                                       zero_division=0))
        assert row["accuracy"] == pytest.approx(skm.accuracy_score(yt, yp))
    models = [LogisticRegression(max_iter=1000).fit(X[s:s + 60], y[s:s + 60])
              for s in (0, 30, 60)]
    pre = stability_audit(models, None, None, X[100:], y[100:])
    expected = np.stack([mdl.predict_proba(X[100:]) for mdl in models])
    np.testing.assert_allclose(pre.probas, expected)
    direct = stability_metrics(expected, y[100:])
    assert pre.summary == direct.summary


def test_audit_accepts_dataframes_and_string_labels(cancer):
    X, y, Xt, yt = cancer
    cols = [f"f{i}" for i in range(X.shape[1])]
    names = np.array(["benign", "malignant"])
    frame, test = pd.DataFrame(X, columns=cols), pd.DataFrame(Xt, columns=cols)
    res = stability_audit(LogisticRegression(max_iter=1000), frame, pd.Series(names[y]),
                          test, names[yt], n_estimators=3, random_state=0,
                          groups=pd.Series(np.where(Xt[:, 0] > 0, "hi", "lo"), name="size"))
    plain = stability_audit(LogisticRegression(max_iter=1000), X, y, Xt, yt,
                            n_estimators=3, random_state=0)
    np.testing.assert_allclose(res.probas, plain.probas)
    assert list(res.classes) == ["benign", "malignant"]
    assert res.summary["f1"] == pytest.approx(plain.summary["f1"])
    assert set(res.by_group["attribute"]) == {"size"}


def test_audit_redraws_bootstraps_that_miss_a_class():
    # one positive in 12 rows: about 1/3 of bootstrap samples miss it
    X = np.arange(12, dtype=float)[:, None]
    y = np.array([0] * 11 + [1])
    res = stability_audit(DecisionTreeClassifier(), X, y, X, n_estimators=20,
                          random_state=0)
    assert res.probas.shape == (20, 12)
    with pytest.raises(ValueError, match="missed a class of y_train"):
        stability_audit(DecisionTreeClassifier(), X, y, X, n_estimators=20,
                        random_state=0, bootstrap_fraction=0.2, max_resamples=1)


def test_audit_bad_input(cancer):
    X, y, Xt, _ = cancer
    with pytest.raises(TypeError, match=r"estimator \(SVC\) has no predict_proba"):
        stability_audit(SVC(), X, y, Xt)
    with pytest.raises(ValueError, match="n_estimators must be at least 2"):
        stability_audit(LogisticRegression(), X, y, Xt, n_estimators=1)
    with pytest.raises(ValueError, match="bootstrap_fraction must be a positive"):
        stability_audit(LogisticRegression(), X, y, Xt, bootstrap_fraction=0)
    with pytest.raises(ValueError, match="X_train has 300, y_train has 299"):
        stability_audit(LogisticRegression(), X, y[:-1], Xt)
    with pytest.raises(ValueError, match="X_train and y_train must be None"):
        stability_audit([LogisticRegression()] * 2, X, y, Xt)
    with pytest.raises(TypeError, match=r"estimator\[1\] \(SVC\) has no predict_proba"):
        stability_audit([LogisticRegression(), SVC()], None, None, Xt)
    with pytest.raises(ValueError, match="groups must have one group label"):
        stability_audit(LogisticRegression(max_iter=500), X, y, Xt, n_estimators=2,
                        groups=[0, 1])
    three = np.where(y == 1, 2, y)
    three[:20] = 1
    models = [DecisionTreeClassifier().fit(X, y), DecisionTreeClassifier().fit(X, three)]
    with pytest.raises(ValueError, match=r"classes_ \[0, 1, 2\] differ from the expected "
                                         r"classes \[0, 1\]"):
        stability_audit(models, None, None, Xt)


# ------------------------------------------------------------------ plot

def test_plot_stability_panels_and_counts():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dartboard.plots import plot_stability

    rng = np.random.default_rng(0)
    res = stability_metrics(rng.random((5, 300)))
    axes = plot_stability(res, bins=10)
    assert axes.shape == (2,)
    heights = [p.get_height() for p in axes[0].patches]
    assert sum(heights) == 300  # every point in one label-stability bin
    assert len(axes[1].patches) == 3  # total, aleatoric, mutual information
    fig, own = plt.subplots()
    assert plot_stability(res, own, panels="stability") is own
    with pytest.raises(ValueError, match="ax must hold one Axes per panel"):
        plot_stability(res, own)
    with pytest.raises(ValueError, match="panels must be one of"):
        plot_stability(res, panels="nope")
    with pytest.raises(TypeError, match="result must be a StabilityResult"):
        plot_stability(res.per_point)
    plt.close("all")
