"""``dartboard.evaluate()`` and the :class:`Evaluation` it returns.

An evaluation holds every metric with its interval, overall and per group, and
answers the questions asked between groups (fairlearn's ``MetricFrame``
vocabulary): ``difference()``, ``ratio()``, ``group_min()``, ``group_max()`` and the
fairness summaries, each with an interval.

Intervals of gaps come from the grouped bootstrap (:mod:`._groups`): each group is
resampled on its own, count metrics from one multinomial per group over its
confusion cells, other metrics by resampling the group's rows. A gap is always
taken between the groups that give it in the data: ``difference()`` of accuracy is
``acc[a] - acc[b]`` for the observed best group ``a`` and worst group ``b``, and its
interval is that of this difference, recomputed on every replicate for the same two
groups. Its low end can be negative: then the data do not tell which of the two is
better. (Re-choosing the best and worst group in every replicate would give an
interval of ``max - min`` that is biased upwards and never reaches 0.) The
between-groups difference of a proportion of whole counts (accuracy, a binary TPR or
selection rate) is Newcombe's hybrid score interval (1998, method 10) from the two
groups' Wilson intervals instead: the percentile bootstrap covered 88% at 50 samples
per group (``benchmarks/group_gap_coverage.py``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from functools import cached_property
from typing import Any

import numpy as np

from dartboard._rng import check_random_state, child, seed_sequence
from dartboard._validation import check_option, describe
from dartboard.evaluation._engine import (
    _NO_INTERVAL,
    Plan,
    _label_codes,
    build_result,
    prepare,
)
from dartboard.evaluation._groups import (
    count_types,
    generic_group_replicates,
    row_count_replicates,
)
from dartboard.evaluation._result import EvaluationResult, MetricRow

__all__ = ["Evaluation", "evaluate", "GAP_METHODS"]

#: ``method`` of :meth:`Evaluation.difference` and :meth:`Evaluation.ratio`
GAP_METHODS = ("between_groups", "to_overall")
_ROW_COLUMNS = ["estimate", "low", "high", "method", "n"]
_GAP_COLUMNS = ["estimate", "low", "high", "method", "groups"]
_GAP_METHOD = "percentile (grouped bootstrap)"
_NEWCOMBE = "newcombe (Wilson scores)"
# fairness summaries (fairlearn's definitions): (name, rates, kind); the rates are the
# registry's ``rate`` facts
_FAIRNESS = (
    ("demographic_parity_difference", ("selection",), "difference"),
    ("demographic_parity_ratio", ("selection",), "ratio"),
    ("equalized_odds_difference", ("tpr", "fpr"), "difference"),
    ("equalized_odds_ratio", ("tpr", "fpr"), "ratio"),
    ("equal_opportunity_difference", ("tpr",), "difference"),
    ("equal_opportunity_ratio", ("tpr",), "ratio"),
)
_RATE_NAMES = {"selection": "selection rate", "tpr": "TPR", "fpr": "FPR"}


def evaluate(y_true: Any, y_pred: Any = None, *, y_score: Any = None, y_proba: Any = None,
             threshold: float | None = None, task: str = "auto", metrics: Any = None,
             groups: Any = None, sample_weight: Any = None, ci: str = "auto",
             confidence_level: float = 0.95,
             n_resamples: int = 2000, random_state: Any = None,
             pos_label: Any = None, threshold_criterion: str | None = None,
             threshold_target: float | None = None, curve_bands: bool = False,
             model: str | None = None) -> Evaluation:
    """How good are these predictions: every applicable metric with its confidence
    interval, overall, per group and between groups.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (classification) or values (regression).
    y_pred : array-like of shape (n_samples,), optional
        Predicted labels, or predicted values for regression. With ``y_score`` or
        ``y_proba`` too, the labels feed the count metrics (accuracy, precision,
        ...) and the scores the ranking and probability metrics: a tuned threshold
        or a cost-based cut, and the AUC of the scores, in one evaluation.
    y_score : array-like of shape (n_samples,), optional
        Binary tasks: scores or probabilities of the positive class. Without
        ``y_pred``, labels are ``y_score >= threshold``; without a threshold, 0.5
        for scores in [0, 1] and 0 for scores on both sides of 0 (other scores
        need ``threshold`` or ``y_pred`` for the count metrics). Scores passed as
        ``y_pred`` (``evaluate(y, model.predict_proba(X)[:, 1])``) are refused.
    y_proba : array-like of shape (n_samples, n_classes), optional
        Probabilities, one column per class in sorted label order (float32 rows
        checked in float32's tolerance); labels are the most probable class
        unless ``y_pred`` (or, binary, ``threshold``) gives them. Give ``y_score``
        or ``y_proba``, not both.
    threshold : float, optional
        Binary scores (``y_score``, or the positive column of ``y_proba``): the
        labels are ``score >= threshold``. Not with ``y_pred``.
    task : {"auto", "binary", "multiclass", "regression"}, default="auto"
        ``"auto"`` decides from the columns and refuses where they leave it in
        doubt: non-integer ``y_pred`` beside a ``y_true`` of at most ten distinct
        integers is refused (pass ``y_score=``, or ``task="regression"``).
    metrics : None, str, callable or list of them
        None: every metric the registry reports for the task that the given columns
        feed (ranking metrics need scores, log loss probabilities). Names are
        dartboard's (``"f1"``, ``"f1_score"``, ``"roc_auc"``...); a callable
        ``f(y_true, y_pred, sample_weight=None)`` of your own gets the labels (or
        values) and a bootstrap interval.
    groups : array-like, Series, DataFrame, dict or list of columns, optional
        One group column, or several: their observed combinations are the groups
        (fairlearn's multiple sensitive features). A list of arrays or Series is a
        list of columns (a 2-D array is one row per sample). Missing values are an
        error.
    sample_weight : array-like of shape (n_samples,), optional
    ci : str, default="auto"
        Interval method: ``"auto"`` (the registry's choice per metric), a proportion
        method (``"wilson"``, ``"wald"``, ``"clopper-pearson"``, ``"agresti-coull"``,
        ``"jeffreys"``), ``"delong"`` or a bootstrap method (``"percentile"``,
        ``"basic"``, ``"bca"``); a method that does not apply to a metric leaves
        that metric on its default.
    confidence_level : float, default=0.95
    n_resamples : int, default=2000
        Bootstrap resamples, for the rows and for the gaps between groups.
    random_state : None, int, SeedSequence or Generator
        The same seed gives the same numbers.
    pos_label : label, optional
        The positive class of a binary task. Default: 1 for labels among {0, 1} or
        {-1, 1} (scikit-learn's rule); other labels (strings, {1, 2}) need it for
        every number that depends on it (precision, recall, F1, the rates, the
        ranking and probability metrics, scores of one class).
    threshold_criterion, threshold_target : optional
        Binary scores: the operating point chosen by this criterion of
        :func:`dartboard.select_threshold` (``"youden"``, ``"closest_topleft"``,
        ``"cost"``, ``"min_precision"``, ``"min_recall"``, ``"max_fpr"``), with
        intervals that bootstrap the choice; in ``result.operating_point``.
    curve_bands : bool, default=False
        Binary scores: pointwise confidence bands of the ROC and PR curves.
    model : str, optional
        A name for the predictions, carried by the evaluation: shown in its table,
        notebook view and report, in its JSON, and the MLflow run's name.

    Returns
    -------
    Evaluation
        With ``assumptions``: what was decided without being told (the task, the
        positive class, where labels were cut from scores), each with its reason.

    Examples
    --------
    >>> import dartboard
    >>> ev = dartboard.evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...                         metrics=["accuracy", "recall"], random_state=0)
    >>> row = ev.overall.loc["accuracy"]
    >>> float(row.estimate), round(float(row.low), 3), round(float(row.high), 3), row.method
    (0.75, 0.409, 0.929, 'wilson')
    >>> ev.metrics
    ['accuracy', 'recall']
    >>> ev.assumptions["task"]
    ('binary', 'y_true and y_pred hold 2 distinct labels')
    """
    # the gaps' seed is taken first, so that rows given a Generator draw the same after it;
    # an int seed gives every row the numbers dartboard.interval gives with that seed
    model = check_model_name(model)
    root = seed_sequence(random_state)
    plan = prepare(y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba,
                   threshold=threshold, task=task, ci=ci, confidence_level=confidence_level,
                   n_resamples=n_resamples, random_state=random_state, groups=groups,
                   metrics=metrics, sample_weight=sample_weight, pos_label=pos_label,
                   threshold_criterion=threshold_criterion,
                   threshold_target=threshold_target, curve_bands=curve_bands)
    return Evaluation(build_result(plan, model), _Gaps.from_plan(plan, child(root, 1)))


def check_model_name(model: Any) -> str | None:
    """``model``: None or a non-empty string."""
    if model is not None and (not isinstance(model, str) or not model):
        raise TypeError(f"model must be a name (a non-empty string) or None; got "
                        f"{describe(model)}")
    return model


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
        from dartboard.evaluation._groups import count_group_replicates
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


class Evaluation:
    """Every metric with its interval, overall, per group and between groups.

    Returned by :func:`dartboard.evaluate` (and the streaming evaluations of
    :mod:`dartboard.scale`). Tables are pandas DataFrames; ``to_dict()`` and
    ``to_json()`` give plain values; in a notebook the object shows itself as a
    table.

    Attributes
    ----------
    result : EvaluationResult
        The engine's typed result (rows and the points of the figures).
    """

    def __init__(self, result: EvaluationResult, gaps: _Gaps | None = None,
                 states: dict[str, Any] | None = None) -> None:
        self.result = result
        self._gaps = gaps
        self._states = states

    # ---------------------------------------------------------------- tables

    @property
    def task(self) -> str:
        return self.result.task

    @property
    def metrics(self) -> list[str]:
        """The metric labels, in row order."""
        return [r.metric for r in self.result.metrics]

    @property
    def model(self) -> str | None:
        """The name given to the predictions (``model=``), or None."""
        return self.result.model

    @property
    def assumptions(self) -> dict[str, tuple[Any, str]]:
        """What the evaluation decided without being told, ``{what: (value, why)}``:
        ``"task"``, ``"positive_class"``, ``"threshold"`` (labels cut from scores),
        ``"labels"`` (the most probable class), ``"scores"`` (read as
        probabilities). Empty when everything was given."""
        return {a.what: (a.value, a.why) for a in self.result.assumptions}

    @property
    def n_rows(self) -> int:
        """Rows evaluated."""
        return self.result.n

    @property
    def n_files(self) -> int | None:
        """Streamed evaluations: Parquet files read, or Dask partitions reduced; else None."""
        return None if self.result.streamed is None else self.result.streamed.n_files

    @property
    def error_bounds(self) -> dict[str, float]:
        """``|estimate - exact| <= bound`` per metric whose estimate is approximate (a
        streamed evaluation's binned scores or quantile sketch); empty when all are exact."""
        return {r.metric: r.error_bound for r in self.result.metrics
                if r.error_bound is not None}

    @property
    def states(self) -> dict[str, Any]:
        """Streamed evaluations: the merged states of all rows (``"counts"``:
        :class:`~dartboard.metrics.ConfusionCounts`, ``"scores"``: a score map or
        :class:`~dartboard.scale.BinnedScoreState`, ``"moments"``,
        ``"errors"``, ``"losses"``, ``"calibration"``), to merge more data into
        later; each group's under ``("group", key)``. Empty for in-memory ones."""
        return dict(self._states or {})

    @cached_property
    def overall(self) -> Any:
        """One row per metric: estimate, low, high, method, n."""
        import pandas as pd

        frame = pd.DataFrame([_row_values(r) for r in self.result.metrics],
                             index=pd.Index(self.metrics, name="metric"), columns=_ROW_COLUMNS)
        frame.attrs["confidence_level"] = self._level
        return frame

    @cached_property
    def by_group(self) -> Any:
        """Per group and metric (index: the group columns, then ``metric``): estimate,
        low, high, method, n. None when no groups were given."""
        import pandas as pd

        res = self.result
        if res.groups is None:
            return None
        names = list(res.group_columns)
        per_group = len(res.groups) // len(res.group_keys)
        tuples = [(*res.group_keys[i // per_group], r.metric) for i, r in enumerate(res.groups)]
        index = pd.MultiIndex.from_tuples(tuples, names=[*names, "metric"])
        frame = pd.DataFrame([_row_values(r) for r in res.groups], index=index,
                             columns=_ROW_COLUMNS)
        frame.attrs["confidence_level"] = self._level
        return frame

    @property
    def _level(self) -> float:
        rows = self.result.metrics
        return rows[0].confidence_level if rows else float("nan")

    def estimates_by_group(self) -> Any:
        """The estimates as a wide table, groups by metrics (fairlearn's ``by_group``)."""
        frame = self._require_groups().by_group["estimate"].unstack("metric")
        return frame[self.metrics]

    # ---------------------------------------------------------------- gaps

    def _require_groups(self) -> Evaluation:
        if self.result.groups is None or self._gaps is None:
            raise ValueError("this evaluation has no groups; pass groups= to "
                             "dartboard.evaluate to compare groups")
        return self

    def _group_values(self, label: str) -> np.ndarray:
        """(G,) per-group estimates of a metric (nan where undefined)."""
        frame = self.by_group
        values = frame.xs(label, level="metric")["estimate"]
        return values.to_numpy(dtype=float)

    def _values_and_replicates(self, label: str) -> tuple[np.ndarray, np.ndarray]:
        """(G + 1,) observed values (groups, then overall) and their (R, G + 1) replicates."""
        gaps = self._gaps
        chosen = gaps.chosen
        if label.startswith("__"):
            if gaps.types is None:
                raise ValueError("the fairness summaries compare rates of predicted labels; "
                                 "this evaluation has scores only (give y_pred or proba)")
            observed = gaps.observed_counts(label, chosen)
        else:
            overall = dict(zip(self.metrics, (r.estimate for r in self.result.metrics)))
            observed = np.append(self._group_values(label), overall[label])
        if gaps.gap_interval_refused(label) is not None:
            return observed, np.full((1, observed.shape[0]), np.nan)
        return observed, gaps.replicates(label, chosen)

    def _gap(self, label: str, kind: str, method: str) -> dict[str, Any]:
        values, reps = self._values_and_replicates(label)
        refused = self._gaps.gap_interval_refused(label)
        g_count = values.shape[0] - 1
        keys = self._group_labels()
        groups, overall = values[:g_count], values[g_count]
        defined = np.isfinite(groups)
        if not defined.any():
            return _undefined_gap("undefined in every group")
        if method == "between_groups":
            if defined.sum() < 2:
                return _undefined_gap("defined in fewer than two groups")
            hi = int(np.nanargmax(groups))
            lo = int(np.nanargmin(groups))
            names = f"{keys[hi]} vs {keys[lo]}"
            if kind == "difference":
                est, rep = groups[hi] - groups[lo], reps[:, hi] - reps[:, lo]
                newcombe = self._newcombe(label, hi, lo) if refused is None else None
                if newcombe is not None:
                    return {"estimate": float(est), "low": newcombe[0], "high": newcombe[1],
                            "method": _NEWCOMBE, "groups": names}
            else:
                est, rep = _ratio(groups[lo], groups[hi]), _ratio(reps[:, lo], reps[:, hi])
        else:
            if kind == "difference":
                dist = np.abs(groups - overall)
                g = int(np.nanargmax(dist))
                sign = 1.0 if groups[g] >= overall else -1.0
                est, rep = dist[g], sign * (reps[:, g] - reps[:, g_count])
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = np.minimum(_ratio(groups, overall), _ratio(overall, groups))
                g = int(np.nanargmin(r)) if np.isfinite(r).any() else 0
                if groups[g] <= overall:
                    est, rep = _ratio(groups[g], overall), _ratio(reps[:, g], reps[:, g_count])
                else:
                    est, rep = _ratio(overall, groups[g]), _ratio(reps[:, g_count], reps[:, g])
            names = f"{keys[g]} vs overall"
        if refused is not None:
            return {"estimate": float(est), "low": float("nan"), "high": float("nan"),
                    "method": f"n/a ({refused})", "groups": names}
        low, high = self._percentile(rep)
        return {"estimate": float(est), "low": low, "high": high, "method": _GAP_METHOD,
                "groups": names}

    def _newcombe(self, label: str, a: int, b: int) -> tuple[float, float] | None:
        """Newcombe's hybrid score interval (1998, method 10) of p_a - p_b for two
        independent groups, from each group's Wilson interval; None when the metric is
        not a proportion of whole counts (then the grouped bootstrap is used)."""
        from dartboard.uncertainty._analytic import proportion_interval

        gaps = self._gaps
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

    def _percentile(self, rep: np.ndarray) -> tuple[float, float]:
        rep = rep[np.isfinite(rep)]
        if rep.size == 0:
            return float("nan"), float("nan")
        alpha = (1 - self._gaps.confidence_level) / 2
        low, high = np.quantile(rep, [alpha, 1 - alpha])
        return float(low), float(high)

    def _group_labels(self) -> list[str]:
        return [", ".join(str(v) for v in key) for key in self.result.group_keys]

    def _gap_table(self, kind: str, method: str, metrics: Any) -> Any:
        import pandas as pd

        self._require_groups()
        check_option(method, "method", GAP_METHODS)
        labels = self._gap_metrics(metrics)
        rows = [self._gap(label, kind, method) for label in labels]
        frame = pd.DataFrame(rows, index=pd.Index(labels, name="metric"), columns=_GAP_COLUMNS)
        frame.attrs["confidence_level"] = self._gaps.confidence_level
        return frame

    def _gap_metrics(self, metrics: Any) -> list[str]:
        if metrics is None:
            # the rows with an interval; a streamed evaluation shows the gaps of every row
            # it has states for (their method says when there is no interval)
            streamed = self._gaps is not None and self._gaps.plan is None
            return [r.metric for r in self.result.metrics if r.low is not None
                    or (streamed and r.method != _NO_INTERVAL)]
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in self.metrics]
        if unknown:
            raise ValueError(f"metrics {unknown} are not rows of this evaluation; its rows "
                             f"are {self.metrics}")
        return metrics

    def difference(self, method: str = "between_groups", *, metrics: Any = None) -> Any:
        """Per metric, the largest gap between groups, with its interval.

        ``method="between_groups"``: the best group's value minus the worst's (max -
        min); ``"to_overall"``: the largest ``|group - overall|``. Columns: estimate,
        low, high, method and ``groups`` (which two). The interval is that of the
        difference between these two (see the module notes): a low end below 0
        means the data do not tell their order.
        """
        return self._gap_table("difference", method, metrics)

    def ratio(self, method: str = "between_groups", *, metrics: Any = None) -> Any:
        """Per metric, the smallest ratio between groups (min / max; ``"to_overall"``:
        the smallest of group/overall and overall/group), with its interval."""
        return self._gap_table("ratio", method, metrics)

    def _extreme(self, which: str) -> Any:
        import pandas as pd

        self._require_groups()
        keys = self._group_labels()
        rows, labels = [], []
        frame = self.by_group
        for label in self._gap_metrics(None):
            values = self._group_values(label)
            if not np.isfinite(values).any():
                continue
            g = int(np.nanargmin(values) if which == "min" else np.nanargmax(values))
            row = frame.xs(label, level="metric").iloc[g]
            rows.append({"group": keys[g], **{c: row[c] for c in _ROW_COLUMNS}})
            labels.append(label)
        return pd.DataFrame(rows, index=pd.Index(labels, name="metric"),
                            columns=["group", *_ROW_COLUMNS])

    def group_min(self) -> Any:
        """Per metric, the group with the smallest value, its value and that group's
        interval."""
        return self._extreme("min")

    def group_max(self) -> Any:
        """Per metric, the group with the largest value, its value and that group's
        interval."""
        return self._extreme("max")

    def fairness(self, method: str = "between_groups") -> Any:
        """Demographic parity, equalized odds and equal opportunity (difference and
        ratio), each with its interval.

        As fairlearn defines them: demographic parity compares selection rates;
        equalized odds takes the worse of the true-positive-rate and
        false-positive-rate gaps (the larger difference, the smaller ratio); equal
        opportunity compares true positive rates. Binary tasks only.
        """
        import pandas as pd

        self._require_groups()
        if self.task != "binary":
            raise ValueError("the fairness summaries compare rates of the positive class of a "
                             f"binary task; this evaluation is {self.task}")
        if self.result.positive_label is None:
            raise ValueError("the fairness summaries compare rates of the positive class, "
                             "which this evaluation was not told: pass pos_label")
        check_option(method, "method", GAP_METHODS)
        rows = []
        for name, rates, kind in _FAIRNESS:
            parts = [self._gap(f"__{rate}", kind, method) for rate in rates]
            pick = (max if kind == "difference" else min)(
                range(len(parts)), key=lambda i: _nan_last(parts[i]["estimate"], kind))
            chosen = dict(parts[pick])
            if len(rates) > 1:
                chosen["groups"] = f"{_RATE_NAMES[rates[pick]]}: {chosen['groups']}"
            rows.append(chosen)
        frame = pd.DataFrame(rows, index=pd.Index([f[0] for f in _FAIRNESS], name="summary"),
                             columns=_GAP_COLUMNS)
        frame.attrs["confidence_level"] = self._gaps.confidence_level
        return frame

    # ---------------------------------------------------------------- output

    def to_frame(self) -> Any:
        """A tidy long table: one row per (scope, group, metric) with the group columns,
        metric, estimate, low, high, method, n and confidence_level."""
        import pandas as pd

        names = list(self.result.group_columns or ())
        over = self.overall.reset_index()
        over.insert(0, "scope", "overall")
        for name in names:
            over[name] = None
        frames = [over]
        if self.by_group is not None:
            grp = self.by_group.reset_index()
            grp.insert(0, "scope", "group")
            frames.append(grp)
        out = pd.concat(frames, ignore_index=True)
        out["confidence_level"] = self._level
        return out[["scope", *names, "metric", *_ROW_COLUMNS, "confidence_level"]]

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON-ready): the engine's result, and with groups the gaps and,
        for a binary task, the fairness summaries."""
        out = self.result.to_dict()
        if self.result.groups is not None:
            out["difference"] = _records(self.difference(), "metric")
            out["ratio"] = _records(self.ratio(), "metric")
            if self.task == "binary" and self._gaps.types is not None \
                    and self.result.positive_label is not None:
                out["fairness"] = _records(self.fairness(), "summary")
        return out

    def to_json(self, **kwargs: Any) -> str:
        """``to_dict()`` as JSON text (nan as null)."""
        return json.dumps(_jsonable(self.to_dict()), **kwargs)

    def _repr_html_(self) -> str:
        from dartboard.evaluation._display import evaluation_html

        return evaluation_html(self)

    def describe(self) -> str:
        """One line: the model's name, the task, the rows (and the files they were
        streamed from) and the groups, e.g. ``model 'lr', binary, n = 400 streamed from 2
        Parquet files, 3 groups``."""
        res = self.result
        parts = [f"model {res.model!r}"] if res.model is not None else []
        size = f"n = {res.n:,}"
        if res.streamed is not None:
            count, unit = res.streamed.n_files, res.streamed.unit
            size += f" streamed from {count} {unit}{'s' if count != 1 else ''}"
            if res.streamed.mode == "binned":
                size += " (binned scores)"
        parts += [res.task, size]
        if res.group_keys:
            parts.append(f"{len(res.group_keys)} groups")
        return ", ".join(parts)

    def __repr__(self) -> str:
        level = f"{self._level:.0%} intervals" if math.isfinite(self._level) \
            else "no intervals"
        lines = [f"Evaluation({self.describe()}, {len(self.metrics)} metrics, {level})"]
        lines += [f"  assumed {a}" for a in self.result.assumptions]
        for r in self.result.metrics:
            interval = "" if r.low is None else f"  [{r.low:.4g}, {r.high:.4g}]"
            lines.append(f"  {r.metric:<28} {r.estimate:.4g}{interval}  {r.method}")
        return "\n".join(lines)

    def plot(self, ax: Any = None, *, metrics: Any = None) -> Any:
        """Each metric with its interval bar (per group when grouped); a matplotlib Axes."""
        from dartboard.plots import plot_evaluation

        return plot_evaluation(self, ax=ax, metrics=metrics)

    def to_html(self, path: Any, *, title: str | None = None) -> Any:
        """Write the self-contained HTML report of this evaluation to ``path``."""
        from dartboard import __version__
        from dartboard.report import write_report

        key = "regression" if self.task == "regression" else "classification"
        section = dict(self.to_dict(), heading="Evaluation")
        if self.result.group_columns:
            section["group_column"] = ", ".join(self.result.group_columns)
        default = "dartboard evaluation" + (f": {self.model}" if self.model else "")
        return write_report({"title": title or default,
                             "dartboard_version": __version__, key: section}, path)

    def log_mlflow(self, *, prefix: str = "", report: bool = True) -> None:
        """Log each metric with its bounds (``<m>``, ``<m>_low``, ``<m>_high``; per group
        ``by_group/<group>/<m>``) to the active MLflow run (one is started when none
        is, named after ``model``), the model's name and the row count as parameters,
        and the HTML report as an artifact. Needs MLflow (``pip install
        dartboard[mlflow]``)."""
        from dartboard.evaluation._mlflow import log_evaluation

        log_evaluation(self, prefix=prefix, report=report)


def _nan_last(value: float, kind: str) -> float:
    if math.isnan(value):
        return -math.inf if kind == "difference" else math.inf
    return value


def _ratio(a: Any, b: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(a, b)


def _undefined_gap(why: str) -> dict[str, Any]:
    return {"estimate": float("nan"), "low": float("nan"), "high": float("nan"),
            "method": f"undefined: {why}", "groups": ""}


def _row_values(r: MetricRow) -> list[Any]:
    return [r.estimate, np.nan if r.low is None else r.low,
            np.nan if r.high is None else r.high, r.method, r.n]


def _records(frame: Any, index_name: str) -> list[dict[str, Any]]:
    return [{index_name: idx, **{k: _plain(v) for k, v in row.items()}}
            for idx, row in frame.iterrows()]


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    return None if isinstance(v, float) and math.isnan(v) else v


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return _plain(x)
