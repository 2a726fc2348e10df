"""Several runs on the same questions, lined up question by question.

Runs are paired on their question ids: the same set in each (else the comparison is
refused, naming what differs), each question's content hash equal where the files
carry one (lm-evaluation-harness ``doc_hash``: the same id with another hash is
another question, a changed prompt or data set), and one partition into clusters
(taken from the runs that have clusters; two runs that disagree are refused).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from dartboard.evals._run import Run, show_id, units
from dartboard.exceptions import InputError

__all__ = ["Paired", "paired"]


@dataclasses.dataclass(frozen=True)
class Paired:
    """Question means of k runs in one order.

    Attributes
    ----------
    names : list of str
    means : ndarray of shape (n, k)
    counts : ndarray of shape (n, k)
        Answers per question of each run.
    within : ndarray of shape (k,)
        Each run's pooled within-question variance (nan with one answer each).
    cluster : ndarray of int, shape (n,)
    n_clusters : int
        Clusters of questions (None without clusters).
    clustered : bool
    """

    names: list[str]
    means: np.ndarray
    counts: np.ndarray
    within: np.ndarray
    cluster: np.ndarray
    n_clusters: int
    clustered: bool


def _examples(values: pd.Index) -> str:
    return ", ".join(show_id(v) for v in values[:3]) + (", ..." if values.shape[0] > 3 else "")


def run_names(runs: list[Run]) -> list[str]:
    """The runs' names, made distinct by their position where two share one."""
    names = [run.name for run in runs]
    return [f"{name} [{i + 1}]" if names.count(name) > 1 else name
            for i, name in enumerate(names)]


def paired(runs: list[Run]) -> Paired:
    """Line the runs up on the first run's question order (module docstring)."""
    from dartboard.evals._interval import within_variance

    names = run_names(runs)
    first = units(runs[0])
    ids = pd.Index(first.ids)
    means, counts, within = [first.mean], [first.count], [within_variance(first)]
    cluster, n_clusters, clustered, owner = first.cluster, first.n_clusters, \
        first.clustered, names[0]
    for run, name in zip(runs[1:], names[1:]):
        u = units(run)
        other = pd.Index(u.ids)
        if ids.shape[0] != other.shape[0] or not ids.isin(other).all():
            only_a, only_b = ids.difference(other), other.difference(ids)
            raise InputError(f"runs {names[0]!r} and {name!r} are not on the same questions: "
                             f"{only_a.shape[0]} only in {names[0]!r} ({_examples(only_a)}), "
                             f"{only_b.shape[0]} only in {name!r} ({_examples(only_b)}); "
                             "a paired comparison needs the same questions")
        at = other.get_indexer(ids)
        if first.hashes is not None and u.hashes is not None:
            differ = np.flatnonzero(first.hashes != u.hashes[at])
            if differ.size:
                q = ids[differ[0]]
                raise InputError(f"question {show_id(q)} has doc_hash {first.hashes[differ[0]]!r} "
                                 f"in {names[0]!r} and {u.hashes[at][differ[0]]!r} in {name!r} "
                                 f"({differ.size} questions differ): the same ids hold other "
                                 "questions (a changed prompt or data set)")
        means.append(u.mean[at])
        counts.append(u.count[at])
        within.append(within_variance(u))
        if u.clustered:
            mine = u.cluster[at]
            if not clustered:
                cluster, n_clusters, clustered, owner = mine, u.n_clusters, True, name
            elif not _same_partition(cluster, mine):
                raise InputError(f"runs {owner!r} and {name!r} put the questions in different "
                                 "clusters; load them with the same cluster=")
    return Paired(names, np.column_stack(means), np.column_stack(counts), np.asarray(within),
                  cluster, n_clusters, clustered)


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether cluster codes ``a`` and ``b`` group the questions alike (each code of one
    meets exactly one code of the other)."""
    def distinct(x: np.ndarray) -> int:
        x = np.sort(x)
        return int(np.count_nonzero(x[1:] != x[:-1])) + 1

    pairs = a.astype(np.int64) * (int(b.max()) + 1) + b
    return distinct(pairs) == distinct(a) == distinct(b)
