"""``dartboard audit`` and ``dartboard profile``: a model trained on a data file.

Estimators are named by import path (``sklearn.linear_model.LogisticRegression``)
with JSON parameters; nothing given on the command line is ever unpickled. Importing
a module runs its code, so ``--model`` must start with an allowed prefix before
anything is imported: scikit-learn and the common estimator libraries
(:data:`DEFAULT_MODULES`), and only the further prefixes the user names with
``--allow-module``. The class must then be an estimator (``fit``, and ``predict`` or
``predict_proba``).
"""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

import typer

from dartboard.cli._io import column, is_numeric, labels, one_line, read_table
from dartboard.cli._output import print_json, print_table
from dartboard.exceptions import InputError

DEFAULT_MODULES = ("sklearn", "xgboost", "lightgbm", "catboost")

_ALLOW_HELP = ("Also allow --model from this package or module prefix, e.g. mypkg.models "
               "(repeat the option). Importing a module runs its code: name only code "
               "you trust.")

_DROP_HELP = ("A column to leave out of the features, such as an identifier or a text "
              "column (repeat the option). Features must be numeric.")

_PROFILE_ROWS = ["fit_time", "fit_time_iqr", "predict_time", "predict_time_iqr", "throughput",
                 "fit_peak_python", "predict_peak_python", "fit_peak_rss", "predict_peak_rss",
                 "model_size", "n_train", "n_test", "repeats"]


def audit(
    data: str = typer.Argument(
        ..., metavar="DATA",
        help=("CSV or Parquet file: feature columns and the target.")),
    target: str = typer.Option(..., "--target", help="Target column."),
    model: str = typer.Option(..., "--model", help="Estimator class by import path, e.g. "
                                                   "sklearn.linear_model.LogisticRegression."),
    params: str | None = typer.Option(None, "--params", help="Constructor parameters as a "
                                                             "JSON object."),
    allow_module: list[str] | None = typer.Option(None, "--allow-module", help=_ALLOW_HELP),
    n_estimators: int = typer.Option(30, "--n-estimators", help="Bootstrap models."),
    group: str | None = typer.Option(None, "--group", help="Column of groups (not a "
                                                           "feature): metrics per group."),
    drop: list[str] | None = typer.Option(None, "--drop", help=_DROP_HELP),
    test_size: float = typer.Option(0.3, "--test-size", help="Held-out share."),
    seed: int = typer.Option(0, "--seed"),
    n_jobs: int = typer.Option(1, "--n-jobs"),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Stability and uncertainty of a model trained on bootstrap samples."""
    from dartboard import stability_audit

    estimator = _estimator(model, params, allow_module)
    X, y, groups = _training_data(data, target, group, drop)
    X_tr, X_te, y_tr, y_te, _, g_te = _split(X, y, groups, test_size, seed)
    # named by its column, so the group table says "sex", not "group"
    res = stability_audit(estimator, X_tr, y_tr, X_te, y_te, n_estimators=n_estimators,
                          groups=None if group is None else {group: g_te},
                          random_state=seed, n_jobs=n_jobs,
                          progress=False if json_out else None)
    summary = [{"quantity": k, "value": v} for k, v in res.summary.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    by_group = None if res.by_group is None else res.by_group.to_dict(orient="records")
    if json_out:
        print_json({"model": model, "n_estimators": n_estimators, "summary": summary,
                    "by_group": by_group})
        return
    print_table(f"stability of {model.rpartition('.')[2]} ({n_estimators} bootstrap "
                f"models, {len(y_te)} held-out rows)", summary,
                [("quantity", "quantity"), ("value", "value")])
    if by_group:
        # one group column: its name heads the groups (the attribute column would
        # repeat it on every row)
        print_table(f"by {group}", by_group,
                    [("group", str(group))] + [(k, k) for k in ("n", "metric", "value",
                                                            "difference", "ratio")
                                          if k in by_group[0]])


def profile(
    data: str = typer.Argument(
        ..., metavar="DATA",
        help=("CSV or Parquet file: feature columns and the target.")),
    target: str = typer.Option(..., "--target", help="Target column."),
    model: str = typer.Option(..., "--model", help="Estimator class by import path."),
    params: str | None = typer.Option(None, "--params", help="Constructor parameters as a "
                                                             "JSON object."),
    allow_module: list[str] | None = typer.Option(None, "--allow-module", help=_ALLOW_HELP),
    drop: list[str] | None = typer.Option(None, "--drop", help=_DROP_HELP),
    repeats: int = typer.Option(5, "--repeats", help="Timed fit + predict runs."),
    test_size: float = typer.Option(0.3, "--test-size", help="Share of rows predicted."),
    seed: int = typer.Option(0, "--seed"),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Fit and predict time, throughput, peak memory and model size."""
    from dartboard import profile_pipeline

    estimator = _estimator(model, params, allow_module)
    X, y, _ = _training_data(data, target, None, drop)
    X_tr, X_te, y_tr, _, _, _ = _split(X, y, None, test_size, seed)
    prof = profile_pipeline(estimator, X_tr, y_tr, X_te, repeats=repeats)
    summary = prof.summary()
    rows = [{"quantity": k, "value": summary[k], "unit": prof.UNITS.get(k, "")}
            for k in _PROFILE_ROWS if k in summary]
    if json_out:
        print_json({"model": model, **{r["quantity"]: r["value"] for r in rows}})
        return
    print_table(f"profile of {model.rpartition('.')[2]}", rows,
                [("quantity", "quantity"), ("value", "value"), ("unit", "unit")])


def _estimator(dotted: str, params: str | None, allowed: list[str] | None = None) -> Any:
    """An estimator from its import path and JSON parameters (no unpickling); the
    path is checked against the allowed prefixes before anything is imported."""
    module_name, _, class_name = dotted.rpartition(".")
    if not module_name or not class_name:
        raise InputError(f"--model must be an import path such as "
                         f"sklearn.linear_model.LogisticRegression; got {dotted!r}")
    _check_allowed(module_name, dotted, allowed or [])
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"--model {dotted!r}: cannot import module {module_name!r} "
                         f"({one_line(str(exc))})") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise InputError(f"--model {dotted!r}: module {module_name!r} has no "
                         f"{class_name!r}")
    if not inspect.isclass(cls) or not callable(getattr(cls, "fit", None)) or not any(
            callable(getattr(cls, m, None)) for m in ("predict", "predict_proba")):
        raise InputError(f"--model {dotted!r} must name an estimator class with a fit "
                         "method and predict or predict_proba")
    kwargs = _params(params)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise InputError(f"--params do not fit {class_name}: {one_line(str(exc))}") \
            from None


