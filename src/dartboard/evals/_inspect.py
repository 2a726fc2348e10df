"""Inspect logs: ``.eval`` zip archives and ``.json`` logs.

An ``.eval`` archive (inspect_ai/log/_recorders/eval.py) holds ``header.json`` (the
task, the model and the ``results``: per scorer ``scores[i].metrics``, such as
``accuracy`` and ``stderr``) and one member ``samples/<id>_epoch_<n>.json`` per sample
and epoch: ``id``, ``epoch``, ``scores`` (``{scorer: {"value": ...}}``), ``metadata``
(where cluster keys live) and ``error`` (set when the sample failed; such samples
have no score, are left out and counted). A ``.json`` log is the same ``EvalLog``
with the samples in one list. Values read as Inspect's ``value_to_float()`` does:
C/I/P/N as 1/0/0.5/0, numbers and bools as numbers.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from dartboard.evals._fields import MISSING, as_score, field, where_of
from dartboard.exceptions import FileFormatError

__all__ = ["read_inspect"]


def read_inspect(path: Path, metric: str | None, cluster: str | None) -> dict[str, Any]:
    """The table and facts of an Inspect log (module docstring)."""
    shown = str(path)
    header, samples = _load(path, shown)
    metric = metric or _first_scorer(header, samples)
    rows, errored = [], 0
    for member, sample in samples:
        where = where_of(shown, member)
        if not isinstance(sample, dict):
            raise FileFormatError(f"{where}: a sample must be a JSON object")
        if sample.get("error"):
            errored += 1
            continue
        rows.append(_row(sample, metric, cluster, where))
    spec = header.get("eval") or {}
    name = spec.get("model") or spec.get("task") or path.stem
    return dict(table=pd.DataFrame(rows), metric=metric, name=str(name),
                reported=_reported(header, metric, shown), cluster_key=cluster,
                n_errored=errored)


def _load(path: Path, shown: str) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """The log's header and its (member, sample) pairs: from an ``.eval`` archive's
    members, or from a ``.json`` log's list; at least one sample."""
    if path.suffix == ".eval":
        header, samples = _archive(path)
    else:
        log = _json(path.read_text(encoding="utf-8"), shown)
        if not isinstance(log, dict) or "samples" not in log:
            raise FileFormatError(f"{shown}: not an Inspect log (no 'samples')")
        header = log
        if not isinstance(log["samples"], list):
            raise FileFormatError(f"{shown}: field 'samples' must be a list")
        samples = [(f"samples[{i}]", s) for i, s in enumerate(log["samples"])]
    if not samples:
        raise FileFormatError(f"{shown}: the log holds no samples (was it written with "
                              "samples?)")
    return header, samples


def _row(sample: dict[str, Any], metric: str, cluster: str | None, where: str
         ) -> dict[str, Any]:
    """One scored sample's row: its question, epoch, score and (``cluster``) the
    cluster key from its metadata."""
    for key in ("id", "epoch"):
        if key not in sample:
            raise FileFormatError(f"{where}: no field {key!r}")
    row = {"question": sample["id"], "epoch": sample["epoch"],
           "score": as_score(_score(sample, metric, where), where, f"scores.{metric}")}
    if cluster is not None:
        key = field(sample, cluster, home="metadata")
        if key is MISSING or key is None:
            raise FileFormatError(f"{where}: no cluster field {cluster!r} in the "
                                  "sample's metadata")
        row["cluster"] = json.dumps(key, sort_keys=True) \
            if isinstance(key, (dict, list)) else key
    return row


def _score(sample: dict[str, Any], metric: str, where: str) -> Any:
    """The raw value of scorer ``metric`` (``scorer`` or ``scorer.key`` of a dict
    value) in a sample's ``scores``."""
    value = field(sample.get("scores") or {}, metric)
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    elif value is not MISSING and "." not in metric:
        raise FileFormatError(f"{where}: field 'scores.{metric}' has no 'value'")
    else:
        scorer, _, key = metric.partition(".")
        value = field(sample.get("scores") or {}, f"{scorer}.value.{key}") \
            if key else MISSING
    if value is MISSING:
        raise FileFormatError(f"{where}: no score {metric!r} (scorers here: "
                              f"{sorted(sample.get('scores') or {})})")
    return value


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{where}: not JSON (line {exc.lineno}: {exc.msg})") from exc


def _archive(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise FileFormatError(f"{path}: not an Inspect .eval archive (not a zip file)") \
            from exc
    with archive:
        names = archive.namelist()
        header = _json(_member(archive, "header.json", path), f"{path} [header.json]") \
            if "header.json" in names else {}
        members = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
        samples = [(n, _json(_member(archive, n, path), f"{path} [{n}]")) for n in members]
    return header, samples


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> str:
    """A member's text. Inspect compresses with zstandard since 2025, which Python's
    zipfile reads from 3.14 on; before, the ``zipfile-zstd`` package (installed with
    inspect_ai) teaches it."""
    try:
        return archive.read(name).decode("utf-8")
    except NotImplementedError:
        try:
            import zipfile_zstd  # type: ignore[import-not-found,import-untyped,unused-ignore]  # noqa: F401
        except ImportError:
            raise FileFormatError(f"{path} [{name}] is compressed with zstandard, which "
                                  "this Python's zipfile cannot read: pip install "
                                  "zipfile-zstd (inspect_ai installs it)") from None
        return archive.read(name).decode("utf-8")


def _first_scorer(header: dict[str, Any], samples: list[tuple[str, Any]]) -> str:
    scores = ((header.get("results") or {}).get("scores")) or []
    if scores and isinstance(scores[0], dict) and scores[0].get("name"):
        return str(scores[0]["name"])
    for _, sample in samples:
        if isinstance(sample, dict) and sample.get("scores"):
            return str(next(iter(sample["scores"])))
    raise FileFormatError("no sample of the log has a score")


def _reported(header: dict[str, Any], metric: str, shown: str) -> dict[str, Any] | None:
    """Inspect's own mean (``accuracy`` or ``mean``), ``stderr`` and, per cluster key,
    ``stderr(cluster=...)`` of the scorer."""
    for score in ((header.get("results") or {}).get("scores")) or []:
        if not isinstance(score, dict) or score.get("name") != metric.partition(".")[0]:
            continue
        out: dict[str, Any] = {"estimate": None, "standard_error": None,
                               "clustered_standard_error": {}, "file": shown}
        for m in (score.get("metrics") or {}).values():
            value = (m or {}).get("value")
            if not isinstance(value, (int, float)):
                continue
            name, cluster = m.get("name"), (m.get("params") or {}).get("cluster")
            if name in ("accuracy", "mean") and out["estimate"] is None:
                out["estimate"] = float(value)
            elif name == "stderr" and cluster:
                out["clustered_standard_error"][str(cluster)] = float(value)
            elif name == "stderr":
                out["standard_error"] = float(value)
        return out if out["estimate"] is not None else None
    return None
