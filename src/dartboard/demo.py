"""The demo pipeline behind ``dartboard demo``: a whole evaluation on data that ships
with scikit-learn, ending in ``report.html`` and ``results.json``.

On the breast-cancer data (binary), a cross-validated grid over three model families
is ranked by DART at a default precision, the precision sweep shows where the winner
changes, the top two are compared with a paired permutation test on their fold
scores and all configurations with Friedman/Nemenyi ranks; the winner is audited
with a bootstrap ensemble, the top models are profiled, and the winner is evaluated
on a held-out set with an interval for every metric. On the diabetes data
(regression) a ridge model is evaluated with intervals and its error distribution.
Every random step has a fixed seed, so the numbers are the same on every run (the
profile's times and memory are measurements and vary).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["run_demo", "DEFAULT_PRECISION", "SEED"]

#: DART precision of the demo's ranking. At a mean accuracy near 0.95,
#: p = 1 / (A ln(2A)) ~ 1.6 trades one point of fold standard deviation for one point of
#: mean accuracy; p = 2 leans slightly towards stability.
DEFAULT_PRECISION = 2.0
SEED = 0


def _configurations(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    """(display name, parameters of the ``clf`` step) of each grid point."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    c_values = (0.1, 1.0) if quick else (0.01, 0.1, 1.0, 10.0)
    depths = (3, None) if quick else (2, 4, 8, None)
    neighbours = (15,) if quick else (5, 15, 31)
    trees = 25 if quick else 100
    configs = [(f"logreg C={c:g}", {"clf": LogisticRegression(C=c, max_iter=2000)})
               for c in c_values]
    configs += [(f"forest depth={d if d else 'full'}",
                 {"clf": RandomForestClassifier(n_estimators=trees, max_depth=d,
                                                random_state=SEED)})
                for d in depths]
    configs += [(f"knn k={k}", {"clf": KNeighborsClassifier(n_neighbors=k)})
                for k in neighbours]
    return configs


def _pipeline(clf: Any = None) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    return Pipeline([("scale", StandardScaler()), ("clf", clf or LogisticRegression())])


def _cv_grid(configs: list[tuple[str, dict[str, Any]]], X: np.ndarray, y: np.ndarray,
             n_folds: int, n_jobs: int) -> dict[str, list[float]]:
    """Fold accuracies of every configuration: name -> k scores."""
    from sklearn.model_selection import StratifiedKFold

    cv = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=SEED)
    from dartboard.scale import cross_validate_grid

    grid = [{"clf": [params["clf"]]} for _, params in configs]
    cv_results = cross_validate_grid(_pipeline(), grid, X, y, cv=cv, scoring="accuracy",
                                     n_jobs=n_jobs)
    folds = np.column_stack([np.asarray(cv_results[f"split{i}_test_score"], dtype=float)
                             for i in range(n_folds)])
    return {name: folds[i].tolist() for i, (name, _) in enumerate(configs)}