def _check_allowed(module_name: str, dotted: str, extra: list[str]) -> None:
    """Refuse a module outside the allowed prefixes (whole dotted parts: ``sklearn``
    allows ``sklearn.tree``, not ``sklearnx``)."""
    prefixes = list(DEFAULT_MODULES)
    for prefix in extra:
        prefix = prefix.strip().rstrip(".")
        if not prefix or not all(part.isidentifier() for part in prefix.split(".")):
            raise InputError(f"--allow-module must be a module path such as mypkg.models; "
                             f"got {prefix!r}")
        prefixes.append(prefix)
    if not any(module_name == p or module_name.startswith(p + ".") for p in prefixes):
        raise InputError(f"--model {dotted!r}: module {module_name!r} is not allowed "
                         f"(allowed: {', '.join(prefixes)}); name a trusted package with "
                         f"--allow-module {module_name.partition('.')[0]}")


def _params(params: str | None) -> dict[str, Any]:
    """``--params`` as keyword arguments: a JSON object, or none."""
    if not params:
        return {}
    try:
        kwargs = json.loads(params)
    except json.JSONDecodeError as exc:
        raise InputError(f"--params is not valid JSON ({exc.msg} at character "
                         f"{exc.pos}); got {params!r}") from None
    if not isinstance(kwargs, dict):
        raise InputError(f"--params must be a JSON object such as '{{\"C\": 0.5}}'; "
                         f"got {params!r}")
    return kwargs


def _training_data(path: str, target: str, group: str | None,
                   drop: list[str] | None = None) -> tuple[Any, Any, Any]:
    table = read_table(path, "DATA")
    y = labels(column(table, target, "--target", path), target, "--target")
    groups = None
    if group is not None:
        groups = labels(column(table, group, "--group", path), group, "--group")
    left_out = list(dict.fromkeys(drop or []))
    for name in left_out:
        if name not in table.columns:
            shown = ", ".join(map(str, list(table.columns)[:12]))
            raise InputError(f"column {name!r} (--drop) not found in {path!r}; its columns "
                             f"are: {shown}")
        if name in (target, group):
            raise InputError(f"--drop {name} names the {'target' if name == target else 'group'}"
                             " column, which is never a feature")
    features = table.drop(columns=[c for c in (target, group, *left_out) if c is not None])
    if features.shape[1] == 0:
        raise InputError(f"DATA {path!r} has no feature columns besides the target"
                         + (" and the dropped columns" if left_out else ""))
    bad = [c for c in features.columns if not is_numeric(features[c])]
    if bad:
        hint = " ".join(f"--drop {c}" for c in bad[:8])
        raise InputError(f"feature columns must be numeric; not numeric in {path!r}: "
                         f"{', '.join(map(str, bad[:8]))} (leave them out with {hint}, or "
                         "encode them as numbers)")
    X = features.to_numpy(dtype=float)
    if not (X == X).all():
        raise InputError(f"feature columns of {path!r} contain missing values")
    return X, y, groups


def _split(X: Any, y: Any, groups: Any, test_size: float, seed: int) -> tuple[Any, ...]:
    import numpy as np
    from sklearn.model_selection import train_test_split

    if not 0 < test_size < 1:
        raise InputError(f"--test-size must be between 0 and 1; got {test_size}")
    _, counts = np.unique(y, return_counts=True)
    stratify = y if counts.size <= max(2, len(y) // 10) and counts.min() >= 2 else None
    parts = [X, y] + ([groups] if groups is not None else [])
    try:
        out = train_test_split(*parts, test_size=test_size, random_state=seed,
                               stratify=stratify)
    except ValueError as exc:  # scikit-learn's refusal: too few rows for the split
        raise InputError(f"DATA cannot be split into training and test rows: "
                         f"{one_line(str(exc))}") from None
    return tuple(out) + ((None, None) if groups is None else ())
