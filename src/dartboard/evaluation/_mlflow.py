"""Logging an :class:`~dartboard.Evaluation` to MLflow (an optional extra).

Metric names are MLflow keys: ``<m>``, ``<m>_low``, ``<m>_high`` (and with clusters
``<m>_design_effect``, ``<m>_effective_n``) and per group ``by_group/<group>/<m>...``,
under an optional prefix; a clustered evaluation logs the parameters
``dartboard_clustered`` (``True``) and ``dartboard_n_clusters``. MLflow takes letters, digits,
``_ - . space`` and ``/`` as a separator, at most 250 characters. A part that
fits is used as it is; any other part (a group label ``"a?b"``, ``"F, 30-40"``,
``"x/y"``, ``".."``, one longer than 64 characters) keeps its safe characters and
gains a digest of the whole label (``a_b-1c4a0d11``), so that two labels never
become one key: ``"a?b"`` and ``"a_b"`` log apart. Keys are checked to be
distinct before anything is logged; a clash left (two groups printed alike) is an
error naming both rows.

``pip install ".[mlflow]"`` (from a clone) installs mlflow-skinny with SQLAlchemy and
Alembic, which MLflow's default store (``sqlite:///mlflow.db`` in the working
directory, MLflow 3) needs and mlflow-skinny leaves out.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import re
import tempfile
from pathlib import Path
from typing import Any

from dartboard.exceptions import InputError, InputTypeError

__all__ = ["log_evaluation", "metric_name", "metric_values"]

#: characters MLflow takes in a name on every system ("/" separates parts): letters and
#: digits of any script, "_", "-", "." and spaces
_SAFE = re.compile(r"[\w\-. ]+")
_UNSAFE = re.compile(r"[^\w\-. ]")
_MAX_PART = 64
_MAX_KEY = 250  # MLflow's limit on a metric name
#: what a key's suffix holds, as a clash names it
_WHAT = {"_low": "low bound", "_high": "high bound", "_design_effect": "design effect",
         "_effective_n": "effective n"}
#: URI schemes of MLflow's database stores (SQLAlchemy)
_DATABASES = {"sqlite", "postgresql", "mysql", "mssql"}


def _mlflow() -> Any:
    try:
        import mlflow
    except ImportError:
        raise ImportError("log_mlflow needs MLflow: pip install '.[mlflow]' in a clone of "
                          "dartboard (or mlflow / mlflow-skinny)") from None
    uri = mlflow.get_tracking_uri()
    scheme = uri.split(":", 1)[0].split("+", 1)[0]
    if scheme in _DATABASES and importlib.util.find_spec("sqlalchemy") is None:
        raise ImportError(f"MLflow's tracking store {uri} needs SQLAlchemy and Alembic, "
                          "which mlflow-skinny leaves out: pip install '.[mlflow]' in a clone "
                          "of dartboard (or set MLFLOW_TRACKING_URI to a tracking server)")
    return mlflow


def _part(label: str) -> str:
    """One part of a key: ``label`` when MLflow takes it as it is, else its safe
    characters and a digest of the whole label (distinct labels, distinct parts)."""
    if _SAFE.fullmatch(label) and label.strip(".") and len(label) <= _MAX_PART:
        return label
    digest = hashlib.sha256(label.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{_UNSAFE.sub('_', label)[:_MAX_PART]}-{digest}"


def metric_name(prefix: str, *parts: str) -> str:
    """An MLflow key: ``prefix`` (left out when empty) and the parts, each made safe
    (an empty part too: a group labelled ``""`` is a group).

    Examples
    --------
    >>> metric_name("", "by_group", "a_b", "f1")
    'by_group/a_b/f1'
    >>> metric_name("val", "by_group", "a?b", "f1")
    'val/by_group/a_b-c2a7b64a/f1'
    """
    return "/".join([prefix] * bool(prefix) + [_part(p) for p in parts])


def _check_prefix(prefix: Any) -> str:
    if not isinstance(prefix, str):
        raise InputTypeError(f"prefix must be a string; got {type(prefix).__name__}")
    if prefix and not all(_SAFE.fullmatch(p) and p.strip(".") for p in prefix.split("/")):
        raise InputError(f"prefix must be parts of letters, digits, '_', '-', '.' and "
                         f"spaces separated by single '/' (an MLflow name); got {prefix!r}")
    return prefix


def metric_values(evaluation: Any, prefix: str = "") -> dict[str, float]:
    """Every finite estimate and bound of ``evaluation`` by its MLflow key.

    Raises ``ValueError`` naming both rows when two of them would share a key.
    """
    prefix = _check_prefix(prefix)
    values: dict[str, float] = {}
    owners: dict[str, str] = {}
    rows: list[tuple[Any, tuple[Any, ...], str]] = [
        (row, (prefix, row.metric), f"metric {row.metric!r}")
            for row in evaluation.result.metrics]
    rows += [(row, (prefix, "by_group", row.group, row.metric),
              f"metric {row.metric!r} of group {row.group!r}")
             for row in evaluation.result.groups or ()]
    for row, parts, owner in rows:
        name = metric_name(*parts)
        for suffix, value in (("", row.estimate), ("_low", row.low), ("_high", row.high),
                              *((("_design_effect", row.design_effect),
                                 ("_effective_n", row.effective_n))
                                if row.design_effect is not None else ())):
            key = name + suffix
            if key in owners:
                raise InputError(_clash(owners[key], owner, key, evaluation))
            if len(key) > _MAX_KEY:
                raise InputError(f"the MLflow key of {owner} would be {len(key)} characters, "
                                 f"over MLflow's {_MAX_KEY}; use a shorter prefix")
            owners[key] = owner + (f" ({_WHAT.get(suffix, suffix[1:])})" if suffix else "")
            if value is not None and math.isfinite(value):
                values[key] = float(value)
    return values


def _clash(first: str, second: str, key: str, evaluation: Any) -> str:
    if first.startswith(second):  # one label for two groups: their values join alike
        columns = ", ".join(evaluation.result.group_columns or ())
        return (f"MLflow keys clash: two groups print as {second.split('group ')[-1]} (their "
                f"values in the group columns {columns} joined with ', '); change a value "
                "so that each group has its own label")
    return (f"MLflow keys clash: {first} and {second} both become {key!r}; give the groups "
            "(or metrics) distinct names")


def log_evaluation(evaluation: Any, *, prefix: str = "", report: bool = True) -> str:
    """Each metric with its bounds, per group too, and the report as an artifact;
    returns the run's id."""
    values = metric_values(evaluation, prefix)
    mlflow = _mlflow()
    started = mlflow.active_run() is None
    run = mlflow.start_run(run_name=evaluation.model) if started else mlflow.active_run()
    try:
        mlflow.log_metrics(values)
        params = {"dartboard_task": evaluation.task, "dartboard_n": evaluation.result.n}
        if evaluation.model is not None:
            params["dartboard_model"] = evaluation.model
        if evaluation.n_files is not None:
            params["dartboard_n_files"] = evaluation.n_files
        if evaluation.result.n_clusters is not None:
            params["dartboard_clustered"] = True
            params["dartboard_n_clusters"] = evaluation.result.n_clusters
        if evaluation.result.metrics:
            params["dartboard_confidence_level"] = evaluation.result.metrics[0].confidence_level
        mlflow.log_params(params)
        if report:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "dartboard_evaluation.html"
                evaluation.to_html(path)
                mlflow.log_artifact(str(path))
    finally:
        if started:
            mlflow.end_run()
    return run.info.run_id