class _Steps:
    """A rich progress bar over the demo's steps (or nothing)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(SpinnerColumn(), TextColumn("{task.description:<44}"),
                                      BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                      console=Console(stderr=True), transient=False)
            self._task = self._progress.add_task("dartboard demo", total=total)
        self.timings: dict[str, float] = {}

    @contextmanager
    def step(self, description: str) -> Iterator[None]:
        if self._progress:
            self._progress.update(self._task, description=description)
        start = time.perf_counter()
        yield
        self.timings[description] = time.perf_counter() - start
        if self._progress:
            self._progress.advance(self._task)

    def __enter__(self) -> _Steps:
        if self._progress:
            self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress:
            self._progress.update(self._task, description="done")
            self._progress.stop()


def _selection(folds: dict[str, list[float]], precision: float) -> dict[str, Any]:
    from dartboard import dart_rank, dart_sweep, permutation_test, rank_models
    from dartboard.report._inputs import rank_input, sweep_input
    from dartboard.selection import DEFAULT_PRECISIONS

    ranking = dart_rank(folds, precision, random_state=SEED)
    sweep = dart_sweep(folds, DEFAULT_PRECISIONS)
    first, second = ranking["configuration"].iloc[0], ranking["configuration"].iloc[1]
    test = permutation_test(folds[first], folds[second], random_state=SEED)
    by_mean = ranking.sort_values("rank_by_mean")["configuration"].iloc[0]
    significant = test.significant(0.05)
    verdict = (f"Mean fold accuracy of {first} minus {second}: {test.statistic:+.4f}; "
               f"p = {test.pvalue:.3g} ({'exact' if test.exact else 'Monte Carlo'}"
               f" over {test.n_resamples} sign flips): "
               + ("a significant difference at alpha = 0.05." if significant else
                  "not significant at alpha = 0.05; the two are statistically tied."))
    ranked = rank_models(folds)
    rows = [{"configuration": r.configuration, "mean": r.mean, "mean_low": r.mean_low,
             "mean_high": r.mean_high, "std": r.std, "dart": r.dart, "dart_low": r.dart_low,
             "dart_high": r.dart_high, "p_best": r.p_best, "rank": int(r.rank),
             "rank_by_mean": int(r.rank_by_mean), "winner": i == 0}
            for i, r in enumerate(ranking.itertuples())]
    return {
        "metric": "accuracy",
        "precision": precision,
        "description": (f"{len(folds)} configurations, {len(folds[first])}-fold stratified "
                        f"cross-validation on the training set. DART = (1 + log2 A) / "
                        f"exp(p D), A the mean and D the standard deviation (ddof = 1) of "
                        f"the fold accuracies; p = {precision:g} here. By mean accuracy "
                        f"alone the winner would be {by_mean}. The 95% intervals and "
                        f"P(best), the share of replicates a configuration wins, resample "
                        f"the folds together, as if they were independent (they share "
                        f"training data): they show how much the ranking rests on "
                        f"particular folds."),
        "configs": list(folds),
        "fold_scores": [folds[name] for name in folds],
        "ranking": rows,
        "ranking_columns": [["configuration", "Configuration"], ["mean", "Mean"],
                            ["mean_low", "Mean low"], ["mean_high", "Mean high"],
                            ["std", "Std"], ["dart", "DART"], ["dart_low", "DART low"],
                            ["dart_high", "DART high"], ["p_best", "P(best)"], ["rank", "Rank"],
                            ["rank_by_mean", "Rank by mean"]],
        "winner": first, "winner_by_mean": by_mean,
        "sweep_precisions": DEFAULT_PRECISIONS.tolist(),
        "sweep": sweep_input(sweep),
        "sweep_segments": [{"config": w.configuration, "from": w.p_start, "to": w.p_end}
                           for w in sweep.winners.itertuples()],
        "crossings": [{"p": c.p, "from": c.from_configuration, "to": c.to_configuration}
                      for c in sweep.crossings.itertuples()],
        "comparison": {
            "a": first, "b": second, "statistic": test.statistic, "pvalue": test.pvalue,
            "exact": bool(test.exact), "n_resamples": test.n_resamples,
            "significant": significant, "verdict": verdict,
            "rows": [{"quantity": f"mean fold accuracy, {first}",
                      "value": float(np.mean(folds[first]))},
                     {"quantity": f"mean fold accuracy, {second}",
                      "value": float(np.mean(folds[second]))},
                     {"quantity": "mean difference", "value": test.statistic},
                     {"quantity": "p-value (two-sided)", "value": test.pvalue},
                     {"quantity": "exact", "value": bool(test.exact)}],
        },
        "rank_test": {
            "statistic": ranked.statistic, "pvalue": ranked.pvalue,
            "critical_difference": ranked.critical_difference,
            "description": (f"Friedman chi-square = {ranked.statistic:.3f}, p = "
                            f"{ranked.pvalue:.3g}; Nemenyi critical difference = "
                            f"{ranked.critical_difference:.3f} average ranks "
                            f"(alpha = {ranked.alpha:g})."),
            "rows": [{"model": r.model, "average_rank": r.average_rank,
                      "pvalue_adjusted": r.pvalue_adjusted,
                      "significantly_worse": bool(r.significantly_worse)}
                     for r in ranked.summary.itertuples()],
            "columns": [["model", "Configuration"], ["average_rank", "Average rank"],
                        ["pvalue_adjusted", "p vs best (adjusted)"],
                        ["significantly_worse", "Significantly worse"]],
        },
        "critical_difference": rank_input(ranked),
    }


def _stability(model: Any, name: str, X_tr: np.ndarray, y_tr: np.ndarray,
               X_te: np.ndarray, y_te: np.ndarray, m: int, n_jobs: int) -> dict[str, Any]:
    from dartboard import stability_audit
    from dartboard.report._inputs import stability_input

    audit = stability_audit(model, X_tr, y_tr, X_te, y_te, n_estimators=m,
                            random_state=SEED, n_jobs=n_jobs)
    keys = [k for k in audit.summary if isinstance(audit.summary[k], (int, float, np.number))
            and not isinstance(audit.summary[k], bool)]
    return {
        "model": name, "n_estimators": int(audit.n_models),
        "description": (f"{audit.n_models} clones of {name} trained on bootstrap samples "
                        f"of the training set, evaluated on the {len(y_te)} held-out points. "
                        "Label stability is 1 when every model gives a point the same label; "
                        "jitter is the share of model pairs that disagree; uncertainties are "
                        "in bits."),
        "summary": [{"quantity": k.replace("_", " "), "value": audit.summary[k]}
                    for k in keys],
        "probas": np.round(np.asarray(audit.probas, dtype=float), 5).tolist(),
        "y_true": np.asarray(y_te).tolist(),
        "figure": stability_input(audit),
    }


_PROFILE_COLUMNS = [["model", "Model"], ["fit_time", "Fit time (s)"],
                    ["predict_time", "Predict time (s)"], ["throughput", "Rows/s"],
                    ["fit_peak_python", "Fit peak, Python (B)"],
                    ["fit_peak_rss", "Fit peak, RSS (B)"], ["model_size", "Model size (B)"]]


def _profile(models: dict[str, Any], X_tr: np.ndarray, y_tr: np.ndarray,
             X_te: np.ndarray, repeats: int) -> dict[str, Any]:
    from dartboard import profile_pipeline

    table = profile_pipeline(models, X_tr, y_tr, X_te, repeats=repeats,
                             method="predict_proba")
    rows = [{"model": str(name), **{k: row[k] for k, _ in _PROFILE_COLUMNS[1:]}}
            for name, row in table.iterrows()]
    return {"description": (f"Median over {repeats} timed runs of fit and predict_proba on "
                            f"{len(y_tr)} training and {len(X_te)} held-out rows; peak memory "
                            "from one extra traced run. Measurements: they vary from run to "
                            "run."),
            "rows": rows, "columns": _PROFILE_COLUMNS}


def _regression(ci_resamples: int) -> dict[str, Any]:
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from dartboard.evaluation._engine import evaluate_predictions

    X, y = load_diabetes(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=SEED)
    model = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-3, 3, 13)))
    pred = model.fit(X_tr, y_tr).predict(X_te)
    alpha = float(model[-1].alpha_)
    section = evaluate_predictions(y_te, y_pred=pred, task="regression",
                                   n_resamples=ci_resamples, random_state=SEED,
                                   model=f"ridge alpha={alpha:g}").to_dict()
    section.update(
        heading="Regression: diabetes progression",
        description=(f"scikit-learn's diabetes data ({len(y)} patients, {X.shape[1]} "
                     f"features): a standardised ridge regression (alpha = {alpha:g} chosen "
                     f"by RidgeCV) trained on {len(y_tr)} and evaluated on {len(y_te)} "
                     "held-out patients; intervals by bootstrap."),
        dataset="diabetes")
    return section


def run_demo(out_dir: str | os.PathLike[str] = "dartboard-demo", *, quick: bool = False,
             progress: bool = True) -> dict[str, Any]:
    """Run the demo and write ``report.html`` and ``results.json`` into ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Created when missing. Both files are written atomically.
    quick : bool
        A smaller grid, fewer folds, ensemble members and resamples (seconds, for
        tests); the steps and the report are the same.
    progress : bool
        Show a rich progress bar on standard error.

    Returns
    -------
    dict
        The results (as saved in ``results.json``) plus ``paths`` (the two files)
        and ``timings`` (seconds per step).
    """
    from sklearn.base import clone
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from dartboard import __version__
    from dartboard.evaluation import evaluate
    from dartboard.report import render_report
    from dartboard.report._render import json_text
    from dartboard.report._write import write_texts_atomic

    out = Path(out_dir)
    n_folds = 5 if quick else 10
    n_models = 10 if quick else 30
    ci_resamples = 500 if quick else 2000
    n_jobs = 1 if quick else max(1, min(2, os.cpu_count() or 1))
    results: dict[str, Any] = {"dartboard_version": __version__, "seed": SEED,
                               "quick": quick}
    steps = ["data", "grid", "select", "refit", "stability", "profile", "regression",
             "write"]
    with _Steps(len(steps), progress) as bar:
        with bar.step("loading breast-cancer data"):
            data = load_breast_cancer()
            X_tr, X_te, y_tr, y_te = train_test_split(
                data.data, data.target, test_size=0.3, random_state=SEED,
                stratify=data.target)
            configs = _configurations(quick)
        with bar.step(f"cross-validating {len(configs)} configurations"):
            folds = _cv_grid(configs, X_tr, y_tr, n_folds, n_jobs)
        with bar.step("DART ranking, sweep and tests"):
            selection = _selection(folds, DEFAULT_PRECISION)
            results["selection"] = selection
        winner = selection["winner"]
        params = dict(configs)
        make = {name: (lambda name=name: _pipeline(clone(params[name]["clf"])))
                for name in params}
        with bar.step(f"held-out evaluation of {winner}"):
            model = make[winner]().fit(X_tr, y_tr)
            proba = model.predict_proba(X_te)
            radius = X_te[:, list(data.feature_names).index("mean radius")]
            size = np.where(radius > np.median(radius), "large", "small")
            # the ROC and PR bands are the evaluation's (curve_bands), drawn by the report
            ev = evaluate(y_te, y_proba=proba, groups={"tumour size": size},
                          n_resamples=ci_resamples, random_state=SEED, model=winner,
                          curve_bands=True)
            cls = ev.to_dict()
            cls.update(group_column="tumour size")
            names = data.target_names.tolist()
            cls["confusion"]["labels"] = [names[int(v)] for v in cls["confusion"]["labels"]]
            cls.update(heading=f"Held-out evaluation of {winner}",
                       description=(f"scikit-learn's breast-cancer data ({len(data.target)} "
                                    f"tumours, {data.data.shape[1]} features; positive class "
                                    f"1 = {names[1]}). The DART winner, refitted on "
                                    f"{len(y_tr)} training points, evaluated on "
                                    f"{len(y_te)} held-out points, overall and by tumour "
                                    "size (mean radius above or below the held-out "
                                    "median), with the gaps between the two sizes."),
                       dataset="breast_cancer")
            results["classification"] = cls
        with bar.step(f"stability audit ({n_models} bootstrap models)"):
            results["stability"] = _stability(make[winner](), winner, X_tr, y_tr, X_te,
                                              y_te, n_models, n_jobs)
        top = [r["configuration"] for r in selection["ranking"][:3]]
        with bar.step("profiling the top models"):
            results["profile"] = _profile({n: make[n]() for n in top}, X_tr, y_tr, X_te,
                                          1 if quick else 3)
        with bar.step("regression on diabetes data"):
            results["regression"] = _regression(ci_resamples)
        results["title"] = "dartboard demo report"
        results["subtitle"] = ("Which model to pick, how sure we can be, and what it costs: "
                               "scikit-learn's breast-cancer and diabetes data.")
        results["highlights"] = _highlights(results)
        results["notes"] = []
        with bar.step("writing report.html and results.json"):
            out.mkdir(parents=True, exist_ok=True)
            # both files or neither: an interrupted demo leaves no results.json
            # without its report.html
            json_path, html_path = write_texts_atomic(
                {out / "results.json": json_text(results),
                 out / "report.html": render_report(results)})
    results["paths"] = {"report": str(html_path), "results": str(json_path)}
    results["timings"] = bar.timings
    return results


def _metric(section: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((m for m in section["metrics"] if m["metric"] == name), None)


def _highlights(results: dict[str, Any]) -> list[dict[str, str]]:
    sel, cls, reg = results["selection"], results["classification"], results["regression"]
    out = [{"label": f"Chosen by DART (p = {sel['precision']:g})", "value": sel["winner"],
            "detail": f"by mean accuracy alone: {sel['winner_by_mean']}"}]
    if sel["crossings"]:
        first, more = sel["crossings"][0], len(sel["crossings"]) - 1
        out.append({"label": "Winner changes at", "value": f"p = {first['p']:.3g}",
                    "detail": f"{first['from']} -> {first['to']}"
                              + (f" (and {more} more change(s))" if more else "")})
    for name, label in (("accuracy", "Held-out accuracy"), ("roc_auc", "Held-out ROC AUC")):
        row = _metric(cls, name)
        if row:
            out.append({"label": label, "value": f"{row['estimate']:.3f}",
                        "detail": f"95% CI [{row['low']:.3f}, {row['high']:.3f}]"})
    cmp = sel["comparison"]
    out.append({"label": "Top two, permutation test", "value": f"p = {cmp['pvalue']:.3g}",
                "detail": f"{cmp['a']} vs {cmp['b']}"})
    st = results.get("stability")
    if st:
        row = next((r for r in st["summary"] if r["quantity"] == "label stability"), None)
        if row:
            out.append({"label": "Label stability", "value": f"{row['value']:.3f}",
                        "detail": f"{st['n_estimators']} bootstrap models"})
    row = _metric(reg, "mean_absolute_error")
    if row:
        out.append({"label": "Diabetes ridge MAE", "value": f"{row['estimate']:.1f}",
                    "detail": f"95% CI [{row['low']:.1f}, {row['high']:.1f}]"})
    return out
