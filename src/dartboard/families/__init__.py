"""Metric families: one kind of mergeable state and everything done with it.

A metric's registry entry (:mod:`dartboard.metrics._registry`) names its family;
every engine (:func:`dartboard.interval`, :func:`dartboard.compare_models`,
:func:`dartboard.evaluate` and its gaps, the Parquet and Dask evaluations) asks the
family, never the metric's name or a registry string. A family implements
:class:`~dartboard.families._base.Family`:

``build(batch, metrics)``
    the state of one batch of rows (:class:`~dartboard.families._base.Batch`);
``merge(a, b)``
    the state of both (associative, commutative; any split of the rows merged in
    any order gives the state of one pass);
``value(state, metric)``
    the metric from the state, equal to the metric function on the rows;
``cells(state, metric)``
    the state as cells of identical rows (:class:`~dartboard.families._base.Cells`):
    a bootstrap replicate is a multinomial draw of row counts over the cells (one
    per stratum when stratified), and ``cells.evaluate(counts)`` the metric of each
    replicate, without touching rows;
``pool(states)``
    the states of disjoint parts (groups, clusters) as one, with where each part's
    cells lie among the pooled cells: grouped and clustered replicates are sums
    of the parts' draws;
``analytic(state, metric, method, level)``
    the analytic intervals the family supports (proportions, DeLong, logit,
    influence, t), with :meth:`~dartboard.families._base.Family.methods` saying
    which apply;
``cluster_terms(batch, metric, codes, n)`` / ``state_cluster_terms(states, metric)``
    the per-cluster linearized terms of the cluster-robust intervals, from the rows
    or from one state per cluster (a streamed evaluation's; the same terms), and
    ``build_clusters(batch, metric, members)`` those states in one pass.

The families:

=================  ================================================  ===============
family             state (cells)                                    metrics
=================  ================================================  ===============
``counts``         confusion matrix; (true, predicted, weight)       accuracy, F1, ...
``scores``         distinct scores; (score, class, weight)           ROC AUC, AP, ...
``means``          mean of per-sample terms; (term, weight)          log loss, MAE, ...
``rows``           regression rows; (y, y_hat, weight)               R^2, WMAPE, ...
``errors``         distinct errors; (error, weight)                  median errors
``calibration``    (bin, outcome) sums of confidence                 calibration error
=================  ================================================  ===============

Weights travel with their rows: a cell holds rows of one weight, so a bootstrap
resamples rows (each keeping its weight) whether the rows were given in memory or
streamed, and the two give the same replicates for the same seed.
"""

from __future__ import annotations

from dartboard.families import _calibration, _counts, _errors, _means, _rows, _scores
from dartboard.families._base import FAMILIES, Batch, Cells, Family, Metric, family_of

FAMILIES.update({"counts": _counts.FAMILY, "scores": _scores.FAMILY, "means": _means.FAMILY,
                 "rows": _rows.FAMILY, "errors": _errors.FAMILY,
                 "calibration": _calibration.FAMILY})

__all__ = ["Batch", "Cells", "Family", "Metric", "family_of"]
