"""The family protocol, and what every family shares: cells, draws, intervals, pools.

A family's state, seen as :class:`Cells`, is rows grouped into cells of identical
rows. A bootstrap replicate resamples the ``n`` rows with replacement, so the row
counts of the cells are ``Multinomial(n, size / n)`` (stratified: one multinomial
per stratum, the true class); the metric of a replicate is ``cells.evaluate`` of
those counts. That is exactly the row bootstrap, at the cost of the cells
(``K^2`` for confusion counts, the distinct scores for a score map), and it needs
no rows: a merged streamed state gives the same replicates as the rows in memory.

Groups (per-group rows and the gaps between groups) draw each group's cells on
its own: a group's size is fixed, and the replicate of all rows is the sum of the
groups' draws placed among the pooled cells (:meth:`Family.pool`).
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar

import numpy as np

from dartboard._kernels import _analytic, _bootstrap
from dartboard._kernels._bootstrap import IntervalWarning
from dartboard._kernels._methods import BOOTSTRAP_METHODS, PROPORTION_METHODS
from dartboard._kernels._result import Interval, clip_to_range
from dartboard._numeric import vdot
from dartboard._progress import Bar
from dartboard.exceptions import InputError
from dartboard.metrics._registry import MetricSpec, specs

__all__ = ["BOOTSTRAP_METHODS", "NO_CLASSES", "Batch", "Cells", "Family", "Metric", "State",
           "family_of", "group_replicates", "grouped_replicates", "interval_of"]

#: why a regression state cannot be resampled within classes
NO_CLASSES = ("stratified=True resamples within each class of y_true and needs class labels "
              "there; regression targets have none")


#: every family by the name the registry gives it (``MetricSpec.family``). This module
#: cannot import the families (they build on it): :mod:`dartboard.families` imports
#: them all and fills this table before any engine asks for a family.
FAMILIES: dict[str, Family] = {}


def family_of(spec: MetricSpec | None) -> Family | None:
    """The family that computes ``spec``'s metric (None: a generic metric, whose
    intervals resample rows)."""
    if spec is None or spec.family is None:
        return None
    return FAMILIES[spec.family]


@dataclasses.dataclass(frozen=True)
class Metric:
    """A metric as an engine hands it to a family: its spec and keywords."""

    spec: MetricSpec
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.name


@dataclasses.dataclass(frozen=True)
class Batch:
    """Checked columns of one batch of rows, as the families read them.

    ``y_true`` holds labels (classification) or values (regression); ``inputs``
    maps a registry input kind (``labels``, ``scores``, ``probabilities``,
    ``values``) to the array that feeds it; ``weight`` the row weights (None:
    every row counts once); ``positive`` the positive class of a binary task;
    ``classes`` the sorted classes (the columns of a probability matrix).
    """

    y_true: np.ndarray
    inputs: dict[str, np.ndarray | None]
    weight: np.ndarray | None = None
    positive: Any = None
    classes: np.ndarray | None = None
    #: bounded-memory states asked for by a streamed evaluation: ``score_bins``
    #: ``(n_bins, low, high)`` bins the scores (:class:`~dartboard.metrics.BinnedScoreState`)
    approximate: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: the groups' batches (:meth:`parts`), by the groups' identity (held, so an id is
    #: not reused): every family builds a group's state from the same group's batch
    _parts: dict[int, tuple[Any, list[Batch]]] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False)
    #: what a family computes from the rows for several states of them (a mean's
    #: per-row terms: the batch's state and its clusters'), by the family's key
    memo: dict[Any, Any] = dataclasses.field(default_factory=dict, init=False, repr=False,
                                             compare=False)

    def of(self, metric: Metric) -> np.ndarray:
        """The array that feeds ``metric`` (its second argument)."""
        found = self.inputs.get(metric.spec.input)
        if found is None:
            raise InputError(f"{metric.name} needs {metric.spec.input}, which this batch "
                             "does not have")
        return found

    def take(self, rows: np.ndarray) -> Batch:
        """The batch of some of the rows (a group's)."""
        return Batch(self.y_true[rows],
                     {k: None if v is None else v[rows] for k, v in self.inputs.items()},
                     None if self.weight is None else self.weight[rows], self.positive,
                     self.classes, self.approximate)

    def parts(self, members: Sequence[np.ndarray]) -> list[Batch]:
        """The batch of each group's rows (``members``), taken once for the same groups
        (the last groups asked for are kept)."""
        kept = self._parts.get(id(members))
        if kept is not None and kept[0] is members:
            return kept[1]
        found = [self.take(rows) for rows in members]
        self._parts.clear()
        self._parts[id(members)] = (members, found)
        return found


@dataclasses.dataclass(frozen=True)
class Cells:
    """A state as cells of identical rows: what a bootstrap draws.

    Attributes
    ----------
    size : ndarray of int64, shape (C,)
        Rows in each cell.
    stratum : ndarray of shape (C,)
        The stratum of each cell (the true class), for stratified resampling.
    evaluate : callable
        ``(b, C)`` row counts -> ``(b,)`` metric values (nan where undefined).
    jackknife : callable or None
        Closed-form leave-one-row-out values per cell (``(C,)``); None: computed
        from ``evaluate``.
    bytes_per_value : int
        Working memory of ``evaluate`` per replicate (for batching).
    extra : tuple of two callables or None
        For a replicate that draws more than the counts (the calibration error draws
        each cell's sum of confidences): ``draw(counts, rng) -> (b, C) amounts`` and
        ``evaluate(counts, amounts) -> values``. The bootstrap uses them instead of
        ``evaluate``; pooled replicates add the parts' amounts as they add counts.
    sampler : callable or None
        ``(rng, size, b) -> (b, C)`` counts of an unstratified resample, drawn
        otherwise than by ``rng.multinomial`` (same law; faster for many small cells).
    unstratified : str or None
        Why these cells cannot be resampled within the classes of ``y_true`` (their
        ``stratum`` is not the class); None when they can.
    influence : callable or None
        ``() -> (C,)``: the change of the metric per row added to each cell (its
        influence value over the rows), in closed form; None: found from the
        jackknife (:func:`cell_influence`).
    """

    size: np.ndarray
    stratum: np.ndarray
    evaluate: Callable[[np.ndarray], np.ndarray]
    jackknife: Callable[[], np.ndarray] | None = None
    bytes_per_value: int = 64
    extra: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]] | None = None
    sampler: Callable[..., np.ndarray] | None = None
    unstratified: str | None = None
    influence: Callable[[], np.ndarray] | None = None

    def replicate(self, rng: np.random.Generator) -> Callable[[np.ndarray], np.ndarray]:
        """The replicate function of a bootstrap drawing from ``rng``."""
        if self.extra is None:
            return self.evaluate
        draw, evaluate = self.extra
        return lambda counts: evaluate(counts, draw(counts, rng))

    @property
    def n_rows(self) -> int:
        return int(self.size.sum())


