"""Intervals when rows are not independent: the bootstrap of whole clusters.

Rows of one patient, user, session or benchmark passage share what makes them
right or wrong, so an interval that resamples rows one by one is too narrow there
(Miller 2024, "Adding error bars to evals", arXiv:2411.00640, measures clustered
standard errors up to three times the naive ones on real benchmarks). With
``clusters`` the bootstrap draws whole clusters with replacement, as many as there
are (Davison & Hinkley 1997, 3.8, strategy 1: resample the clusters, keep their rows
whole), and BCa's acceleration comes from leaving out one cluster at a time (or one
of ``JACKKNIFE_MAX`` random groups of clusters when there are more).

Fast path. A metric of one of dartboard's families is built once per cluster (its
cells), and a replicate's cells are the clusters' cells weighted by how often each
cluster was drawn: one multinomial over the clusters and one sparse product per
batch of replicates, O(clusters + cells) per replicate, not O(rows). Other metrics
(a callable of one's own, keywords no family takes) are called on the rows of each
replicate's clusters.

What is not clustered here: the analytic intervals (Wilson, DeLong, ...) assume
independent rows; their cluster-robust forms are
:mod:`dartboard.uncertainty._clustered_analytic`. The calibration error's bin-level
draws resample rows within bins, so it takes the generic path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard.uncertainty import _bootstrap

__all__ = ["CLUSTER_METHODS", "ClusterIndex", "cluster_index", "cluster_replicates",
           "generic_cluster_replicates"]

#: the methods of a clustered interval
CLUSTER_METHODS = ("percentile", "basic", "bca")


class ClusterIndex:
    """The rows of each cluster: ``codes`` (the cluster of each row, 0..C-1) and
    ``members`` (the rows of each cluster)."""

    def __init__(self, codes: np.ndarray, n_clusters: int) -> None:
        self.codes = codes
        self.n_clusters = n_clusters
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(n_clusters + 1))
        self.members = [order[bounds[c]:bounds[c + 1]] for c in range(n_clusters)]

    def take(self, rows: np.ndarray) -> ClusterIndex:
        """The clusters of some rows (a group's), renumbered."""
        kept, codes = np.unique(self.codes[rows], return_inverse=True)
        return ClusterIndex(codes.astype(np.intp), int(kept.shape[0]))


def cluster_index(clusters: Any, n_rows: int) -> ClusterIndex:
    """Cluster ids checked (one per row, none missing, at least two clusters)."""
    from dartboard._labels import encode_labels
    from dartboard._validation import check_consistent_length, label_array

    ids = label_array(clusters, name="clusters")
    check_consistent_length(("rows", np.empty(n_rows)), ("clusters", ids))
    encoded = encode_labels(("clusters", ids))
    codes = encoded.codes[0].astype(np.intp)
    n_clusters = int(encoded.classes.shape[0])
    if n_clusters < 2:
        raise ValueError(f"clusters holds {n_clusters} cluster; a clustered interval "
                         "resamples clusters and needs at least two")
    return ClusterIndex(codes, n_clusters)


def _jackknife_groups(n_clusters: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Clusters left out together: one at a time, or ``JACKKNIFE_MAX`` random groups."""
    if n_clusters <= _bootstrap.JACKKNIFE_MAX:
        return [np.array([c]) for c in range(n_clusters)]
    return np.array_split(rng.permutation(n_clusters), _bootstrap.JACKKNIFE_MAX)


def cluster_replicates(parts: list[Any], where: list[np.ndarray], pooled: Any,
                       n_resamples: int, rng: np.random.Generator,
                       jackknife: bool) -> _bootstrap.Replicates:
    """Replicates from the clusters' cells (``parts``, placed in the ``pooled`` cells at
    ``where``, as :meth:`Family.pool` gives them): each replicate's counts are the
    clusters' counts weighted by a multinomial draw of the clusters."""
    from scipy import sparse

    c = len(parts)
    width = int(pooled.size.shape[0])
    rows = np.concatenate([np.full(at.shape[0], j) for j, at in enumerate(where)])
    data = np.concatenate([p.size for p in parts]).astype(np.float64)
    matrix = sparse.csr_matrix((data, (rows, np.concatenate(where))), shape=(c, width))
    per = 8 * 4 * max(width, c, 1)
    batch = max(1, min(n_resamples, _bootstrap.BATCH_BYTES // per))
    values = np.empty(n_resamples)
    uniform = np.full(c, 1.0 / c)
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        drawn = rng.multinomial(c, uniform, size=b).astype(np.float64)
        values[start:start + b] = pooled.evaluate(np.asarray((matrix.T @ drawn.T).T))
    jack = None
    if jackknife:
        full = np.asarray(matrix.sum(axis=0)).ravel()
        groups = _jackknife_groups(c, rng)
        jack = np.empty(len(groups))
        step = max(1, _bootstrap.BATCH_BYTES // (8 * 4 * max(width, 1)))
        for start in range(0, len(groups), step):
            chunk = groups[start:start + step]
            left = np.stack([full - np.asarray(matrix[g].sum(axis=0)).ravel()
                             for g in chunk])
            jack[start:start + len(chunk)] = pooled.evaluate(left)
    return _bootstrap.Replicates(values, jack)


def generic_cluster_replicates(statistic: Callable[[np.ndarray], float],
                               index: ClusterIndex, n_resamples: int,
                               rng: np.random.Generator, jackknife: bool
                               ) -> _bootstrap.Replicates:
    """Replicates of ``statistic(rows)`` on the rows of each replicate's clusters (nan
    where it raises ``ValueError``: a resample without a class, say)."""
    c = index.n_clusters

    def safe(rows: np.ndarray) -> float:
        try:
            return float(statistic(rows))
        except (ValueError, ZeroDivisionError):
            return float("nan")

    values = np.empty(n_resamples)
    for r in range(n_resamples):
        drawn = rng.integers(0, c, size=c)
        values[r] = safe(np.concatenate([index.members[k] for k in drawn]))
    jack = None
    if jackknife:
        groups = _jackknife_groups(c, rng)
        jack = np.empty(len(groups))
        for j, left_out in enumerate(groups):
            keep = np.ones(c, dtype=bool)
            keep[left_out] = False
            jack[j] = safe(np.concatenate([index.members[k] for k in np.flatnonzero(keep)]))
    return _bootstrap.Replicates(values, jack)
