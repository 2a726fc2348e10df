"""The inputs of the report's selection and stability figures, as JSON and back.

Whoever computes the results (``dartboard demo``) stores each figure's input with
``*_input(result)``; the report rebuilds the result object the plot takes with
``*_from_input(saved)`` and draws it. Nothing here computes: values are copied, and
tables travel as ``{"columns", "dtypes", "data"}`` so that an empty table
keeps its columns and types. Floats survive JSON exactly, so a figure redrawn from
``results.json`` is the figure of the run.
"""

from __future__ import annotations

from typing import Any

__all__ = ["sweep_input", "sweep_from_input", "rank_input", "rank_from_input",
           "stability_input", "stability_from_input", "k_models_input"]

# what plot_stability draws from the per-point table
_POINT_COLUMNS = ("label_stability", "total", "aleatoric", "mutual_information")


def _table(frame: Any) -> dict[str, Any]:
    return {"columns": [str(c) for c in frame.columns],
            "dtypes": [str(t) for t in frame.dtypes],
            "data": frame.to_numpy(dtype=object).tolist()}


def _frame(table: dict[str, Any]) -> Any:
    import pandas as pd

    # JSON's null is a float column's NaN again
    return pd.DataFrame(table["data"], columns=table["columns"]).astype(
        dict(zip(table["columns"], table["dtypes"])))


def sweep_input(sweep: Any) -> dict[str, Any]:
    """The DART-sweep figure's input: the configurations (mean, std, numerator), the
    winners and the crossings of a :func:`dartboard.dart_sweep` result.

    The per-precision rankings are left out: the figure draws each curve from its
    formula, on a grid finer than the sweep's.
    """
    return {"precisions": [float(p) for p in sweep.precisions],
            "configurations": _table(sweep.configurations.reset_index()),
            "winners": _table(sweep.winners), "crossings": _table(sweep.crossings),
            "chance_level": float(sweep.chance_level)}


def sweep_from_input(saved: dict[str, Any]) -> Any:
    """A :class:`~dartboard.DartSweepResult` for :func:`plot_dart_sweep`
    (its ``rankings`` table empty)."""
    import numpy as np
    import pandas as pd

    from dartboard.selection import DartSweepResult

    return DartSweepResult(
        precisions=np.asarray(saved["precisions"], dtype=np.float64),
        configurations=_frame(saved["configurations"]).set_index("index"),
        rankings=pd.DataFrame(columns=["p", "index", "configuration", "dart", "rank"]),
        winners=_frame(saved["winners"]), crossings=_frame(saved["crossings"]),
        chance_level=saved["chance_level"])


def rank_input(ranked: Any) -> dict[str, Any]:
    """The critical-difference figure's input: a :func:`dartboard.rank_models` result."""
    return {"summary": _table(ranked.summary), "statistic": ranked.statistic,
            "pvalue": ranked.pvalue, "critical_difference": ranked.critical_difference,
            "q_alpha": ranked.q_alpha, "alpha": ranked.alpha,
            "n_datasets": int(ranked.n_datasets), "n_models": int(ranked.n_models),
            "ranks": _table(ranked.ranks), "higher_is_better": bool(ranked.higher_is_better)}


def rank_from_input(saved: dict[str, Any]) -> Any:
    """The :class:`~dartboard.RankResult` for :func:`plot_critical_difference`."""
    from dartboard.compare._results import RankResult

    return RankResult(**{**saved, "summary": _frame(saved["summary"]),
                         "ranks": _frame(saved["ranks"])})


def stability_input(result: Any) -> dict[str, Any]:
    """The stability figure's input: the summary, the per-point columns the histograms
    show and the classes of a :func:`dartboard.stability_audit` result."""
    return {"summary": dict(result.summary), "n_models": int(result.n_models),
            "classes": list(result.classes.tolist()),
            "per_point": _table(result.per_point[list(_POINT_COLUMNS)])}


def stability_from_input(saved: dict[str, Any], probas: Any) -> Any:
    """The :class:`~dartboard.StabilityResult` for :func:`plot_stability`
    (its per-point table holding the histograms' columns only)."""
    import numpy as np

    from dartboard.stability import StabilityResult

    return StabilityResult(summary=dict(saved["summary"]),
                           per_point=_frame(saved["per_point"]), by_group=None,
                           probas=np.asarray(probas, dtype=np.float64),
                           n_models=saved["n_models"], classes=np.asarray(saved["classes"]))


def k_models_input(result: Any) -> dict[str, Any]:
    """The k-model section: estimates and the pairwise table of a
    :func:`dartboard.compare_k_models` result, as rows."""
    return {"metric": result.metric,
            "description": (f"Every pair of models compared ({result.sampler}); adjusted "
                            f"p-values control the family-wise error at alpha = "
                            f"{result.alpha:g}."),
            "estimates": [{"model": str(m), "estimate": float(v)}
                          for m, v in result.estimates.items()],
            "pairwise": result.pairwise.to_dict(orient="records")}
