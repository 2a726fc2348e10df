"""Coverage of the nested CV interval and of the naive intervals (not run in CI).

Settings of Bates, Hastie and Tibshirani (2024, JASA; their experiment code is
github.com/stephenbates19/nestedcv_experiments, ``ols.R`` and ``lowd_logistic.R``),
K = 10 folds, n = 100:

- ``ols``: y = x'beta + eps, x ~ N(0, I_20), eps ~ N(0, 1), beta = 0 (the SNR does
  not matter for OLS), least squares with an intercept, squared error.
- ``ols-groups`` (dartboard's ``groups``, not in the paper): as ``ols`` in 25 groups of
  4 points that share half of the noise variance (intra-class correlation 0.5); the
  nested interval with ``groups`` beside the one that ignores them.
- ``auc-p10-s1`` and ``auc-p10-s1-n200`` (dartboard's, not the paper's): the
  ``logistic-p10-s1`` data at n = 100 and n = 200, scored by ROC AUC
  (``scoring="roc_auc"``, the model's ``predict_proba``); the truth is the AUC of the
  fitted scores on new data, by quadrature (below).
- ``logistic``: P(y = 1 | x) = 1 / (1 + exp(-x'beta)), x ~ N(0, I_p), beta = (s, 0,
  ..., 0); unpenalised maximum-likelihood logistic regression (intercept-only when the
  data separate, as their fitter intends), 0-1 loss. ``logistic-p10-s1`` and
  ``logistic-p10-s2`` are their ``lowd_logistic`` settings; ``logistic-p20-s1`` has
  p = 20.

What is covered is Err_XY, the expected loss on new data of the model fit on the
n points at hand, as in the paper. It is computed exactly instead of on a large
test set: OLS ``1 + intercept^2 + |b - beta|^2``; logistic ``E[sigma(u) 1(v <= 0)
+ (1 - sigma(u)) 1(v > 0)]`` with u = x'beta and v = a + x'b jointly normal, by
Gauss-Hermite quadrature over u (checked once per setting against 10^6 test points);
ROC AUC ``E[sigma(u1) (1 - sigma(u2)) Phi(c (u1 - u2) / (|beta|^2 sd(v | u) sqrt 2))]
/ (pi (1 - pi))`` over two independent points (c = b'beta, pi = E sigma(u)), by the
same quadrature in two dimensions (also checked against 10^6 test points).

Intervals: ``nested_cv_interval`` (nested) and its naive interval ``Err_CV -+ z
sigma / sqrt(n)`` (naive), and on the K fold scores of the first repetition
``cv_interval``, plain t and Nadeau-Bengio (n_train = 90, n_test = 10), and the
percentile interval of the fold bootstrap that ``dart_rank`` uses (2000 replicates). Levels 90% (the
paper's) and 95%; the 95% nested and naive bounds are formed from the same standard
errors and centres. Monte-Carlo error of a coverage near 90% with 500 data sets:
+-2.7 points (2 SE). A setting prints its table so far every ``every`` data sets
(``... after k data sets``), so a run stopped early still gives exact figures.

Usage: python benchmarks/nested_cv_coverage.py [sims=500] [repeats=200]
       [settings=ols,logistic-p10-s1,logistic-p10-s2,logistic-p20-s1,ols-groups]
       [every=0]
"""

from __future__ import annotations

import sys
import time
import warnings
import zlib

import numpy as np
from _results import Table
from scipy import special
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

N, K = 100, 10
LEVELS = (0.90, 0.95)
METHODS = ("nested", "naive", "t", "nadeau-bengio", "fold bootstrap")
IGNORED = "nested, groups ignored"  # the nested interval without groups (grouped settings)


class LeastSquares(RegressorMixin, BaseEstimator):
    """Ordinary least squares with an intercept, by the normal equations (well
    conditioned here, and far faster than an SVD for thousands of small fits)."""

    def fit(self, X, y):
        A = np.column_stack([np.ones(X.shape[0]), X])
        coef = np.linalg.solve(A.T @ A, A.T @ y)
        self.intercept_, self.coef_ = coef[0], coef[1:]
        return self

    def predict(self, X):
        return self.intercept_ + X @ self.coef_