class State:
    """What every family state offers beyond ``merge``: the metrics it computes
    (:class:`~dartboard.metrics._mergeable.MergeableState`'s ``compute`` and
    ``error_bound``, so an evaluation's ``states`` merge with later data and give their
    metrics) and equality of its arrays."""

    def compute(self, metric: Any, **kwargs: Any) -> float:
        """``metric`` (a name, alias or dartboard function) from this state."""
        from dartboard.metrics._registry import resolve_metric

        resolved = resolve_metric(metric)
        family = family_of(resolved.spec)
        m = None if resolved.spec is None else Metric(resolved.spec,
                                                      {**resolved.kwargs, **kwargs})
        if family is None or m is None or not family.supports(m):
            raise InputError(f"{resolved.label} is not computed from this state")
        return family.value(self, m)

    def error_bound(self, metric: Any) -> float:
        """``|compute(metric) - exact| <=`` this bound (0.0 for exact states)."""
        from dartboard.metrics._registry import resolve_metric

        resolved = resolve_metric(metric)
        spec, family = resolved.spec, family_of(resolved.spec)
        if spec is None or family is None:
            raise InputError(f"{resolved.label} is not computed from this state")
        bound = family.error_bound(self, Metric(spec))
        return 0.0 if bound is None else bound

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(self)  # type: ignore[arg-type]  # the states are dataclasses
                   if f.compare)

    __hash__ = None  # type: ignore[assignment]  # mutable state: unhashable


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is not None and b is not None and np.array_equal(a, b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


class Family:
    """One kind of state and everything done with it (see :mod:`dartboard.families`)."""

    #: the registry's name of the family
    key: str = ""

    def state_key(self, metric: Metric) -> str:
        """Metrics with the same key share one state (all count metrics share the
        confusion counts)."""
        return self.key

    def supports(self, metric: Metric) -> bool:
        """Whether this family computes ``metric`` with these keywords (else the
        engines treat it as a generic metric)."""
        return True

    def takes(self, y_true: np.ndarray, other: np.ndarray, metric: Metric) -> bool:
        """Whether rows of these shapes are this family's (multiclass scores, say, are
        not the binary scores family's)."""
        return np.ndim(y_true) == 1 and np.ndim(other) == 1

    def build(self, batch: Batch, metric: Metric) -> Any:
        raise NotImplementedError

    def with_classes(self, metric: Metric, classes: np.ndarray | None) -> dict[str, Any]:
        """``metric``'s keywords for rows that may lack a class of the evaluation
        (a group's, a batch's): the classes of all the rows where the metric reads
        them from the data (log loss's ``labels``), as the family's states do."""
        return dict(metric.kwargs)

    def merge(self, a: Any, b: Any) -> Any:
        return a.merge(b)

    def merge_all(self, states: Sequence[Any]) -> Any:
        """One state of all ``states`` (at least one), equal to merging them in turn; a
        family whose states grow with the rows merges them at once."""
        out = states[0]
        for state in states[1:]:
            out = self.merge(out, state)
        return out

    def bounded(self, state: Any) -> bool:
        """Whether the state stays under a fixed size however many rows it merges (a
        confusion matrix, bins, cells capped at a maximum), so that a stream may fold
        batches into it one by one; a state that grows with the rows (the exact map
        of distinct scores) says False."""
        return False

    def value(self, state: Any, metric: Metric) -> float:
        raise NotImplementedError

    def n_rows(self, state: Any) -> int:
        """Rows the state counts."""
        raise NotImplementedError

    def error_bound(self, state: Any, metric: Metric) -> float | None:
        """``|value - exact| <=`` this bound for a bounded-memory state (binned scores, a
        quantile sketch); None when the value is exact."""
        return None

    def binnable(self, metric: Metric) -> bool:
        """Whether binned scores (a streamed ``exact=False``) still give ``metric``
        within a bound (metrics that read no scores are unaffected)."""
        return True

    def cells(self, state: Any, metric: Metric) -> Cells | None:
        """The state's cells for ``metric``; None when it cannot be resampled (the
        reason is :meth:`no_cells`)."""
        raise NotImplementedError

    def bootstrap_cells(self, state: Any, metric: Metric) -> Cells | None:
        """The cells one interval's bootstrap draws: :meth:`cells`, or the same cells in
        an order the family's kernel reads faster (replicates of one state only; groups
        and clusters place cells by :meth:`cells`' order)."""
        return self.cells(state, metric)

    def no_cells(self, state: Any, metric: Metric) -> str:
        return f"{metric.name} has no bootstrap from this state"

    def stack(self, metric: Metric, parts: Sequence[tuple[Any, Sequence[np.ndarray]]]
              ) -> list[list[np.ndarray]] | None:
        """The values ``bootstrap_cells(state, metric).evaluate`` gives each array of
        drawn counts of each ``(state, [counts, ...])``, from one call for all of them
        (many groups' bootstraps at once: :func:`finish_stacked`); the same bits as
        one call each. None where the family cannot (the default)."""
        return None

    def pool(self, states: Sequence[Any], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        """The cells of disjoint parts pooled, each part's cells, and where each
        part's cells lie among the pooled ones (index arrays); None when the parts
        cannot be pooled (the reason is :meth:`no_cells`)."""
        return None

    #: whether :meth:`group_normal` is taken whenever it gives replicates (else only
    #: where drawing the groups' cells costs too much, :func:`grouped_replicates`)
    moments_first = False

    def group_normal(self, states: Sequence[Any], metric: Metric, n_resamples: int,
                     rng: np.random.Generator) -> np.ndarray | None:
        """``(R, G + 1)`` normal replicates of the metric on each group's state and on
        all of them, from the states' moments alone (a streamed mean past its cells:
        its sums); None when the family has none (:func:`grouped_replicates`)."""
        return None

    def cluster_cells(self, batch: Batch, metric: Metric, clusters: np.ndarray,
                      n_clusters: int) -> tuple[Cells, Any] | None:
        """The rows' pooled cells and a ``(n_clusters, cells)`` sparse matrix of each
        cluster's rows in each cell (``clusters``: each row's cluster, 0..C-1), from
        one pass over the rows; None when the family has no such pass (the clusters'
        states are then built one by one and pooled)."""
        return None

    def state_cluster_cells(self, states: Sequence[Any], metric: Metric,
                            at: np.ndarray | None, n_clusters: int | None
                            ) -> tuple[Cells, Any] | None:
        """:meth:`cluster_cells` from the clusters' states (``at``: their rows of the
        matrix among ``n_clusters``; None: one row each, in order), for a family whose
        pooled cells are sums the clusters' states hold whole; None: the states are
        pooled (:meth:`pool`)."""
        return None

    def paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray | None,
               metric: Metric) -> Any:
        """A sampler of ``metric(y, a) - metric(y, b)`` on the same rows, with
        ``permutation(n, rng)`` (the sample-swap null), ``bootstrap(n, rng)`` and
        ``how``; None when the rows must be swapped one by one (``._paired``)."""
        return None

    def paired_kind(self, y: np.ndarray, a: np.ndarray, w: np.ndarray | None,
                    metric: Metric) -> type | None:
        """The class of :meth:`paired`'s sampler for these inputs, without building it
        (None where it would be None): k models compared at once count their rows
        their own way and only need to know which."""
        return None

    def rank_swappable(self, metric: Metric, pred: np.ndarray, y: np.ndarray) -> bool:
        """Whether a score metric may be compared on each model's within-model ranks
        (its value depends on the order of each model's scores only)."""
        return True

    def swaps_raw_scores(self, metric: Metric, pred: np.ndarray) -> bool:
        """Whether a permutation on whole clusters exchanges the models' raw scores (by
        their joint ranks) rather than each model's own ranks (compare._clustered)."""
        return False

    # ---------------------------------------------------------------- analytic

    def methods(self, state: Any, metric: Metric) -> tuple[str, ...]:
        """The analytic interval methods that apply to ``metric`` on this state."""
        return ()

    def analytic(self, state: Any, metric: Metric, method: str, level: float
                 ) -> tuple[float, float, float]:
        """``(low, high, standard error)`` of an analytic ``method``."""
        raise InputError(f"method={method!r} does not apply to {metric.name}")

    def simulate(self, state: Any, metric: Metric, method: str, level: float,
                 n_resamples: int, rng: np.random.Generator, estimate: float
                 ) -> tuple[float, float, float, np.ndarray | None]:
        """``(low, high, standard error, draws)`` of a ``method`` in ``simulated``:
        an interval from draws of the state's own model rather than of its cells (draws
        None: the law of those draws taken in closed form)."""
        raise InputError(f"method={method!r} does not apply to {metric.name}")

    #: methods among ``methods()`` that :meth:`simulate` forms (with ``n_resamples``
    #: draws, unstratified)
    simulated: tuple[str, ...] = ()

    def cluster_simulate(self, batch: Batch, metric: Metric, method: str, codes: np.ndarray,
                         n_clusters: int, level: float, n_resamples: int,
                         rng: np.random.Generator, estimate: float
                         ) -> tuple[float, float, float, np.ndarray | None, str, float] | None:
        """A ``method`` of ``simulated`` when the rows of ``batch`` come in clusters
        (``codes``: each row's cluster, 0..C-1): ``(low, high, standard error, draws,
        note, design effect)``, the note for the method's name, the design effect the
        interval allowed for (its row's); None where it does not apply."""
        return None

    def cluster_simulate_states(self, merged: Any, clusters: list[Any], metric: Metric,
                                method: str, level: float, n_resamples: int,
                                rng: np.random.Generator, estimate: float
                                ) -> tuple[float, float, float, np.ndarray | None, str, float] | None:
        """:meth:`cluster_simulate` from the merged state and each cluster's state (a
        streamed evaluation keeps no rows); None where it does not apply."""
        return None

    #: the bootstrap ``method="auto"`` takes where none of the registry's choices
    #: applies
    fallback = "bca"
    #: whether the family's metrics are means of per-row terms, whose clustered
    #: intervals fall short where very unequal clusters' sizes go with their terms (an
    #: evaluation then says so: ``_clustered_analytic.uneven_clusters``)
    mean_of_terms = False

    def proportion(self, state: Any, metric: Metric) -> tuple[float, float] | None:
        """``(successes, trials)`` when ``metric`` on this state is a binomial
        proportion of whole counts (Newcombe's gap interval needs them); else None."""
        return None

    def denominator(self, state: Any, metric: Metric) -> int | None:
        """The rows ``metric`` divides by on this state when it is a proportion of
        unweighted rows (the registry's ``proportion``: recall's positives); else None
        (weighted rows count weight, not rows)."""
        return None

    def why_not(self, state: Any, metric: Metric, method: str) -> str:
        """Why an analytic ``method`` the registry declares for ``metric`` does not
        apply to this state (weights, keywords, the shape of the data)."""
        return f"method={method!r} does not apply to {metric.name} on these data"

    def cluster_terms(self, batch: Batch, metric: Metric, codes: np.ndarray,
                      n_clusters: int) -> Any:
        """The per-cluster linearized terms of ``metric`` on the rows of ``batch``
        (``codes`` the cluster of each row, 0..C-1), a
        :class:`~dartboard._kernels._clustered_analytic.ClusterTerms` whose method is
        the family's cluster-robust interval; None where none applies."""
        return None

    def state_cluster_terms(self, states: Sequence[Any], metric: Metric) -> Any:
        """:meth:`cluster_terms` from one state per cluster (a streamed evaluation's,
        clusters in order), equal to the terms of the clusters' rows; None where
        none applies or the states do not keep what the terms need."""
        return None

    def merge_many(self, pairs: Sequence[tuple[Any, Any]]) -> list[Any]:
        """:meth:`merge` of each pair (the states of the clusters two batches share); a
        family may merge them at once."""
        return [self.merge(a, b) for a, b in pairs]

    def build_clusters(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                       ) -> list[Any]:
        """The state of each cluster's rows (``members``: the rows of each), equal to
        :meth:`build` of each cluster's rows; a family may build them in one pass."""
        return [self.build(batch.take(rows), metric) for rows in members]

    def build_groups(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                     ) -> list[Any]:
        """The state of each group's rows (``members``: the rows of each), equal to
        :meth:`build` of each group's rows, field for field; a family may build them in
        one pass (a thousand groups' states, one at a time, were a second of an
        evaluation)."""
        return [self.build(part, metric) for part in batch.parts(members)]

    def row_terms(self, state: Any, metric: Metric) -> Any:
        """The delta method's terms with each row its own cluster, from the merged
        state (the independent-rows form a design effect compares with), as ``(terms
        of groups of alike rows, rows of each group)``; None where the family has no
        delta method."""
        return None

    def auto_size(self, state: Any, metric: Metric) -> int:
        """The size ``method="auto"`` compares with the registry's ``auto_interval``."""
        return self.n_rows(state)


# ------------------------------------------------------------------------ intervals

def declared(spec: MetricSpec) -> tuple[str, ...]:
    """The analytic interval methods the registry declares for a metric."""
    proportions = PROPORTION_METHODS if spec.proportion is not None else ()
    named = (spec.default_interval, *spec.asymptotic)
    return (*proportions, *(m for m in named if m is not None and m not in BOOTSTRAP_METHODS
                            and m not in proportions))


def not_declared(method: str, name: str) -> ValueError:
    """The error of an analytic method asked for a metric it is not an interval of."""
    takers = ", ".join(s.name for s in specs() if method in declared(s))
    return InputError(f"method={method!r} applies to {takers} only; got metric "
                      f"{name or 'a user callable'}; use 'percentile', 'basic' or 'bca'")


def choose_method(family: Family, state: Any, metric: Metric, method: str) -> str:
    """``method`` resolved: ``auto`` by the registry's ``auto_interval`` (by size)
    and ``default_interval`` among the methods that apply; an analytic method asked
    for must apply."""
    spec = metric.spec
    applicable = family.methods(state, metric)
    if method != "auto":
        if method in BOOTSTRAP_METHODS or method in applicable:
            return method
        if method not in declared(spec):
            raise not_declared(method, spec.name)
        raise InputError(f"{family.why_not(state, metric, method)}; use a bootstrap method "
                         "(percentile, basic or bca)")
    size = family.auto_size(state, metric) if spec.auto_interval else 0
    candidates = [spec.default_interval or "bca"] + \
        [choice for minimum, choice in spec.auto_interval if size >= minimum]
    for choice in reversed(candidates):
        if choice in BOOTSTRAP_METHODS or choice in applicable:
            return choice
    return family.fallback


class NoCells(InputError):
    """The state keeps nothing to resample (binned scores, a streamed state past its
    cap): no bootstrap by design, not a fault of the data."""


def interval_of(family: Family, state: Any, metric: Metric, *, method: str, level: float,
                n_resamples: int, stratified: bool,
                rng: np.random.Generator | Callable[[], np.random.Generator],
                estimate: float | None = None) -> Interval:
    """The interval of ``metric`` from ``state``: analytic, or a bootstrap of its cells.

    ``rng``: a generator, or a function that makes one, called only when the interval
    draws (an analytic interval of each of a thousand groups' rows then seeds none)."""
    spec = metric.spec
    if estimate is None:
        estimate = family.value(state, metric)
    if not np.isfinite(estimate):
        raise InputError(f"{spec.name} is undefined on this data (it is {estimate}); no "
                         "interval can be formed")
    requested, method = method, choose_method(family, state, metric, method)
    if method in family.simulated and stratified:
        if requested == method:
            raise InputError(f"method={method!r} draws each bin's outcomes anew, so it "
                             "cannot keep the classes' counts; use stratified=False or "
                             "method='basic'")
        method = family.fallback
    if method in family.simulated:
        low, high, se, dist = family.simulate(state, metric, method, level, n_resamples,
                                              _generator(rng),
                                              estimate)
        low, high, method = clip_to_range(low, high, _bounds(metric), method)
        # a simulation in closed form draws nothing (dist None): no resamples to report
        return Interval(estimate, low, high, level, method, se, dist,
                        None if dist is None else n_resamples, spec.name)
    if method not in BOOTSTRAP_METHODS:
        # an analytic interval near a bound (t of a mean loss near 0) can pass it
        low, high, se = family.analytic(state, metric, method, level)
        low, high, method = clip_to_range(low, high, _bounds(metric), method)
        return Interval(estimate, low, high, level, method, se, None, None, spec.name)
    cells = family.bootstrap_cells(state, metric)
    if cells is None:
        raise NoCells(family.no_cells(state, metric))
    reps = replicates(cells, n_resamples, stratified, _generator(rng), method == "bca")
    low, high, se, used, dist = _bootstrap.bootstrap_interval(estimate, reps, level, method,
                                                              _bounds(metric))
    if spec.covers_estimate:
        low, high = min(low, estimate), max(high, estimate)
    return Interval(estimate, low, high, level, used, se, dist, n_resamples, spec.name)


@dataclasses.dataclass
class Stacked:
    """One state's bootstrap with its values to come: the replicates of numbered
    stand-ins and the counts each call of ``evaluate`` was given."""

    skeleton: _bootstrap.Replicates
    calls: list[np.ndarray]


def draw_stacked(family: Family, metric: Metric, state: Any, method: str,
                 n_resamples: int, rng: Callable[[], np.random.Generator]) -> Stacked | None:
    """The draws of one state's bootstrap, as :func:`interval_of` takes them, with the
    metric's values to come (:func:`finish_stacked` forms many states' intervals of one
    metric from one :meth:`Family.stack` call); None where its cells cannot be stood in
    for (a replicate that draws more than counts).

    The state draws from ``rng()`` through the same :func:`replicates`, whose values
    are then read by position: its ``evaluate`` is given numbered stand-ins (0, 1,
    2... over the state's calls), and ``replicates`` only places values, so the
    stand-ins it returns name the values it would hold. The metrics of one state (the
    count metrics of a group) share kept draws when they draw one after another
    (:func:`_bootstrap.kept_draws`): a caller with several metrics draws group by
    group and finishes metric by metric."""
    cells = family.bootstrap_cells(state, metric)
    if cells is None or cells.extra is not None or cells.jackknife is not None:
        return None
    calls: list[np.ndarray] = []
    seen = [0]

    def stand_in(counts: np.ndarray) -> np.ndarray:
        # held as given: the bootstrap hands each call counts it does not touch again
        calls.append(np.asarray(counts, dtype=np.float64))
        first = seen[0]
        seen[0] += counts.shape[0]
        return np.arange(first, seen[0], dtype=np.float64)

    skeleton = replicates(dataclasses.replace(cells, evaluate=stand_in), n_resamples, False,
                          rng(), method == "bca")
    return Stacked(skeleton, calls)


def finish_stacked(family: Family, metric: Metric, jobs: Sequence[tuple[Any, float, str]],
                   drawn: Sequence[Stacked | None], level: float) -> list[Interval | None]:
    """:func:`interval_of` of many states of one metric, each ``(state, estimate,
    method)`` with a bootstrap ``method`` already chosen, from their draws
    (:func:`draw_stacked`): the metric's values of every state's draws from one call
    (:meth:`Family.stack`), the intervals as each state's own. None where a state's
    interval takes its own route (:func:`interval_of` then gives its number or its
    error); all None when the family cannot stack. Sets no warnings filter: a caller on
    several threads sets one for all of them."""
    out: list[Interval | None] = [None] * len(jobs)
    ready = [j for j, d in enumerate(drawn) if d is not None]
    if not ready:
        return out
    found = family.stack(metric, [(jobs[j][0], drawn[j].calls) for j in ready])  # type: ignore[union-attr]
    if found is None:
        return out
    spec = metric.spec
    bounds = _bounds(metric)
    reps: dict[int, _bootstrap.Replicates] = {}
    for j, values in zip(ready, found):
        d = drawn[j]
        assert d is not None  # ready
        flat = np.concatenate(values) if len(values) > 1 else values[0]
        at = d.skeleton
        reps[j] = _bootstrap.Replicates(
            flat[at.values.astype(np.intp)],
            None if at.jackknife is None else flat[at.jackknife.astype(np.intp)],
            at.jackknife_weights)
    # BCa of every state with as many jackknife values at once (the same numbers)
    alike: dict[tuple[int, int], list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for j in ready:
        jack, w = reps[j].jackknife, reps[j].jackknife_weights
        if jobs[j][2] == "bca" and jack is not None and w is not None:
            alike.setdefault((reps[j].values.shape[0], jack.shape[0]), []).append((j, jack, w))
    for found_alike in alike.values():
        same = [j for j, _, _ in found_alike]
        found_bca = _bootstrap.bca_intervals(
            np.array([jobs[j][1] for j in same]), np.stack([reps[j].values for j in same]),
            np.stack([jack for _, jack, _ in found_alike]),
            np.stack([w for _, _, w in found_alike]), level, bounds)
        for j, got in zip(same, found_bca):
            if got is not None:
                low, high, se, used = got
                estimate = jobs[j][1]
                if spec.covers_estimate:
                    low, high = min(low, estimate), max(high, estimate)
                out[j] = Interval(estimate, low, high, level, used, se, reps[j].values,
                                  reps[j].values.shape[0], spec.name)
    for j in ready:
        if out[j] is not None:
            continue
        _, estimate, method = jobs[j]
        try:  # its warnings go by the caller's filter (a worker thread sets none)
            low, high, se, used, dist = _bootstrap.bootstrap_interval(
                estimate, reps[j], level, method, bounds)
        except ValueError:
            continue  # its own route raises it again, and its row says why
        if spec.covers_estimate:
            low, high = min(low, estimate), max(high, estimate)
        out[j] = Interval(estimate, low, high, level, used, se, dist,
                          reps[j].values.shape[0], spec.name)
    return out


def _generator(rng: np.random.Generator | Callable[[], np.random.Generator]
               ) -> np.random.Generator:
    return rng() if callable(rng) else rng


#: numpy's multivariate hypergeometric ("marginals") takes fewer rows than this
_HYPERGEOMETRIC_MAX = 10**9


def _bounds(metric: Metric) -> tuple[float, float] | None:
    # accuracy with normalize=False is a count, outside the proportion's range
    return metric.spec.bounds if metric.kwargs.get("normalize", True) else None


def replicates(cells: Cells, n_resamples: int, stratified: bool, rng: np.random.Generator,
               jackknife: bool) -> _bootstrap.Replicates:
    """Bootstrap replicates of the cells (multinomial draws of their row counts) and,
    for BCa, the jackknife: per cell (closed form, or the cells less one row; exact
    leave-one-row-out whatever the rows, since a cell's rows are identical) up to
    ``JACKKNIFE_MAX`` cells, else a delete-a-group jackknife over ``JACKKNIFE_MAX``
    random groups of rows (Efron & Tibshirani 1993, 11.5)."""
    if stratified and cells.unstratified is not None:
        raise InputError(cells.unstratified)
    grouped = jackknife and cells.jackknife is None and \
        cells.size.shape[0] > _bootstrap.JACKKNIFE_MAX
    reps = _bootstrap.multinomial_replicates(
        cells.replicate(rng), cells.size, cells.stratum, cells.bytes_per_value, n_resamples,
        stratified, rng, jackknife and not grouped, cells.jackknife, draw=cells.sampler,
        keep=cells.extra is None)
    if not grouped:
        return reps
    return _bootstrap.Replicates(reps.values, _grouped_jackknife(cells, rng))


def _grouped_jackknife(cells: Cells, rng: np.random.Generator) -> np.ndarray:
    """The cells' metric without each of ``JACKKNIFE_MAX`` random groups of rows."""
    full = cells.size.astype(np.float64)
    dealt = _dealt_groups(cells.size, rng)
    out = np.empty(_bootstrap.JACKKNIFE_MAX)
    # a stack of groups per call, as the bootstrap's replicates are (one call each was
    # most of a streamed evaluation's time)
    batch = max(1, _bootstrap.BATCH_BYTES // (8 * full.shape[0] + cells.bytes_per_value))
    for start in range(0, out.shape[0], batch):
        stop = min(start + batch, out.shape[0])
        counts = full - np.stack([next(dealt) for _ in range(start, stop)])
        out[start:stop] = cells.evaluate(counts)
    return out


def _dealt_groups(size: np.ndarray, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Per-cell row counts of ``JACKKNIFE_MAX`` random groups of near-equal size (as
    ``np.array_split`` cuts), one group at a time.

    While the cells are few (cells x groups <= rows), each group is a multivariate
    hypergeometric draw from the rows not yet dealt: the same law as cutting a random
    permutation of the rows, without an array as long as the rows (a streamed
    evaluation's memory stays flat). Otherwise the rows are permuted.
    """
    n, g = int(size.sum()), _bootstrap.JACKKNIFE_MAX
    lengths = np.full(g, n // g)
    lengths[:n % g] += 1
    if size.shape[0] * g <= n < _HYPERGEOMETRIC_MAX:
        remaining = size.astype(np.int64)
        for length in lengths:
            taken = rng.multivariate_hypergeometric(remaining, int(length), method="marginals")
            remaining -= taken
            yield taken
        return
    owner = np.repeat(np.arange(size.shape[0]), size)
    for members in np.array_split(rng.permutation(n), g):
        yield np.bincount(owner[members], minlength=size.shape[0])


# ------------------------------------------------------------------------ groups

#: a grouped bootstrap draws about R x cells row counts (a cell per distinct score: about
#: R x rows); past this many, the groups of at least :data:`NORMAL_MIN_ROWS` rows take
#: normal replicates from their influence values (:func:`group_replicates`)
EXACT_WORK = 2 * 10**7
#: rows a group needs for normal replicates (below, its cells are drawn)
NORMAL_MIN_ROWS = 200
#: cells whose influence values are found from ``evaluate`` (one evaluation each)
_EVALUATED_INFLUENCE_MAX = 512


def cell_influence(cells: Cells, value: float) -> np.ndarray | None:
    """(C,) the change of the metric per row added to each cell: the family's closed
    form, else ``value`` less the leave-one-row-out values (the jackknife's influence
    values; closed-form, or from ``evaluate`` for at most 512 cells). None where
    neither is at hand or a value is not finite."""
    if cells.extra is not None:
        return None
    with np.errstate(all="ignore"):
        if cells.influence is not None:
            psi = np.asarray(cells.influence(), dtype=np.float64)
        elif cells.jackknife is not None:
            psi = value - np.asarray(cells.jackknife(), dtype=np.float64)
        elif cells.size.shape[0] <= _EVALUATED_INFLUENCE_MAX:
            full = cells.size.astype(np.float64)
            c = full.shape[0]
            counts = np.broadcast_to(full, (c, c)).copy()
            counts[np.arange(c), np.arange(c)] -= 1.0
            psi = value - cells.evaluate(counts)
        else:
            return None
    return psi if np.all(np.isfinite(psi)) else None


def group_replicates(family: Family, states: Sequence[Any], metric: Metric,
                     n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(R, G + 1)`` replicates of ``metric`` on each of G groups and on all rows
    (:func:`grouped_replicates` without its note)."""
    return grouped_replicates(family, states, metric, n_resamples, rng)[0]


def grouped_replicates(family: Family, states: Sequence[Any], metric: Metric,
                       n_resamples: int, rng: np.random.Generator, *,
                       pooled: Callable[[], Any] | None = None
                       ) -> tuple[np.ndarray, str | None]:
    """``(R, G + 1)`` replicates of ``metric`` on each of G groups and on all rows, and
    a note when some were not drawn from the cells (None when all were).

    Each group's rows are drawn on their own (its size is fixed); all rows are the
    groups' draws together. nan where a replicate is undefined.

    When drawing every group's cells costs more than :data:`EXACT_WORK` row counts
    (continuous scores: a cell per row), a group of at least :data:`NORMAL_MIN_ROWS`
    rows takes normal replicates instead: the bootstrap of a smooth statistic is, to
    first order, ``t*_g - t_g = sum_k (c*_k - m_k) psi_gk`` over the group's cells
    (``m_k`` rows, ``psi_gk`` the change of ``t_g`` per row added: its influence value
    over the rows, :func:`cell_influence`), a sum of many small independent parts,
    normal with variance ``sum_k m_k psi_gk^2 - (sum_k m_k psi_gk)^2 / n_g`` under a
    multinomial draw of the group's ``n_g`` rows (the Gaussian multiplier bootstrap of
    Chernozhukov, Chetverikov and Kato 2013; DeLong's variance for ROC AUC). The value
    on all rows moves by the same draws: its own influence values ``phi_k`` summed over
    each group's cells, jointly normal with the group's part (their covariance from
    ``sum_k m_k psi_gk phi_k``). Smaller groups keep their cell draws, and add
    ``sum_k (c*_k - m_k) phi_k`` to the value on all rows. A family whose states give
    the same normal replicates from their moments alone (the sums of a mean loss) skips
    the pooling. ``pooled``: gives ``family.pool`` of the states when the caller keeps
    it.
    """
    if family.moments_first or n_resamples * _cells(states) > EXACT_WORK:
        normal = family.group_normal(states, metric, n_resamples, rng)
        if normal is not None:
            return normal, _SUMS_NOTE.format(g=len(states))
    found = pooled() if pooled is not None else family.pool(states, metric)
    if found is None:
        normal = family.group_normal(states, metric, n_resamples, rng)
        if normal is not None:
            return normal, _SUMS_NOTE.format(g=len(states))
        raise InputError(f"the gaps of {metric.name} need its groups' cells; "
                         f"{family.no_cells(states[0], metric)}")
    pooled_cells, parts, where = found
    width = pooled_cells.size.shape[0]
    if n_resamples * width > EXACT_WORK:
        normal_found = _normal_replicates(pooled_cells, parts, where, n_resamples, rng,
                                          metric)
        if normal_found is not None:
            return normal_found
    return _drawn_replicates(pooled_cells, parts, where, n_resamples, rng, metric), None


_SUMS_NOTE = "{g} of {g} groups' replicates normal, from their sums"


def _cells(states: Sequence[Any]) -> float:
    """The cells a grouped bootstrap would draw from ``states`` (inf when a state keeps
    none: past its cap, only moments)."""
    total = 0.0
    for state in states:
        size = getattr(state, "size", None)
        if size is None:
            return float("inf")
        total += np.shape(size)[0]
    return total


def _drawn_replicates(pooled_cells: Cells, parts: Sequence[Cells],
                      where: Sequence[np.ndarray], n_resamples: int,
                      rng: np.random.Generator, metric: Metric) -> np.ndarray:
    """Every group's cells drawn (:func:`grouped_replicates`).

    Few pooled cells (confusion counts) and many groups: each group's draws are laid out
    on the pooled cells (zeros where a group has none) and evaluated in one call for all
    groups, not one call per group; checked once against each group's own cells on two
    replicates (a group's metric of its cells must be the pooled cells' metric of the
    same counts), else evaluated per group. The draws are the same either way."""
    g = len(parts)
    width = pooled_cells.size.shape[0]
    batch = max(1, min(n_resamples, _bootstrap.BATCH_BYTES // (8 * 4 * max(width, 1))))
    out = np.empty((n_resamples, g + 1))
    extra = pooled_cells.extra is not None
    stacked = not extra and width <= _STACKED_WIDTH and g >= _STACKED_GROUPS
    key = _bootstrap.draw_key(rng, n_resamples, *(c.size.tobytes() for c in parts)) \
        if stacked else ()
    layouts: list[Any] = []
    with warnings.catch_warnings(), Bar(n_resamples, f"resampling {g} groups' {metric.name}") \
            as work:
        warnings.simplefilter("ignore")
        # the draws of the same cells from the same generator state, kept by the last
        # metric that drew them: the same counts, so the same numbers
        kept = _bootstrap.kept_draws(_LAYOUTS, key, rng) if stacked else None
        for number, start in enumerate(range(0, n_resamples, batch)):
            b = min(batch, n_resamples - start)
            if kept is not None:  # the draws of another metric of the same state
                layout, total = kept[number]
                amounts = None
            else:
                total = np.zeros((b, width))
                amounts = np.zeros((b, width)) if extra else None
                layout = np.zeros((b, g, width)) if stacked else None
                for j, (cells, at) in enumerate(zip(parts, where)):
                    counts = _draw(cells, rng, b)
                    if cells.extra is not None and amounts is not None:
                        drawn = cells.extra[0](counts, rng)
                        out[start:start + b, j] = cells.extra[1](counts, drawn)
                        amounts[:, at] += drawn
                    elif layout is not None:
                        layout[:, j, at] = counts
                    else:
                        out[start:start + b, j] = cells.evaluate(counts)
                    total[:, at] += counts  # a part's cells are distinct pooled cells
            if layout is not None:
                values = in_slices(pooled_cells.evaluate, layout.reshape(b * g, width)
                                    ).reshape(b, g)
                if start == 0 and not _same_values(values, layout, parts, where):
                    stacked = False
                    values = np.column_stack([cells.evaluate(layout[:, j, at]) for j, (cells, at)
                                              in enumerate(zip(parts, where))])
                out[start:start + b, :g] = values
                if kept is None:
                    layouts.append((layout, total))
            out[start:start + b, g] = pooled_cells.extra[1](total, amounts) \
                if pooled_cells.extra is not None else pooled_cells.evaluate(total)
            work.advance(b)
    if stacked and kept is None:
        fits = sum(layout.size for layout, _ in layouts) <= _LAYOUT_VALUES
        _bootstrap.keep_draws(_LAYOUTS, key, layouts if fits else None, rng)
    return out


#: laid-out draws evaluated per call: a formula's temporary arrays of this many rows
#: are reused from the heap (millions at once cost more in fresh pages than in sums)
SLICE_ROWS = 1 << 16


def in_slices(evaluate: Callable[[np.ndarray], np.ndarray], rows: np.ndarray) -> np.ndarray:
    """``evaluate(rows)``, :data:`SLICE_ROWS` rows at a time (the same values)."""
    if rows.shape[0] <= SLICE_ROWS:
        return evaluate(rows)
    return np.concatenate([evaluate(rows[start:start + SLICE_ROWS])
                           for start in range(0, rows.shape[0], SLICE_ROWS)])


#: the last stacked draws (:func:`~dartboard._kernels._bootstrap.kept_draws`), per
#: thread: the metrics of one state (ten count metrics of one confusion table) draw
#: from the same seed, so from the same counts
_LAYOUTS = threading.local()
#: ... kept while they hold at most this many values
_LAYOUT_VALUES = 2 * 10**7


#: pooled cells and groups from which the groups' draws are evaluated in one call
_STACKED_WIDTH = 64
_STACKED_GROUPS = 8
#: groups whose own values are checked against the stacked ones
_CHECKED = 6


def _same_values(values: np.ndarray, layout: np.ndarray, parts: Sequence[Cells],
                 where: Sequence[np.ndarray]) -> bool:
    """Whether the pooled cells' values of the laid-out draws are the groups' own on the
    first two replicates: the groups with the fewest cells (where a group's own cells
    differ most from the pooled ones) and the first and the last."""
    rows = min(2, values.shape[0])
    order = np.argsort([c.size.shape[0] for c in parts], kind="stable")
    some = sorted({*order[:_CHECKED].tolist(), 0, len(parts) - 1})
    own = np.column_stack([parts[j].evaluate(layout[:rows, j, where[j]]) for j in some])
    return bool(np.array_equal(own, values[:rows, some], equal_nan=True))


def _draw(cells: Cells, rng: np.random.Generator, b: int) -> np.ndarray:
    """b multinomial draws of the cells' rows: one exact multinomial; many small cells
    (distinct scores) drawn as picks among their rows, not a binomial per cell."""
    return cells.sampler(rng, cells.size, b) if cells.sampler is not None \
        else _bootstrap.split_multinomial(rng, cells.size, b)


def _value(cells: Cells) -> float:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(cells.evaluate(cells.size[None, :].astype(np.float64))[0])


def _normal_replicates(pooled_cells: Cells, parts: Sequence[Cells],
                       where: Sequence[np.ndarray], n_resamples: int,
                       rng: np.random.Generator, metric: Metric
                       ) -> tuple[np.ndarray, str | None] | None:
    """Normal replicates of the groups of at least :data:`NORMAL_MIN_ROWS` rows, cell
    draws of the others (:func:`grouped_replicates`); None when the influence values
    on all rows are not at hand."""
    overall = _value(pooled_cells)
    phi = cell_influence(pooled_cells, overall) if np.isfinite(overall) else None
    if phi is None:
        return None
    g = len(parts)
    out = np.empty((n_resamples, g + 1))
    moved = np.zeros(n_resamples)  # the value on all rows, less its estimate
    normal = []
    drawn = []
    for j, (cells, at) in enumerate(zip(parts, where)):
        n_g = float(cells.size.sum())
        value = _value(cells) if n_g >= NORMAL_MIN_ROWS else float("nan")
        psi = cell_influence(cells, value) if np.isfinite(value) else None
        if psi is None:
            drawn.append(j)
            continue
        m = cells.size.astype(np.float64)
        f = phi[at]
        s_psi, s_phi = float(vdot(m, psi)), float(vdot(m, f))
        va = max(float(vdot(m, psi * psi)) - s_psi * s_psi / n_g, 0.0)
        vb = max(float(vdot(m, f * f)) - s_phi * s_phi / n_g, 0.0)
        cov = float(vdot(m * psi, f)) - s_psi * s_phi / n_g
        normal.append((j, value, va, vb, cov))
    if normal:
        z = rng.standard_normal((2, n_resamples, len(normal)))
        for i, (j, value, va, vb, cov) in enumerate(normal):
            sa = np.sqrt(va)
            slope = cov / sa if sa > 0 else 0.0
            out[:, j] = value + sa * z[0, :, i]
            moved += slope * z[0, :, i] + np.sqrt(max(vb - slope * slope, 0.0)) * z[1, :, i]
    if drawn:
        width = max(int(parts[j].size.shape[0]) for j in drawn)
        batch = max(1, min(n_resamples, _bootstrap.BATCH_BYTES // (8 * 4 * max(width, 1))))
        with warnings.catch_warnings(), np.errstate(all="ignore"), \
                Bar(n_resamples, f"resampling {len(drawn)} groups' {metric.name}") as work:
            warnings.simplefilter("ignore")
            for start in range(0, n_resamples, batch):
                b = min(batch, n_resamples - start)
                for j in drawn:
                    cells, at = parts[j], where[j]
                    counts = _draw(cells, rng, b)
                    out[start:start + b, j] = cells.evaluate(counts)
                    moved[start:start + b] += (counts - cells.size) @ phi[at]
                work.advance(b)
    out[:, g] = overall + moved
    if not normal:
        return out, None
    return out, (f"{len(normal)} of {g} groups' replicates normal, from their influence "
                 "values")


def proportion_interval(x: float, n: float, level: float, method: str, name: str
                        ) -> tuple[float, float, float]:
    """``(low, high, se)`` of a proportion ``x / n``; the whole [0, 1] when ``n = 0``."""
    if n == 0:
        warnings.warn(f"{name} is undefined here (its denominator is 0); the interval is the "
                      "whole range [0, 1]", IntervalWarning, stacklevel=5)
        return 0.0, 1.0, float("nan")
    low, high = _analytic.proportion_interval(x, n, level, method)
    p = x / n
    return low, high, float(np.sqrt(p * (1 - p) / n))


# ------------------------------------------------------------------------ cell keys

def aggregate(keys: Sequence[np.ndarray], size: np.ndarray, *, runs: bool = False
              ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Cells with equal keys summed: keys sorted lexicographically (the first key
    first), sizes added. The one way every family's cells are formed and merged, so
    any split of the rows gives the same cells in the same order. ``runs``: the rows
    are states' cells one after the other, each already in this order (a merge)."""
    found, sizes, _ = _aggregate(keys, size, runs)
    return found, sizes


def aggregate_placed(keys: Sequence[np.ndarray], size: np.ndarray, *, runs: bool = False,
                     order: np.ndarray | None = None
                     ) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """:func:`aggregate`, and the cell each input row went to (what :func:`place` of
    the rows among the cells gives, without searching). ``order``: a lexicographic
    order of the rows by ``keys`` already found (:func:`orders_within_first`)."""
    found, sizes, (order, new) = _aggregate(keys, size, runs, order)
    where = np.empty(order.shape[0], dtype=np.intp)
    where[order] = np.cumsum(new) - 1
    return found, sizes, where


def _aggregate(keys: Sequence[np.ndarray], size: np.ndarray, runs: bool,
               order: np.ndarray | None = None
               ) -> tuple[tuple[np.ndarray, ...], np.ndarray, tuple[np.ndarray, np.ndarray]]:
    arrays = [np.asarray(k) for k in keys]
    n = arrays[0].shape[0] if arrays else 0
    varying = [i for i, k in enumerate(arrays) if n and not np.all(k == k[0])]
    first = None
    if order is None:
        order, first = _lexicographic([arrays[i] for i in varying], n, runs)
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
    in_order: dict[int, np.ndarray] = {}
    for i in varying:  # a key of one value never starts a cell
        k = first if first is not None and i == varying[0] else arrays[i][order]
        new[1:] |= k[1:] != k[:-1]
        in_order[i] = k
    sizes = np.asarray(size)[order]
    if n and not new.all():  # rows of equal keys: their sizes add up
        at = np.flatnonzero(new)
        sizes = np.add.reduceat(sizes, at)
        # each cell's keys: its first row's, read from the keys in order (the rows
        # of a cell are consecutive there), a key of one value from its rows
        found = tuple(in_order[i][at] if i in in_order else k[order[at]]
                      for i, k in enumerate(arrays))
    else:
        found = tuple(in_order[i] if i in in_order else k[order]
                      for i, k in enumerate(arrays))
    return found, sizes, (order, new)


#: cells from which :func:`aggregate_owned` writes over the arrays handed to it: below,
#: the fresh arrays are small and :func:`aggregate` is as fast
_OWNED_MIN_CELLS = 1 << 16


def aggregate_owned(keys: Sequence[np.ndarray], size: np.ndarray, *, runs: bool = False
                    ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """:func:`aggregate`, bit for bit, of arrays the caller hands over and reads no
    more (the concatenated cells of states being merged): their memory is written over.

    Once the rows are in order the first key is read no more, so the sizes in order
    take its memory; once they are gathered the sizes and the order are read no more,
    so the cells' sizes and the cells' first key take theirs. Merging states of
    millions of cells maps three arrays of their length fewer from the system: fresh
    pages each, whose faults cost more than the arithmetic (and, with huge pages, a
    stall where the kernel compacts memory for them).

    The cells' first key and sizes may be views of longer arrays (by the rows that
    merged)."""
    arrays = [np.asarray(k) for k in keys]
    size = np.asarray(size)
    n = arrays[0].shape[0] if arrays else 0
    varying = [i for i, k in enumerate(arrays) if n and not np.all(k == k[0])]
    owned = n >= _OWNED_MIN_CELLS and varying and varying[0] == 0 and all(
        a.flags.c_contiguous and a.flags.writeable and a.flags.owndata
        and a.dtype.itemsize == np.dtype(np.intp).itemsize for a in (arrays[0], size))
    if not owned:
        return aggregate(keys, size, runs=runs)
    order, first = _lexicographic([arrays[i] for i in varying], n, runs)
    if first is None:  # the first key not sorted on its own: nothing to reuse
        found, sizes, _ = _aggregate(keys, size, runs, order)
        return found, sizes
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(first[1:], first[:-1], out=new[1:])
    in_order = {0: first}
    for i in varying[1:]:
        k = arrays[i][order]
        new[1:] |= k[1:] != k[:-1]
        in_order[i] = k
    # the first key is read no more: its memory takes the sizes in order ("clip":
    # unbuffered; every index is in range)
    sizes = np.take(size, order, out=arrays[0].view(size.dtype), mode="clip")
    if new.all():
        return tuple(in_order[i] if i in in_order else arrays[i][order]
                     for i in range(len(arrays))), sizes
    at = np.flatnonzero(new)
    m = at.shape[0]
    # each cell's keys: its first row's (a key of one value from its rows, read before
    # the order's memory takes the first key's cells)
    rest = [in_order[i][at] if i in in_order else arrays[i][order[at]]
            for i in range(1, len(arrays))]
    head = np.take(first, at, out=order.view(first.dtype)[:m], mode="clip") \
        if first.dtype.itemsize == order.dtype.itemsize else first[at]
    cell_sizes = np.add.reduceat(sizes, at, out=size[:m])
    return (head, *rest), cell_sizes


def counted_runs(values: np.ndarray, stratum: np.ndarray | None
                 ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """``aggregate((stratum, values), ones)``'s cells of unweighted rows (the stratum a
    class code; None: one stratum): the rows put in stratum order (a stable sort of
    small codes), each stratum's values sorted in place (``np.sort``, several times
    faster than the argsort a lexicographic order takes), then counted per distinct
    (stratum, value). Returns (stratum, value, count) of each cell."""
    if stratum is None:
        t = np.sort(values)
        st = None
    else:
        order = np.argsort(stratum, kind="stable")
        st, t = stratum[order], values[order]
        bounds = np.flatnonzero(st[1:] != st[:-1]) + 1
        for a, b in zip(np.concatenate(([0], bounds)), np.concatenate((bounds, [t.shape[0]]))):
            t[a:b].sort()
    if not t.shape[0]:
        return st, t, np.zeros(0, dtype=np.int64)
    last = np.empty(t.shape[0], dtype=bool)
    np.not_equal(t[1:], t[:-1], out=last[:-1])
    if st is not None:
        last[:-1] |= st[1:] != st[:-1]
    last[-1] = True
    ends = np.flatnonzero(last)
    return (None if st is None else st[ends]), t[ends], np.diff(ends, prepend=-1)


#: groups of at most this many rows on average are built in one pass over all rows
#: (:func:`counted_runs_of`); larger ones one at a time, as fast per row, where one sort
#: of all rows costs more than the calls it saves (10 groups of 100,000 rows)
ONE_PASS_MAX_ROWS = 4096


def one_pass(members: Sequence[np.ndarray]) -> bool:
    """Whether the groups ``members`` are built in one pass (:data:`ONE_PASS_MAX_ROWS`)."""
    return bool(members) and sum(len(m) for m in members) <= ONE_PASS_MAX_ROWS * len(members)


def counted_runs_of(values: np.ndarray, stratum: np.ndarray | None,
                    members: Sequence[np.ndarray]
                    ) -> list[tuple[np.ndarray | None, np.ndarray, np.ndarray]]:
    """:func:`counted_runs` of each member's rows (``values[rows]``, ``stratum[rows]``),
    for all members in one pass, equal to it bit for bit: the rows ordered by (member,
    stratum) with one stable sort of small codes (each segment's values in their
    order, as :func:`counted_runs` takes a member's rows), each segment's values sorted
    in place, then counted per distinct (member, stratum, value)."""
    count = len(members)
    rows, owner = member_rows(members)
    t = np.asarray(values)[rows]
    st = None if stratum is None else np.asarray(stratum)[rows]
    if st is None:
        key = owner
    else:
        codes, at = _unique_inverse(st)
        key = owner * codes.shape[0] + at
    order = np.argsort(key, kind="stable")
    key, t = key[order], t[order]
    st = None if st is None else st[order]
    new = np.flatnonzero(key[1:] != key[:-1]) + 1
    for a, b in zip(np.concatenate(([0], new)).tolist(),
                    np.concatenate((new, [t.shape[0]])).tolist()):
        t[a:b].sort()
    last = np.empty(t.shape[0], dtype=bool)
    if t.shape[0]:
        np.not_equal(t[1:], t[:-1], out=last[:-1])
        last[:-1] |= key[1:] != key[:-1]
        last[-1] = True
    ends = np.flatnonzero(last)
    sizes = np.diff(ends, prepend=-1)
    if ends.shape[0] == t.shape[0]:  # every value distinct (a loss's terms): the rows
        t_cells, st_cells, ended = t, st, key  # are the cells, in order already
    else:
        t_cells, st_cells = t[ends], None if st is None else st[ends]
        ended = key[ends]
    cell_owner = ended if st is None else ended // codes.shape[0]
    bounds = np.searchsorted(cell_owner, np.arange(count + 1)).tolist()
    return [(None if st_cells is None else st_cells[a:b].copy(), t_cells[a:b].copy(),
             sizes[a:b].copy()) for a, b in zip(bounds[:-1], bounds[1:])]


def orders_within_first(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """Two lexicographic orders of the rows (as :func:`lexicographic_order` gives), by
    all ``keys`` and by the keys after the first, from one sort: the order by the
    others, then a stable sort of the first as small codes (a cluster's number: the
    clusters' cells and the cells of all their rows pooled, from one sort). None
    where the first key is not small codes."""
    first = np.asarray(keys[0])
    n = first.shape[0]
    code = _small_codes(first) if n else None
    if code is None:
        return None
    rest = lexicographic_order([k for k in (np.asarray(k) for k in keys[1:])
                                if not np.all(k == k[0])], n)
    return rest[np.argsort(code[rest], kind="stable")], rest


def _unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` (the inverse flat): for integers of a
    small range (a class code) from one count instead of a sort of every row."""
    values = np.asarray(values)
    if values.dtype.kind in "biu" and values.ndim == 1 and values.shape[0]:
        low, high = int(values.min()), int(values.max())
        if high - low < _SHORT_CODES:
            shifted = values.astype(np.intp) - low if low or values.dtype.kind == "b" \
                else values
            present = np.flatnonzero(np.bincount(shifted, minlength=high - low + 1))
            lookup = np.empty(high - low + 1, dtype=np.intp)
            lookup[present] = np.arange(present.shape[0])
            return (present + low).astype(values.dtype), lookup[shifted]
    found, at = np.unique(values, return_inverse=True)
    return found, at.reshape(-1)


def lexicographic_order(keys: Sequence[np.ndarray], n: int, runs: bool = False
                        ) -> np.ndarray:
    """An order of ``n`` rows that sorts ``keys`` (none of them of one value)
    lexicographically (:func:`_lexicographic`)."""
    return _lexicographic(keys, n, runs)[0]


def _lexicographic(keys: Sequence[np.ndarray], n: int, runs: bool = False
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """An order of ``n`` rows that sorts ``keys`` (none of them of one value)
    lexicographically, the first key first: ``np.lexsort`` of the reversed keys but in
    any order among rows whose keys are all equal.

    numpy's lexicographic sort merges every key stably; an unstable sort of one float
    key is several times faster, and a stable sort of small integers is a radix sort.
    So when the keys before the last are small integers (a class code, a flag) the
    last is sorted unstably and the others stably in turn; otherwise the first key is
    sorted unstably and the others are read only where it ties. Sorted ``runs`` (the
    cells of two states) are merged by the stable sort instead, in linear time.

    Returns the order and, where the first key was sorted on its own, that key in the
    order (``keys[0][order]``, bit for bit), else None."""
    if not keys:
        return np.arange(n), None
    kind: Literal["stable"] | None = "stable" if runs else None
    small = [_small_codes(k) for k in keys[:-1]]
    if all(code is not None for code in small):
        order = np.argsort(keys[-1], kind=kind)
        for code in reversed(small):
            assert code is not None
            order = order[np.argsort(code[order], kind="stable")]
        return order, None
    if small[0] is not None:
        # a small first key (a cluster's or group's number) before keys that are not:
        # the order of the others, then a stable sort of the codes (a radix sort),
        # where the path below would sort every row again by all keys (they all tie)
        rest = lexicographic_order(keys[1:], n, runs)
        return rest[np.argsort(small[0][rest], kind="stable")], None
    order = np.argsort(keys[0], kind=kind)
    first = keys[0][order]
    equal = first[1:] == first[:-1]
    tied = np.zeros(first.shape[0], dtype=bool)
    tied[1:] |= equal
    tied[:-1] |= equal
    if tied.any():
        at = np.flatnonzero(tied)
        rows = order[at]
        # the runs of the first key among the tied rows: a run starts where a row
        # differs from the one before it (counted over the tied rows only)
        starts = np.ones(at.shape[0], dtype=bool)
        np.logical_not(equal[at[1:] - 1], out=starts[1:])
        rank = np.cumsum(starts, dtype=np.intp)
        rows = rows[np.lexsort((*(k[rows] for k in reversed(keys[1:])), rank))]
        order[at] = rows
        first[at] = keys[0][rows]  # equal values, not always equal bits (-0.0, 0.0)
    return order, first


#: integer keys of fewer values than this are 16-bit codes (tests lower it to reach the
#: 32-bit codes with few rows)
_SHORT_CODES = 2**16


def _small_codes(key: np.ndarray) -> np.ndarray | None:
    """The key as unsigned codes in its order, or None: 16-bit for an integer key of
    fewer than 65,536 values (a flag, a class code); 32-bit for one of fewer values
    than half its rows (a cluster's number: rows share each value, so the ties the
    other path would sort again are most rows)."""
    if key.dtype == bool:
        return key.view(np.uint8)
    if key.dtype.kind not in "iu" or not key.shape[0]:
        return None
    low = key.min()
    spread = int(key.max()) - int(low)
    if spread < _SHORT_CODES:
        return (key - low).astype(np.uint16)
    if spread < 2**32 and 2 * spread < key.shape[0]:
        return (key - low).astype(np.uint32)
    return None


class Members(list):
    """Each cluster's rows (index arrays, as a list), with what every family's pass
    over them reads formed once for all of them: the rows member after member, the
    member of each of those, and the member of each row (:func:`member_rows`,
    :func:`owners`). Read-only: the arrays are shared."""

    def __init__(self, parts: Sequence[np.ndarray], rows: np.ndarray,
                 owner: np.ndarray) -> None:
        super().__init__(parts)
        self.rows, self.owner = rows, owner
        self._by_row: dict[int, np.ndarray] = {}


def member_rows(members: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(the rows of every member, one member after the other; the member of each, as
    int64)."""
    if isinstance(members, Members):
        return members.rows, members.owner
    rows = np.concatenate([np.asarray(m, dtype=np.intp) for m in members]) if members \
        else np.empty(0, dtype=np.intp)
    return rows, np.repeat(np.arange(len(members), dtype=np.int64), [len(m) for m in members])


def owners(members: Sequence[np.ndarray], n_rows: int) -> np.ndarray:
    """(n_rows,) int64: the position in ``members`` of each row's cluster (rows in no
    member are left unset), in one scatter rather than one per cluster."""
    kept = members._by_row.get(n_rows) if isinstance(members, Members) else None
    if kept is not None:
        return kept
    out = np.empty(n_rows, dtype=np.int64)
    if members:
        rows, owner = member_rows(members)
        out[rows] = owner
    if isinstance(members, Members):
        out.flags.writeable = False
        members._by_row[n_rows] = out
    return out


def merged_pool(family: Any, states: Sequence[Any], metric: Metric,
                has_cells: Callable[[Any], bool],
                merge_all: Callable[[Sequence[Any]], Any] | None = None
                ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
    """:meth:`Family.pool` of states that merge by their cell keys (``merge(cap=False)``,
    or ``merge_all`` of all of them at once) and give cells through ``family._cells``;
    None when one of them kept no cells."""
    if not all(has_cells(s) for s in states):
        return None
    pooled, where = pooled_states(states, lambda a, b: a.merge(b, cap=False), merge_all)
    return (family._cells(pooled, metric), [family._cells(s, metric) for s in states],
            where)


#: the last few poolings of states (:func:`pooled_states`), held with their states
_T = TypeVar("_T")

_POOLED: list[tuple[list[Any], Any, list[np.ndarray]]] = []
_POOLED_KEPT = 2


def kept_for_states(cache: threading.local, states: Sequence[Any],
                    build: Callable[[], _T], slots: int = 1) -> _T:
    """``build()`` of ``states``, kept per thread in ``cache`` while the same states come
    again (each the same object, in order): the metrics of one evaluation read the
    same clusters' states in turn. ``slots``: how many lists of states are kept (the
    last used first: a gap reads each group's clusters and all of them, metric after
    metric). The states are held, so their ids are not reused; what is kept should be
    read-only."""
    kept: list[tuple[list[Any], Any]] = getattr(cache, "kept", None) or []
    for i, (held, found) in enumerate(kept):
        if len(held) == len(states) and all(a is b for a, b in zip(held, states)):
            if i:
                kept.insert(0, kept.pop(i))
            return found
    found = build()
    cache.kept = [(list(states), found), *kept[:slots - 1]]
    return found


def kept_matrix(matrices: dict[Any, Any], entries: tuple[np.ndarray, np.ndarray, np.ndarray],
                shape: tuple[int, int], at: np.ndarray | None, n_clusters: int | None
                ) -> Any:
    """The ``(clusters, cells)`` sparse matrix of the clusters' ``entries`` (each
    one's state, cell and rows; ``shape``: states by cells), its rows placed at ``at``
    among ``n_clusters`` (None: a row per state), kept in ``matrices`` (a family's
    room beside the states it was formed from, :func:`kept_for_states`): every metric
    of a state then hands the bootstrap of clusters the same matrix object, whose
    products with the drawn clusters are kept (``_kernels._clustered``)."""
    from scipy import sparse

    key = (None if at is None else id(at), n_clusters)
    found = matrices.get(key)
    if found is None or found[0] is not at:
        state, cell, rows = entries
        matrix = sparse.csr_matrix(
            (rows, (state if at is None else np.asarray(at)[state], cell)),
            shape=(shape[0] if n_clusters is None else n_clusters, shape[1]))
        found = matrices[key] = (at, matrix)  # ``at`` held: its id is not reused
    return found[1]


def keep_for_states(cache: threading.local, states: Sequence[Any], found: Any,
                    slots: int = 1) -> None:
    """Keep ``found`` in ``cache`` as :func:`kept_for_states` would have built it for
    ``states`` (a state's family formed it while building them, from the same sort)."""
    kept: list[tuple[list[Any], Any]] = getattr(cache, "kept", None) or []
    cache.kept = [(list(states), found), *kept[:slots - 1]]


def pooled_states(states: Sequence[Any], merge: Callable[[Any, Any], Any],
                  merge_all: Callable[[Sequence[Any]], Any] | None = None
                  ) -> tuple[Any, list[np.ndarray]]:
    """The states merged (``merge_all`` of all at once, else :func:`tree_merge`) and
    where each one's cells lie among the merged cells (:func:`place_parts`). The
    metrics of one state (ROC AUC, AP and the PR area of the same scores) pool the same
    states: the last few poolings are kept, found by the states' identity (they are
    held here, so an id is not reused)."""
    for kept, pooled, where in _POOLED:
        if len(kept) == len(states) and all(a is b for a, b in zip(kept, states)):
            return pooled, where
    pooled = merge_all(states) if merge_all is not None and len(states) > 1 \
        else tree_merge(states, merge)
    where = place_parts([s.keys for s in states], pooled.keys)
    _POOLED.insert(0, (list(states), pooled, where))
    del _POOLED[_POOLED_KEPT:]
    return pooled, where


def tree_merge(states: Sequence[Any], merge: Callable[[Any, Any], Any]) -> Any:
    """The states merged pairwise in a balanced tree: O(total log parts) for states
    that grow (thousands of clusters' cells), where merging one by one is quadratic.
    Cell-keyed states give the same cells in either order (:func:`aggregate`)."""
    level = list(states)
    while len(level) > 1:
        level = [merge(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0]


def place_parts(parts: Sequence[Sequence[np.ndarray]], pooled: Sequence[np.ndarray]
                ) -> list[np.ndarray]:
    """:func:`place` of several parts at once (one search over their concatenation)."""
    sizes = [int(np.shape(p[0])[0]) for p in parts]
    found = place([np.concatenate([np.asarray(p[j]) for p in parts])
                   for j in range(len(pooled))], pooled)
    return np.split(found, np.cumsum(sizes)[:-1])


def place(part: Sequence[np.ndarray], pooled: Sequence[np.ndarray]) -> np.ndarray:
    """Positions of ``part``'s cells among ``pooled``'s (both sorted by
    :func:`aggregate`, ``part``'s keys a subset).

    The first key is searched on its own (a sorted numeric array); among pooled cells
    of an equal first key, which :func:`aggregate` orders by the other keys, a cell
    whose other keys differ moves on one place at a time (a score held by a positive
    and a negative cell: one step). Keys of other kinds: a search of records."""
    keys = [np.asarray(k) for k in pooled]
    wanted = [np.asarray(k) for k in part]
    if not keys or any(k.dtype.kind not in "biuf" for k in keys) or \
            (keys[0].dtype.kind == "f" and np.isnan(keys[0]).any()):
        records = np.rec.fromarrays(keys)
        return np.searchsorted(records, np.rec.fromarrays(wanted))
    if len(keys) > 1 and keys[0].dtype.kind in "biu":
        values = np.unique(wanted[0])
        if values.shape[0] <= _PLACE_BLOCKS:
            # a first key of few values (a class code): each of its blocks of pooled
            # cells is sorted by the other keys, searched on its own
            out = np.empty(wanted[0].shape[0], dtype=np.intp)
            for v in values:
                lo = int(np.searchsorted(keys[0], v, "left"))
                hi = int(np.searchsorted(keys[0], v, "right"))
                rows = np.flatnonzero(wanted[0] == v)
                out[rows] = lo + place([w[rows] for w in wanted[1:]],
                                       [k[lo:hi] for k in keys[1:]])
            return out
    at = np.searchsorted(keys[0], wanted[0], "left")
    last = keys[0].shape[0] - 1
    todo = np.arange(at.shape[0])
    for _ in range(_PLACE_STEPS):
        here = np.minimum(at[todo], last)
        same = np.ones(todo.shape[0], dtype=bool)
        for k, w in zip(keys[1:], wanted[1:]):
            same &= k[here] == w[todo]
        todo = todo[~same]
        if todo.size == 0:
            return at
        at[todo] += 1
    records = np.rec.fromarrays(keys)  # many cells share a first key: search them all
    return np.searchsorted(records, np.rec.fromarrays(wanted))


#: steps :func:`place` takes among cells of an equal first key before a search of records
_PLACE_STEPS = 8
#: a first key of at most this many values is searched block by block
_PLACE_BLOCKS = 64


