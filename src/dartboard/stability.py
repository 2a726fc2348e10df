"""Stability and uncertainty of bootstrap ensembles.

Would the model give the same answers if it were trained again on slightly
different data? :func:`stability_audit` trains ``m`` clones of an estimator on
bootstrap samples of the training data and :func:`stability_metrics` measures how
much their predictions on the test points agree.

For ``m`` models ``h_1..h_m`` and a test point ``x`` (binary: ``h_j(x)`` is the
probability of the positive class; multiclass: a probability vector), with
``k_c`` the number of models whose label for ``x`` is class ``c``:

* label stability ``(k_top - k_second) / m``; for two classes ``|k_1 - k_0| / m``
  (1 = every model agrees, 0 = an even split);
* jitter: the fraction of the ``m (m - 1) / 2`` model pairs whose labels for ``x``
  differ, ``(m^2 - sum_c k_c^2) / 2`` disagreeing pairs, so O(m n) in total; its
  mean over points is the mean pairwise churn (fraction of points on which two
  models disagree, averaged over model pairs);
* ``std`` (the sample standard deviation, ddof = 1, as Virny and pandas report
  it), ``iqr`` and ``epistemic`` (``Var_j h_j(x)``, the population variance,
  ddof = 0, as the definition has it) of the predicted probability across
  models; hence ``epistemic = (m - 1) / m * std^2``;
* ``aleatoric`` = expected entropy ``E_j H(h_j(x))``, ``total`` = entropy of the
  mean prediction ``H(mean_j h_j(x))`` and ``mutual_information`` = total -
  aleatoric (>= 0 by the concavity of entropy; round-off below zero is clipped).
  Entropies are in bits.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from dartboard import _rng
from dartboard._labels import encode_labels
from dartboard._parallel import parallel_map
from dartboard._results import Result, to_jsonable
from dartboard._rng import RandomStateLike
from dartboard._validation import (
    MAX_ESTIMATORS,
    as_float_array,
    check_int,
    check_labels_argument,
    column_1d,
    describe,
    group_array,
    label_array,
)
from dartboard.exceptions import InputError, InputTypeError
from dartboard.metrics._confusion import ConfusionCounts
from dartboard.metrics._registry import get_spec

__all__ = ["StabilityResult", "stability_audit", "stability_metrics"]

#: per-point columns, in the order of ``StabilityResult.per_point``
POINT_METRICS = ("label_stability", "jitter", "std", "iqr", "epistemic", "aleatoric",
                 "total", "mutual_information")

#: correctness of the ensemble's mean prediction, in the audit's (Virny's) vocabulary
#: -> the count metric it is
_CORRECTNESS = {
    "accuracy": "accuracy_score",
    "f1": "f1_score",
    "tpr": "recall_score",
    "tnr": "specificity_score",
    "fpr": "false_positive_rate",
    "fnr": "false_negative_rate",
    "precision": "precision_score",
    "selection_rate": "selection_rate",
}

# Probability rows of multiclass input must sum to 1 within this tolerance.
_SUM_ATOL = 1e-6
# Points per batch are chosen so one batch of probabilities holds about this many
# values (8 MB of float64): memory stays bounded and the batch stays in cache.
_BATCH_VALUES = 1 << 20


@dataclasses.dataclass(frozen=True, repr=False)
class StabilityResult(Result):
    """Stability and uncertainty of an ensemble's predictions.

    Parameters
    ----------
    summary : dict
        Means over the test points of every per-point metric, ``n_models``,
        ``n_samples`` and, when ``y_true`` was given, the correctness of the
        ensemble's mean prediction (accuracy, f1, tpr, tnr, fpr, fnr, precision,
        selection_rate).
    per_point : pandas.DataFrame
        One row per test point: ``y_pred`` (the ensemble's label), ``mean_proba``
        (mean probability of the positive class, binary, or of ``y_pred``,
        multiclass), the metrics of ``POINT_METRICS`` and, with ``y_true``,
        ``y_true`` and ``correct``. ``std`` is the sample standard deviation
        across the models (ddof = 1, Virny's number); ``epistemic`` the
        population variance (ddof = 0).
    by_group : pandas.DataFrame or None
        Tidy table with columns ``attribute, group, n, metric, value,
        difference, ratio`` (see :func:`stability_metrics`), or None.
    probas : numpy.ndarray
        The per-model predictions, shape (m, n) or (m, n, C).
    n_models : int
        Number of models ``m``.
    classes : numpy.ndarray
        Class labels: ``[negative, positive]`` (binary) or one per column.

    Notes
    -----
    ``to_dict()`` stays small whatever the number of points: it holds
    ``summary``, ``n_models``, ``classes``, ``by_group`` (one record per
    attribute, group and metric) and, instead of the per-point table and the
    probability matrix, ``per_point_summary``: count, mean, std, min, quartiles
    and max of each per-point column.

    Examples
    --------
    >>> probas = [[0.9, 0.2, 0.6], [0.8, 0.4, 0.4], [0.7, 0.1, 0.55]]
    >>> res = stability_metrics(probas, y_true=[1, 0, 1])
    >>> res.n_models, res.per_point['label_stability'].round(3).tolist()
    (3, [1.0, 1.0, 0.333])
    """

    summary: dict[str, Any]
    per_point: pd.DataFrame
    by_group: pd.DataFrame | None
    probas: np.ndarray
    n_models: int
    classes: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """Return the result as JSON-ready values.

        Returns
        -------
        dict
            ``summary``, ``n_models``, ``classes``, the per-point table and ``by_group``.
        """
        numeric = self.per_point[[c for c in ("mean_proba", *POINT_METRICS)
                                  if c in self.per_point]]
        return {
            "summary": to_jsonable(self.summary),
            "n_models": int(self.n_models),
            "classes": to_jsonable(self.classes),
            "per_point_summary": to_jsonable(numeric.describe().to_dict()),
            "by_group": None if self.by_group is None else to_jsonable(self.by_group),
        }


# ---------------------------------------------------------------- validation

def _stability_iv(probas: Any, y_true: Any, classes: Any,
                  threshold: Any) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, float]:
    """Validate the inputs; return (probas, y_true codes, classes, threshold).

    ``probas`` comes back as (m, n) for binary input (an (m, n, 2) array is reduced
    to its positive column) or (m, n, C) for C > 2.
    """
    p = as_float_array(probas, name="probas", ndim=(2, 3))
    m = p.shape[0]
    if m < 2:
        raise InputError(f"probas must hold the predictions of at least 2 models (first "
                         f"axis); got {m}")
    if p.shape[1] == 0:
        raise InputError("probas is empty; at least one test point is required")
    lo, hi = p.min(), p.max()
    if lo < 0.0 or hi > 1.0:
        raise InputError(f"probas must be probabilities in [0, 1]; got values in "
                         f"[{lo:.6g}, {hi:.6g}]")
    if p.ndim == 3:
        if p.shape[2] < 2:
            raise InputError(f"probas of shape (m, n, C) needs C >= 2 classes; got "
                             f"shape {p.shape}")
        worst = np.abs(p.sum(axis=2) - 1.0).max()
        if worst > _SUM_ATOL:
            raise InputError("probas of shape (m, n, C) must have probability rows that "
                             f"sum to 1; the largest deviation is {worst:.3g}")
        if p.shape[2] == 2:
            p = np.ascontiguousarray(p[:, :, 1])
    n_classes = 2 if p.ndim == 2 else p.shape[2]

    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) \
            or not 0.0 < float(threshold) < 1.0:
        raise InputError(f"threshold must be a number strictly between 0 and 1; got "
                         f"{threshold!r}")

    if classes is None:
        classes = np.arange(n_classes)
    else:
        classes = check_labels_argument(classes, name="classes")  # labels, none twice
        if classes.shape[0] != n_classes:
            raise InputError(f"classes must list {n_classes} labels (one per probability "
                             f"column); got {classes.shape[0]}")

    codes = None
    if y_true is not None:
        y = label_array(y_true, name="y_true")
        encode_labels(("y_true", y))  # labels only: a list among them is refused by name
        if y.shape[0] != p.shape[1]:
            raise InputError(f"inconsistent numbers of samples: y_true has {y.shape[0]}, "
                             f"probas has {p.shape[1]} points")
        if y.dtype.kind == "b" and classes.dtype.kind in "iu":
            y = y.astype(np.int64)  # False/True are the classes 0/1
        codes = pd.Index(classes).get_indexer(y)
        if (codes < 0).any():
            unknown = pd.unique(y[codes < 0])[:5].tolist()
            raise InputError(f"y_true contains labels {unknown!r} that are not among the "
                             f"classes {classes.tolist()!r}; binary labels must be 0/1 "
                             "or be mapped with classes=[negative, positive]")
    return p, codes, classes, float(threshold)


def _group_columns(groups: Any, n: int, intersections: Any) -> list[tuple[str, np.ndarray]]:
    """Named 1-D group columns (plus requested two-way intersections)."""
    if groups is None:
        if intersections is not None and intersections is not False:
            raise InputError("intersections needs groups with several columns")
        return []
    if isinstance(groups, Mapping):
        named = [(str(k), v) for k, v in groups.items()]
    elif hasattr(groups, "columns") and not isinstance(groups, np.ndarray):
        named = [(str(c), groups[c]) for c in groups.columns]
    else:
        named = [(str(getattr(groups, "name", None) or "group"), groups)]
    if not named:
        raise InputError("groups has no columns")
    columns = []
    for name, col in named:
        label = "groups" if len(named) == 1 else f"groups[{name!r}]"
        arr = column_1d(col, name=label, allow_empty=True)
        if arr.shape[0] != n:
            raise InputError(f"{label} must have one group label per test point ({n}); "
                             f"got {arr.shape[0]}")
        columns.append((name, group_array(arr, name=label)))

    if intersections is None or intersections is False:
        return columns
    return columns + _intersections(columns, intersections)


def _intersections(columns: list[tuple[str, np.ndarray]], intersections: Any
                   ) -> list[tuple[str, np.ndarray]]:
    """The two-way intersections of group columns: ``True`` every pair, else the
    listed pairs of column names; each a column of ``"a & b"`` labels."""
    names = [c for c, _ in columns]
    if intersections is True:
        pairs = list(itertools.combinations(names, 2))
    else:
        pairs = [tuple(p) for p in intersections]
    by_name = dict(columns)
    out = []
    for pair in pairs:
        if len(pair) != 2 or any(p not in by_name for p in pair):
            raise InputError(f"intersections must be pairs of group column names among "
                             f"{names!r} (or True for every pair); got {pair!r}")
        a, b = (by_name[p].astype(str).astype(object) for p in pair)
        out.append((f"{pair[0]} & {pair[1]}", a + " & " + b))
    return out


# ---------------------------------------------------------------- per point

def _plogp(p: np.ndarray) -> np.ndarray:
    """``p * log2(p)`` with ``0 log 0 = 0`` (log2 only where p > 0, no warning)."""
    out = np.zeros_like(p)
    np.log2(p, out=out, where=p > 0)
    out *= p
    return out


def _entropy_bits(p: np.ndarray, binary: bool) -> np.ndarray:
    """Shannon entropy in bits along the last axis (binary: of [1 - p, p])."""
    if binary:
        h = _plogp(p)
        h += _plogp(1.0 - p)
        return np.negative(h, out=h)
    return -_plogp(p).sum(axis=-1)


def _label_counts(p: np.ndarray, threshold: float) -> np.ndarray:
    """Per-point label counts ``k[i, c]``, shape (b, C), in O(m b).

    Binary: one sum of the positive votes per point; multiclass: one bincount
    over ``point * C + label``.
    """
    m, b = p.shape[:2]
    if p.ndim == 2:
        # summing a uint8 view of the booleans is several times faster than
        # count_nonzero(axis=0)
        k1 = (p >= threshold).view(np.uint8).sum(axis=0, dtype=np.int64)
        return np.column_stack([m - k1, k1])
    n_classes = p.shape[2]
    labels = p.argmax(axis=2)
    labels += np.arange(b) * n_classes
    return np.bincount(labels.ravel(), minlength=b * n_classes).reshape(b, n_classes)


def _iqr(q: np.ndarray) -> np.ndarray:
    """Interquartile range down the columns of ``q`` (numpy's "linear" quantiles).

    Sorting a contiguous copy with one row per point is several times faster
    than ``np.quantile(q, axis=0)``, which partitions along the strided axis.
    """
    # always a copy: for Fortran-ordered input q.T is already contiguous, and an
    # in-place sort of it would reorder the caller's array
    rows = np.array(q.T, order="C", copy=True)
    rows.sort(axis=1)
    last = rows.shape[1] - 1
    out = []
    for level in (0.25, 0.75):
        h = level * last
        lo = int(math.floor(h))
        hi = min(lo + 1, last)
        out.append(rows[:, lo] + (h - lo) * (rows[:, hi] - rows[:, lo]))
    return out[1] - out[0]


def _per_point_batch(p: np.ndarray, threshold: float) -> dict[str, np.ndarray]:
    m, b = p.shape[:2]
    binary = p.ndim == 2
    counts = _label_counts(p, threshold)
    if binary:
        top_two = np.sort(counts, axis=1)
    else:
        top_two = np.partition(counts, counts.shape[1] - 2, axis=1)[:, -2:]
    pairs = m * (m - 1) / 2
    sq = np.einsum("ij,ij->i", counts, counts).astype(np.float64)

    mean = p.mean(axis=0)
    if binary:
        y_pred = (mean >= threshold).astype(np.intp)
        q = p
        mean_q = mean
    else:
        y_pred = mean.argmax(axis=1)
        q = p[:, np.arange(b), y_pred]
        mean_q = q.mean(axis=0)
    iqr = _iqr(q)
    # two-pass sum of squares of values shifted by the first model's: models that
    # all agree give exactly 0 (the mean of equal floats need not equal them)
    shifted = q - q[0]
    squares = np.square(shifted - shifted.mean(axis=0)).sum(axis=0)
    aleatoric = _entropy_bits(p, binary).mean(axis=0)
    total = _entropy_bits(mean, binary)
    return {
        "y_pred": y_pred,
        "mean_proba": mean_q,
        "label_stability": (top_two[:, 1] - top_two[:, 0]) / m,
        "jitter": (m * m - sq) / 2 / pairs,
        "std": np.sqrt(squares / (m - 1)),
        "iqr": iqr,
        "epistemic": squares / m,
        "aleatoric": aleatoric,
        "total": total,
        "mutual_information": np.maximum(total - aleatoric, 0.0),
    }


def _per_point(p: np.ndarray, threshold: float) -> dict[str, np.ndarray]:
    m, n = p.shape[:2]
    per_value = m * (p.shape[2] if p.ndim == 3 else 1)
    step = max(1, _BATCH_VALUES // per_value)
    parts = [_per_point_batch(p[:, i:i + step], threshold) for i in range(0, n, step)]
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


# ---------------------------------------------------------------- aggregates

def _correctness(state: ConfusionCounts, binary: bool, zero_division: Any) -> dict[str, float]:
    if binary:
        kw = {"average": "binary", "pos_label": 1}
    else:
        # macro over the classes present in the (group's) data, as scikit-learn
        mat = state.matrix
        present = (mat.sum(axis=0) + mat.sum(axis=1)) > 0
        state = ConfusionCounts(state.classes[present], mat[np.ix_(present, present)])
        kw = {"average": "macro"}
    out = {}
    for name, metric in _CORRECTNESS.items():
        extra = dict(kw, zero_division=zero_division) if get_spec(metric).average else {}
        out[name] = float(state.compute(metric, **extra))
    return out


def _group_states(codes: np.ndarray, n_groups: int, y_true: np.ndarray, y_pred: np.ndarray,
                  n_classes: int) -> list[ConfusionCounts]:
    """One confusion state per group from a single bincount over (group, true, pred)."""
    joint = (codes * n_classes + y_true) * n_classes + y_pred
    mats = np.bincount(joint, minlength=n_groups * n_classes * n_classes)
    mats = mats.reshape(n_groups, n_classes, n_classes)
    return [ConfusionCounts(np.arange(n_classes), mats[g]) for g in range(n_groups)]


def _ratio(value: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """value / ref with the documented convention for a zero reference."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = value / ref
    zero = ref == 0
    out[zero & (value == 0)] = 1.0
    out[zero & (value > 0)] = np.inf
    out[zero & (value < 0)] = -np.inf
    return out


def _pick_reference(name: str, uniques: np.ndarray, sizes: np.ndarray,
                    reference_group: Any) -> int:
    if reference_group is None:
        return int(np.argmax(sizes))
    wanted = reference_group.get(name) if isinstance(reference_group, Mapping) \
        else reference_group
    if wanted is None:
        return int(np.argmax(sizes))
    if not np.isscalar(wanted):
        raise InputTypeError(f"reference_group must be one group label, or a dict group column "
                             f"-> label; got {describe(wanted)}")
    where = pd.Index(uniques).get_indexer([wanted])[0]
    if where < 0:
        raise InputError(f"reference_group {wanted!r} is not a group of {name!r}; groups "
                         f"are {uniques.tolist()[:10]!r}")
    return int(where)


def _by_group(columns: list[tuple[str, np.ndarray]], point: dict[str, np.ndarray],
              y_true: np.ndarray | None, n_classes: int, reference_group: Any,
              zero_division: Any) -> pd.DataFrame:
    frames = []
    for name, col in columns:
        codes, uniques = pd.factorize(col, sort=True)
        uniques = np.asarray(uniques)
        n_groups = uniques.shape[0]
        sizes = np.bincount(codes, minlength=n_groups)
        values = {k: np.bincount(codes, weights=point[k], minlength=n_groups) / sizes
                  for k in POINT_METRICS}
        if y_true is not None:
            states = _group_states(codes, n_groups, y_true, point["y_pred"], n_classes)
            rows = [_correctness(s, n_classes == 2, zero_division) for s in states]
            for metric in _CORRECTNESS:
                values[metric] = np.array([r[metric] for r in rows])
        ref = _pick_reference(name, uniques, sizes, reference_group)
        table = pd.DataFrame(values)
        value = table.to_numpy()
        ref_value = value[ref]
        frames.append(pd.DataFrame({
            "attribute": name,
            "group": np.repeat(uniques.astype(object), value.shape[1]),
            "n": np.repeat(sizes, value.shape[1]),
            "metric": np.tile(np.array(table.columns, dtype=object), n_groups),
            "value": value.ravel(),
            "difference": (value - ref_value).ravel(),
            "ratio": _ratio(value, np.broadcast_to(ref_value, value.shape)).ravel(),
        }))
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------- public

def stability_metrics(probas: ArrayLike, y_true: ArrayLike | None = None, groups: Any = None, *,
                      reference_group: Any = None, threshold: float = 0.5,
                      classes: Any = None, intersections: Any = None,
                      zero_division: Any = "warn") -> StabilityResult:
    """Label stability, jitter and uncertainty of the predictions of ``m`` models.

    Parameters
    ----------
    probas : array-like of shape (m, n) or (m, n, C)
        Predictions of ``m >= 2`` models on ``n`` points: the probability of the
        positive class (binary) or probability rows summing to 1 (C classes; an
        (m, n, 2) array is treated as binary, its column 1 being the positive
        class). A precomputed probability matrix of any ensemble goes here
        directly. One model (``m = 1``) raises ``ValueError``: it has no spread
        to measure (the sample ``std`` and the jitter of model pairs are
        undefined).
    y_true : array-like of shape (n,), optional
        True labels, among ``classes``. Adds the correctness of the ensemble's mean
        prediction to the summary and the group table.
    groups : array-like of shape (n,), DataFrame or dict of columns, optional
        Group labels of the points. Each column is one attribute (a 1-D array is
        the attribute ``"group"``, or the Series' name).
    reference_group : label or dict, optional
        The group disparities are measured against: one label (for every
        attribute), or a dict attribute -> label. Default: the largest group of
        each attribute (ties: the first in sorted order).
    threshold : float, default 0.5
        Binary decision threshold: a model labels a point positive when
        ``h_j(x) >= threshold``; the ensemble does so when the mean probability
        is. Multiclass labels are the arg-max (ties: the lower class index).
    classes : array-like, optional
        Labels of the probability columns: ``[negative, positive]`` for binary
        input (default ``[0, 1]``), one per column otherwise (default
        ``0..C-1``).
    intersections : True or list of pairs, optional
        Also report the intersections of two group columns, e.g.
        ``[("sex", "race")]`` gives the attribute ``"sex & race"`` with groups
        like ``"F & white"``; ``True`` adds every pair.
    zero_division : "warn", 0.0, 1.0 or nan, default "warn"
        Value of an undefined correctness ratio (e.g. TPR of a group without
        positives); "warn" gives 0.0 and an ``UndefinedMetricWarning``.

    Returns
    -------
    StabilityResult

    Notes
    -----
    With ``k_c`` the number of models labelling a point ``c``: label stability
    ``= (k_top - k_second) / m``, which is ``|k_1 - k_0| / m`` for two classes;
    jitter ``= (m^2 - sum_c k_c^2) / (m (m - 1))``, the fraction of model pairs
    that disagree on the point. Both come from the label counts, in O(m n).

    ``std`` (sample standard deviation, ddof = 1: the number Virny and pandas'
    ``.std()`` give), ``iqr`` (numpy's linear quantiles) and ``epistemic``
    (``Var_j``, the population variance, ddof = 0, so ``(m - 1) / m * std^2``)
    are taken over the models' probability of
    the positive class (binary) or, multiclass, of the ensemble's predicted
    class ``argmax_c mean_j h_j(x)_c``. ``aleatoric = E_j H(h_j(x))``,
    ``total = H(mean_j h_j(x))`` and ``mutual_information = total - aleatoric``
    use the full probability vector, entropy in bits with ``0 log 0 = 0``.

    Correctness metrics are computed from confusion counts of the ensemble's
    label against ``y_true``: binary with the positive class, multiclass as the
    macro average over the classes present in ``y_true`` or the predictions (as
    scikit-learn; the macro selection rate is then 1 / number of those classes).

    ``by_group`` holds one row per attribute, group and metric: the group's
    mean of the per-point metric (or its correctness metric), ``difference =
    value - reference value`` and ``ratio = value / reference value``. A zero
    reference gives ``ratio = inf`` for a positive value and ``1.0`` when the
    value is zero too (equal values, no disparity); no warning is raised.

    Examples
    --------
    >>> import numpy as np
    >>> probas = np.array([[0.9, 0.2, 0.6],
    ...                    [0.8, 0.3, 0.4],
    ...                    [0.7, 0.1, 0.7],
    ...                    [0.9, 0.4, 0.3]])
    >>> res = stability_metrics(probas, y_true=[1, 0, 1])
    >>> res.per_point["label_stability"].tolist()
    [1.0, 1.0, 0.0]
    >>> res.per_point["jitter"].round(4).tolist()
    [0.0, 0.0, 0.6667]
    >>> res.summary["accuracy"]
    1.0
    """
    p, codes, classes, threshold = _stability_iv(probas, y_true, classes, threshold)
    m, n = p.shape[:2]
    n_classes = 2 if p.ndim == 2 else p.shape[2]
    columns = _group_columns(groups, n, intersections)
    point = _per_point(p, threshold)

    summary: dict[str, Any] = {"n_models": m, "n_samples": n}
    summary.update({k: float(point[k].mean()) for k in POINT_METRICS})
    table = {"y_pred": classes[point["y_pred"]], "mean_proba": point["mean_proba"]}
    table.update({k: point[k] for k in POINT_METRICS})
    if codes is not None:
        state = ConfusionCounts(np.arange(n_classes), np.bincount(
            codes * n_classes + point["y_pred"],
            minlength=n_classes * n_classes).reshape(n_classes, n_classes))
        summary.update(_correctness(state, n_classes == 2, zero_division))
        table["y_true"] = classes[codes]
        table["correct"] = codes == point["y_pred"]
    by_group = _by_group(columns, point, codes, n_classes, reference_group,
                         zero_division) if columns else None
    return StabilityResult(summary=summary, per_point=pd.DataFrame(table),
                           by_group=by_group, probas=p, n_models=m, classes=classes)


# ---------------------------------------------------------------- audit

def _bootstrap_indices(rng: np.random.Generator, codes: np.ndarray, n_classes: int,
                       size: int, max_tries: int) -> np.ndarray:
    """Bootstrap indices that contain every class (redrawn up to ``max_tries`` times)."""
    n = codes.shape[0]
    for _ in range(max_tries):
        idx = rng.integers(0, n, size=size)
        if np.count_nonzero(np.bincount(codes[idx], minlength=n_classes)) == n_classes:
            return idx
    raise InputError(f"{max_tries} bootstrap samples of size {size} in a row missed a "
                     "class of y_train; the rarest class is too rare for a bootstrap of "
                     "this size (raise bootstrap_fraction or add samples)")


def _set_random_state(estimator: Any, seed: int) -> Any:
    params = estimator.get_params(deep=True)
    keys = {k: seed for k in params if k == "random_state" or k.endswith("__random_state")}
    if keys:
        estimator.set_params(**keys)
    return estimator


def _fit_predict(seed: np.random.SeedSequence, *, estimator: Any, X_train: Any,
                 y_train: np.ndarray, codes: np.ndarray, classes: np.ndarray, size: int,
                 X_test: Any, max_tries: int) -> np.ndarray:
    """Fit one clone on a bootstrap sample and return its test probabilities."""
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    rng = np.random.default_rng(_rng.child(seed, 0))
    idx = _bootstrap_indices(rng, codes, classes.shape[0], size, max_tries)
    model = clone(estimator)
    _set_random_state(model, int(_rng.child(seed, 1).generate_state(1)[0] >> 1))
    model.fit(_safe_indexing(X_train, idx), y_train[idx])
    return _predict(model, X_test, classes)


def _predict(model: Any, X_test: Any, classes: np.ndarray | None) -> np.ndarray:
    proba = np.asarray(model.predict_proba(X_test), dtype=np.float64)
    model_classes = getattr(model, "classes_", None)
    if classes is not None and model_classes is not None \
            and not np.array_equal(np.asarray(model_classes), classes):
        raise InputError(f"a model's classes_ {np.asarray(model_classes).tolist()!r} differ "
                         f"from the expected classes {classes.tolist()!r}")
    return proba


def _check_predict_proba(model: Any, name: str) -> None:
    if not hasattr(model, "predict_proba"):
        raise InputTypeError(f"{name} ({type(model).__name__}) has no predict_proba; stability "
                             "metrics need predicted probabilities (e.g. use "
                             "CalibratedClassifierCV, or SVC(probability=True))")


def stability_audit(estimator: Any, X_train: Any, y_train: Any, X_test: Any,
                    y_test: Any = None, *, n_estimators: int = 50,
                    bootstrap_fraction: float = 1.0, groups: Any = None,
                    random_state: RandomStateLike = None, n_jobs: int | None = None,
                    backend: Any = None, progress: bool | None = None,
                    max_resamples: int = 100, **metric_kwargs: Any) -> StabilityResult:
    """Train ``n_estimators`` clones on bootstrap samples and measure their stability.

    Parameters
    ----------
    estimator : scikit-learn classifier or list of fitted classifiers
        An unfitted estimator with ``fit`` and ``predict_proba`` (cloned for each
        model), or a list of already-fitted classifiers (then ``X_train`` and
        ``y_train`` must be None and nothing is trained).
    X_train, y_train : array-like
        Training data that the bootstrap samples are drawn from.
    X_test : array-like
        Points to predict.
    y_test : array-like, optional
        True labels of ``X_test`` (adds correctness metrics).
    n_estimators : int, default 50
        Number of models ``m`` (at least 2, at most 10_000: ``MAX_ESTIMATORS``).
    bootstrap_fraction : float, default 1.0
        Each bootstrap sample draws ``round(bootstrap_fraction * n_train)`` rows
        with replacement.
    groups, **metric_kwargs
        Passed to :func:`stability_metrics` (``reference_group``, ``threshold``,
        ``intersections``, ``zero_division``).
    random_state : None, int, SeedSequence or Generator
        Seeds are spawned per model (``numpy.random.SeedSequence.spawn``);
        each model's seed draws its bootstrap indices and sets every
        ``random_state`` parameter of the clone, so the same seed gives the same
        models whatever ``n_jobs`` and ``backend``.
    n_jobs, backend : optional
        Parallel execution (see :func:`dartboard._parallel.parallel_map`).
    progress : bool, optional
        A progress bar on standard error: None (the default) shows it when standard
        error is a terminal and the work lasts more than a second; True always;
        False never.
    max_resamples : int, default 100
        A bootstrap sample that misses a class of ``y_train`` is redrawn (from
        the model's own stream, so still deterministic), at most this many times;
        every model then knows every class and the probability columns align.

    Returns
    -------
    StabilityResult
        See :func:`stability_metrics`; ``probas`` holds each model's predictions.

    Notes
    -----
    For a precomputed probability matrix, call :func:`stability_metrics` on it.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> res = stability_audit(LogisticRegression(max_iter=5000), X[:400], y[:400],
    ...                       X[400:], y[400:], n_estimators=5, random_state=0)
    >>> res.probas.shape
    (5, 169)
    >>> 0.0 <= res.summary["jitter"] <= 1.0
    True
    """
    if isinstance(estimator, (list, tuple)):
        if X_train is not None or y_train is not None:
            raise InputError("with a list of fitted models, X_train and y_train must be None "
                             "(nothing is trained)")
        models = list(estimator)
        if len(models) < 2:
            raise InputError(f"estimator must list at least 2 fitted models; got "
                             f"{len(models)}")
        for i, model in enumerate(models):
            _check_predict_proba(model, f"estimator[{i}]")
        first = getattr(models[0], "classes_", None)
        classes = None if first is None else np.asarray(first)
        func = functools.partial(_predict, X_test=X_test, classes=classes)
        probas = parallel_map(func, models, n_jobs=n_jobs, backend=backend,
                              progress=progress, description="predicting")
    else:
        _check_predict_proba(estimator, "estimator")
        if not hasattr(estimator, "fit"):
            raise InputTypeError(f"estimator ({type(estimator).__name__}) has no fit method")
        n_estimators = check_int(n_estimators, "n_estimators", minimum=2,
                                 maximum=MAX_ESTIMATORS)
        max_resamples = check_int(max_resamples, "max_resamples", minimum=1)
        if isinstance(bootstrap_fraction, bool) or not isinstance(bootstrap_fraction,
                                                                  numbers.Real) \
                or not bootstrap_fraction > 0:
            raise InputError(f"bootstrap_fraction must be a positive number; got "
                             f"{describe(bootstrap_fraction)}")
        if X_train is None or y_train is None:
            raise InputError("X_train and y_train are required to train the ensemble")
        encoded = encode_labels(("y_train", y_train))
        classes, codes = encoded.classes, encoded.codes[0]
        y = label_array(y_train, name="y_train")
        n_train = codes.shape[0]
        if len(X_train) != n_train:
            raise InputError(f"inconsistent numbers of samples: X_train has {len(X_train)}, "
                             f"y_train has {n_train}")
        if classes.shape[0] < 2:
            raise InputError(f"y_train must contain at least 2 classes; got "
                             f"{classes.tolist()!r}")
        size = int(round(bootstrap_fraction * n_train))
        if size < classes.shape[0]:
            raise InputError(f"bootstrap samples of round({bootstrap_fraction} * {n_train}) "
                             f"= {size} rows cannot hold all {classes.shape[0]} classes")
        func = functools.partial(_fit_predict, estimator=estimator, X_train=X_train,
                                 y_train=y, codes=codes, classes=classes, size=size,
                                 X_test=X_test, max_tries=max_resamples)
        probas = parallel_map(func, _rng.spawn(random_state, n_estimators), n_jobs=n_jobs,
                              backend=backend, progress=progress,
                              description="training ensemble")
    stacked = np.stack(probas)
    if classes is None:
        classes = np.arange(stacked.shape[2])
    if stacked.shape[2] == 2:
        stacked = stacked[:, :, 1]
    return stability_metrics(stacked, y_test, groups, classes=classes, **metric_kwargs)
