"""From a bundle of family states to rows, intervals and the gaps between groups.

Every number of an evaluation -- in memory, streamed from Parquet or reduced from
Dask partitions -- comes from here, from the merged states of
:mod:`dartboard.evaluation._bundle`:

* a row's estimate is the family's value of its state, and its interval the
  family's (:func:`dartboard.families._base.interval_of`): analytic where the
  registry's ``auto`` choice says so, else a bootstrap of the state's cells, with
  ``random_state`` as :func:`dartboard.interval` takes it, so a row equals
  ``dartboard.interval`` on the same rows with the same seed;
* a group's rows the same, from the group's states;
* the gaps between groups from replicates of every group at once
  (:func:`dartboard.families._base.group_replicates`): each group's cells drawn on
  their own, all rows the groups' draws together; metrics that share a state
  (every count metric, the fairness rates) share the draws, so a summary that takes
  the worse of two rates compares them replicate by replicate.

Rows in clusters take the same route: the bundle holds one set of states per
cluster, in memory as when streamed, and
:class:`~dartboard.evaluation._clusters.ClusteredStates` gives each row's clustered
interval and design effect and the gaps' shared draws of clusters from them.

A metric no family computes (a user's callable) is computed on the rows in memory
(``generic``) and is refused by a streamed evaluation, which keeps no rows. An
interval that cannot be formed (a rate undefined on every resample, a bootstrap a
streamed state cannot draw) leaves the estimate in its row, with the reason in
``method``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any

import numpy as np

from dartboard._kernels._bootstrap import IntervalWarning
from dartboard._kernels._methods import BOOTSTRAP_METHODS, PROPORTION_METHODS
from dartboard._rng import check_random_state, child, fresh_each_call
from dartboard.evaluation._bundle import Bundle, Planned
from dartboard.evaluation._options import EvaluationOptions
from dartboard.evaluation._result import MetricRow
from dartboard.evaluation._threads import available_cores
from dartboard.families._base import (
    Family,
    NoCells,
    Stacked,
    choose_method,
    draw_stacked,
    finish_stacked,
    grouped_replicates,
    interval_of,
)
from dartboard.metrics._registry import MetricSpec

__all__ = ["GroupGaps", "StackedRows", "all_group_rows", "denominator", "metric_rows",
           "method_for", "NO_INTERVAL", "NO_ROWS"]

#: the registry's default_interval None means no interval is valid: a sample maximum
NO_INTERVAL = "n/a (sample maximum)"
#: a generic metric in a streamed evaluation
NO_ROWS = "n/a (needs the rows; a streamed evaluation keeps states)"

#: the child seed of the gaps' replicates with clusters: one generator for every metric,
#: so that all draw the same clusters (kept once, ``_clustered._LAST``)
CLUSTER_STREAM = 999


def method_for(ci: str, spec: MetricSpec, kwargs: dict[str, Any]) -> str:
    """The method asked for where it applies to the metric, else its default.

    A proportion averaged over classes (macro precision) is no longer a proportion:
    the analytic methods apply to the binary and unaveraged ones only.
    """
    if ci in PROPORTION_METHODS:
        return ci if spec.proportion and "average" not in kwargs else "auto"
    if ci in ("percentile", "basic", "bca", "auto"):
        return ci
    # an analytic method (delong, delong-logit, logit, influence-logit, t) where the
    # registry says it applies to the metric, else the metric's own choice
    return ci if ci == spec.default_interval or ci in spec.asymptotic else "auto"


Generic = Callable[[Planned, "np.ndarray | None", "str | None"], MetricRow]


def metric_rows(bundle: Bundle, planned: Sequence[Planned], opts: EvaluationOptions,
                generic: Generic | None, group: str | None = None,
                members: np.ndarray | None = None, clusters: Any = None,
                skip: set[str] | frozenset[str] = frozenset()) -> list[Any]:
    """One row per metric of ``bundle``'s states (all rows, or one group's).

    ``generic(planned, members, group)`` computes a metric no family does from the
    rows (None: a streamed evaluation, which has none). ``clusters``: rows in clusters,
    whose intervals come from the bundle's per-cluster states
    (:class:`~dartboard.evaluation._clusters.ClusteredStates`). ``skip``: labels formed
    elsewhere (:class:`StackedRows`), None in their places.
    """
    rows: list[Any] = []
    for p in planned:
        if p.label in skip:
            rows.append(None)
            continue
        if p.family is None:
            if generic is not None:
                rows.append(generic(p, members, group))
            else:
                rows.append(_row(p.label, float("nan"), None, None, NO_ROWS, opts,
                                 bundle.n_rows, group))
            continue
        interval = None if clusters is None else \
            functools.partial(clusters.interval, p, bundle)
        rows.append(_family_row(p, bundle.states[p.computed[2]], opts, group, interval))
    return rows


class StackedRows:
    """The group rows whose bootstrap intervals are formed for every group at once (the
    count metrics' BCa of a thousand groups: one formula call per metric, not one per
    group); the same rows, bit for bit, as :func:`metric_rows` forms one by one (the
    groups' draws are their own, from the same seeds). Made on the calling thread,
    which chooses each row's method and estimate (``taken[g]``: the labels of group g
    planned here; the others are left to :func:`metric_rows`); :meth:`run` draws and
    forms them, array work that may take another thread. A row whose interval takes
    another route after all (an error to report) comes back None.

    Each group's metrics draw one after another, so those of one state share its kept
    draws as :func:`metric_rows` does; then each metric's values of all groups' draws
    come from one call (:func:`~dartboard.families._base.finish_stacked`)."""

    def __init__(self, groups: Sequence[Bundle], names: Sequence[str],
                 planned: Sequence[Planned], opts: EvaluationOptions) -> None:
        self.names, self.opts = list(names), opts
        self.taken: list[set[str]] = [set() for _ in groups]
        self.jobs: dict[str, list[tuple[int, Any, float, str]]] = {}
        self.planned = {p.label: p for p in planned}
        if opts.confidence_level is None or len(groups) < 2 or \
                not fresh_each_call(opts.random_state):
            # a generator of the caller's is one stream that the rows draw from in turn:
            # drawing in another order would give other numbers than row by row
            return
        chosen = [p for p in planned if p.family is not None and
                  type(p.family).stack is not Family.stack and
                  p.computed[1].spec.default_interval is not None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a group's row warns of nothing
            for g, bundle in enumerate(groups):
                for p in chosen:
                    found = _stacked_job(p, bundle.states[p.computed[2]], opts)
                    if found is not None:
                        self.jobs.setdefault(p.label, []).append((g, *found))
                        self.taken[g].add(p.label)

    def run(self) -> list[dict[str, MetricRow | None]]:
        """Per group, the planned rows by label (None: to be formed on its own route).
        Sets no warnings filter (the caller's, which ignores a group row's warnings)."""
        out: list[dict[str, MetricRow | None]] = [dict.fromkeys(t) for t in self.taken]
        opts = self.opts
        rng = functools.partial(check_random_state, opts.random_state)
        drawn: dict[str, list[Stacked | None]] = {label: [] for label in self.jobs}
        order = {label: i for i, label in enumerate(self.planned)}
        by_group = sorted((g, order[label], label, at) for label, jobs in self.jobs.items()
                          for at, (g, *_) in enumerate(jobs))
        for _, _, label, at in by_group:  # group by group, its metrics in their order
            p, (_, state, _, method) = self.planned[label], self.jobs[label][at]
            family, metric, _ = p.computed
            drawn[label].append(draw_stacked(family, metric, state, method,
                                             opts.n_resamples, rng))
        assert opts.confidence_level is not None  # else nothing is planned
        for label, jobs in self.jobs.items():
            family, metric, _ = self.planned[label].computed
            found = finish_stacked(family, metric, [j[1:] for j in jobs], drawn[label],
                                   opts.confidence_level)
            for (g, state, _, _), iv in zip(jobs, found):
                if iv is not None:
                    out[g][label] = MetricRow(
                        label, float(iv.estimate), float(iv.low), float(iv.high),
                        str(iv.method), float(iv.confidence_level),
                        denominator(family, state, metric), self.names[g])
        return out


def _stacked_job(p: Planned, state: Any, opts: EvaluationOptions
                 ) -> tuple[Any, float, str] | None:
    """``(state, estimate, method)`` of a group's row with a bootstrap interval, as
    :func:`_family_row` would choose them; None for any other row."""
    family, metric, _ = p.computed
    try:
        method = method_for(opts.ci, metric.spec, metric.kwargs)
        if method not in ("auto", *BOOTSTRAP_METHODS) and \
                method not in family.methods(state, metric):
            method = "auto"
        method = choose_method(family, state, metric, method)
        if method not in BOOTSTRAP_METHODS:
            return None  # analytic: its own route, which is short
        estimate = family.value(state, metric)
    except ValueError:
        return None
    return (state, estimate, method) if np.isfinite(estimate) else None


def all_group_rows(groups: Sequence[Bundle], names: Sequence[str], planned: Sequence[Planned],
               opts: EvaluationOptions, generic: Generic | None,
               members: Sequence[np.ndarray | None], *, progress: Any = None
               ) -> list[MetricRow]:
    """Every group's rows, group by group in ``planned`` order (:func:`metric_rows`),
    those of :class:`StackedRows` formed at once. Where the machine has a core to spare
    and every metric is a family's, the stacked rows are drawn on a worker thread while
    this one forms the others (their draws release the interpreter); the whole is then
    inside one warnings filter that ignores (a group's row warns of nothing; a metric
    of one's own, which may, keeps the one thread)."""
    stacked = StackedRows(groups, names, planned, opts)
    threaded = bool(stacked.jobs) and all(p.family is not None for p in planned) and \
        available_cores() > 1
    steps = progress if progress is not None else range(len(groups))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ThreadPoolExecutor(max_workers=1) if threaded else nullcontext() as pool:
            coming = pool.submit(stacked.run) if pool is not None else None
            formed = []
            for g in steps:
                formed.append(metric_rows(groups[g], planned, opts, generic, names[g],
                                          members[g], skip=stacked.taken[g]))
            ready = coming.result() if coming is not None else stacked.run()
    out = []
    for g, rows in enumerate(formed):
        for p, row in zip(planned, rows):
            if row is None:  # planned at once: formed there, or on its own route now
                row = ready[g].get(p.label) or _family_row(
                    p, groups[g].states[p.computed[2]], opts, names[g])
            out.append(row)
    return out


def denominator(family: Any, state: Any, metric: Any) -> int:
    """The row's ``n``: a proportion's own denominator where the registry names one
    (recall: the positives, precision: the predicted positives), else the rows."""
    found = family.denominator(state, metric)
    return family.n_rows(state) if found is None else found


def _row(label: str, estimate: float, low: float | None, high: float | None, method: str,
         opts: EvaluationOptions, n: int, group: str | None) -> MetricRow:
    level = float("nan") if opts.confidence_level is None else opts.confidence_level
    return MetricRow(label, float(estimate), low, high, method, level, int(n), group)


def _family_row(p: Planned, state: Any, opts: EvaluationOptions, group: str | None,
                clustered: Callable[[float], tuple[Any, float | None]] | None = None
                ) -> MetricRow:
    """A metric's row from its state; ``clustered(estimate)`` gives the interval and
    design effect of rows in clusters."""
    family, metric, _ = p.computed
    n = denominator(family, state, metric)
    with warnings.catch_warnings():
        if group is not None:
            warnings.simplefilter("ignore")
        try:
            estimate = family.value(state, metric)
        except ValueError as exc:
            estimate, why = float("nan"), str(exc)
        else:
            why = f"{metric.name} is undefined on {'this group' if group else 'these data'}"
    if np.isinf(estimate):
        # a number beyond float64 (the MSE of values near 1e200): kept, without interval
        reason = f"{metric.name} is {estimate} (beyond float64's range)"
        if group is None:
            warnings.warn(f"no interval for {metric.name}: {reason}", IntervalWarning,
                          stacklevel=5)
        return _row(p.label, estimate, None, None, f"n/a ({reason})", opts, n, group)
    if not np.isfinite(estimate):
        # one undefined metric leaves a row that says so; the others stand
        reason = f"undefined: {why}".split(";")[0][:120]
        if group is None:
            warnings.warn(f"{p.label}: {reason}", IntervalWarning, stacklevel=5)
        return _row(p.label, float("nan"), None, None, reason, opts, n, group)
    if opts.confidence_level is None:
        return _row(p.label, estimate, None, None, "n/a (confidence_level=None)", opts, n,
                    group)
    if metric.spec.default_interval is None:
        return _row(p.label, estimate, None, None, NO_INTERVAL, opts, n, group)
    try:
        with warnings.catch_warnings():
            if group is not None:
                warnings.simplefilter("ignore")
            deff = None
            if clustered is not None:
                iv, deff = clustered(estimate)
            else:
                method = method_for(opts.ci, metric.spec, metric.kwargs)
                if method not in ("auto", *BOOTSTRAP_METHODS) and \
                        method not in family.methods(state, metric):
                    method = "auto"  # DeLong of a multiclass AUC, say: the metric's own
                iv = interval_of(family, state, metric, method=method,
                                 level=opts.confidence_level, n_resamples=opts.n_resamples,
                                 stratified=False,
                                 rng=functools.partial(check_random_state, opts.random_state),
                                 estimate=estimate)
    except ValueError as exc:
        # the estimate stands; it is the interval that cannot be formed
        reason = str(exc).split(";")[0][:120]
        if group is None and not isinstance(exc, NoCells):  # by design: the row says
            warnings.warn(f"no interval for {metric.name}: {reason}", IntervalWarning,
                          stacklevel=5)
        return _row(p.label, estimate, None, None, f"n/a ({reason})", opts, n, group)
    return MetricRow(p.label, float(iv.estimate), float(iv.low), float(iv.high),
                     str(iv.method), float(iv.confidence_level), n, group,
                     design_effect=deff)


# ------------------------------------------------------------------------ gaps

class GroupGaps:
    """Per-group values of a metric and their grouped-bootstrap replicates.

    ``planned`` maps row labels (and the fairness rates ``__selection``, ``__tpr``,
    ``__fpr``) to their metrics; ``keys`` are the groups in row order. ``generic``
    draws the replicates of a metric from the rows (``generic.replicates(planned,
    rng)``, for the labels in ``generic.chosen``) where the states cannot (in memory);
    None in a streamed evaluation. Replicates are drawn on first use and kept.
    """

    def __init__(self, bundle: Bundle, planned: dict[str, Planned],
                 keys: Sequence[tuple[Any, ...]], seed: np.random.SeedSequence,
                 n_resamples: int, confidence_level: float | None, generic: Any) -> None:
        self.bundle, self.planned, self.keys = bundle, planned, list(keys)
        self.seed, self.n_resamples = seed, n_resamples
        self.confidence_level = float("nan") if confidence_level is None \
            else confidence_level
        self.generic = generic
        self.streamed = generic is None
        self._drawn: dict[str, np.ndarray] = {}
        #: how the replicates of a label were formed, where not all drawn from cells
        self.notes: dict[str, str] = {}
        self._pools: dict[Any, Any] = {}
        #: replicates being drawn on another thread (:meth:`draw_ahead`)
        self._coming: dict[str, Any] = {}
        # metrics that share a state share its draws: one seed per state key
        state_keys = list(dict.fromkeys(p.key for p in planned.values()
                                        if p.key is not None))
        self._seed_of = {k: i for i, k in enumerate(state_keys)}

    def sizes(self) -> np.ndarray:
        """(G,) rows of each group, as floats."""
        groups = self.bundle.groups
        assert groups is not None  # gaps are drawn between groups
        return np.array([groups[k].n_rows for k in self.keys], dtype=float)

    @property
    def has_rates(self) -> bool:
        """Whether the fairness rates (of predicted labels) are here."""
        return "__tpr" in self.planned

    def cheap(self, label: str, cells: int = 50_000) -> bool:
        """Whether the gaps of ``label`` are drawn already or cost little (the groups'
        states hold at most ``cells`` cells: confusion counts, small score maps)."""
        if label in self._drawn:
            return True
        p = self.planned.get(label)
        if p is None or not self._pooled(p):
            return False
        pooled = self._pool(p)
        assert pooled is not None  # _pooled said so
        return sum(int(c.size.shape[0]) for c in pooled[1]) <= cells

    def _pool(self, p: Planned) -> Any:
        """``family.pool`` of the groups' states, formed once per metric (merging and
        placing a million cells is most of a gap's cost otherwise)."""
        key = id(p)
        if key not in self._pools:
            family, metric, _ = p.computed
            self._pools[key] = (p, family.pool(self._states(p), metric))
        return self._pools[key][1]

    def _states(self, p: Planned) -> list[Any]:
        groups, key = self.bundle.groups, p.computed[2]
        assert groups is not None  # gaps are drawn between groups
        return [groups[k].states[key] for k in self.keys]

    def observed(self, label: str) -> np.ndarray:
        """(G + 1,) values of ``label`` on each group and on all rows (nan: undefined)."""
        p = self.planned[label]
        family, metric, key = p.computed
        states = [*self._states(p), self.bundle.states[key]]
        out = np.empty(len(states))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for j, state in enumerate(states):
                try:
                    out[j] = family.value(state, metric)
                except ValueError:
                    out[j] = np.nan
        return out

    def _pooled(self, p: Planned) -> bool:
        """Whether the family draws the groups' replicates from their states (not when
        rows come in clusters: the rows' source then draws whole clusters)."""
        if getattr(self.generic, "clustered", False):
            return False
        return p.family is not None and (self._normal(p) or self._pool(p) is not None)

    def _normal(self, p: Planned) -> bool:
        """Whether the family gives the groups' replicates from their moments alone
        (asked once per metric: the answer reads every group's state)."""
        key = ("normal", id(p))
        if key not in self._pools:
            family, metric, _ = p.computed
            self._pools[key] = (p, family.group_normal(self._states(p), metric, 1,
                                                       np.random.default_rng(0)) is not None)
        return self._pools[key][1]

    def refused(self, label: str) -> str | None:
        """Why the gaps of ``label`` get no interval (None: they do). In memory the
        rows are resampled where the states cannot be."""
        p = self.planned[label]
        if np.isnan(self.confidence_level):
            return "no confidence_level"
        if self._pooled(p) or (self.generic is not None and label in self.generic.chosen):
            return None
        if p.family is None:
            return "streamed: a metric no family computes needs the rows"
        family, metric, key = p.computed
        if getattr(self.generic, "clustered", False):
            # the clusters are the cause, not the rows' counts or weights
            return (f"clustered: the gaps draw whole clusters, and a streamed evaluation "
                    f"keeps no per-cluster cells of {metric.name} to draw them from (in "
                    "memory the rows give them)")
        return family.no_cells(self.bundle.states[key], metric)

    def draw_ahead(self, label: str, pool: Any) -> None:
        """Draw the replicates of ``label`` on ``pool`` (a thread pool) where they come
        from the groups' moments in closed form (the calibration error's bins' normal
        limit): array work on the states and the label's own generator, no warnings
        filter and no shared cache, so another thread can take it while this one draws
        the other metrics'. :meth:`replicates` then waits for them."""
        p = self.planned.get(label)
        if p is None or p.family is None or label in self._drawn or label in self._coming \
                or not p.family.moments_first or self.refused(label) is not None \
                or not self._pooled(p) or not self._normal(p):
            return
        self._coming[label] = pool.submit(self._replicates, label)

    def replicates(self, label: str) -> np.ndarray:
        """(R, G + 1) replicate values of ``label``."""
        coming = self._coming.pop(label, None)
        if coming is not None:
            return coming.result()
        return self._replicates(label)

    def _replicates(self, label: str) -> np.ndarray:
        if label in self._drawn:
            return self._drawn[label]
        p = self.planned[label]
        if not self._pooled(p):
            # with clusters every metric draws whole clusters from one generator, so
            # each metric's replicates take the same (kept) draws of clusters
            at = CLUSTER_STREAM if getattr(self.generic, "clustered", False) else \
                1000 + list(self.planned).index(label)
            rng = check_random_state(child(self.seed, at))
            drawn = self.generic.replicates(p, rng)
            note = getattr(self.generic, "notes", {}).get(label)
            if note is not None:
                self.notes[label] = note
        else:
            family, metric, key = p.computed
            rng = check_random_state(child(self.seed, self._seed_of[key]))
            drawn, note = grouped_replicates(family, self._states(p), metric,
                                             self.n_resamples, rng,
                                             pooled=lambda: self._pool(p))
            if note is not None:
                self.notes[label] = note
        self._drawn[label] = drawn
        return drawn

    def proportions(self, label: str) -> np.ndarray | None:
        """(G, 2) successes and trials per group when ``label`` is a binomial proportion
        of whole counts (accuracy, a binary recall...); else None."""
        p = self.planned.get(label)
        if p is None or p.family is None or getattr(self.generic, "clustered", False):
            return None  # Newcombe's interval assumes independent rows
        found = [p.family.proportion(s, p.computed[1]) for s in self._states(p)]
        if any(f is None for f in found):
            return None
        return np.array(found, dtype=np.float64)