class Logistic(ClassifierMixin, BaseEstimator):
    """Unpenalised logistic regression by Newton-Raphson (as R's glm); intercept-only
    when it does not converge or fitted probabilities reach 0 or 1 (separation)."""

    def fit(self, X, y):
        self.classes_, t = np.unique(y, return_inverse=True)
        A = np.column_stack([np.ones(X.shape[0]), X])
        w = np.zeros(A.shape[1])
        ok = False
        for _ in range(25):
            p = special.expit(A @ w)
            try:
                step = np.linalg.solve((A.T * (p * (1 - p))) @ A, A.T @ (t - p))
            except np.linalg.LinAlgError:
                break
            w += step
            if np.max(np.abs(step)) < 1e-8 * (1 + np.max(np.abs(w))):
                ok = True
                break
        p = special.expit(A @ w)
        eps = 10 * np.finfo(float).eps
        if not ok or np.any((p < eps) | (p > 1 - eps)):
            w = np.zeros(A.shape[1])
            w[0] = special.logit(np.clip(t.mean(), 1e-12, 1 - 1e-12))
        self.intercept_, self.coef_ = w[0], w[1:]
        return self

    def predict_proba(self, X):
        p = special.expit(self.intercept_ + X @ self.coef_)
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return self.classes_[(self.intercept_ + X @ self.coef_ > 0).astype(int)]


_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(200)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def logistic_error(beta, a, b):
    """Exact 0-1 error of the rule v = a + x'b > 0 when P(y = 1 | x) = sigma(x'beta)."""
    su2, c, sv2 = beta @ beta, b @ beta, b @ b
    u = np.sqrt(su2) * _NODES
    mean_v = a + c / su2 * u
    sd_v = np.sqrt(max(sv2 - c * c / su2, 0.0))
    with np.errstate(divide="ignore"):
        p1 = special.ndtr(mean_v / sd_v) if sd_v > 0 else (mean_v > 0).astype(float)
    pos = special.expit(u)
    return float(np.dot(_WEIGHTS, pos * (1 - p1) + (1 - pos) * p1))


def logistic_auc(beta, b):
    """Exact ROC AUC of the scores v = a + x'b when P(y = 1 | x) = sigma(x'beta)."""
    su2, c, sv2 = beta @ beta, b @ beta, b @ b
    if c == 0.0 and sv2 == 0.0:  # a constant score: every pair tied
        return 0.5
    u = np.sqrt(su2) * _NODES
    pos = special.expit(u)
    weight = np.outer(_WEIGHTS * pos, _WEIGHTS * (1 - pos))  # u1 positive, u2 negative
    sd_v = np.sqrt(max(sv2 - c * c / su2, 0.0))
    gap = c / su2 * (u[:, None] - u[None, :])  # E[v1 - v2 | u1, u2]
    with np.errstate(divide="ignore", invalid="ignore"):
        beyond = special.ndtr(gap / (sd_v * np.sqrt(2))) if sd_v > 0 else \
            (gap > 0) + 0.5 * (gap == 0)
    return float(np.sum(weight * beyond) / np.sum(weight))


