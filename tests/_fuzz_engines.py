"""Hostile-input fuzzing of the engines above the metrics: intervals, paired tests,
model comparisons and the evaluation engine (shared by tests/test_fuzz_engines.py and
benchmarks/fuzz_long.py).

One case is: an engine, data of the kind it takes (drawn from a seed), and one way of
handing every array over (container, label dtype, memory layout, extreme scale,
relabelled classes, weights). ``run_engine`` calls the engine on the plain
float64/int64 numpy form and on the variant, and sorts the outcome as tests/_fuzz.py
does (``ok``, ``refused``, ``refused by both``, ``skip``, ``crash``, ``mutated``,
``differs``). Independently, the plain answer is checked against a reference that
does not share dartboard's code (scikit-learn, SciPy, statsmodels, or a plain loop):
a disagreement is reported as ``reference``.
"""

from __future__ import annotations

import copy
import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from _fuzz import METRICS, _cast, make_data, relabel, unit_weights, weights, wrap

from dartboard.cli._io import is_bad_input

#: what a refusal may name: an engine's arguments (besides the metrics' ones)
ARGUMENTS = ("y_true", "y_pred", "y_score", "y_proba", "sample_weight", "pos_label", "labels",
             "average", "multi_class", "pred_a", "pred_b", "scores_a", "scores_b", "a", "b",
             "fold_scores", "n_train", "n_test", "class", "label", "metric", "method",
             "task", "table", "exact", "variance", "differences")

#: containers for 1-D arrays (tests/_fuzz.py's, and a read-only Fortran column)
CONTAINERS = ("list", "numpy", "readonly", "fortran2d", "fortran_readonly", "strided",
              "masked", "pandas", "polars", "pyarrow")


@dataclass(frozen=True)
class Case:
    """How one example hands its data over."""

    n: int
    n_classes: int
    container: str
    dtype: str
    scale: float
    seed: int
    labels: str
    weights: str


@dataclass(frozen=True)
class Engine:
    """An engine under test.

    ``draw(rng, case)`` gives the plain arrays by argument name, the names of those
    that are labels (cast to the case's dtype) and the other keywords; ``call`` runs
    the engine and flattens its answer to floats; ``reference`` returns a message
    when the plain answer disagrees with the independent oracle (None otherwise).
    """

    name: str
    draw: Callable[[np.random.Generator, Case], tuple[dict, tuple, dict]]
    call: Callable[[dict, dict], tuple]
    reference: Callable[[dict, dict, tuple], str | None]


def wrap_any(a: np.ndarray, container: str) -> Any:
    """``a`` (1-D or 2-D) handed over in ``container``."""
    if container == "fortran_readonly":
        b = np.asfortranarray(np.stack([a, a], axis=-1))[..., 0]
        b.setflags(write=False)
        return b
    if a.ndim == 1 or container in ("list", "readonly"):
        return wrap(a, container)  # the same for a matrix
    if container == "fortran2d":
        return np.asfortranarray(a)
    if container == "strided":
        return np.repeat(a, 2, axis=1)[:, ::2]
    if container == "pandas":
        import pandas as pd

        return pd.DataFrame(a)
    return a.copy()


