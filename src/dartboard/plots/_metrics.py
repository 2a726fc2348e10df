"""Figures of one model's predictions: ROC, precision-recall, confusion matrix,
calibration and the distribution of regression errors.

Each function accepts either the raw data (``y_true`` with scores, predictions or
probabilities) or the already computed points (keywords such as ``fpr``/``tpr``), so
that a figure can be redrawn from a saved ``results.json`` without the data. Every
function takes an optional ``ax`` and returns the ``matplotlib.axes.Axes`` it drew
on; without ``ax`` a new figure is made through pyplot (as scikit-learn's Display
objects do), so ``plt.show()`` shows it and a notebook displays it; with ``ax`` nothing
is added to pyplot's state. The HTML report draws on figures of its own, outside pyplot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._figures import new_axes
from dartboard._format import format_number
from dartboard._labels import encode_labels, positive_index
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    column_1d,
)
from dartboard.evaluation._points import calibration_points
from dartboard.exceptions import InputError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "plot_roc_curve", "plot_precision_recall_curve", "plot_confusion_matrix",
    "plot_calibration_curve", "plot_error_distribution",
]


def _bounds(interval: Any) -> tuple[float, float] | None:
    """``(low, high)`` from an ``Interval``, a mapping with low/high, or a pair."""
    if interval is None:
        return None
    if isinstance(interval, dict):
        return float(interval["low"]), float(interval["high"])
    if hasattr(interval, "low") and hasattr(interval, "high"):
        return float(interval.low), float(interval.high)
    low, high = interval
    return float(low), float(high)


def _label(name: str | None, what: str, value: float | None, interval: Any) -> str:
    parts = [name] if name else []
    if value is not None:
        text = f"{what} = {value:.3f}"
        bounds = _bounds(interval)
        if bounds is not None:
            text += f" [{bounds[0]:.3f}, {bounds[1]:.3f}]"
        parts.append(f"({text})" if name else text)
    return " ".join(parts)


def _points(given: dict[str, Any], data: tuple[Any, Any], data_names: tuple[str, str]) -> bool:
    """True when precomputed points were given; checks that exactly one form was."""
    has_points = all(v is not None for v in given.values())
    if any(v is not None for v in given.values()) and not has_points:
        raise InputError(f"give all of {', '.join(given)} together; got only "
                         f"{', '.join(k for k, v in given.items() if v is not None)}")
    has_data = data[0] is not None and data[1] is not None
    if has_points == has_data:
        raise InputError(f"give either {data_names[0]} and {data_names[1]}, or "
                         f"{' and '.join(given)}; got "
                         f"{'both' if has_points else 'neither'}")
    return has_points


def _field(obj: Any, name: str) -> Any:
    """An attribute of a result object, or the key of its ``to_dict()`` form."""
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def _draw_band(ax: Any, band: Any) -> None:
    """Fill a :class:`~dartboard.CurveBand` (or its dict) in curve space."""
    axis = _field(band, "axis")
    grid, low, high = (np.asarray(_field(band, k), dtype=float) for k in ("grid", "low", "high"))
    label = f"{_field(band, 'confidence_level'):.0%} {_field(band, 'kind')} band"
    if axis == "specificity":      # sensitivity at specificities: vertical band over FPR
        ax.fill_between(1.0 - grid, low, high, alpha=0.25, lw=0, label=label)
    elif axis == "sensitivity":    # specificity at sensitivities: horizontal band
        ax.fill_betweenx(grid, 1.0 - high, 1.0 - low, alpha=0.25, lw=0, label=label)
    else:                          # precision at recalls
        ax.fill_between(grid, low, high, alpha=0.25, lw=0, label=label)


def _draw_point(ax: Any, point: Any, x_name: str, y_name: str, flip_x: bool) -> None:
    """Mark an :class:`~dartboard.OperatingPoint` with its intervals as error bars."""
    iv = _field(point, "intervals")

    def values(name: str) -> tuple[float, float, float]:
        # undefined values (nan, or None once written to JSON) draw nothing
        estimate, low, high = (np.nan if _field(iv[name], k) is None
                               else float(_field(iv[name], k))
                               for k in ("estimate", "low", "high"))
        return estimate, low, high

    (x, x_low, x_high), (y, y_low, y_high) = values(x_name), values(y_name)
    if np.isnan(x) or np.isnan(y):
        return
    if flip_x:  # TNR -> FPR
        x, x_low, x_high = 1.0 - x, 1.0 - x_high, 1.0 - x_low
    crit = _field(point, "criterion")
    ax.errorbar([x], [y], xerr=[[x - x_low], [x_high - x]], yerr=[[y - y_low], [y_high - y]],
                fmt="o", color="black", capsize=3, zorder=5,
                label=f"threshold {format_number(_field(point, 'threshold'))}"
                + (f" ({crit})" if crit else ""))


def _check_pos_label(y_true: Any, pos_label: Any) -> None:
    """A curve drawn from labels: a pos_label that is not one of the two classes is a
    mistake (the rule of :mod:`dartboard._labels`), not a curve without positives."""
    positive_index(encode_labels(("y_true", y_true)).classes, pos_label, refuse_absent=True)


def plot_roc_curve(y_true: ArrayLike | None = None, y_score: ArrayLike | None = None, *, fpr: Any = None,
                   tpr: Any = None, roc_auc: float | None = None, interval: Any = None,
                   pos_label: Any = None, name: str | None = None, ax: Any = None,
                   band: Any = None, operating_point: Any = None) -> Axes:
    """Receiver operating characteristic curve, with the AUC and its interval.

    Parameters
    ----------
    y_true, y_score : array-like, optional
        Binary labels and scores; the curve is computed with
        :func:`dartboard.metrics.roc_curve`.
    fpr, tpr : array-like, optional
        Precomputed curve points, instead of ``y_true`` and ``y_score``.
    roc_auc : float, optional
        Area to print in the legend; computed by the trapezoid rule when omitted.
    interval : Interval, mapping or (low, high), optional
        Confidence interval of the AUC, printed next to it.
    pos_label, name, ax
        Positive class, legend name, axes to draw on.
    band : CurveBand or its dict, optional
        A band from :func:`dartboard.roc_band`, filled around the curve.
    operating_point : OperatingPoint or its dict, optional
        From :func:`dartboard.select_threshold`: marked at (FPR, TPR) with its
        intervals as error bars.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    dartboard.roc_band : The band drawn around the curve.
    dartboard.plots.plot_precision_recall_curve : The precision-recall curve.

    Examples
    --------
    >>> ax = plot_roc_curve(fpr=[0, 0.2, 1], tpr=[0, 0.8, 1], interval=(0.7, 0.9))
    >>> ax.get_legend().get_texts()[0].get_text()
    'AUC = 0.800 [0.700, 0.900]'
    """
    if not _points({"fpr": fpr, "tpr": tpr}, (y_true, y_score), ("y_true", "y_score")):
        from dartboard.metrics import roc_curve

        _check_pos_label(y_true, pos_label)
        fpr, tpr, _ = roc_curve(y_true, y_score, pos_label=pos_label)
    fpr = as_float_array(fpr, name="fpr")
    tpr = as_float_array(tpr, name="tpr")
    check_consistent_length(("fpr", fpr), ("tpr", tpr))
    if roc_auc is None:
        roc_auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    ax = new_axes(ax)
    ax.plot(fpr, tpr, lw=2, label=_label(name, "AUC", roc_auc, interval))
    ax.plot([0, 1], [0, 1], ls="--", lw=1, color="0.6", label="chance")
    if band is not None:
        _draw_band(ax, band)
    if operating_point is not None:
        _draw_point(ax, operating_point, "tnr", "tpr", flip_x=True)
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal",
           xlabel="False positive rate", ylabel="True positive rate", title="ROC curve")
    ax.legend(loc="lower right")
    return ax


def plot_precision_recall_curve(y_true: ArrayLike | None = None, y_score: ArrayLike | None = None, *,
                                precision: Any = None, recall: Any = None,
                                average_precision: float | None = None,
                                interval: Any = None, prevalence: float | None = None,
                                pos_label: Any = None, name: str | None = None,
                                ax: Any = None, band: Any = None,
                                operating_point: Any = None) -> Axes:
    """Precision-recall curve (step-wise, as average precision sums it).

    Parameters
    ----------
    y_true, y_score : array-like, optional
        Binary labels and scores, for :func:`dartboard.metrics.precision_recall_curve`.
    precision, recall : array-like, optional
        Precomputed curve points (recall decreasing, as the metric returns them).
    average_precision : float, optional
        Printed in the legend; computed as the step sum
        ``sum_n (R_n - R_{n+1}) P_n`` when omitted.
    interval : Interval, mapping or (low, high), optional
        Interval of the average precision.
    prevalence : float, optional
        Share of positives, drawn as the no-skill line (computed from ``y_true``).
    band : CurveBand or its dict, optional
        A band from :func:`dartboard.pr_band`, filled around the curve.
    operating_point : OperatingPoint or its dict, optional
        Marked at (recall, precision) with its intervals as error bars.
    pos_label, name, ax
        Positive class, legend name, axes to draw on.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_precision_recall_curve(precision=[0.5, 1.0, 1.0], recall=[1.0, 0.5, 0.0])
    >>> ax.get_legend().get_texts()[0].get_text()
    'AP = 0.750'
    """
    if not _points({"precision": precision, "recall": recall}, (y_true, y_score),
                   ("y_true", "y_score")):
        from dartboard.metrics import precision_recall_curve

        _check_pos_label(y_true, pos_label)
        precision, recall, _ = precision_recall_curve(y_true, y_score, pos_label=pos_label)
        if prevalence is None:
            # the first point of the curve (every sample predicted positive)
            prevalence = float(precision[0])
    precision = as_float_array(precision, name="precision")
    recall = as_float_array(recall, name="recall")
    check_consistent_length(("precision", precision), ("recall", recall))
    if average_precision is None:
        average_precision = float(-np.sum(np.diff(recall) * precision[:-1]))
    ax = new_axes(ax)
    ax.step(recall, precision, where="post", lw=2,
            label=_label(name, "AP", average_precision, interval))
    if prevalence is not None:
        ax.axhline(prevalence, ls="--", lw=1, color="0.6", label="no skill")
    if band is not None:
        _draw_band(ax, band)
    if operating_point is not None:
        _draw_point(ax, operating_point, "tpr", "precision", flip_x=False)
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal", xlabel="Recall",
           ylabel="Precision", title="Precision-recall curve")
    ax.legend(loc="lower left")
    return ax


def plot_confusion_matrix(y_true: ArrayLike | None = None, y_pred: ArrayLike | None = None, *, matrix: Any = None,
                          labels: ArrayLike | None = None, normalize: str | None = None,
                          cmap: str = "Blues", ax: Any = None) -> Axes:
    """Heat map of the confusion matrix (rows true class, columns predicted).

    Parameters
    ----------
    y_true, y_pred : array-like, optional
        Labels, counted with :func:`dartboard.metrics.confusion_matrix`.
    matrix : array-like of shape (K, K), optional
        Precomputed counts, instead of ``y_true`` and ``y_pred``.
    labels : sequence, optional
        Class names for the axes (default 0..K-1, or the classes found in the data).
    normalize : {None, "true", "pred", "all"}
        Show shares of each row, column or of the total instead of counts.
    cmap : str, default="Blues"
        Matplotlib colour map.
    ax : matplotlib Axes, optional
        Drawn on a new pyplot figure when omitted (``plt.show()`` shows it).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_confusion_matrix(matrix=[[50, 2], [3, 45]], labels=["no", "yes"])
    >>> [t.get_text() for t in ax.texts]
    ['50', '2', '3', '45']
    """
    from dartboard._validation import check_option

    normalize = check_option(normalize, "normalize", [None, "true", "pred", "all"])
    if (matrix is None) == (y_true is None or y_pred is None):
        raise InputError("give either y_true and y_pred, or matrix")
    if matrix is None:
        from dartboard.metrics import confusion_matrix

        y_true = column_1d(y_true, name="y_true")
        y_pred = column_1d(y_pred, name="y_pred")
        matrix = confusion_matrix(y_true, y_pred, labels=labels)
        if labels is None:
            labels = np.unique(np.concatenate([np.unique(y_true), np.unique(y_pred)]))
    counts = as_float_array(matrix, name="matrix", ndim=2)
    if counts.shape[0] != counts.shape[1]:
        raise InputError(f"matrix must be square; got shape {counts.shape}")
    k = counts.shape[0]
    names = [str(v) for v in (range(k) if labels is None else np.asarray(labels).tolist())]
    if len(names) != k:
        raise InputError(f"labels must name the {k} classes of matrix; got {len(names)}")
    shown = counts
    if normalize is not None:
        axis = {"true": 1, "pred": 0, "all": None}[normalize]
        total = counts.sum(axis=axis, keepdims=axis is not None)
        shown = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    ax = new_axes(ax, figsize=(4.5, 4.0))
    image = ax.imshow(shown, cmap=cmap, vmin=0)
    ax.figure.colorbar(image, ax=ax, shrink=0.8)
    threshold = shown.max() / 2 if shown.size else 0
    for i in range(k):
        for j in range(k):
            value = shown[i, j]
            text = f"{value:.2f}" if normalize else f"{value:.0f}" \
                if float(value).is_integer() else f"{value:.1f}"
            ax.text(j, i, text, ha="center", va="center",
                    color="white" if value > threshold else "black")
    ax.set(xticks=range(k), yticks=range(k), xticklabels=names, yticklabels=names,
           xlabel="Predicted label", ylabel="True label", title="Confusion matrix")
    return ax


def plot_calibration_curve(y_true: ArrayLike | None = None, y_prob: ArrayLike | None = None, *, n_bins: int = 10,
                           prob_pred: Any = None, prob_true: Any = None, counts: Any = None,
                           pos_label: Any = 1, name: str | None = None,
                           ax: Any = None) -> Axes:
    """Reliability diagram: observed share of positives against mean predicted
    probability in uniform bins; marker area grows with the bin's count.

    Parameters
    ----------
    y_true, y_prob : array-like, optional
        Binary labels and predicted probabilities of ``pos_label``.
    prob_pred, prob_true, counts : array-like, optional
        Precomputed points (see :func:`dartboard.evaluation.calibration_points`),
        instead of the data, which are binned by that function.
    n_bins : int, default=10
        Number of uniform bins.
    pos_label, name, ax
        Positive class, legend name, axes to draw on.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_calibration_curve([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], n_bins=2)
    >>> ax.get_title()
    'Calibration'
    """
    if not _points({"prob_pred": prob_pred, "prob_true": prob_true}, (y_true, y_prob),
                   ("y_true", "y_prob")):
        points = calibration_points(y_true, y_prob, n_bins=n_bins, pos_label=pos_label)
        prob_pred, prob_true, counts = points["prob_pred"], points["prob_true"], \
            points["counts"]
    prob_pred = as_float_array(prob_pred, name="prob_pred")
    prob_true = as_float_array(prob_true, name="prob_true")
    check_consistent_length(("prob_pred", prob_pred), ("prob_true", prob_true))
    ax = new_axes(ax)
    ax.plot([0, 1], [0, 1], ls="--", lw=1, color="0.6", label="perfectly calibrated")
    ax.plot(prob_pred, prob_true, lw=1.5, label=name or "model")
    if counts is not None:
        counts = as_float_array(counts, name="counts")
        sizes = 20 + 180 * counts / counts.max()
        ax.scatter(prob_pred, prob_true, s=sizes, alpha=0.7, zorder=3)
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), aspect="equal",
           xlabel="Mean predicted probability", ylabel="Observed share of positives",
           title="Calibration")
    ax.legend(loc="upper left")
    return ax


def plot_error_distribution(y_true: ArrayLike | None = None, y_pred: ArrayLike | None = None, *, errors: Any = None,
                            bins: int | str = "auto", kde: bool = True, ax: Any = None) -> Axes:
    """Distribution of regression errors ``e = y_true - y_pred``: the density (PDF, left
    axis) as a histogram and a Gaussian KDE, and the empirical CDF (right axis).

    Parameters
    ----------
    y_true, y_pred : array-like, optional
        Targets and predictions.
    errors : array-like or ErrorDistribution, optional
        The errors themselves (a saved report keeps a quantile grid of them) or the
        result of :func:`dartboard.metrics.error_distribution`, instead of the data.
    bins : int or str
        Histogram bins, as ``numpy.histogram_bin_edges``.
    kde : bool
        Draw the kernel density (:meth:`dartboard.metrics.ErrorDistribution.kde`, Scott's bandwidth)
        over the histogram; left out when all errors are equal.
    ax : matplotlib Axes, optional
        Drawn on a new pyplot figure when omitted (``plt.show()`` shows it).

    Returns
    -------
    matplotlib.axes.Axes
        The PDF axes; the CDF is drawn on a twin axes sharing its x axis.

    Examples
    --------
    >>> ax = plot_error_distribution(errors=[-1.0, 0.0, 0.5, 2.0])
    >>> ax.get_xlabel()
    'Error (true - predicted)'
    """
    from dartboard.metrics import ErrorDistribution, error_distribution

    if isinstance(errors, ErrorDistribution):
        dist = errors
    elif (errors is None) == (y_true is None or y_pred is None):
        raise InputError("give either y_true and y_pred, or errors")
    elif errors is None:
        dist = error_distribution(y_true, y_pred)
    else:
        dist = ErrorDistribution(np.sort(as_float_array(errors, name="errors")))
    e = dist.errors
    ax = new_axes(ax, figsize=(6.0, 4.0))
    density, edges = dist.histogram(bins)
    ax.stairs(density, edges, fill=True, alpha=0.4, color="C0", label="PDF (histogram)")
    if kde and e[0] < e[-1]:
        x, pdf = dist.kde()
        ax.plot(x, pdf, color="C0", lw=1.5, label="PDF (KDE)")
    ax.axvline(0.0, color="0.4", lw=1, ls=":")
    cdf_ax = ax.twinx()
    cdf_ax.step(e, np.arange(1, e.size + 1) / e.size, where="post", color="C3", lw=2,
                label="CDF")
    cdf_ax.set(ylim=(0, 1.02), ylabel="Cumulative share")
    ax.set(xlabel="Error (true - predicted)", ylabel="Density", title="Error distribution")
    handles = ax.get_legend_handles_labels()
    cdf_handles = cdf_ax.get_legend_handles_labels()
    ax.legend(handles[0] + cdf_handles[0], handles[1] + cdf_handles[1], loc="upper left")
    return ax
