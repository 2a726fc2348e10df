"""Bundles: the family states of an evaluation's rows, overall and per group.

The one evaluation path. Rows in memory are one batch; Parquet record batches and
Dask partitions are many. Each batch becomes a :class:`Bundle` -- one state per
family state key (all count metrics share the confusion counts; each mean of
per-sample terms has its own), and one bundle per group key when the evaluation has
groups -- and bundles merge. :mod:`dartboard.evaluation._finalize` turns the merged
bundle into rows, intervals and gaps. Because a state is the same however the rows
were split, in-memory and streamed evaluations of the same rows give the same
numbers for the same seed.

Rows in clusters (``clusters=``, a streamed ``cluster`` column) add one set of states
per cluster to each bundle (all rows' and each group's), keyed by the raw cluster id,
so that rows of one cluster in different batches merge; the clustered intervals come
from those states (:mod:`dartboard.evaluation._clusters`). Their memory is one state
per (group, cluster): O(clusters x cells), not O(rows).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from dartboard._progress import track
from dartboard.families import Batch, Family, Metric, family_of
from dartboard.families._base import Members

__all__ = ["Bundle", "MergeStack", "Planned", "build_bundle", "merge_bundles", "plan_metrics"]


@dataclasses.dataclass(frozen=True)
class Planned:
    """A metric of the evaluation as its family computes it: its row label, the metric
    (spec and keywords), the family and the key of the state it reads. ``family`` is
    None for a generic metric (a user's callable, or keywords no family covers): in
    memory it resamples rows; it does not stream."""

    label: str
    metric: Metric | None
    family: Family | None
    key: str | None

    @property
    def computed(self) -> tuple[Family, Metric, str]:
        """(family, metric, state key) of a metric a family computes."""
        assert self.family is not None and self.metric is not None and self.key is not None
        return self.family, self.metric, self.key


def plan_metrics(rows: Sequence[tuple[str, Any, dict[str, Any]]], batch: Batch | None = None
                 ) -> tuple[Planned, ...]:
    """The families of ``(label, spec, keywords)`` rows (``batch``: rows of these
    shapes must be the family's)."""
    out = []
    for label, spec, kwargs in rows:
        family = family_of(spec)
        metric = None if spec is None else Metric(spec, dict(kwargs))
        if metric is None or (family is not None and (not family.supports(metric) or (
                batch is not None and not family.takes(batch.y_true, batch.of(metric),
                                                       metric)))):
            family = None
        out.append(Planned(label, metric, family,
                           None if family is None or metric is None
                           else family.state_key(metric)))
    return tuple(out)


@dataclasses.dataclass
class Bundle:
    """The states of some rows: ``states`` by state key, ``groups`` by group key.

    Attributes
    ----------
    n_rows : int
    states : dict
        State key -> the family's state.
    groups : dict or None
        Group key (a tuple of the group columns' values) -> the group's bundle.
    """

    n_rows: int = 0
    states: dict[str, Any] = dataclasses.field(default_factory=dict)
    groups: dict[tuple[Any, ...], Bundle] | None = None
    #: the labels of ``y_true`` seen (a streamed classification decides its task and
    #: checks its positive class from them)
    labels: frozenset[Any] = frozenset()
    #: whether some row has a nonzero weight (always, unweighted)
    weighted_rows: bool = False
    #: rows in clusters: cluster id -> the states of this bundle's rows of the cluster
    clusters: dict[Any, dict[str, Any]] | None = None

    def merge(self, other: Bundle, planned: Sequence[Planned]) -> Bundle:
        """Both bundles' rows (neither changes)."""
        families = {p.computed[2]: p.computed[0] for p in planned if p.family is not None}
        states = _merged(self.states, other.states, families)
        clusters = None
        if self.clusters is not None or other.clusters is not None:
            clusters = _merged_clusters(self.clusters or {}, other.clusters or {}, families)
        groups = None
        if self.groups is not None or other.groups is not None:
            groups = dict(self.groups or {})
            for group, bundle in (other.groups or {}).items():
                groups[group] = groups[group].merge(bundle, planned) if group in groups \
                    else bundle
        return Bundle(self.n_rows + other.n_rows, states, groups, self.labels | other.labels,
                      self.weighted_rows or other.weighted_rows, clusters)


def merge_bundles(bundles: Sequence[Bundle], planned: Sequence[Planned]) -> Bundle:
    """All ``bundles`` (at least one) as one, equal to merging them in turn: each state
    key's states (and each group's bundles) merged at once
    (:meth:`~dartboard.families.Family.merge_all`)."""
    if len(bundles) == 1:
        return bundles[0]
    families = {p.computed[2]: p.computed[0] for p in planned if p.family is not None}
    found: dict[str, list[Any]] = {}
    parts: dict[Any, list[Bundle]] = {}
    clusters = None
    for bundle in bundles:
        for key, state in bundle.states.items():
            found.setdefault(key, []).append(state)
        for group, part in (bundle.groups or {}).items():
            parts.setdefault(group, []).append(part)
        if bundle.clusters is not None:  # the clusters two batches share, pair by pair
            clusters = bundle.clusters if clusters is None \
                else _merged_clusters(clusters, bundle.clusters, families)
    states = {key: families[key].merge_all(both) for key, both in found.items()}
    groups = None
    if any(b.groups is not None for b in bundles):
        groups = {group: merge_bundles(both, planned) for group, both in parts.items()}
    return Bundle(sum(b.n_rows for b in bundles), states, groups,
                  frozenset().union(*(b.labels for b in bundles)),
                  any(b.weighted_rows for b in bundles), clusters)


def _merged(a: dict[str, Any], b: dict[str, Any], families: dict[str, Family]
            ) -> dict[str, Any]:
    out = dict(a)
    for key, state in b.items():
        out[key] = families[key].merge(out[key], state) if key in out else state
    return out


def _merged_clusters(a: dict[Any, dict[str, Any]], b: dict[Any, dict[str, Any]],
                     families: dict[str, Family]) -> dict[Any, dict[str, Any]]:
    """The clusters of both bundles; the states of a cluster in both merge, each state
    key's pairs at once (:meth:`~dartboard.families.Family.merge_many`)."""
    out = {**a, **{c: states for c, states in b.items() if c not in a}}
    pairs: dict[str, list[tuple[Any, Any]]] = {}
    shared: dict[str, list[Any]] = {}
    for c in (c for c in b if c in a):
        out[c] = {**a[c], **b[c]}
        for key in a[c].keys() & b[c].keys():
            pairs.setdefault(key, []).append((a[c][key], b[c][key]))
            shared.setdefault(key, []).append(c)
    for key, both in pairs.items():
        for c, state in zip(shared[key], families[key].merge_many(both)):
            out[c][key] = state
    return out


def _states(batch: Batch, planned: Sequence[Planned]) -> dict[str, Any]:
    states: dict[str, Any] = {}
    for p in planned:
        if p.family is not None and p.key not in states:
            family, metric, key = p.computed
            states[key] = family.build(batch, metric)
    return states


def build_bundle(batch: Batch, planned: Sequence[Planned], groups: Any = None,
                 clusters: np.ndarray | None = None, shown: bool = False) -> Bundle:
    """The bundle of one batch; ``groups`` a :class:`GroupIndex` of its rows,
    ``clusters`` each row's cluster id (checked: no missing id). ``shown``: the
    clusters' states get a progress bar (all rows in one batch, in memory; a stream's
    batches are shown by their source)."""
    n = int(np.shape(batch.y_true)[0])
    coded = None if clusters is None else _ClusterCodes(clusters)
    bundle = Bundle(n, _states(batch, planned),
                    weighted_rows=n > 0 and (batch.weight is None or bool(np.any(batch.weight))),
                    clusters=None if coded is None else _cluster_states(
                        batch, planned, coded, coded.codes, shown))
    if groups is not None:
        members = groups.members()
        by_key = _group_states(batch, planned, members)
        bundle.groups = {}
        for g, rows in enumerate(members):
            bundle.groups[groups.keys[g]] = Bundle(
                int(rows.shape[0]), {key: states[g] for key, states in by_key.items()},
                clusters=None if coded is None else _cluster_states(
                    batch.parts(members)[g], planned, coded, coded.codes[rows], shown))
    return bundle


class _ClusterCodes:
    """The clusters of a batch's rows, coded once for the batch and all its groups:
    each row's code among the sorted distinct ids, and the ids as dictionary keys
    (numpy scalars as Python values, so that the ids of two batches meet)."""

    def __init__(self, ids: np.ndarray) -> None:
        values, codes = np.unique(ids, return_inverse=True)
        self.codes = codes.reshape(-1)
        self.keys = [v.item() if isinstance(v, np.generic) else v for v in values]


def _group_states(batch: Batch, planned: Sequence[Planned], members: Sequence[np.ndarray]
                  ) -> dict[str, list[Any]]:
    """Each state key's states of every group (:meth:`Family.build_groups`: a family
    builds all groups' states in one pass where it can)."""
    out: dict[str, list[Any]] = {}
    for p in planned:
        if p.family is not None and p.key not in out:
            family, metric, key = p.computed
            out[key] = family.build_groups(batch, metric, members)
    return out


def _cluster_states(batch: Batch, planned: Sequence[Planned], coded: _ClusterCodes,
                    codes: np.ndarray, shown: bool = False) -> dict[Any, dict[str, Any]]:
    """The states of each cluster's rows (``codes``: each row's among ``coded``), by
    raw id, in the order of the ids."""
    small = codes.astype(np.uint16) if len(coded.keys) <= 2**16 else codes
    order = np.argsort(small, kind="stable")  # 16-bit codes: a radix sort
    count = np.bincount(codes, minlength=len(coded.keys))
    held = np.flatnonzero(count)
    sizes = count[held]
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    members = Members([order[bounds[j]:bounds[j + 1]] for j in range(held.shape[0])], order,
                      np.repeat(np.arange(held.shape[0], dtype=np.int64), sizes))
    with _no_collection():  # a few small objects per cluster, by the hundred thousand
        keys = coded.keys
        out: dict[Any, dict[str, Any]] = {keys[c]: {} for c in held.tolist()}
        built = set()
        for p in track(planned, "the states of each cluster") if shown else planned:
            if p.family is None or p.key in built:
                continue
            family, metric, key = p.computed
            built.add(key)
            for states, state in zip(out.values(),
                                     family.build_clusters(batch, metric, members)):
                states[key] = state
    return out


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused while many objects are made that hold
    no cycles (each cluster's states): its passes over every live object, triggered by
    the allocations themselves, cost a third of building 100,000 clusters' states."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


class MergeStack:
    """Merge many bundles while they arrive.

    Folding bundles one by one into an accumulator costs O(size of the accumulator)
    per batch, quadratic overall for states that grow (the exact map of distinct
    scores). For those, up to :attr:`AT_ONCE` bundles wait and merge in one pass
    (:func:`merge_bundles`), and their merges meet in a balanced tree (a binary
    counter), O(total log(batches / AT_ONCE)). Bundles whose every state is bounded
    (counts, bins, capped cells) fold into one accumulator instead: waiting or the
    tree would hold many of them at once, and their memory would grow with the rows.
    """

    #: bundles of growing states merged in one pass: a merge of 16 sorted runs at
    #: once, against four passes over growing cells two at a time
    AT_ONCE = 16

    def __init__(self, planned: Sequence[Planned]) -> None:
        self._planned = planned
        self._families = {p.computed[2]: p.computed[0] for p in planned
                          if p.family is not None}
        self._stack: list[tuple[int, Bundle]] = []
        self._waiting: list[Bundle] = []
        self._folded: Bundle | None = None

    def _bounded(self, bundle: Bundle) -> bool:
        return all(self._families[key].bounded(state)
                   for key, state in bundle.states.items()) and \
            all(self._bounded(group) for group in (bundle.groups or {}).values())

    def push(self, bundle: Bundle) -> None:
        if self._bounded(bundle):
            self._folded = bundle if self._folded is None \
                else self._folded.merge(bundle, self._planned)
            return
        self._waiting.append(bundle)
        if len(self._waiting) < self.AT_ONCE:
            return
        bundle = merge_bundles(self._waiting, self._planned)
        self._waiting = []
        rank = 0
        while self._stack and self._stack[-1][0] == rank:
            _, top = self._stack.pop()
            bundle = top.merge(bundle, self._planned)
            rank += 1
        self._stack.append((rank, bundle))

    def result(self) -> Bundle:
        parts = [bundle for _, bundle in self._stack] + self._waiting
        if self._folded is not None:
            parts.insert(0, self._folded)
        return merge_bundles(parts, self._planned) if parts else Bundle()