def _setting(name):
    n = N
    if "-n" in name:
        name, size = name.rsplit("-n", 1)
        n = int(size)
    if name.startswith("auc-"):
        _, p, s = name.split("-")
        p, s = int(p[1:]), float(s[1:])
        beta = np.zeros(p)
        beta[0] = s

        def draw(rng):
            X = rng.normal(size=(n, p))
            return X, (rng.random(n) < special.expit(X @ beta)).astype(int), None

        def truth(model):
            return logistic_auc(beta, model.coef_)

        def check(model, rng):  # the quadrature against a large test set
            from sklearn.metrics import roc_auc_score

            X = rng.normal(size=(1_000_000, p))
            y = (rng.random(X.shape[0]) < special.expit(X @ beta)).astype(int)
            return float(roc_auc_score(y, model.predict_proba(X)[:, 1])), truth(model)

        return Logistic(), "roc_auc", draw, truth, check, n
    if name in ("ols", "ols-groups"):
        beta = np.zeros(20)
        groups = np.repeat(np.arange(N // 4), 4) if name == "ols-groups" else None

        def draw(rng):
            X = rng.normal(size=(N, 20))
            if groups is None:
                return X, X @ beta + rng.normal(size=N), None
            # half the noise variance shared by the 4 points of a group
            shared = rng.normal(scale=np.sqrt(0.5), size=N // 4)[groups]
            return X, X @ beta + shared + rng.normal(scale=np.sqrt(0.5), size=N), groups

        def truth(model):  # on new data (a new group): the noise variance is 1 in both
            return 1.0 + model.intercept_ ** 2 + float(np.sum((model.coef_ - beta) ** 2))

        return LeastSquares(), "mean_squared_error", draw, truth, None, N
    _, p, s = name.split("-")
    p, s = int(p[1:]), float(s[1:])
    beta = np.zeros(p)
    beta[0] = s

    def draw(rng):
        X = rng.normal(size=(N, p))
        return X, (rng.random(N) < special.expit(X @ beta)).astype(int), None

    def truth(model):
        return logistic_error(beta, model.intercept_, model.coef_)

    def check(model, rng):  # the quadrature against a large test set
        X = rng.normal(size=(1_000_000, p))
        y = (rng.random(X.shape[0]) < special.expit(X @ beta)).astype(int)
        return float(np.mean(model.predict(X) != y)), truth(model)

    return Logistic(), "zero_one_loss", draw, truth, check, N


def nested_bounds(res, centre, z):
    """The nested interval at the level of ``z`` from its centre and standard error, on
    its scale (ROC AUC: the logit scale)."""
    if res.scale == "logit":
        half = z * res.standard_error / (centre * (1 - centre))
        return (float(special.expit(special.logit(centre) - half)),
                float(special.expit(special.logit(centre) + half)))
    return centre - z * res.standard_error, centre + z * res.standard_error


def run(name, sims, repeats, every=0):
    import dartboard as db
    from dartboard._dart_uncertainty import fold_replicates

    model, scoring, draw, truth, check, n = _setting(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # str hashes vary by process
    z = {lvl: float(special.ndtri(0.5 + lvl / 2)) for lvl in LEVELS}
    methods = METHODS + ((IGNORED,) if name.endswith("groups") else ())
    cover = {(m, lvl): [] for m in methods for lvl in LEVELS}
    width = {key: [] for key in cover}
    low_miss = {m: 0 for m in methods}
    inflation, bias, estimate_err, targets = [], [], [], []
    start = time.perf_counter()
    for i in range(sims):
        X, y, groups = draw(rng)
        target = truth(model.fit(X, y))
        if check is not None and i == 0:
            big, exact = check(model, np.random.default_rng(1))
            print(f"  check: {scoring} on 10^6 test points {big:.4f}, quadrature {exact:.4f}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # stratified folds of a rare class, zero widths
            res = db.nested_cv_interval(model, X, y, scoring=scoring, cv=K, n_repeats=repeats,
                                        groups=groups, confidence_level=0.90, random_state=i)
            ignored = None if groups is None else db.nested_cv_interval(
                model, X, y, scoring=scoring, cv=K, n_repeats=repeats, confidence_level=0.90,
                random_state=i)
            folds = res.fold_scores[0]
            ivs = {lvl: (db.cv_interval(folds, confidence_level=lvl),
                         db.cv_interval(folds, n_train=n - n // K, n_test=n // K,
                                        confidence_level=lvl)) for lvl in LEVELS}
        boot, _ = fold_replicates(folds[None, :], 2000, np.random.default_rng(i))
        centre = res.estimate - res.bias
        for lvl in LEVELS:
            bounds = {"nested": nested_bounds(res, centre, z[lvl]),
                      "naive": (res.estimate - z[lvl] * res.naive_standard_error,
                                res.estimate + z[lvl] * res.naive_standard_error),
                      "t": (ivs[lvl][0].low, ivs[lvl][0].high),
                      "nadeau-bengio": (ivs[lvl][1].low, ivs[lvl][1].high),
                      "fold bootstrap": tuple(np.quantile(boot[:, 0],
                                                          [0.5 - lvl / 2, 0.5 + lvl / 2]))}
            if ignored is not None:
                mid = ignored.estimate - ignored.bias
                bounds["nested, groups ignored"] = (mid - z[lvl] * ignored.standard_error,
                                                    mid + z[lvl] * ignored.standard_error)
            if lvl == 0.90:  # the returned interval: the same as formed here (unclipped)
                assert np.isclose(bounds["nested"][0], res.low) or res.low == 0.0
            for m, (lo, hi) in bounds.items():
                cover[m, lvl].append(lo <= target <= hi)
                width[m, lvl].append(hi - lo)
                if lvl == 0.90 and target < lo:
                    low_miss[m] += 1
        inflation.append(res.inflation)
        bias.append(res.bias)
        estimate_err.append(res.estimate - target)
        targets.append(target)
        if every and (i + 1) % every == 0 and i + 1 < sims:
            print(f"{name} after {i + 1} data sets:")
            report(methods, cover, width, low_miss, inflation, bias, estimate_err, targets,
                   time.perf_counter() - start, i + 1)
    seconds = time.perf_counter() - start
    return methods, cover, width, low_miss, inflation, bias, estimate_err, targets, seconds


def report(methods, cover, width, low_miss, infl, bias, err, targets, secs, sims):
    print(f"  mean Err_XY {np.mean(targets):.4f} (sd {np.std(targets):.4f}); "
          f"CV estimate - Err_XY: mean {np.mean(err):+.4f}, sd {np.std(err):.4f}; "
          f"mean bias correction {np.mean(bias):+.4f}; mean inflation "
          f"{np.mean(infl):.3f}; {secs:.0f} s ({secs / sims:.2f} s per data set)")
    print(f"  {'interval':<23}{'cover 90%':>10}{'width 90%':>10}{'miss low':>9}"
          f"{'miss high':>10}{'cover 95%':>10}{'width 95%':>10}")
    for m in methods:
        c90 = np.mean(cover[m, 0.90])
        lo = low_miss[m] / sims
        print(f"  {m:<23}{c90:>10.3f}{np.mean(width[m, 0.90]):>10.4f}{lo:>9.3f}"
              f"{1 - c90 - lo:>10.3f}{np.mean(cover[m, 0.95]):>10.3f}"
              f"{np.mean(width[m, 0.95]):>10.4f}")
    print(flush=True)


def main():
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    settings = sys.argv[3].split(",") if len(sys.argv) > 3 else \
        ["ols", "logistic-p10-s1", "logistic-p10-s2", "logistic-p20-s1", "ols-groups"]
    print(f"coverage of Err_XY: n = {N} (or the setting's -n), K = {K}, {repeats} nested-CV "
          f"repetitions "
          f"({repeats * K * (K + 1) // 2} fits per data set), {sims} data sets per setting\n")
    every = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    for name in settings:
        print(f"{name}:")
        *parts, secs = run(name, sims, repeats, every)
        report(*parts, secs, sims)


COLUMNS = ["interval", "cover 90%", "width 90%", "miss low", "miss high", "cover 95%",
           "width 95%"]


def render(log: str) -> list[Table]:
    """One table per setting of a run's log, its summary lines as notes."""
    tables: list[Table] = []
    for line in log.splitlines():
        if line.endswith(" data sets:") and tables:  # a checkpoint: later rows replace it
            tables[-1].rows.clear()
            tables[-1].notes[:] = [n for n in tables[-1].notes if n.startswith("check:")]
        elif line.endswith(":") and not line.startswith(" "):
            name = line[:-1]
            tables.append(Table(f"nested_cv_{name.replace('-', '_')}",
                                f"Coverage of Err_XY, setting {name}", COLUMNS, []))
        elif tables and line.startswith("  ") and line.split()[0] in ("mean", "check:"):
            if line.split()[0] == "mean" and tables[-1].rows:  # the final block, unheaded
                tables[-1].rows.clear()
                tables[-1].notes[:] = [n for n in tables[-1].notes if n.startswith("check:")]
            tables[-1].notes.append(line.strip())
        elif tables and line[2:25].strip() in (*METHODS, IGNORED):
            tables[-1].rows.append([line[2:25].strip(), *line[25:].split()])
    return [t for t in tables if t.rows]


if __name__ == "__main__":
    main()
