"""Long fuzz run of the strata and nested-CV surfaces (``interval(..., strata=)``,
``nested_cv_interval``), the two surfaces of the third audit that had no harness.

Each case draws a small hostile data set: 2 to 300 rows, labels of 2 or 3 classes
(one class absent from some strata, one-row strata, a stratum of one class), every
prediction right, every one wrong or a mix; scores with ties, at 0 and 1. Then:

``interval(metric, y, other, strata=, method=, n_resamples=)`` with a metric of each
family (accuracy, F1, ROC AUC, log loss, MAE) and a bootstrap method. The contract:
the only exceptions are ``ValueError``/``TypeError`` that name an argument or the data;
the inputs are left as they were; the estimate is the metric on all rows (scikit-learn's
function is the oracle); where the interval exists ``low <= high``, both inside the
metric's range, and ``low <= estimate <= high`` for the metrics whose registry entry
promises it (``covers_estimate``); the method string names the strata; the same seed gives the
same bits; relabelling the strata (another label for each, the same partition) gives the
same interval.

``nested_cv_interval(LogisticRegression, X, y, scoring=, cv=, n_repeats=, groups=)``
with accuracy, ROC AUC and log loss: the same exceptions only; the inputs are left as
they were; ``low <= estimate <= high`` for the nested and the naive interval; the same
seed gives the same bits.

Usage: python benchmarks/fuzz_strata_nested.py [SECONDS] [SEED]  (defaults 300, 0)
Prints the cases run per surface and every failing case; exit code 1 on any failure.
"""

from __future__ import annotations

import sys
import time
import traceback
import warnings
from collections import Counter

import numpy as np
from sklearn import metrics as skm
from sklearn.linear_model import LogisticRegression

import dartboard as db

METRICS = {"accuracy": skm.accuracy_score, "f1": skm.f1_score, "roc_auc": skm.roc_auc_score,
           "log_loss": skm.log_loss, "mean_absolute_error": skm.mean_absolute_error}
METHODS = ("bca", "percentile", "basic", "auto")