def _snapshot(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.copy(order="K")
    if hasattr(x, "copy") and hasattr(x, "equals"):  # pandas
        return x.copy(deep=True)
    if isinstance(x, list):
        return copy.deepcopy(x)
    return None


def _untouched(before: Any, after: Any) -> bool:
    if before is None:
        return True
    if isinstance(before, np.ndarray) and before.dtype.kind == "O":  # None, pd.NA, lists
        return (after.dtype.kind == "O" and before.shape == after.shape
                and all(a is b or _equal_values(a, b)
                        for a, b in zip(before.ravel(), after.ravel())))
    if isinstance(before, np.ndarray):
        return (before.dtype == after.dtype and before.shape == after.shape
                and np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"))
    if hasattr(before, "equals"):
        return bool(before.equals(after))
    return before == after


def _equal_values(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # pd.NA == pd.NA has no truth value
        return False


def _same(a: tuple, b: tuple, rtol: float = 1e-6) -> bool:
    return len(a) == len(b) and all(
        (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=rtol, abs_tol=1e-9)
        for x, y in zip(a, b))


def _quiet(func: Callable, *args: Any, **kw: Any) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", tuple(float(v) for v in func(*args, **kw))
        except (ValueError, TypeError) as exc:
            # the command line's rule: a TypeError from an operation, or numpy's own
            # ValueError, is a bug however it is worded
            return ("refused" if is_bad_input(exc) else "crash"), exc
        except Exception as exc:  # noqa: BLE001 - the point is to catch every crash
            return "crash", exc


def run_engine(engine: Engine, case: Case) -> tuple[str, str, str | None]:
    """(outcome of the variant, description, reference disagreement or None)."""
    rng = np.random.default_rng(case.seed)
    arrays, label_args, kw = engine.draw(rng, case)
    where = (f"{engine.name}({case.container}, {case.dtype}, n={case.n}, "
             f"k={case.n_classes}, scale={case.scale:g}, labels={case.labels}, "
             f"weights={case.weights}, seed={case.seed}, {_brief(kw)})")
    plain_status, plain = _quiet(engine.call, arrays, kw)
    if plain_status == "crash":
        return "crash", f"{where} on plain numpy: {type(plain).__name__}: {plain}", None
    disagreement = None
    if plain_status == "ok":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            why = engine.reference(arrays, kw, plain)
        disagreement = f"{where}: {why}" if why else None
    variant = {}
    for name, a in arrays.items():
        cast = _cast(a, case.dtype) if name in label_args else a
        if cast is not None and name in label_args and cast.dtype.kind == "f" \
                and np.abs(a).max() > 2**53:
            cast = None  # floats that large are not exact labels: refused by design
        if cast is None:
            return "skip", where, disagreement
        try:
            variant[name] = wrap_any(cast, case.container)
        except (OverflowError, TypeError, ValueError):
            return "skip", where, disagreement  # e.g. pyarrow and uint64 ids beyond 2**63
    before = {name: _snapshot(v) for name, v in variant.items()}
    status, value = _quiet(engine.call, variant, kw)
    if not all(_untouched(before[k], variant[k]) for k in variant):
        return "mutated", where, disagreement
    if status == "crash":
        return "crash", f"{where}: {type(value).__name__}: {value}", disagreement
    if status == "refused":
        if not any(word in str(value) for word in ARGUMENTS):
            return "crash", f"{where}: a refusal that names no argument: {value}", disagreement
        if plain_status == "refused":
            return "refused by both", f"{where}: {value}", disagreement
        return "refused", f"{where}: {value}", disagreement
    if plain_status == "ok" and not _same(value, plain):
        return "differs", f"{where}: {value!r} != plain {plain!r}", disagreement
    return "ok", where, disagreement


def _brief(kw: dict) -> str:
    return ", ".join(f"{k}={getattr(v, 'name', getattr(v, '__name__', v))!s}"
                     for k, v in kw.items() if k != "sample_weight")


def _disagree(what: str, ours: float, theirs: float, rtol: float = 1e-6) -> str | None:
    if _same((ours,), (theirs,), rtol):
        return None
    return f"{what}: dartboard {ours!r}, reference {theirs!r}"


# ------------------------------------------------------------------ data

def _labelled(spec: Any, rng: np.random.Generator, case: Case) -> tuple[np.ndarray, ...]:
    """(y_true, other, other permuted) for ``spec``, relabelled and scaled as ``case``."""
    y, other = make_data(spec, rng, max(case.n, case.n_classes), case.n_classes)
    other_b = other[rng.permutation(other.shape[0])]
    if spec.input != "values":
        y = relabel(y, case.labels)
        if spec.input == "labels":
            other, other_b = relabel(other, case.labels), relabel(other_b, case.labels)
    if spec.input in ("scores", "values") and case.scale != 1.0:
        other, other_b = other * case.scale, other_b * case.scale
        if spec.input == "values":
            y = y * case.scale
    return y, other, other_b


def _metric_kw(spec: Any, y: np.ndarray, rng: np.random.Generator, case: Case) -> dict:
    kw = dict(spec.multiclass) if len(np.unique(y)) > 2 else {}
    if spec.pos_label and not kw:  # relabelled classes: the greater one is positive
        kw["pos_label"] = y.max().item()
    w = weights(y.shape[0], case.weights, rng)
    if w is not None and "sample_weight" in inspect.signature(spec.function).parameters:
        kw["sample_weight"] = w
    return kw


#: metrics that do not change with the scale of the values: at 1e-200 or 1e200 their
#: sums of squares under- or overflow in scikit-learn (nan, 1.0), while dartboard
#: rescales (user guide, docs/user_guide/metrics.rst: differences from scikit-learn);
#: the reference is then scikit-learn on the same data brought to unit scale by a
#: power of two (exact)
SCALE_FREE = {"r2_score", "explained_variance_score", "d2_tweedie_score"}


def _unit_scale(y: Any, other: Any) -> tuple[np.ndarray, np.ndarray]:
    y, other = np.asarray(y, dtype=np.float64), np.asarray(other, dtype=np.float64)
    largest = float(max(np.max(np.abs(y)), np.max(np.abs(other))))
    if not np.isfinite(largest) or largest == 0.0:
        return y, other
    factor = math.ldexp(1.0, -math.frexp(largest)[1])
    return y * factor, other * factor


def _sklearn(spec: Any, y: Any, other: Any, kw: dict) -> float | None:
    """scikit-learn's same-named metric (float64 weights), or None when it has none or
    refuses the data."""
    import sklearn.metrics as skm

    sk = getattr(skm, spec.name, None)
    if sk is None:
        return None
    kw = {k: v for k, v in kw.items() if k in inspect.signature(sk).parameters}
    if "sample_weight" in kw:
        kw["sample_weight"] = unit_weights(kw["sample_weight"])
    if spec.name in SCALE_FREE:
        y, other = _unit_scale(y, other)
    try:
        return float(sk(y, other, **kw))
    except (ValueError, TypeError):
        return None


# ------------------------------------------------------------ compare_models

def _draw_compare(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    spec = METRICS[int(rng.integers(len(METRICS)))]
    y, a, b = _labelled(spec, rng, case)
    kw = {"metric": spec, **_metric_kw(spec, y, rng, case)}
    labels = ("y_true", "pred_a", "pred_b") if spec.input == "labels" else ("y_true",)
    return {"y_true": y, "pred_a": a, "pred_b": b}, labels, kw


def _call_compare(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    kw = dict(kw)
    spec = kw.pop("metric")
    res = db.compare_models(spec.function, arrays["y_true"], arrays["pred_a"],
                            arrays["pred_b"], n_resamples=40, random_state=0, **kw)
    return (res.estimate_a, res.estimate_b, res.difference, res.pvalue, res.interval.low,
            res.interval.high)


def _ref_compare(arrays: dict, kw: dict, out: tuple) -> str | None:
    kw = dict(kw)
    spec = kw.pop("metric")
    ea, eb, diff, p = out[:4]
    if not (0.0 <= p <= 1.0):
        return f"p-value {p!r} outside [0, 1]"
    if not _same((diff,), (ea - eb,), 1e-9) and not (math.isinf(ea) or math.isinf(eb)):
        return f"difference {diff!r} != estimate_a - estimate_b {ea - eb!r}"
    for est, key in ((ea, "pred_a"), (eb, "pred_b")):
        theirs = _sklearn(spec, arrays["y_true"], arrays[key], kw)
        if theirs is not None:
            msg = _disagree(f"{spec.name}({key})", est, theirs)
            if msg:
                return msg
    return None


# ------------------------------------------------------------------ interval

PROPORTION_METHODS = ("wald", "wilson", "clopper-pearson", "agresti-coull", "jeffreys")
STATSMODELS_METHOD = {"wald": "normal", "wilson": "wilson", "clopper-pearson": "beta",
                      "agresti-coull": "agresti_coull", "jeffreys": "jeffreys"}


def _draw_interval(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    spec = METRICS[int(rng.integers(len(METRICS)))]
    y, other, _ = _labelled(spec, rng, case)
    methods = ("auto", "percentile", "basic", "bca")
    if spec.proportion is not None:
        methods += PROPORTION_METHODS
    kw = {"metric": spec, "method": str(rng.choice(methods)),
          **_metric_kw(spec, y, rng, case)}
    labels = ("y_true", "y_other") if spec.input == "labels" else ("y_true",)
    return {"y_true": y, "y_other": other}, labels, kw


def _call_interval(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    kw = dict(kw)
    spec = kw.pop("metric")
    res = db.interval(spec.function, arrays["y_true"], arrays["y_other"], n_resamples=60,
                      random_state=0, **kw)
    return (res.estimate, res.low, res.high)


def _ref_interval(arrays: dict, kw: dict, out: tuple) -> str | None:
    from statsmodels.stats.proportion import proportion_confint

    kw = dict(kw)
    spec, method = kw.pop("metric"), kw.pop("method")
    estimate, low, high = out
    if low > high + 1e-12:
        return f"low {low!r} above high {high!r}"
    theirs = _sklearn(spec, arrays["y_true"], arrays["y_other"], kw)
    if theirs is not None and _disagree("estimate", estimate, theirs):
        return _disagree("estimate", estimate, theirs)
    if spec.name == "accuracy_score" and method in PROPORTION_METHODS \
            and "sample_weight" not in kw:
        y, p = arrays["y_true"], arrays["y_other"]
        count, n = int(np.sum(y == p)), y.shape[0]
        if method == "jeffreys" and count in (0, n):
            return None  # dartboard's ends are 0 and 1 (Brown, Cai and DasGupta)
        lo, hi = proportion_confint(count, n, alpha=0.05, method=STATSMODELS_METHOD[method])
        lo, hi = max(0.0, float(lo)), min(1.0, float(hi))
        return _disagree(f"{method} low", low, lo) or _disagree(f"{method} high", high, hi)
    return None


# ---------------------------------------------------------------- delong_test

def _draw_delong(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    spec = next(s for s in METRICS if s.name == "roc_auc_score")
    y, a, b = _labelled(spec, rng, dataclass_replace(case, n_classes=2))
    b = np.round(b * 0.5 + a * 0.5, 3) if rng.random() < 0.5 else b  # correlated models
    kw = {"alternative": str(rng.choice(["two-sided", "greater", "less"]))}
    return {"y_true": y, "scores_a": a, "scores_b": b}, ("y_true",), kw


def dataclass_replace(case: Case, **changes: Any) -> Case:
    from dataclasses import replace

    return replace(case, **changes)


def _call_delong(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    res = db.delong_test(arrays["y_true"], arrays["scores_a"], arrays["scores_b"], **kw)
    return (res.statistic, res.pvalue, res.estimate, res.interval.low, res.interval.high)


def delong_by_pairs(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(AUC a, AUC b, variance of the difference) by DeLong's structural components,
    from every positive-negative pair (O(n^2): the obviously right oracle)."""
    pos = y == np.max(y)
    comps = []
    for s in (np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)):
        psi = (s[pos][:, None] > s[~pos][None, :]) + 0.5 * (s[pos][:, None] == s[~pos][None, :])
        comps.append((psi.mean(axis=1), psi.mean(axis=0)))
    v10 = np.cov(np.stack([comps[0][0], comps[1][0]]), ddof=1)
    v01 = np.cov(np.stack([comps[0][1], comps[1][1]]), ddof=1)
    m, n = int(pos.sum()), int((~pos).sum())
    var = (v10[0, 0] + v10[1, 1] - 2 * v10[0, 1]) / m + (v01[0, 0] + v01[1, 1] - 2 * v01[0, 1]) / n
    return float(comps[0][0].mean()), float(comps[1][0].mean()), float(var)


def _ref_delong(arrays: dict, kw: dict, out: tuple) -> str | None:
    from scipy import stats

    y = arrays["y_true"]
    if min(np.sum(y == np.max(y)), np.sum(y != np.max(y))) < 2:
        return None  # one sample in a class: the covariance has no degrees of freedom
    auc_a, auc_b, var = delong_by_pairs(y, arrays["scores_a"], arrays["scores_b"])
    statistic, pvalue, estimate = out[:3]
    msg = _disagree("AUC difference", estimate, auc_a - auc_b, 1e-9)
    if msg or not var > 1e-12:
        return msg
    z = (auc_a - auc_b) / math.sqrt(var)
    p = {"two-sided": min(1.0, 2 * stats.norm.sf(abs(z))), "greater": stats.norm.sf(z),
         "less": stats.norm.cdf(z)}[kw["alternative"]]
    return _disagree("z", statistic, z, 1e-6) or _disagree("p", pvalue, float(p), 1e-6)


# --------------------------------------------------------------- mcnemar_test

def _draw_mcnemar(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    spec = next(s for s in METRICS if s.name == "accuracy_score")
    y, a, b = _labelled(spec, rng, case)
    kw = {"exact": [None, True, False][int(rng.integers(3))],
          "correction": bool(rng.integers(2))}
    return {"y_true": y, "pred_a": a, "pred_b": b}, ("y_true", "pred_a", "pred_b"), kw


def _call_mcnemar(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    res = db.mcnemar_test(arrays["y_true"], arrays["pred_a"], arrays["pred_b"], **kw)
    return (res.statistic, res.pvalue, res.estimate)


def _ref_mcnemar(arrays: dict, kw: dict, out: tuple) -> str | None:
    from statsmodels.stats.contingency_tables import mcnemar

    y, a, b = arrays["y_true"], arrays["pred_a"], arrays["pred_b"]
    n10 = int(np.sum((a == y) & (b != y)))
    n01 = int(np.sum((a != y) & (b == y)))
    exact = (n10 + n01 < 25) if kw["exact"] is None else kw["exact"]
    if n10 + n01 == 0 or (not exact and n10 == n01):
        theirs = (0.0, 1.0) if not exact or n10 + n01 == 0 else None  # R's mcnemar.test rule
    else:
        res = mcnemar([[0, n10], [n01, 0]], exact=exact, correction=kw["correction"])
        theirs = (float(res.statistic), float(res.pvalue))
    if theirs is None:
        return None
    return (_disagree("statistic", out[0], theirs[0]) or _disagree("p", out[1], theirs[1])
            or _disagree("estimate", out[2], (n10 - n01) / y.shape[0], 1e-9))


# ----------------------------------------------------------- permutation_test

def _draw_permutation(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    n = min(case.n, 10)
    hundredths = rng.integers(0, 100, n)
    other = np.clip(hundredths + np.round(rng.normal(scale=10, size=n)), -200, 200)
    a, b = hundredths / 100 * case.scale, other / 100 * case.scale
    kw = {"alternative": str(rng.choice(["two-sided", "greater", "less"])),
          "exact": bool(rng.integers(2)), "hundredths": (hundredths - other).astype(int)}
    return {"a": a, "b": b}, (), kw


def _call_permutation(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    kw = {k: v for k, v in kw.items() if k != "hundredths"}
    res = db.permutation_test(arrays["a"], arrays["b"], n_resamples=300, random_state=0, **kw)
    return (res.statistic, res.pvalue)


def _ref_permutation(arrays: dict, kw: dict, out: tuple) -> str | None:
    a, b = arrays["a"], arrays["b"]
    d = a - b
    if not np.all(np.isfinite(d)):
        return None
    msg = _disagree("statistic", out[0], float(np.mean(d)), 1e-9)
    if msg or not kw["exact"]:
        return msg or (None if 0 < out[1] <= 1 else f"p-value {out[1]!r}")
    # every one of the 2**n sign flips in exact integer arithmetic (the data are
    # hundredths, scaled): ties are ties, whatever the rounding of the floats
    k = kw["hundredths"]
    n = k.shape[0]
    signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    null, t = signs @ k, int(k.sum())
    extreme = {"two-sided": np.abs(null) >= abs(t), "greater": null >= t,
               "less": null <= t}[kw["alternative"]]
    return _disagree("exact p", out[1], float(extreme.mean()), 1e-12)


# ------------------------------------------------------- cv_interval, corrected_ttest

def _draw_folds(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    k = 2 + case.n % 9
    a = np.round(0.7 + 0.1 * rng.random(k), 3)
    a, b = a * case.scale, np.round(a - 0.05 + 0.05 * rng.random(k), 3) * case.scale
    n_test = int(rng.integers(10, 1000))
    kw = {"n_train": [None, n_test * (k - 1)][int(rng.integers(2))], "n_test": n_test}
    return {"a": a, "b": b}, (), kw


def _call_cv_interval(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    n_test = kw["n_test"] if kw["n_train"] is not None else None
    res = db.cv_interval(arrays["a"], n_train=kw["n_train"], n_test=n_test)
    return (res.estimate, res.low, res.high)


def _ref_cv_interval(arrays: dict, kw: dict, out: tuple) -> str | None:
    from scipy import stats

    s = arrays["a"]
    k = s.shape[0]
    factor = 1 / k + (kw["n_test"] / kw["n_train"] if kw["n_train"] else 0.0)
    half = stats.t.ppf(0.975, k - 1) * math.sqrt(factor * np.var(s, ddof=1))
    return (_disagree("mean", out[0], float(np.mean(s)), 1e-9)
            or _disagree("low", out[1], float(np.mean(s) - half), 1e-6)
            or _disagree("high", out[2], float(np.mean(s) + half), 1e-6))


def _call_corrected(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    n_train = kw["n_train"] or kw["n_test"] * 4
    res = db.corrected_ttest(arrays["a"], arrays["b"], n_train=n_train, n_test=kw["n_test"])
    return (res.statistic, res.pvalue)


def _ref_corrected(arrays: dict, kw: dict, out: tuple) -> str | None:
    from scipy import stats

    d = arrays["a"] - arrays["b"]
    k = d.shape[0]
    n_train = kw["n_train"] or kw["n_test"] * 4
    var = (1 / k + kw["n_test"] / n_train) * np.var(d, ddof=1)
    if not var > 0:
        return None
    t = float(np.mean(d) / math.sqrt(var))
    return _disagree("t", out[0], t) or _disagree("p", out[1], float(2 * stats.t.sf(abs(t), k - 1)))


# ------------------------------------------------------------------ evaluate

TASKS = ("binary scores", "binary labels", "binary labels+scores", "binary threshold",
         "multiclass labels", "multiclass proba", "multiclass labels+proba", "float32 proba",
         "regression")
#: how groups are handed over: none, one column, a dict of columns, a list of columns
GROUP_FORMS = ("none", "column", "dict", "list")


def _binary_scores(rng: np.random.Generator, y01: np.ndarray, case: Case
                   ) -> tuple[np.ndarray, float | None]:
    """Scores of the positive class and the threshold to pass (None: the usual cut):
    probabilities, decision values around 0, or positive risk scores with a threshold."""
    kind = int(rng.integers(3))
    raw = np.round(np.clip(0.3 * y01 + 0.7 * rng.random(y01.shape[0]), 0, 1), 3)
    if kind == 0:
        return raw * min(case.scale, 1.0), None  # still in [0, 1]
    if kind == 1:
        return (raw - 0.5) * case.scale, None
    return (raw + 0.25) * case.scale, float(np.median(raw) + 0.25) * case.scale


def _draw_evaluate(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    task = TASKS[int(rng.integers(len(TASKS)))]
    binary = task.startswith("binary")
    k = 2 if binary else case.n_classes
    n = max(case.n, 2 * k)
    kw: dict[str, Any] = {}
    if task == "regression":
        spec = next(s for s in METRICS if s.name == "mean_absolute_error")
        y, other, _ = _labelled(spec, rng, dataclass_replace(case, n=n))
        arrays, labels = {"y_true": y, "y_pred": other}, ("y_true",)
    else:
        y01 = rng.integers(0, k, n)
        y01[:k] = np.arange(k)
        pred01 = np.where(rng.random(n) < 0.7, y01, rng.integers(0, k, n))
        y, pred = relabel(y01, case.labels), relabel(pred01, case.labels)
        arrays, labels = {"y_true": y}, ("y_true",)
        if task in ("binary labels", "multiclass labels") or "labels+" in task:
            arrays["y_pred"], labels = pred, ("y_true", "y_pred")
        if task in ("binary scores", "binary labels+scores", "binary threshold"):
            arrays["y_score"], threshold = _binary_scores(rng, y01, case)
            if threshold is not None and task != "binary labels+scores":
                kw["threshold"] = threshold  # with y_pred the labels are given
        if task in ("multiclass proba", "multiclass labels+proba", "float32 proba"):
            draws = rng.gamma(1.0 + 2.0 * (np.arange(k) == y01[:, None]))  # Dirichlet rows
            proba = draws / draws.sum(axis=1, keepdims=True)
            if task == "float32 proba" and case.container != "list":
                # what many models' predict_proba returns (a list of Python floats is
                # float64, whose rows then do not sum to 1 in float64's tolerance)
                arrays["y_proba"] = proba.astype(np.float32)
            else:
                proba = np.round(proba, 3)
                proba[:, -1] = 1.0 - proba[:, :-1].sum(axis=1)
                arrays["y_proba"] = np.clip(proba, 0.0, 1.0)
        if k == 2 and case.labels != "none":  # other labels than 0/1 need it
            kw["pos_label"] = relabel(np.array([1]), case.labels)[0].item()
    form = GROUP_FORMS[int(rng.integers(len(GROUP_FORMS)))]
    if form != "none":
        kw["groups"] = form
        arrays["group_0"] = rng.choice(np.array(["a", "b", "c"]), n)
        if form != "column":
            arrays["group_1"] = rng.integers(0, 2, n)
    w = weights(n, case.weights, rng)
    if w is not None:
        arrays["sample_weight"] = w
    return arrays, labels, kw


def _evaluate_arguments(arrays: dict, kw: dict) -> dict:
    """``dartboard.evaluate``'s keywords from a case's arrays and options."""
    out = {k: v for k, v in arrays.items() if not k.startswith("group_")}
    out.update({k: v for k, v in kw.items() if k in ("threshold", "pos_label")})
    form = kw.get("groups")
    columns = [arrays[k] for k in sorted(arrays) if k.startswith("group_")]
    if form == "column":
        out["groups"] = columns[0]
    elif form == "dict":
        out["groups"] = {"letter": columns[0], "digit": columns[1]}
    elif form == "list":
        out["groups"] = columns
    return out


def _evaluated(arrays: dict, kw: dict) -> Any:
    import dartboard as db

    return db.evaluate(**_evaluate_arguments(arrays, kw), n_resamples=40, random_state=0)


def _call_evaluate(arrays: dict, kw: dict) -> tuple:
    ev = _evaluated(arrays, kw)
    rows = ev.to_dict()["metrics"]
    out = [math.nan if v is None else v for r in sorted(rows, key=lambda r: r["metric"])
           for v in (r["estimate"], r["low"], r["high"])]  # None: no interval
    if ev.by_group is not None:
        frame = ev.by_group.sort_index()
        out += [float(v) for v in frame[["estimate", "low", "high"]].to_numpy().ravel()]
        out += [float(v) for v in ev.difference()["estimate"]]
    return tuple(out)


def _labels_used(arrays: dict, kw: dict, classes: np.ndarray, positive: Any) -> Any:
    """The labels of the count metrics, derived here by the documented rules: y_pred,
    scores cut at the threshold (given, 0.5 for [0, 1], 0 around 0), the argmax."""
    if "y_pred" in arrays:
        return arrays["y_pred"]
    if "y_proba" in arrays:
        return classes[np.argmax(np.asarray(arrays["y_proba"], dtype=np.float64), axis=1)]
    s = np.asarray(arrays["y_score"], dtype=np.float64)
    cut = kw.get("threshold")
    if cut is None:
        cut = 0.5 if s.min() >= 0 and s.max() <= 1 else 0.0 if s.min() < 0 < s.max() else None
    if cut is None:
        return None
    negative = classes[classes != positive][0]
    return np.where(s >= cut, positive, negative)


def _inputs_of(arrays: dict, kw: dict, task: str, positive: Any) -> dict:
    """What feeds each metric input kind, independently of the engine."""
    y = arrays["y_true"]
    if task == "regression":
        return {"values": arrays["y_pred"]}
    classes = np.unique(y)
    scores = arrays.get("y_score")
    if "y_proba" in arrays:
        proba = np.asarray(arrays["y_proba"], dtype=np.float64)
        scores = proba[:, list(classes).index(positive)] if task == "binary" else proba
    probabilities = scores if "y_proba" in arrays or (
        scores is not None and np.min(scores) >= 0 and np.max(scores) <= 1) else None
    return {"labels": _labels_used(arrays, kw, classes, positive), "scores": scores,
            "probabilities": probabilities}


def _ref_evaluate(arrays: dict, kw: dict, out: tuple) -> str | None:
    from dartboard.metrics._registry import specs

    res = _evaluated(arrays, kw)
    task, positive = res.task, res.result.positive_label
    by_label = {s.table_label(task): s for s in specs() if s.scalar}
    feeds = _inputs_of(arrays, kw, task, positive)
    y = arrays["y_true"]
    for row in res.to_dict()["metrics"]:
        spec = by_label.get(row["metric"])
        if spec is None:
            continue
        other = feeds.get(spec.input)
        if other is None:
            return f"{row['metric']} reported without the input it needs ({spec.input})"
        args = (y == positive, other) if task == "binary" and spec.input != "labels" \
            else (y, other)
        keywords = dict(spec.multiclass) if task == "multiclass" else {}
        if task == "binary" and spec.input == "labels" and spec.pos_label:
            keywords["pos_label"] = positive
        if "sample_weight" in arrays:
            keywords["sample_weight"] = arrays["sample_weight"]
        theirs = _sklearn(spec, *args, keywords)
        if theirs is not None and _disagree(row["metric"], row["estimate"], theirs):
            return _disagree(row["metric"], row["estimate"], theirs)
    return _ref_groups(res, arrays)


def _ref_groups(res: Any, arrays: dict) -> str | None:
    """Each group's row count by a plain loop over the samples, and the gaps as the
    largest minus the smallest group value."""
    if res.by_group is None:
        return None
    columns = [arrays[k] for k in sorted(arrays) if k.startswith("group_")]
    keys = list(zip(*columns))
    frame = res.by_group.xs(res.metrics[0], level="metric")
    for index, row in frame.iterrows():
        key = index if isinstance(index, tuple) else (index,)
        count = sum(1 for k in keys if k == key)
        if row["n"] != count:
            return f"group {key}: n {row['n']} != {count} rows"
    gaps = res.difference()
    for metric in gaps.index:
        values = res.by_group.xs(metric, level="metric")["estimate"].to_numpy(dtype=float)
        if np.isfinite(values).sum() >= 2:
            msg = _disagree(f"difference of {metric}", gaps.loc[metric, "estimate"],
                            float(np.nanmax(values) - np.nanmin(values)), 1e-9)
            if msg:
                return msg
    return None


# ------------------------------------------------------------------ hostile input

#: inputs that must be refused by name, never accepted and never crash
HOSTILE = ("None label", "NA label", "mixed labels", "list labels", "nan score",
           "group missing", "list groups", "proba rows", "negative weights",
           "callable NA", "callable 3-D", "stability lists")


class Accepted(Exception):
    """A hostile input was accepted: a failure, whatever the container."""


def _object(values: Any) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _draw_hostile(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    kind = HOSTILE[int(rng.integers(len(HOSTILE)))]
    n = max(case.n, 4)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    score = np.round(rng.random(n), 3)
    at = int(rng.integers(n))
    arrays: dict[str, Any] = {"y_true": y, "y_score": score}
    if kind in ("None label", "NA label", "mixed labels", "list labels"):
        import pandas as pd

        bad = {"None label": None, "NA label": pd.NA, "mixed labels": "x",
               "list labels": [1]}[kind]
        values = list(y)
        values[at] = bad
        arrays = {"y_true": _object(values), "y_pred": np.where(score >= 0.5, 1, 0)}
    elif kind == "nan score":
        arrays["y_score"] = np.where(np.arange(n) == at, np.nan, score)
    elif kind in ("group missing", "list groups"):
        groups = list(rng.choice(np.array(["a", "b"]), n))
        groups[at] = None if kind == "group missing" else ["a"]
        arrays["groups"] = _object(groups)
    elif kind == "proba rows":
        arrays = {"y_true": y, "y_proba": np.column_stack([1.01 - score, score])}
    elif kind == "negative weights":
        arrays["sample_weight"] = np.where(np.arange(n) == at, -1.0, 1.0)
    elif kind.startswith("callable"):
        import pandas as pd

        values = list(y)
        values[at] = pd.NA
        arrays = {"y_true": _object(values) if kind == "callable NA" else
                  np.zeros((n, 2, 2)), "y_pred": np.where(score >= 0.5, 1, 0)}
    else:  # stability lists
        groups = list(rng.choice(np.array(["a", "b"]), n))
        groups[at] = ["a"]
        arrays = {"probas": rng.random((3, n)), "groups": _object(groups)}
    return arrays, (), {"kind": kind}


def _share_equal(a: Any, b: Any) -> float:
    return float(np.mean(np.asarray(a) == np.asarray(b)))


def _call_hostile(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    kind = kw["kind"]
    if kind == "stability lists":
        db.stability_metrics(arrays["probas"], groups=arrays["groups"])
    elif kind.startswith("callable"):
        if len(arrays["y_pred"]) % 2:
            db.interval(_share_equal, arrays["y_true"], arrays["y_pred"], n_resamples=20)
        else:
            db.compare_models(_share_equal, arrays["y_true"], arrays["y_pred"],
                              np.asarray(arrays["y_pred"])[::-1].copy(), n_resamples=20)
    else:
        db.evaluate(**arrays, n_resamples=20, random_state=0)
    raise Accepted(f"{kind} was accepted")


def _ref_hostile(arrays: dict, kw: dict, out: tuple) -> str | None:
    return None  # never reached: an accepted input raises Accepted


# ---------------------------------------------------------- stability_metrics

def _draw_stability(rng: np.random.Generator, case: Case) -> tuple[dict, tuple, dict]:
    m = 2 + case.n_classes  # models
    n = max(case.n, 2)
    probas = np.round(rng.random((m, n)), 2)
    y = relabel(rng.integers(0, 2, n), case.labels)
    classes = [v.item() for v in relabel(np.array([0, 1]), case.labels)]
    return {"probas": probas, "y_true": y}, ("y_true",), {"classes": classes}


def _call_stability(arrays: dict, kw: dict) -> tuple:
    import dartboard as db

    res = db.stability_metrics(arrays["probas"], y_true=arrays["y_true"], **kw)
    return tuple(float(v) for k, v in sorted(res.summary.items()))


def _ref_stability(arrays: dict, kw: dict, out: tuple) -> str | None:
    import dartboard as db

    h = arrays["probas"]
    m, n = h.shape
    summary = db.stability_metrics(h, y_true=arrays["y_true"], **kw).summary
    labels = h >= 0.5
    stability = np.mean(np.abs(labels.sum(axis=0) - (~labels).sum(axis=0)) / m)
    # jitter: every pair of models, the share of points they label differently
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    jitter = np.mean([np.mean(labels[i] != labels[j]) for i, j in pairs])
    return (_disagree("label_stability", summary["label_stability"], float(stability))
            or _disagree("jitter", summary["jitter"], float(jitter))
            or _disagree("std", summary["std"], float(np.mean(np.std(h, axis=0, ddof=1)))))


ENGINES = {
    "compare_models": Engine("compare_models", _draw_compare, _call_compare, _ref_compare),
    "interval": Engine("interval", _draw_interval, _call_interval, _ref_interval),
    "delong_test": Engine("delong_test", _draw_delong, _call_delong, _ref_delong),
    "mcnemar_test": Engine("mcnemar_test", _draw_mcnemar, _call_mcnemar, _ref_mcnemar),
    "permutation_test": Engine("permutation_test", _draw_permutation, _call_permutation,
                               _ref_permutation),
    "cv_interval": Engine("cv_interval", _draw_folds, _call_cv_interval, _ref_cv_interval),
    "corrected_ttest": Engine("corrected_ttest", _draw_folds, _call_corrected, _ref_corrected),
    "evaluate": Engine("evaluate", _draw_evaluate, _call_evaluate, _ref_evaluate),
    "hostile_inputs": Engine("hostile_inputs", _draw_hostile, _call_hostile, _ref_hostile),
    "stability_metrics": Engine("stability_metrics", _draw_stability, _call_stability,
                                _ref_stability),
}


#: defects found by this fuzzing in code outside these tests' reach, each pinned by a
#: strict xfail test in tests/test_fuzz_engines.py; the fuzz counts them as "known"
#: instead of failing on them again (remove an entry when its xfail starts passing)
KNOWN_DEFECTS = {
}


def known_defect(text: str | None) -> str | None:
    """The name of the known defect ``text`` (an outcome's description) shows, if any."""
    return next((name for name, shows in KNOWN_DEFECTS.items() if text and shows(text)),
                None)
