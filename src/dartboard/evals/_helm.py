"""HELM ``per_instance_stats.json``: one entry per (instance, trial, perturbation).

Each entry (helm/benchmark/metrics/metric.py, ``PerInstanceStats``) holds
``instance_id``, ``train_trial_index`` (the repeat), an optional ``perturbation`` and
``stats``: a list of ``Stat`` objects, ``{"name": {"name": "exact_match", "split":
"test", ...}, "count": 1, "sum": 1.0, ...}``, whose score is ``sum / count``.
Perturbed copies of an instance (robustness runs) are not the benchmark's questions:
they are left out and counted in ``n_skipped``. ``stats.json`` beside the file, when
present, gives HELM's own mean.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from dartboard.evals._fields import where_of
from dartboard.exceptions import FileFormatError

__all__ = ["read_helm"]


def read_helm(path: Path, metric: str | None, entries: list[Any]) -> dict[str, Any]:
    """The table and facts of a per-instance stats file (module docstring)."""
    shown = str(path)
    rows: list[dict[str, Any]] = []
    skipped, names = 0, set[Any]()
    for i, entry in enumerate(entries):
        where = where_of(shown, f"entry {i}")
        if not isinstance(entry, dict) or "instance_id" not in entry or \
                not isinstance(entry.get("stats"), list):
            raise FileFormatError(f"{where}: an entry needs 'instance_id' and a list "
                                  "'stats'")
        if entry.get("perturbation"):
            skipped += 1
            continue
        rows.append({"question": entry["instance_id"],
                     "epoch": entry.get("train_trial_index", 0),
                     "score": _mean_of(_stat(entry, metric, names, where), metric, where)})
    metric = metric or "exact_match"
    return dict(table=pd.DataFrame(rows), metric=metric, name=path.parent.name or path.stem,
                reported=_reported(path, metric), n_skipped=skipped)


def _stat(entry: dict[str, Any], metric: str | None, names: set[Any], where: str
          ) -> dict[str, Any]:
    """The entry's unperturbed stat ``metric`` (``exact_match`` when None); ``names``
    gathers the stat names seen, which the refusal lists."""
    for stat in entry["stats"]:
        name = (stat.get("name") or {}) if isinstance(stat, dict) else {}
        names.add(name.get("name"))
        if name.get("name") == (metric or "exact_match") and not name.get("perturbation"):
            return dict(stat)
    if metric is None:
        raise FileFormatError(f"{where}: no stat 'exact_match'; give metric= (the "
                              f"stats here: {sorted(str(n) for n in names)[:12]})")
    raise FileFormatError(f"{where}: no stat {metric!r} (the stats here: "
                          f"{sorted(str(n) for n in names)[:12]})")


def _mean_of(stat: dict[str, Any], metric: str | None, where: str) -> float:
    """A stat's mean over its instance's trials: ``sum / count``."""
    count, total = stat.get("count"), stat.get("sum")
    if not isinstance(count, (int, float)) or not isinstance(total, (int, float)) \
            or count <= 0:
        raise FileFormatError(f"{where}: stat {metric or 'exact_match'!r} needs a "
                              f"positive 'count' and a 'sum'; got count={count!r}, "
                              f"sum={total!r}")
    return total / count


def _reported(path: Path, metric: str) -> dict[str, Any] | None:
    stats = path.with_name("stats.json")
    if not stats.is_file():
        return None
    try:
        saved = json.loads(stats.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    for stat in saved if isinstance(saved, list) else []:
        name = stat.get("name") or {} if isinstance(stat, dict) else {}
        if name.get("name") == metric and not name.get("perturbation") and \
                isinstance(stat.get("mean"), (int, float)):
            return {"estimate": float(stat["mean"]), "standard_error": None,
                    "file": str(stats)}
    return None
