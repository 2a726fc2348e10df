"""A run: one model's scores on a benchmark, one row per (question, answer).

:class:`Run` holds the tidy table every reader builds (:mod:`._load`) and the facts
about its source: the metric read, the tool's own reported number, the samples the
tool marked as errored (left out of the table, but counted). :func:`units` turns it
into one unit per question (the mean of its answers), which is what every interval,
comparison and plan of :mod:`dartboard.evals` works on.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from dartboard._results import Result
from dartboard.exceptions import InputError

__all__ = ["Run", "Units", "make_run", "show_id", "units"]

#: the table's columns, in order (``cluster`` and ``hash`` only when known)
COLUMNS = ("question", "cluster", "epoch", "score", "hash")


@dataclasses.dataclass(frozen=True, repr=False)
class Run(Result):
    """One model's scores on a benchmark, as read by :func:`dartboard.evals.load`.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per answer: ``question`` (the question id), ``epoch`` (the answer's
        repeat or epoch, 0-based as the file counts it), ``score`` (float), and
        ``cluster`` (the question's cluster: a passage, a template) and ``hash`` (the
        question's content hash, lm-evaluation-harness ``doc_hash``) when known.
    metric : str
        The score read (``acc``, a scorer's name, a column).
    source : str
        ``"lm-eval"``, ``"inspect"``, ``"helm"`` or ``"table"``.
    name : str
        The model or run's name (the file's model, else its stem).
    path : str or None
        The file read (None for a data frame).
    cluster_key : str or None
        The field the clusters were read from.
    reported : dict or None
        The tool's own number for this metric (``estimate`` and, where it gives one,
        ``standard_error``) and where it came from (``file``).
    n_errored : int
        Samples the tool marked as failed (Inspect's ``error``): not in the table.
    n_skipped : int
        Rows left out by rule and counted: HELM's perturbed copies of an instance.

    Examples
    --------
    >>> import pandas as pd
    >>> from dartboard.evals import load
    >>> run = load(pd.DataFrame({"question": ["q1", "q1", "q2"], "epoch": [0, 1, 0],
    ...                          "score": [1.0, 0.0, 1.0]}), name="model")
    >>> run.n_questions, run.n_answers, run.n_clusters, run.mean
    (2, 3, None, 0.75)
    """

    table: pd.DataFrame
    metric: str
    source: str
    name: str
    path: str | None = None
    cluster_key: str | None = None
    reported: dict[str, Any] | None = None
    n_errored: int = 0
    n_skipped: int = 0

    _repr_fields = ("name", "metric", "source", "n_questions", "n_answers", "n_clusters",
                    "mean", "n_errored", "n_skipped")

    @property
    def n_questions(self) -> int:
        """Distinct questions."""
        return int(self.table["question"].nunique())

    @property
    def n_answers(self) -> int:
        """Rows: one per (question, answer)."""
        return int(self.table.shape[0])

    @property
    def n_clusters(self) -> int | None:
        """Distinct clusters (None when the run has none)."""
        return int(self.table["cluster"].nunique()) if "cluster" in self.table else None

    @property
    def mean(self) -> float:
        """The mean over questions of each question's mean answer score."""
        return float(units(self).mean.mean())


def show_id(value: Any) -> str:
    """A question id, cluster or epoch as the file wrote it (numpy scalars unwrapped)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def make_run(table: pd.DataFrame, *, where: str, **facts: Any) -> Run:
    """A :class:`Run` from a table with the columns of :data:`COLUMNS` (``cluster``,
    ``hash`` optional), checked: finite scores, no (question, epoch) twice, one cluster
    and one hash per question. ``where`` names the source in errors."""
    if table.shape[0] == 0:
        raise InputError(f"{where}: no scored samples to read")
    score = pd.to_numeric(table["score"], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(score))
    if bad.size:
        row = table.iloc[int(bad[0])]
        raise InputError(f"{where}: question {show_id(row['question'])}: score "
                         f"{show_id(row['score'])} is not a finite number")
    question = table["question"]
    if question.isna().any():
        raise InputError(f"{where}: a row has no question id")
    codes, ids = pd.factorize(question, sort=False)
    epochs, _ = pd.factorize(table["epoch"], sort=False)
    pair = codes.astype(np.int64) * (int(epochs.max()) + 1) + epochs
    ordered = np.sort(pair)
    if np.any(ordered[1:] == ordered[:-1]):
        at = int(np.flatnonzero(pd.Series(pair).duplicated().to_numpy())[0])
        raise InputError(f"{where}: question {show_id(question.iloc[at])} epoch "
                         f"{show_id(table['epoch'].iloc[at])} appears twice")
    first = np.zeros(ids.shape[0], dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.shape[0])[::-1]
    for column in ("cluster", "hash"):
        if column not in table:
            continue
        values = table[column]
        if values.isna().any():
            row = table[values.isna()].iloc[0]
            raise InputError(f"{where}: question {show_id(row['question'])} has no {column}")
        own, _ = pd.factorize(values, sort=False)
        differ = np.flatnonzero(own != own[first][codes])
        if differ.size:
            raise InputError(f"{where}: question {show_id(question.iloc[int(differ[0])])} has "
                             f"answers with different {column} values")
    table = table.assign(score=score).reset_index(drop=True)
    return Run(table=table, **facts)


@dataclasses.dataclass(frozen=True)
class Units:
    """One unit per question (in order of first appearance).

    Attributes
    ----------
    ids : ndarray
        Question ids.
    mean : ndarray
        Mean score of each question's answers.
    count : ndarray
        Answers per question.
    within_ss : ndarray
        Sum of squared deviations of each question's answers from its mean.
    cluster : ndarray of int
        Cluster code of each question (each question its own cluster when the run has
        none).
    n_clusters : int
        Clusters of questions (None without clusters).
    clustered : bool
        Whether the run has clusters.
    hashes : ndarray or None
    """

    ids: np.ndarray
    mean: np.ndarray
    count: np.ndarray
    within_ss: np.ndarray
    cluster: np.ndarray
    n_clusters: int
    clustered: bool
    hashes: np.ndarray | None


def units(run: Run) -> Units:
    """Each question's mean answer, answers, within-question squares and cluster
    (computed once per run: a run's table is not to be changed)."""
    cached = run.__dict__.get("_units")
    if cached is None:
        cached = _units(run.table)
        run.__dict__["_units"] = cached  # a cache beside the frozen fields
    return cached


def _units(table: pd.DataFrame) -> Units:
    codes, ids = pd.factorize(table["question"], sort=False)
    n = ids.shape[0]
    score = table["score"].to_numpy(dtype=np.float64)
    count = np.bincount(codes, minlength=n).astype(np.float64)
    mean = np.bincount(codes, weights=score, minlength=n) / count
    within_ss = np.bincount(codes, weights=(score - mean[codes]) ** 2, minlength=n)
    first = np.zeros(n, dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.shape[0])[::-1]
    if "cluster" in table:
        cluster, labels = pd.factorize(table["cluster"].to_numpy()[first], sort=False)
        n_clusters, clustered = int(labels.shape[0]), True
    else:
        cluster, n_clusters, clustered = np.arange(n), n, False
    hashes = table["hash"].to_numpy()[first] if "hash" in table else None
    return Units(np.asarray(ids), mean, count, within_ss, np.asarray(cluster, dtype=np.intp),
                 n_clusters, clustered, hashes)
