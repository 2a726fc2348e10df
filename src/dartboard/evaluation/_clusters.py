"""Clustered rows and gaps from per-cluster states (a streamed evaluation with ``cluster``).

A streamed evaluation whose rows come in clusters keeps, beside each bundle's states,
one set of states per cluster (:mod:`dartboard.evaluation._bundle`). A metric's
clustered interval then follows from its family's states of the clusters, ordered
as the in-memory evaluation encodes the cluster ids (sorted), so that the same seed
draws the same clusters:

* the cluster-robust terms (``wald-clustered``, ``t-clustered``,
  ``delong-clustered``, ``delta-clustered``) from
  :meth:`~dartboard.families.Family.state_cluster_terms` -- per-cluster successes
  and denominators, sums of losses and weights, ROC AUC's placement sums from each
  cluster's (score, label) cells -- equal to the terms of the rows;
* the bootstrap of whole clusters from :meth:`~dartboard.families.Family.pool` of
  the clusters' states (pooled cells, and where each cluster's cells lie) and
  :func:`~dartboard._kernels._clustered.cluster_matrix`;
* the design effect against the same kind of interval with independent rows, from
  the merged state (the delta method's from each row its own cluster);
* the gaps between groups from one draw of all clusters shared by every group
  (:func:`~dartboard._kernels._clustered.shared_cluster_replicates`).

Memory: one state per (group, cluster) -- confusion counts of K^2 cells, the sums
and distinct (term, weight) cells of a mean loss, and for scores each cluster's
distinct (score, label) cells, so continuous scores cost the distinct scores of each
cluster (at most its rows), as continuous losses and regression values do. The
calibration error's bin-pivot takes its design effect from the clusters' bin sums
(:func:`~dartboard._kernels._clustered_calibration.state_design_effect`); an
interval that needs the rows (its bootstrap of whole clusters) is left out, with the
reason in ``method``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np

from dartboard._kernels._clustered import (
    CLUSTER_METHODS,
    cluster_matrix,
    shared_cluster_replicates,
    too_few_clusters,
)
from dartboard._kernels._methods import CLUSTERED_ANALYTIC_METHODS, METHODS
from dartboard._rng import check_random_state, generator_when_drawn
from dartboard.evaluation._bundle import Bundle, Planned
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Family, Metric
from dartboard.families._base import cell_influence

__all__ = ["ClusteredStates", "check_cluster_ci", "cluster_order"]


def check_cluster_ci(ci: str, clustered: bool = True, name: str = "clusters",
                     option: str | None = None) -> None:
    """``ci`` of an evaluation with clusters (``clustered``): ``auto``, a bootstrap of
    whole clusters or a cluster-robust method (the independent-rows analytic methods are
    refused); without clusters a cluster-robust method is refused (it would apply to no
    row, and the rows would silently get ``auto``'s intervals). ``name`` and ``option``
    say the clusters' and the method's argument as the caller spells them; a ``ci``
    that is no interval method at all is told so, with the methods that fit."""
    if ci not in METHODS:
        said = "ci" if option is None else option.split(" ", 1)[0]
        fit = (f"'auto', one of {list(CLUSTER_METHODS)} (a bootstrap of whole clusters) "
               f"or {list(CLUSTERED_ANALYTIC_METHODS)} (cluster-robust)") if clustered \
            else f"one of {list(METHODS)}"
        raise InputError(f"{said} must be an interval method; got {ci!r}; "
                         f"{'with clusters ' if clustered else ''}choose {fit}")
    if not clustered:
        if ci in CLUSTERED_ANALYTIC_METHODS:
            said = f"ci={ci!r}" if option is None else option
            raise InputError(f"{said} is a cluster-robust interval; give {name} (the "
                             "cluster of each row), or a method for independent rows")
        return
    if ci not in ("auto", *CLUSTER_METHODS, *CLUSTERED_ANALYTIC_METHODS):
        said = f"ci={ci!r}" if option is None else option
        raise InputError(f"{said} assumes independent rows; with clusters use "
                         f"'auto', one of {list(CLUSTER_METHODS)} (a bootstrap of whole "
                         f"clusters) or {list(CLUSTERED_ANALYTIC_METHODS)} (cluster-robust)")


def cluster_order(ids: Any, name: str) -> dict[Any, int]:
    """Each cluster id's position in the in-memory evaluation's encoding (sorted, as
    :func:`~dartboard._labels.encode_ids` sorts), checked: two clusters or more."""
    from dartboard._labels import encode_ids
    from dartboard._validation import id_array

    keys = list(ids)
    if len(keys) < 2:
        raise InputError(f"{name}: {too_few_clusters(len(keys))}")
    try:
        codes, _ = encode_ids(id_array(keys, name=name, noun="cluster"), name)
    except InputTypeError:
        raise InputTypeError(f"{name} holds ids that cannot be ordered (mixed types across "
                             "files or partitions); use one type") from None
    from dartboard._kernels._clustered_analytic import warn_few_clusters

    warn_few_clusters(len(keys), stacklevel=5)
    return {key: int(code) for key, code in zip(keys, codes)}


class ClusteredStates:
    """The clustered intervals, design effects and group replicates of a bundle whose
    bundles hold per-cluster states; ``order`` maps a cluster id to its position."""

    #: the gaps draw whole clusters (:class:`~dartboard.evaluation._finalize.GroupGaps`)
    clustered = True

    def __init__(self, bundle: Bundle, order: dict[Any, int], opts: Any,
                 keys: Sequence[Any] = (), planned: dict[str, Planned] | None = None) -> None:
        self.bundle, self.order, self.keys, self.opts = bundle, order, list(keys), opts
        self.planned = planned or {}
        self.chosen: Container[object] = _Poolable(self)
        self._parts: dict[str, list[tuple[Any, Any]] | None] = {}
        # per (bundle, state key): the clusters' states in order, and the pooled cells'
        # sizes with their cluster matrix (the metrics of one state share them)
        self._states: dict[tuple[int, str], tuple[list[Any], np.ndarray]] = {}
        self._matrices: dict[tuple[int, str, bool], tuple[np.ndarray, Any]] = {}
        #: how the replicates of a label were formed, where not by evaluating each draw
        self.notes: dict[str, str] = {}

    def states(self, bundle: Bundle, key: str) -> tuple[list[Any], np.ndarray]:
        """The states of ``bundle``'s clusters in order, and their positions."""
        slot = (id(bundle), key)
        if slot not in self._states:
            assert bundle.clusters is not None  # a clustered evaluation's bundles have them
            order = self.order
            held = [c for c, states in bundle.clusters.items() if key in states]
            at = np.fromiter((order[c] for c in held), dtype=np.intp, count=len(held))
            if at.shape[0] > 1 and not np.all(at[1:] > at[:-1]):  # ids met out of order
                sort = np.argsort(at)
                at, held = at[sort], [held[i] for i in sort]
            self._states[slot] = ([bundle.clusters[c][key] for c in held], at)
        return self._states[slot]

    def cells(self, p: Planned, bundle: Bundle, every: bool = False
              ) -> tuple[Any, Any] | None:
        """(pooled cells, cluster matrix) of ``p`` on ``bundle``'s clusters (``every``:
        a row for each of all the clusters); None where the clusters' cells do not pool.

        The matrix is built once per state: the clusters' cells pooled are the cells of
        the bundle's merged state (every family forms and merges its cells by sorted
        keys, :func:`~dartboard.families._base.aggregate`), so another metric of the
        same state takes that state's cells, checked to be the same cells."""
        family, metric, key = p.computed
        slot = (id(bundle), key, every)
        kept = self._matrices.get(slot)
        if kept is not None:
            found = family.cells(bundle.states[key], metric)
            if found is not None and found.extra is None and \
                    np.array_equal(found.size, kept[0]):
                return found, kept[1]
        states, at = self.states(bundle, key)
        summed = family.state_cluster_cells(states, metric, at if every else None,
                                            len(self.order) if every else None)
        if summed is not None:
            return summed
        pooled = family.pool(states, metric) if states else None
        if pooled is None or pooled[0].extra is not None:
            return None
        matrix = cluster_matrix(pooled[1], pooled[2], pooled[0].size.shape[0],
                                at if every else None, len(self.order) if every else None)
        self._matrices[slot] = (pooled[0].size, matrix)
        return pooled[0], matrix

    def interval(self, p: Planned, bundle: Bundle, estimate: float) -> tuple[Any, float | None]:
        """The clustered interval of ``p`` on ``bundle``'s rows and its design effect."""
        from dartboard.evaluation._design import zero_width
        from dartboard.uncertainty._interval import interval_from_clusters

        family, metric, key = p.computed
        opts = self.opts
        states, _ = self.states(bundle, key)
        if len(states) < 2:
            raise InputError(f"clusters {too_few_clusters(len(states))}")
        method = opts.ci if opts.ci in CLUSTER_METHODS or \
            opts.ci in CLUSTERED_ANALYTIC_METHODS else "auto"
        simulated = self._simulated(family, metric, bundle.states[key], states, method,
                                    estimate)
        iv = None if simulated is None else simulated[0]
        if iv is None:
            terms = family.state_cluster_terms(states, metric)

            def cells() -> tuple[Any, Any] | None:
                return self.cells(p, bundle)

            rng = generator_when_drawn(opts.random_state)  # none for analytic forms
            iv = interval_from_clusters(metric.spec, metric.name, estimate, terms, cells,
                                        len(states), method, opts.confidence_level,
                                        opts.n_resamples, rng, metric.kwargs,
                                        self.rows(p, bundle, rng), fallback=family.fallback)
        degenerate = zero_width(iv)
        if degenerate is not None:
            raise InputError(degenerate)
        if simulated is not None:  # the design effect the simulated interval allowed for
            design = float(simulated[1])
            return iv, design if np.isfinite(design) and design > 0 else None
        return iv, self._design_effect(iv, family, bundle.states[key], metric, estimate)

    def rows(self, p: Planned, bundle: Bundle,
             rng: np.random.Generator | Callable[[], np.random.Generator]
             ) -> Callable[[bool], Any] | None:
        """``rows(jackknife)``: the replicates of ``p`` from the rows of each of
        ``rng``'s draws of ``bundle``'s clusters, where the clusters' cells do not pool;
        None: a streamed evaluation keeps no rows (the interval is then refused)."""
        return None

    def _simulated(self, family: Family, metric: Metric, merged: Any, states: list[Any],
                   method: str, estimate: float) -> tuple[Any, float] | None:
        """The family's simulated interval with clusters (the calibration error's
        bin-pivot on n / D rows) from the clusters' states, as in memory from the rows,
        and the design effect ``D`` it allowed for; None where the family has none or it
        does not apply (``auto`` then takes the bootstrap of whole clusters)."""
        from dartboard.uncertainty._interval import simulated_interval

        if not family.simulated or method != "auto":
            return None
        opts = self.opts
        out = family.cluster_simulate_states(
            merged, states, metric, family.simulated[0], opts.confidence_level,
            opts.n_resamples, check_random_state(opts.random_state), estimate)
        if out is None:
            return None
        return simulated_interval(out, estimate, opts.confidence_level, family.simulated[0],
                                  len(states), opts.n_resamples, metric.name), out[5]

    def _design_effect(self, iv: Any, family: Family, state: Any, metric: Metric,
                       estimate: float) -> float | None:
        from dartboard._kernels._clustered_analytic import single_rows_se
        from dartboard.evaluation._design import DELTA_KINDS, independent_forms, se_ratio
        from dartboard.families._base import interval_of

        kind = str(iv.method).split(" ")[0]
        opts = self.opts
        for method in independent_forms(kind):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if kind in DELTA_KINDS:
                        grouped = family.row_terms(state, metric)
                        base = None if grouped is None else single_rows_se(*grouped)
                    else:
                        base = interval_of(family, state, metric, method=method,
                                           level=opts.confidence_level,
                                           n_resamples=opts.n_resamples, stratified=False,
                                           rng=generator_when_drawn(opts.random_state),
                                           estimate=estimate).standard_error
            except ValueError:
                continue
            return se_ratio(iv.standard_error, base)
        return None

    # ------------------------------------------------------------------ gaps

    def parts(self, p: Planned) -> list[tuple[Any, Any]] | None:
        """(pooled cells, ``(all clusters, cells)`` matrix) of each group and all rows;
        None where a part's cells do not pool."""
        if p.label in self._parts:
            return self._parts[p.label]
        groups = self.bundle.groups
        assert groups is not None  # gaps are drawn between groups
        out: list[tuple[Any, Any]] = []
        for bundle in [*(groups[k] for k in self.keys), self.bundle]:
            found = self.cells(p, bundle, every=True)
            if found is None:
                self._parts[p.label] = None
                return None
            out.append(found)
        self._parts[p.label] = out
        return out

    def replicates(self, p: Planned, rng: np.random.Generator) -> np.ndarray:
        """(R, G + 1) replicates of ``p`` on each group and on all rows, each from one
        draw of the clusters shared by all of them."""
        parts = self.parts(p)
        assert parts is not None  # GroupGaps asks only for labels in ``chosen``
        drawn, note = shared_cluster_replicates(parts, len(self.order), self.opts.n_resamples,
                                                rng, influence=cell_influence)
        if note is not None:
            self.notes[p.label] = note
        return drawn


class _Poolable:
    """The labels whose gaps the clusters' states give (``label in chosen``)."""

    def __init__(self, owner: ClusteredStates) -> None:
        self.owner = owner

    def __contains__(self, label: object) -> bool:
        p = self.owner.planned.get(str(label))
        return p is not None and p.family is not None and self.owner.parts(p) is not None

