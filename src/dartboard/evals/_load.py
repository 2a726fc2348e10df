"""``load``: a benchmark run's scores from the file its tool wrote.

The format is told from the file: ``.eval`` is an Inspect archive; a ``.json`` file
is an Inspect log (an object with ``samples``) or HELM's per-instance stats (a list of
entries with ``instance_id``); a ``.jsonl`` file named ``samples_...`` or whose first
line has ``doc_id`` is an lm-evaluation-harness samples file, any other ``.jsonl``, ``.csv`` or ``.parquet`` a
plain table; ``format=`` overrides the guess. Every reader returns the same tidy
table (:class:`~dartboard.evals.Run`), so nothing after it knows the tool.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dartboard._validation import check_option, describe
from dartboard.evals._helm import read_helm
from dartboard.evals._inspect import read_inspect
from dartboard.evals._lm_eval import read_lm_eval
from dartboard.evals._run import Run, make_run
from dartboard.exceptions import FileFormatError, InputError, InputTypeError

__all__ = ["load"]

FORMATS = ("lm-eval", "inspect", "helm", "table")


def _load_iv(path: Any, metric: Any, cluster: Any, format: Any) -> tuple[Any, Any]:
    if isinstance(path, pd.DataFrame):
        source: Any = path
    elif isinstance(path, (str, os.PathLike)):
        source = Path(path)
        if not source.is_file():
            raise InputError(f"path: no such file: {os.fspath(path)!r}")
    else:
        raise InputTypeError(f"path must be a file path or a pandas DataFrame; got "
                             f"{describe(path)}")
    if metric is not None and not isinstance(metric, str):
        raise InputTypeError(f"metric must be a string (a score's name); got "
                             f"{describe(metric)}")
    if cluster is not None and not isinstance(cluster, (str, Mapping, pd.Series)):
        raise InputTypeError(f"cluster must be a field name, or a mapping (or Series) from "
                             f"question id to cluster; got {describe(cluster)}")
    if format is not None:
        check_option(format, "format", FORMATS)
    return source, cluster


def load(path: Any, metric: str | None = None, cluster: Any = None, *,
         format: str | None = None, filter: str | None = None, question: str = "question",
         epoch: str = "epoch", name: str | None = None) -> Run:
    """Read one model's scores on a benchmark from the file its tool wrote.

    Parameters
    ----------
    path : str, path or pandas.DataFrame
        An lm-evaluation-harness samples file (``samples_<task>_<date>.jsonl``), an
        Inspect log (``.eval`` or ``.json``), HELM's ``per_instance_stats.json``, or a
        plain CSV, JSONL or Parquet table (or data frame) with one row per answer.
    metric : str, optional
        The score to read: an lm-eval metric key (``acc``, ``acc_norm``,
        ``exact_match``; default the first of the line's ``metrics``), an Inspect
        scorer (default the first; ``scorer.key`` for a scorer whose value is a
        dict), a HELM stat (default ``exact_match``), a table's column (default
        ``score``).
    cluster : str, mapping or pandas.Series, optional
        Where each question's cluster (a passage, a template) is: a dotted path into
        the lm-eval line (``doc.passage_id``) or the Inspect sample (``metadata.x``,
        or ``x`` in the metadata), a table's column, or a mapping from question id to
        cluster (any format; every question must be in it).
    format : {"lm-eval", "inspect", "helm", "table"}, optional
        The file's format, when the guess (module docstring) is wrong.
    filter : str, optional
        lm-eval's filter (``none``, ``strict-match``...), needed when the file holds
        several.
    question, epoch : str
        A table's columns of question ids and of the answer's repeat (optional).
    name : str, optional
        The run's name (default: the model the file names, else its stem).

    Returns
    -------
    Run

    Raises
    ------
    FileFormatError
        A line, member or row that cannot be read, named with its file, line and field.

    Examples
    --------
    >>> import pandas as pd
    >>> from dartboard.evals import load
    >>> run = load(pd.DataFrame({"question": [1, 1, 2, 2], "score": [1, 0, 1, 1],
    ...                          "epoch": [0, 1, 0, 1]}))
    >>> run.n_questions, run.n_answers, run.mean
    (2, 4, 0.75)
    """
    source, cluster = _load_iv(path, metric, cluster, format)
    mapping = None if cluster is None or isinstance(cluster, str) else cluster
    key = cluster if isinstance(cluster, str) else None
    if isinstance(source, pd.DataFrame):
        facts = _table(source, "data frame", metric, key, question, epoch)
        facts.update(source="table", path=None)
    else:
        facts = _read(source, format, metric, key, filter, question, epoch)
    table = facts.pop("table")
    facts.pop("filter", None)
    where = facts["path"] or "data frame"
    if mapping is not None:
        table = _mapped(table, mapping, where)
        facts["cluster_key"] = "mapping"
    found = facts.pop("name")
    return make_run(table, where=where, name=name or found, **facts)


def _read(path: Path, format: str | None, metric: str | None, cluster: str | None,
          filter_name: str | None, question: str, epoch: str) -> dict[str, Any]:
    kind, parsed = _guess(path) if format is None else (format, None)
    if kind == "helm" and cluster is not None:
        raise InputError("cluster: HELM's per-instance stats hold no instance fields; give "
                         "a mapping from instance id to cluster")
    if kind == "lm-eval":
        facts = read_lm_eval(path, metric, cluster, filter_name)
    elif kind == "inspect":
        facts = read_inspect(path, metric, cluster)
    elif kind == "helm":
        if parsed is None:
            parsed = _json_file(path)
        if not isinstance(parsed, list):
            raise FileFormatError(f"{path}: HELM per-instance stats must be a JSON list")
        facts = read_helm(path, metric, parsed)
    else:
        facts = _table(_read_table(path), str(path), metric, cluster, question, epoch)
    return dict(facts, source=kind, path=str(path))


def _json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc


def _guess(path: Path) -> tuple[str, Any]:
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return "inspect", None
    if suffix == ".json":
        parsed = _json_file(path)
        if isinstance(parsed, list):
            return "helm", parsed
        if isinstance(parsed, dict) and "samples" in parsed:
            return "inspect", None
        if isinstance(parsed, dict) and "results" in parsed and "configs" in parsed:
            raise FileFormatError(f"{path} is lm-evaluation-harness's results file: give the "
                                  "samples_<task>_<date>.jsonl file written beside it "
                                  "(--log_samples)")
        raise FileFormatError(f"{path}: neither an Inspect log (an object with 'samples') "
                              "nor HELM per-instance stats (a list); give format=")
    if suffix == ".jsonl":
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
        try:
            record = json.loads(first) if first.strip() else {}
        except json.JSONDecodeError as exc:
            raise FileFormatError(f"{path}:1: not a JSON line ({exc.msg})") from exc
        named = path.name.startswith("samples_")  # lm-eval's name for its samples files
        lm_eval = named or (isinstance(record, dict) and "doc_id" in record)
        return ("lm-eval" if lm_eval else "table"), None
    if suffix in (".csv", ".parquet", ".pq"):
        return "table", None
    raise FileFormatError(f"{path}: cannot tell the format from the name; give format= (one "
                          f"of {list(FORMATS)})")


def _read_table(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if suffix == ".jsonl":  # pyarrow's reader: twice pandas' speed on 500,000 lines
            from pyarrow import json as arrow_json

            return arrow_json.read_json(path).to_pandas()
        return pd.read_csv(path)
    except (ValueError, OSError) as exc:
        raise FileFormatError(f"{path}: cannot be read as a table ({exc})") from exc


def _table(frame: pd.DataFrame, where: str, metric: str | None, cluster: str | None,
           question: str, epoch: str) -> dict[str, Any]:
    score = metric or "score"
    for column, option in ((question, "question"), (score, "metric"), (cluster, "cluster")):
        if column is not None and column not in frame.columns:
            raise FileFormatError(f"{where}: no column {column!r} (give its name as "
                                  f"{option}=); the columns: {list(frame.columns)[:12]}")
    values = frame[score]
    if not pd.api.types.is_numeric_dtype(values):
        numbers = pd.to_numeric(values, errors="coerce")
        bad = numbers.isna() & values.notna() | values.isna()
        if bad.any():
            at = int(bad.to_numpy().argmax())
            raise FileFormatError(f"{where}: row {at}: column {score!r} must be a number; "
                                  f"got {values.iloc[at]!r}")
        values = numbers
    columns = {"question": frame[question].to_numpy()}
    if cluster is not None:
        columns["cluster"] = frame[cluster].to_numpy()
    columns["epoch"] = frame[epoch].to_numpy() if epoch in frame.columns else \
        np.zeros(frame.shape[0], dtype=np.int64)
    columns["score"] = values.to_numpy(dtype="float64")
    table = pd.DataFrame(columns)
    return dict(table=table, metric=score, name=Path(where).stem, cluster_key=cluster)


def _mapped(table: pd.DataFrame, mapping: Any, where: str) -> pd.DataFrame:
    lookup = pd.Series(mapping) if not isinstance(mapping, pd.Series) else mapping
    clusters = table["question"].map(lookup)
    if clusters.isna().any():
        missing = table.loc[clusters.isna(), "question"].iloc[0]
        raise InputError(f"cluster: question {missing!r} of {where} is not in the mapping "
                         "(every question needs its cluster)")
    return table.assign(cluster=clusters.to_numpy())
