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

    Attributes
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
        return int(self.table["question"].nunique())

    @property
    def n_answers(self) -> int:
        return int(self.table.shape[0])

    @property
    def n_clusters(self) -> int | None:
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
    table = table.assign(score=score)
    if table["question"].isna().any():
        raise InputError(f"{where}: a row has no question id")
    twice = table.duplicated(["question", "epoch"])
    if twice.any():
        row = table[twice].iloc[0]
        raise InputError(f"{where}: question {show_id(row['question'])} epoch {show_id(row['epoch'])} "
                         "appears twice")
    for column in ("cluster", "hash"):
        if column not in table:
            continue
        if table[column].isna().any():
            row = table[table[column].isna()].iloc[0]
            raise InputError(f"{where}: question {show_id(row['question'])} has no {column}")
        per = table.groupby("question", sort=False)[column].nunique()
        if (per > 1).any():
            raise InputError(f"{where}: question {show_id(per.index[per > 1][0])} has answers with "
                             f"different {column} values")
    return Run(table=table.reset_index(drop=True), **facts)


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
    """Each question's mean answer, answers, within-question squares and cluster."""
    table = run.table
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
