"""The gaps between groups of an :class:`~dartboard.evaluation.Evaluation`: the
grouped bootstrap's replicates (:class:`_Gaps`) and the rows of ``difference()``,
``ratio()``, ``fairness()`` and ``pairwise()``.

Every gap is between two different groups (or a group and the overall value) and
says which of them is higher and, from the registry's ``greater_is_better``, which
is better; a tie names no higher group. Its estimate is fairlearn's (max - min,
min / max, the largest ``|group - overall|``...), with every group whose metric has
a value, its interval from the grouped bootstrap:

- one gap to choose from (two groups, one metric): the interval of that difference,
  Newcombe's hybrid score interval (1998, method 10) from the two groups' Wilson
  intervals for a proportion of whole counts (the percentile bootstrap covered 88%
  at 50 samples per group), else the percentile interval of the replicates'
  difference (or ratio);
- several (more than two groups, or equalized odds' two rates): the selection-aware
  interval of the largest one (:mod:`._simultaneous`), which holds for the true
  largest gap although the pair was picked by looking. The interval of the picked
  pair "as if named in advance" excluded 0 in 19-26% of data sets of four groups of
  equal accuracy (``benchmarks/group_gap_coverage.py``).

``pairwise()`` gives every pair with intervals that hold for all pairs at once
(max-T), or, with ``simultaneous=False``, each pair's own interval, valid only for
a pair named before looking at the data.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from dartboard._rng import check_random_state, child
from dartboard.evaluation._engine import Plan, _label_codes
from dartboard.evaluation._groups import (
    count_group_replicates,
    count_types,
    generic_group_replicates,
    row_count_replicates,
)
from dartboard.evaluation._simultaneous import (
    combine,
    contrasts,
    largest,
    simultaneous,
    unusable_reason,
)

__all__ = ["GAP_COLUMNS", "PAIR_COLUMNS", "gap_row", "pair_rows"]

GAP_COLUMNS = ["estimate", "low", "high", "method", "groups", "higher", "better"]
PAIR_COLUMNS = ["estimate", "low", "high", "method", "higher", "better"]
_PERCENTILE = "percentile (grouped bootstrap)"
_NEWCOMBE = "newcombe (Wilson scores)"


@dataclasses.dataclass
class _Gaps:
    """What the grouped bootstrap of the gaps needs, and its replicates once drawn.

    ``types`` holds each group's rows grouped by (confusion cell, weight), enough
    for every count metric; ``plan`` the rows themselves for other metrics (None
    when the evaluation was streamed: then only the count metrics' gaps have
    intervals, and ``no_interval`` says why there are none at all). ``chosen`` are
    the evaluation's metric rows. Replicates are drawn on first use and kept.
    """

    seed: np.random.SeedSequence
    n_resamples: int
    confidence_level: float
    classes: np.ndarray | None
    positive: Any
    types: list[Any] | None
    plan: Plan | None = None
    chosen: tuple[Any, ...] = ()
    no_interval: str | None = None
    _drawn: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    _proportions: dict[str, np.ndarray | None] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_plan(cls, plan: Plan, seed: np.random.SeedSequence) -> _Gaps | None:
        if plan.groups is None:
            return None
        types = classes = None
        if plan.labelled is not None:
            t, p, classes = _label_codes(plan)
            types = count_types(t, p, classes.shape[0], plan.weights, plan.groups)
        return cls(seed, plan.opts.n_resamples, plan.opts.confidence_level, classes,
                   plan.positive, types, plan, plan.chosen)

    @classmethod
    def from_counts(cls, matrices: list[np.ndarray] | None, classes: np.ndarray | None,
                    positive: Any, chosen: tuple[Any, ...], seed: np.random.SeedSequence,
                    n_resamples: int, confidence_level: float | None) -> _Gaps:
        """The gaps of a streamed evaluation, from each group's (K, K) confusion matrix
        over ``classes`` (None without predicted labels).

        A matrix of whole counts is drawn exactly as the rows it counts
        (:meth:`CountGroups.from_matrix` equals the groups of those rows), so the
        same seed gives the in-memory gaps' replicates; integer weights count as
        repeated rows. Fractional weights are not counts: estimates only.
        """
        from dartboard.uncertainty._bootstrap import CountGroups

        why = None if confidence_level is not None else "no confidence_level"
        types = None
        if matrices is not None:
            whole = all(np.all(m == np.round(m)) for m in matrices)
            if whole:
                types = [CountGroups.from_matrix(m) for m in matrices]
            else:
                why = why or "sample_weight has non-integer values"
                # one type per cell holding its weighted sum: the exact matrices, no draws
                types = [CountGroups(m.shape[0], np.flatnonzero(m.ravel()),
                                     m.ravel()[np.flatnonzero(m.ravel())].astype(float),
                                     np.ones(np.count_nonzero(m), dtype=np.int64))
                         for m in matrices]
        return cls(seed, n_resamples, float("nan") if confidence_level is None
                   else confidence_level, classes, positive, types, None, chosen, why)

    def gap_interval_refused(self, key: str) -> str | None:
        """Why the gaps of ``key`` get no interval here (None: they do)."""
        if self.no_interval is not None:
            return self.no_interval
        if self.plan is None and key not in (self._count_keys(self.chosen)
                                             if self.types is not None else {}):
            return "streamed: only count metrics have gap intervals"
        return None

    def greater_is_better(self, key: str) -> bool | None:
        """The registry's direction of the metric ``key``; None for a callable of
        one's own and for the selection rate (being selected is a benefit or a burden
        depending on what is predicted)."""
        from dartboard.metrics._registry import get_spec

        if key.startswith("__"):
            spec = get_spec(self._count_keys(self.chosen)[key][0])
            return None if spec.rate == "selection" else spec.greater_is_better
        spec = next((c.spec for c in self.chosen if c.label == key), None)
        return None if spec is None else spec.greater_is_better

    # ---------------------------------------------------------------- counts

    def _count_keys(self, chosen: Any) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every count metric the gaps may need: the rows' and the fairness rates."""
        keys = {c.label: (c.spec.name, c.kwargs) for c in chosen
                if c.spec is not None and c.spec.interval_fast == "counts" and c.spec.scalar}
        if self.positive is not None:
            from dartboard.metrics._registry import specs

            for spec in specs(family="count"):
                if spec.rate is not None:
                    keys.setdefault(f"__{spec.rate}", (spec.name, {"pos_label": self.positive}))
        return keys

    def observed_counts(self, key: str, chosen: Any) -> np.ndarray:
        """(G + 1,) values of a count metric on each group's matrix and the pooled one."""
        from dartboard.metrics._batched import batch_count_metric

        name, kwargs = self._count_keys(chosen)[key]
        mats = np.stack([t.matrices(t.size[None, :].astype(float))[0] for t in self.types])
        mats = np.concatenate([mats, mats.sum(axis=0, keepdims=True)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # the metric's own value where it is undefined (zero_division), as the rows
            # and fairlearn have it; replicates on which it is undefined are left out
            return batch_count_metric(name, self.classes, mats, kwargs)

    def proportions(self, key: str, chosen: Any) -> np.ndarray | None:
        """(G, 2) successes and trials of each group when ``key`` is a binomial
        proportion of whole counts (accuracy, a binary recall...); else None."""
        if key not in self._proportions:
            self._proportions[key] = self._count_proportions(key, chosen)
        return self._proportions[key]

    def _count_proportions(self, key: str, chosen: Any) -> np.ndarray | None:
        from dartboard.metrics._registry import get_spec
        from dartboard.uncertainty._analytic import proportion_counts

        keys = self._count_keys(chosen) if self.types is not None else {}
        if key not in keys:
            return None
        name, kwargs = keys[key]
        spec = get_spec(name)
        if spec.proportion is None or kwargs.get("average", "binary") != "binary":
            return None
        if any(not np.all(np.mod(t.weight, 1) == 0) for t in self.types):
            return None  # fractional weights: not a count of successes
        pos_index = None
        if "pos_label" in kwargs:
            found = np.flatnonzero(self.classes == kwargs["pos_label"])
            pos_index = int(found[0]) if found.size else -1
        elif spec.pos_label:
            return None
        mats = [t.matrices(t.size[None, :].astype(float))[0] for t in self.types]
        return np.array([proportion_counts(spec.proportion, m, pos_index) for m in mats])

    def replicates(self, key: str, chosen: Any) -> np.ndarray:
        """(R, G + 1) replicate values of the metric ``key`` (a row label)."""
        if key in self._drawn:
            return self._drawn[key]
        counted = self._count_keys(chosen) if self.types is not None else {}
        if key in counted:
            self._draw_counts(counted)
        else:
            self._draw_generic(key, chosen)
        return self._drawn[key]

    def _draw_counts(self, counted: dict[str, tuple[str, dict[str, Any]]]) -> None:
        from dartboard.metrics._batched import batch_count_metric

        def evaluate(mats: np.ndarray) -> dict[str, np.ndarray]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return {key: batch_count_metric(name, self.classes, mats, kw, undefined="nan")
                        for key, (name, kw) in counted.items()}

        rng = check_random_state(child(self.seed, 0))
        self._drawn.update(count_group_replicates(evaluate, self.types, self.n_resamples,
                                                  False, rng))

    def _draw_generic(self, key: str, chosen: Any) -> None:
        if self.plan is None:
            raise ValueError(f"the gaps of {key} need the rows; a streamed evaluation keeps "
                             "the confusion counts of each group only, which give the gaps "
                             "of count metrics")
        position = [c.label for c in chosen].index(key)
        c = chosen[position]
        plan = self.plan
        other = plan.inputs[c.input]
        other = -other if c.negate else other
        w = plan.weights
        rng = check_random_state(child(self.seed, 1 + position))
        weighted = _weighted_statistic(c, plan.y_true, other, w, plan.groups)
        if weighted is not None:
            self._drawn[key] = row_count_replicates(weighted, plan.groups, self.n_resamples,
                                                    rng)
            return

        def statistic(rows: np.ndarray) -> float:
            kw = dict(c.kwargs)
            if w is not None:
                kw["sample_weight"] = w[rows]
            return float(c.function(plan.y_true[rows], other[rows], **kw))

        self._drawn[key] = generic_group_replicates(statistic, plan.groups, self.n_resamples,
                                                    rng, key)


def _weighted_statistic(c: Any, y_true: np.ndarray, other: np.ndarray, w: np.ndarray | None,
                        index: Any) -> Any:
    """``f(counts (b, n)) -> (b, G + 1)`` for a metric that takes per-row draw counts as
    weights: binary ROC AUC / average precision on one sort per group (the registry's
    ``interval_fast``), or a mean of per-sample losses (``loss_terms``); else None."""
    import importlib

    spec = c.spec
    if spec is None or other.ndim != 1:
        return None
    if spec.interval_fast in ("roc", "ap") and set(c.kwargs) <= {"pos_label"}:
        from dartboard.uncertainty._bootstrap import RankedScores
        from dartboard.uncertainty._interval import _binary_scores

        pos_label = c.kwargs.get("pos_label", 1) if spec.pos_label else None
        positive, scores = _binary_scores(y_true, other, pos_label)
        parts = [*index.members(), np.arange(y_true.shape[0])]
        ranked = []
        for rows in parts:
            order = rows[np.argsort(-scores[rows], kind="stable")]
            lab = positive[order]
            perm = np.concatenate([order[lab], order[~lab]])
            ranked.append((RankedScores.build(positive[rows], scores[rows],
                                              None if w is None else w[rows]), perm))
        stat = {"roc": RankedScores.auc, "ap": RankedScores.average_precision}[
            spec.interval_fast]

        def ranking(counts: np.ndarray) -> np.ndarray:
            out = np.empty((counts.shape[0], len(ranked)))
            for j, (rs, perm) in enumerate(ranked):
                if spec.interval_fast == "roc":  # a batch of replicates in one pass
                    out[:, j] = rs.auc_rows(counts[:, perm])
                    continue
                for r in range(counts.shape[0]):
                    out[r, j] = stat(rs, counts[r, perm])
            return out

        return ranking
    if spec.loss_terms is not None and set(c.kwargs) <= set(spec.loss_terms[1]):
        terms = getattr(importlib.import_module(spec.module), spec.loss_terms[0])
        losses, weights = terms(y_true, other, sample_weight=w, **c.kwargs)
        weights = np.ones_like(losses) if weights is None else weights.astype(np.float64)
        onehot = np.zeros((y_true.shape[0], index.n_groups + 1))
        onehot[np.arange(y_true.shape[0]), index.codes] = 1.0
        onehot[:, -1] = 1.0

        def mean_loss(counts: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return ((counts * (weights * losses)) @ onehot) / ((counts * weights) @ onehot)

        return mean_loss
    return None


# ------------------------------------------------------------------ the rows

@dataclasses.dataclass(frozen=True)
class _Metric:
    """One metric's values and replicates as the gaps need them."""

    label: str
    values: np.ndarray        # (G + 1,): the groups, then overall
    replicates: np.ndarray    # (R, G + 1)
    greater_is_better: bool | None
    refused: str | None       # why there is no interval


def _metric(ev: Any, label: str) -> _Metric:
    gaps = ev._gaps
    chosen = gaps.chosen
    if label.startswith("__"):
        if gaps.types is None:
            raise ValueError("the fairness summaries compare rates of predicted labels; "
                             "this evaluation has scores only (give y_pred or proba)")
        values = gaps.observed_counts(label, chosen)
    else:
        overall = dict(zip(ev.metrics, (r.estimate for r in ev.result.metrics)))
        values = np.append(ev._group_values(label), overall[label])
    refused = gaps.gap_interval_refused(label)
    reps = np.full((1, values.shape[0]), np.nan) if refused is not None \
        else gaps.replicates(label, chosen)
    return _Metric(label, values, reps, gaps.greater_is_better(label), refused)


def _sizes(ev: Any) -> np.ndarray:
    """Rows per group (the ``n`` of the per-group rows)."""
    first = ev.metrics[0]
    return ev.by_group.xs(first, level="metric")["n"].to_numpy(dtype=float)


def _names(ev: Any, g_count: int) -> list[str]:
    return [*ev._group_labels(), "overall"][:g_count + 1]


def gap_row(ev: Any, labels: list[str], kind: str, method: str) -> dict[str, Any]:
    """The row of the largest gap (``kind`` "difference" or "ratio", ``method``
    "between_groups" or "to_overall") over the metrics ``labels`` (several: the
    largest of their gaps, as equalized odds takes), with ``metric``: the label whose
    gap it is."""
    metrics = [_metric(ev, label) for label in labels]
    sizes = _sizes(ev)
    g_count = sizes.shape[0]
    defined = [int(np.isfinite(m.values[:g_count]).sum()) for m in metrics]
    if max(defined) == 0:
        return _undefined("undefined in every group")
    if method == "between_groups" and max(defined) < 2:
        return _undefined("defined in fewer than two groups")
    log = kind == "ratio"
    if log and any(np.any(m.values[np.isfinite(m.values)] <= 0) for m in metrics):
        return _nonpositive_ratio(ev, metrics, method, sizes)
    parts = [contrasts(m.values, m.replicates, sizes, method, log=log) for m in metrics]
    family = combine(parts)
    k = int(np.argmax(family.estimate))
    part = int(np.searchsorted(np.cumsum([p.estimate.shape[0] for p in parts]), k,
                               side="right"))
    m, offset = metrics[part], sum(p.deviations.shape[1] for p in parts[:part])
    a, b = int(family.plus[k]) - offset, int(family.minus[k]) - offset
    d = float(family.estimate[k])
    row = _describe(ev, m, a, b, d > 0, method)
    row["estimate"] = float(np.exp(-d)) if log else d
    refused = next((x.refused for x in metrics if x.refused is not None), None)
    if refused is not None:
        return {**row, "low": np.nan, "high": np.nan, "method": f"n/a ({refused})"}
    gaps = sum(_candidates(n, method, g_count) for n in defined)
    if gaps <= 1:
        low, high, how = _pair_interval(ev, m, a, b, kind)
    else:
        found = largest(family, ev._gaps.confidence_level)
        low, high = found.low, found.high
        if log:
            low, high = float(np.exp(-found.high)), float(np.exp(-found.low))
        how = (f"n/a ({found.why})" if found.why else
               f"max-T, selection-aware ({gaps} {_unit(method)})")
    return {**row, "low": low, "high": high, "method": how}


def _candidates(defined: int, method: str, g_count: int) -> int:
    """How many gaps the largest is chosen from."""
    if method == "between_groups":
        return defined * (defined - 1) // 2
    return defined if g_count > 2 else min(defined, 1)


def _unit(method: str) -> str:
    return "pairs" if method == "between_groups" else "group-overall gaps"


def _describe(ev: Any, m: _Metric, a: int, b: int, ordered: bool, method: str
              ) -> dict[str, Any]:
    """``groups`` ("a vs b", the group first; a higher when ``ordered``), ``higher``
    and ``better`` (None for a tie, or a metric without a direction)."""
    g_count = m.values.shape[0] - 1
    names = _names(ev, g_count)
    if method == "to_overall":
        group = a if a < g_count else b
        label = f"{names[group]} vs overall"
    else:
        label = f"{names[a]} vs {names[b]}"
    higher = names[a] if ordered else None
    better = None
    if ordered and m.greater_is_better is not None:
        better = names[a] if m.greater_is_better else names[b]
    return {"metric": m.label, "groups": label, "higher": higher, "better": better}


def _pair_interval(ev: Any, m: _Metric, a: int, b: int, kind: str
                   ) -> tuple[float, float, str]:
    """The interval of t_a - t_b (or t_b / t_a) as if the two had been named in
    advance: Newcombe's for a proportion of whole counts, else the percentile one."""
    names = _names(ev, m.values.shape[0] - 1)
    for g in (a, b):
        if not np.isfinite(m.replicates[:, g]).any():
            return np.nan, np.nan, f"n/a ({names[g]}: undefined on every resample)"
    if kind == "difference":
        newcombe = _newcombe(ev, m.label, a, b)
        if newcombe is not None:
            return newcombe[0], newcombe[1], _NEWCOMBE
        rep = m.replicates[:, a] - m.replicates[:, b]
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            rep = m.replicates[:, b] / m.replicates[:, a]
    low, high = _percentile(rep, ev._gaps.confidence_level)
    return low, high, _PERCENTILE


def _nonpositive_ratio(ev: Any, metrics: list[_Metric], method: str, sizes: np.ndarray
                       ) -> dict[str, Any]:
    """A ratio where a group's value is 0 or below (fairlearn's min / max all the
    same); its interval, formed on the log scale, is undefined but for one pair."""
    g_count = sizes.shape[0]
    best = None
    for m in metrics:
        groups, overall = m.values[:g_count], m.values[g_count]
        with np.errstate(divide="ignore", invalid="ignore"):
            if method == "between_groups":
                a = int(np.nanargmax(groups))
                rest = np.where(np.arange(g_count) == a, np.nan, groups)
                b = int(np.nanargmin(rest)) if np.isfinite(rest).any() else a
                value = groups[b] / groups[a]
            else:
                r = np.fmin(groups / overall, overall / groups)
                g = int(np.nanargmin(r)) if np.isfinite(r).any() else 0
                a, b = (g, g_count) if groups[g] > overall else (g_count, g)
                value = m.values[b] / m.values[a]
        if best is None or _nan_high(value) < _nan_high(best[0]):
            best = (value, m, a, b)
    value, m, a, b = best
    row = _describe(ev, m, a, b, bool(m.values[a] > m.values[b]), method)
    if m.refused is not None:
        return {**row, "estimate": float(value), "low": np.nan, "high": np.nan,
                "method": f"n/a ({m.refused})"}
    if len(metrics) == 1 and _candidates(int(np.isfinite(m.values[:g_count]).sum()), method,
                                         g_count) <= 1:
        low, high, how = _pair_interval(ev, m, a, b, "ratio")
    else:
        low, high, how = np.nan, np.nan, ("n/a (a group's value is 0 or below; the "
                                          "ratios' intervals are formed on the log scale)")
    return {**row, "estimate": float(value), "low": low, "high": high, "method": how}


def _nan_high(value: float) -> float:
    return np.inf if np.isnan(value) else value


def _undefined(why: str) -> dict[str, Any]:
    return {"metric": None, "estimate": np.nan, "low": np.nan, "high": np.nan,
            "method": f"undefined: {why}", "groups": "", "higher": None, "better": None}


def _newcombe(ev: Any, label: str, a: int, b: int) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (1998, method 10) of p_a - p_b for two
    independent groups, from each group's Wilson interval; None when the metric is
    not a proportion of whole counts (then the grouped bootstrap is used)."""
    from dartboard.uncertainty._analytic import proportion_interval

    gaps = ev._gaps
    g_count = len(ev.result.group_keys)
    if a >= g_count or b >= g_count:
        return None
    counts = gaps.proportions(label, gaps.chosen)
    if counts is None or counts[a, 1] <= 0 or counts[b, 1] <= 0:
        return None
    level = gaps.confidence_level
    (xa, na), (xb, nb) = counts[a], counts[b]
    pa, pb = xa / na, xb / nb
    la, ua = proportion_interval(xa, na, level, "wilson")
    lb, ub = proportion_interval(xb, nb, level, "wilson")
    d = pa - pb
    return (float(d - np.hypot(pa - la, ub - pb)), float(d + np.hypot(ua - pa, pb - lb)))


def _percentile(rep: np.ndarray, confidence_level: float) -> tuple[float, float]:
    rep = rep[np.isfinite(rep)]
    if rep.size == 0:
        return float("nan"), float("nan")
    alpha = (1 - confidence_level) / 2
    low, high = np.quantile(rep, [alpha, 1 - alpha])
    return float(low), float(high)


def pair_rows(ev: Any, label: str, simultaneous_: bool) -> list[dict[str, Any]]:
    """Every pair of groups of one metric: the higher first, its difference and an
    interval that holds for all pairs at once (``simultaneous_``; the pair's own
    interval when there is one pair) or for the pair alone."""
    m = _metric(ev, label)
    sizes = _sizes(ev)
    family = contrasts(m.values, m.replicates, sizes, "between_groups")
    d, a, b = family.estimate, family.plus, family.minus
    keep = (d > 0) | ((d == 0) & (a < b))
    defined = int(np.isfinite(m.values[:-1]).sum())
    joint = simultaneous_ and defined > 2 and m.refused is None
    low, high = simultaneous(family, ev._gaps.confidence_level) if joint else (None, None)
    rows = []
    kept = np.flatnonzero(keep)
    for k in kept[np.lexsort((np.maximum(a, b)[kept], np.minimum(a, b)[kept]))]:
        row = _describe(ev, m, int(a[k]), int(b[k]), bool(d[k] > 0), "between_groups")
        row["estimate"] = float(d[k])
        if m.refused is not None:
            row.update(low=np.nan, high=np.nan, method=f"n/a ({m.refused})")
        elif joint:
            how = f"max-T, simultaneous ({defined * (defined - 1) // 2} pairs)" \
                if family.usable[k] else \
                f"n/a ({unusable_reason(family, k)})"
            row.update(low=float(low[k]), high=float(high[k]), method=how)
        else:
            lo, hi, how = _pair_interval(ev, m, int(a[k]), int(b[k]), "difference")
            row.update(low=lo, high=hi, method=how)
        rows.append(row)
    return rows
