"""Matplotlib figures, in the manner of scikit-learn's Display objects.

Every function takes an optional ``ax`` and returns the ``matplotlib.axes.Axes`` it
drew on. Without ``ax`` a new figure is made through pyplot, so ``plt.show()`` shows it
in a script and a notebook displays it; with ``ax`` pyplot's state is left alone.
matplotlib is imported only when a plot is drawn.
"""

from dartboard._lazy import attach as _attach

_FAMILIES = {
    "dartboard.plots._metrics": [
        "plot_roc_curve", "plot_precision_recall_curve", "plot_confusion_matrix",
        "plot_calibration_curve", "plot_error_distribution",
    ],
    "dartboard.evaluation._figure": ["plot_evaluation", "plot_group_gaps"],
    "dartboard.plots._regression": ["plot_predicted_vs_actual", "plot_residuals"],
    "dartboard.plots._calibration": ["plot_reliability_diagram"],
    "dartboard.plots._compare": ["plot_critical_difference"],
    "dartboard.plots._selection": ["plot_dart_sweep", "plot_fold_scores"],
    "dartboard.plots._stability": ["plot_stability"],
}

__getattr__, __dir__, __all__ = _attach("dartboard.plots", _FAMILIES, namespace=globals())