def _labels(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = rng.integers(0, 4)
    if kind == 0:  # a rare class
        return (rng.random(n) < 0.08).astype(int)
    if kind == 1:  # strings
        return np.array(["no", "yes"])[rng.integers(0, 2, n)]
    return rng.integers(0, 2, n)


def _predictions(rng: np.random.Generator, y01: np.ndarray) -> np.ndarray:
    mode = rng.integers(0, 3)
    if mode == 0:
        return y01.copy()
    if mode == 1:
        return 1 - y01
    return np.where(rng.random(y01.shape[0]) < 0.7, y01, 1 - y01)


def _scores(rng: np.random.Generator, y01: np.ndarray) -> np.ndarray:
    s = np.clip(0.4 * y01 + 0.6 * rng.random(y01.shape[0]), 0, 1)
    if rng.random() < 0.5:
        s = np.round(s, 1)  # ties, 0 and 1
    return s


def _strata(rng: np.random.Generator, y01: np.ndarray) -> np.ndarray:
    n = y01.shape[0]
    kind = rng.integers(0, 4)
    if kind == 0:
        return rng.integers(0, int(rng.integers(1, 6)), n)
    if kind == 1:  # a stratum of one row
        out = rng.integers(0, 3, n)
        out[0] = 9
        return out
    if kind == 2:  # strata that are the classes (one class each)
        return y01.copy()
    return np.array(["site-a", "site-b", "site-c"])[rng.integers(0, 3, n)]


def _quiet(call):
    """``call()`` with its warnings silenced (the fuzz run judges numbers, not notes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _attempt(call, where: str):
    """``(result, None)``, or ``(None, (outcome, where))`` when ``call`` raised: refused
    by a ``ValueError``/``TypeError`` with a message, else a crash."""
    try:
        return _quiet(call), None
    except (ValueError, TypeError) as exc:
        if not str(exc):
            return None, ("crash", f"{type(exc).__name__} without a message ({where})")
        return None, ("refused", "")
    except Exception:  # noqa: BLE001 - what the fuzz run is looking for
        return None, ("crash", traceback.format_exc(limit=3))


def strata_case(rng: np.random.Generator) -> tuple[str, str]:
    n = int(rng.integers(2, 300))
    y = _labels(rng, n)
    y01 = (y == "yes").astype(int) if y.dtype.kind in "US" else y.astype(int)
    name = str(rng.choice(list(METRICS)))
    if name in ("accuracy", "f1"):
        other = _predictions(rng, y01)
        other = np.array(["no", "yes"])[other] if y.dtype.kind in "US" else other
    elif name == "mean_absolute_error":
        y, other = rng.normal(size=n), rng.normal(size=n)
        y01 = (y > 0).astype(int)
    else:
        other = _scores(rng, y01)
    strata = _strata(rng, y01)
    method = str(rng.choice(METHODS))
    kwargs = {"pos_label": "yes"} if name == "f1" and y.dtype.kind in "US" else {}
    copies = (y.copy(), other.copy(), strata.copy())
    seed = int(rng.integers(0, 2**31))
    def run(labels=strata):
        return db.interval(name, y, other, strata=labels, method=method, n_resamples=200,
                           random_state=seed, **kwargs)

    iv, failed = _attempt(run, f"{name}, n={n}")
    if failed:
        return failed
    for given, kept in zip((y, other, strata), copies):
        if not np.array_equal(given, kept):
            return "mutated", f"{name} n={n}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = float(METRICS[name](y, other, **kwargs))
    except ValueError:
        want = float("nan")
    if np.isfinite(want) and abs(iv.estimate - want) > 1e-9 * max(1.0, abs(want)):
        return "reference", f"{name} estimate {iv.estimate} against {want}"
    low, high = float(iv.low), float(iv.high)
    if np.isfinite(low) and np.isfinite(high):
        if low > high + 1e-12:
            return "broken", f"{name} {method}: low {low} > high {high}"
        spec = db.metrics._registry.resolve_metric(name).spec
        if spec.bounds is not None and (low < spec.bounds[0] - 1e-12
                                        or high > spec.bounds[1] + 1e-12):
            return "broken", f"{name}: [{low}, {high}] outside {spec.bounds}"
        if spec.covers_estimate and not low - 1e-12 <= iv.estimate <= high + 1e-12:
            return "broken", f"{name}: [{low}, {high}] without its estimate {iv.estimate}"
        if "strata" not in str(iv.method):
            return "broken", f"{name}: method {iv.method!r} does not name the strata"
    again = _quiet(run)
    renamed = _quiet(lambda: run(np.unique(strata, return_inverse=True)[1].reshape(-1) * 7 + 100))
    if (again.low, again.high) != (iv.low, iv.high) and not (
            np.isnan(iv.low) and np.isnan(again.low)):
        return "differs", f"{name}: the same seed gave another interval"
    if not np.allclose([renamed.low, renamed.high], [low, high], equal_nan=True,
                       rtol=0, atol=1e-12):
        return "differs", (f"{name} {method}: relabelled strata gave [{renamed.low}, "
                           f"{renamed.high}] against [{low}, {high}]")
    return "ok", ""


def nested_case(rng: np.random.Generator) -> tuple[str, str]:
    n = int(rng.integers(20, 120))
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    if rng.random() < 0.3:
        y = (rng.random(n) < 0.15).astype(int)  # a rare class
    scoring = str(rng.choice(["accuracy", "roc_auc", "neg_log_loss"]))
    groups = rng.integers(0, int(rng.integers(6, 20)), n) if rng.random() < 0.4 else None
    cv = int(rng.integers(3, 6))
    seed = int(rng.integers(0, 2**31))
    copies = (X.copy(), y.copy(), None if groups is None else groups.copy())
    def run():
        return db.nested_cv_interval(LogisticRegression(), X, y, scoring=scoring, cv=cv,
                                     n_repeats=2, groups=groups, random_state=seed,
                                     progress=False)

    res, failed = _attempt(run, scoring)
    if failed:
        return failed
    if not (np.array_equal(X, copies[0]) and np.array_equal(y, copies[1]) and (
            groups is None or np.array_equal(groups, copies[2]))):
        return "mutated", scoring
    for what in ("low", "high", "estimate"):
        if not np.isfinite(getattr(res, what)):
            return "broken", f"{scoring}: {what} is {getattr(res, what)}"
    if not res.low <= res.estimate <= res.high:
        return "broken", f"{scoring}: [{res.low}, {res.high}] without {res.estimate}"
    again = _quiet(run)
    if (again.low, again.high, again.estimate) != (res.low, res.high, res.estimate):
        return "differs", f"{scoring}: the same seed gave another interval"
    return "ok", ""


def main(seconds: float = 300.0, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    counts: dict[str, Counter] = {"interval(strata=)": Counter(), "nested_cv_interval": Counter()}
    failures = []
    end = time.monotonic() + seconds
    surfaces = (("interval(strata=)", strata_case, 0.5), ("nested_cv_interval", nested_case, 0.5))
    for name, case, share in surfaces:
        stop = time.monotonic() + share * (end - time.monotonic()) if name != surfaces[-1][0] \
            else end
        while time.monotonic() < stop:
            outcome, where = case(rng)
            counts[name][outcome] += 1
            if outcome not in ("ok", "refused"):
                failures.append((name, outcome, where))
                print(f"{name}: {outcome}: {where}", flush=True)
    print(f"{'surface':<22}{'cases':>8}{'ok':>8}{'refused':>9}{'failed':>8}")
    for name, c in counts.items():
        total = sum(c.values())
        failed = total - c["ok"] - c["refused"]
        print(f"{name:<22}{total:>8}{c['ok']:>8}{c['refused']:>9}{failed:>8}")
    return 1 if failures else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(float(args[0]) if args else 300.0, int(args[1]) if len(args) > 1 else 0))
