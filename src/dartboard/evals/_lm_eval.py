"""lm-evaluation-harness ``--log_samples`` files.

``samples_<task>_<date>.jsonl`` holds one JSON line per (document, filter): ``doc_id``,
``doc`` (the document, where cluster keys live: ``doc.passage_id``), ``doc_hash``,
``filter`` and one key per metric (``acc``, ``acc_norm``, ``exact_match``, ...; their
names in ``metrics``), as ``EvaluationTracker.save_results_samples`` writes them
(lm_eval/loggers/evaluation_tracker.py). The ``results_<date>.json`` written beside
it by the same run holds the tool's aggregate, ``results[task]["acc,none"]`` and its
``"acc_stderr,none"`` (sample sd / sqrt(n): ``lm_eval.api.metrics.mean_stderr``),
which the run carries as ``reported``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from dartboard.evals._fields import MISSING, as_score, field, where_of
from dartboard.exceptions import FileFormatError

__all__ = ["read_lm_eval"]

_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def read_lm_eval(path: Path, metric: str | None, cluster: str | None,
                 filter_name: str | None) -> dict[str, Any]:
    """The table and facts of one samples file (see the module docstring)."""
    rows: list[dict[str, Any]] = []
    filters: dict[str, int] = {}
    shown = str(path)
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise FileFormatError(f"{where_of(shown, line_no)}: not a JSON line "
                                      f"({exc.msg})") from exc
            if not isinstance(record, dict):
                raise FileFormatError(f"{where_of(shown, line_no)}: a line must be a JSON "
                                      f"object; got {type(record).__name__}")
            if metric is None:  # the first metric the first line lists
                metric = _first_metric(record, where_of(shown, line_no))
            rows.append(_row(record, shown, line_no, metric, cluster))
            filters[rows[-1]["filter"]] = filters.get(rows[-1]["filter"], 0) + 1
    if not rows:
        raise FileFormatError(f"{shown}: no samples (an empty file)")
    if filter_name is None:
        if len(filters) > 1:
            raise FileFormatError(f"{shown} holds the filters {sorted(filters)}: choose one "
                                  "with filter=")
        filter_name = next(iter(filters))
    elif filter_name not in filters:
        raise FileFormatError(f"{shown}: no samples with filter {filter_name!r}; it holds "
                              f"{sorted(filters)}")
    table = pd.DataFrame([r for r in rows if r["filter"] == filter_name]).drop(
        columns="filter")
    table["epoch"] = 0
    assert metric is not None
    match = _NAME.match(path.name)
    reported = _reported(path, match, metric, filter_name) if match else None
    model = None
    if reported is not None:
        model = reported.pop("model", None)
    # lm-eval writes into <output_path>/<model_name_sanitized>/: the folder names the model
    folder = path.parent.name
    task = match["task"] if match else path.stem
    return dict(table=table, metric=metric, name=str(model or folder or task),
                reported=reported,
                cluster_key=cluster, filter=filter_name)


def _first_metric(record: dict[str, Any], where: str) -> str:
    listed = record.get("metrics")
    if not isinstance(listed, list) or not listed:
        raise FileFormatError(f"{where}: no field 'metrics' naming the scores; give metric=")
    return str(listed[0])


def _row(record: dict[str, Any], shown: str, line_no: int, name: str,
         cluster: str | None) -> dict[str, Any]:
    where = where_of(shown, line_no)
    if "doc_id" not in record:
        raise FileFormatError(f"{where}: no field 'doc_id' (is this an lm-evaluation-harness "
                              "samples file?)")
    if name not in record:
        listed = record.get("metrics", [])
        raise FileFormatError(f"{where}: no field {name!r} (the metrics here: {listed})")
    row: dict[str, Any] = {"question": record["doc_id"],
                           "score": as_score(record[name], where, name),
                           "filter": str(record.get("filter", "none"))}
    if cluster is not None:
        value = field(record, cluster, home="doc")
        if value is MISSING or value is None:
            raise FileFormatError(f"{where}: no cluster field {cluster!r} (give a dotted "
                                  "path into the line, such as 'doc.passage_id')")
        row["cluster"] = _key(value)
    if "doc_hash" in record:
        row["hash"] = record["doc_hash"]
    return row


def _key(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _reported(path: Path, match: re.Match[str], metric: str,
              filter_name: str) -> dict[str, Any] | None:
    """lm-eval's own number for ``metric`` from ``results_<date>.json`` beside the file."""
    results = path.with_name(f"results_{match['date']}.json")
    if not results.is_file():
        return None
    try:
        saved = json.loads(results.read_text(encoding="utf-8"))
        task = saved["results"][match["task"]]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None
    estimate = task.get(f"{metric},{filter_name}")
    if not isinstance(estimate, (int, float)):
        return None
    stderr = task.get(f"{metric}_stderr,{filter_name}")
    return {"estimate": float(estimate),
            "standard_error": float(stderr) if isinstance(stderr, (int, float)) else None,
            "file": str(results), "model": saved.get("model_name") or None}
