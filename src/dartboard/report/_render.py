"""Render a results dictionary (as saved in ``results.json``) to one HTML file.

The page needs no network: figures are inline SVG drawn by matplotlib from the
points saved in the results (curves, matrices, rankings, the per-point stability
of an ensemble); the report computes none of them. Styles are inline, there is no script, and a Content-Security-Policy
meta tag forbids the browser from fetching anything. Files are written atomically
by :mod:`dartboard.report._write` (a temporary file in the same directory, then
``os.replace``, over a regular file only), so a reader never sees half a report
and a failed run leaves no partial file.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from dartboard._format import format_cells, format_number
from dartboard._results import to_jsonable
from dartboard.exceptions import InputError
from dartboard.report._write import check_target, write_text_atomic

__all__ = ["render_report", "write_report", "write_json", "svg_of", "FIGURES"]

# figure id -> (section, caption); the order is the order on the page
FIGURES: dict[str, tuple[str, str]] = {
    "dart-sweep": ("selection", "DART score of each configuration against the precision p; "
                                "shaded bands mark which configuration wins where."),
    "fold-scores": ("selection", "Fold scores of each configuration (mean and spread)."),
    "critical-difference": ("selection", "Critical-difference diagram: average ranks over "
                                         "folds; configurations joined by a bar are not "
                                         "significantly different by Nemenyi's test of all "
                                         "pairs. The adjusted p-value tests each configuration "
                                         "against the best only (a step-down range test that "
                                         "allows for the best being picked after looking), "
                                         "so it can single out one the bars still join."),
    "roc": ("classification", "ROC curve of the held-out predictions, with the AUC and its "
                              "confidence interval."),
    "pr": ("classification", "Precision-recall curve, with the average precision and its "
                             "confidence interval."),
    "confusion": ("classification", "Confusion matrix on the held-out set (rows: true "
                                    "class, columns: predicted)."),
    "calibration": ("classification", "Reliability diagram: observed share of positives "
                                      "per bin of predicted probability, with its interval "
                                      "(Wilson); a long bar is a bin of few predictions. "
                                      "Beneath: predictions per bin. Title: the ECE of the "
                                      "metric table (the same 15 bins) with its interval."),
    "group-gaps": ("classification", "The largest gap between groups of each metric (the "
                                     "higher group minus the lower) with its interval; the "
                                     "dashed line marks no gap."),
    "stability": ("stability", "Stability of the bootstrap ensemble: per-point label "
                               "stability and spread of the predicted probabilities."),
    "predicted-actual": ("regression", "Each held-out prediction against the actual "
                                       "value; on the dashed diagonal the prediction is "
                                       "exact, above it too low, below it too high."),
    "residuals": ("regression", "Residuals (actual minus predicted) against the "
                                "prediction; a trend or a widening band means the error "
                                "depends on the prediction."),
    "error-distribution": ("regression", "Distribution of the regression errors on the "
                                         "held-out set: density (bars) and cumulative "
                                         "share (line)."),
}

# the size of a figure that shares a row with another: at most the width of a column of
# the page's grid at full width, so that it is drawn at its own size (its text the same
# size as every other figure's)
_HALF = (5.5, 4.5)
_SVG_OPEN = re.compile(r"<svg\b[^>]*>")
_ID = re.compile(r'\bid="([^"]+)"')
_WIDTH_PT = re.compile(r'\swidth="([0-9.]+)pt"')
_PX_PER_PT = 96 / 72  # CSS pixels per point


def svg_of(fig: Any, prefix: str) -> str:
    """Inline, responsive SVG markup of a matplotlib figure.

    The XML header and DOCTYPE are dropped, the root keeps its ``viewBox`` but its
    fixed width and height are replaced by ``width="100%"`` with a ``max-width`` of
    the figure's own width, and every ``id`` is prefixed so several figures can share
    one page without clashing. A figure shrinks on a narrow screen but is never drawn
    larger than its size, so the text of every figure on the page has the same size
    (matplotlib's 10 pt), whatever the figure's width.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    prefix : str
        Prefix of the ``id`` attributes, unique on the page.

    Returns
    -------
    str
        The ``<svg>`` element.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 2))
    >>> _ = fig.subplots().plot([0, 1], [0, 1])
    >>> svg = svg_of(fig, "demo")
    >>> svg.startswith('<svg width="100%"'), "viewBox" in svg, "<?xml" in svg
    (True, True, False)
    >>> 'style="max-width: 192px"' in svg  # 2 inches at 96 pixels per inch
    True
    """
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "dartboard", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    head = _SVG_OPEN.match(text)
    assert head is not None  # matplotlib's SVG starts with its <svg> element
    root = head.group(0)
    width = _WIDTH_PT.search(root)
    cap = f' style="max-width: {float(width.group(1)) * _PX_PER_PT:.0f}px"' if width else ""
    root = re.sub(r'\s(width|height)="[^"]*"', "", root)
    root = root.replace("<svg", f'<svg width="100%"{cap} role="img" class="fig-{prefix}"', 1)
    text = root + text[head.end():]
    for name in set(_ID.findall(text)):
        new = f"{prefix}-{name}"
        text = text.replace(f'id="{name}"', f'id="{new}"') \
                   .replace(f"#{name})", f"#{new})") \
                   .replace(f'href="#{name}"', f'href="#{new}"')
    return text.strip()


def _figure(draw: Callable[[Any], object], figsize: tuple[float, float]) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    draw(fig)
    return fig


def _interval(row: dict[str, Any] | None) -> Any:
    if not row or row.get("low") is None or row.get("high") is None:
        return None
    return (row["low"], row["high"])


def _metric_row(section: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((m for m in section.get("metrics", []) if m["metric"] == name), None)


def _draw_roc(results: dict[str, Any]) -> Any:
    from dartboard.plots._metrics import plot_roc_curve

    sec = results["classification"]
    roc = sec["roc"]
    row = _metric_row(sec, "roc_auc")
    return _figure(lambda fig: plot_roc_curve(
        fpr=roc["fpr"], tpr=roc["tpr"], roc_auc=row["estimate"] if row else None,
        interval=_interval(row), name=sec.get("model"), ax=fig.subplots(),
        band=sec.get("roc_band"), operating_point=sec.get("operating_point")), (5, 4.6))


def _draw_pr(results: dict[str, Any]) -> Any:
    from dartboard.plots._metrics import plot_precision_recall_curve

    sec = results["classification"]
    pr = sec["pr"]
    row = _metric_row(sec, "average_precision")
    return _figure(lambda fig: plot_precision_recall_curve(
        precision=pr["precision"], recall=pr["recall"],
        average_precision=row["estimate"] if row else None, interval=_interval(row),
        prevalence=pr.get("prevalence"), name=sec.get("model"), ax=fig.subplots(),
        band=sec.get("pr_band"), operating_point=sec.get("operating_point")), (5, 4.6))


def _draw_confusion(results: dict[str, Any]) -> Any:
    from dartboard.plots._metrics import plot_confusion_matrix

    cm = results["classification"]["confusion"]
    return _figure(lambda fig: plot_confusion_matrix(
        matrix=cm["matrix"], labels=cm["labels"], ax=fig.subplots()), (5, 4.2))


def _draw_calibration(results: dict[str, Any]) -> Any:
    from dartboard.plots._calibration import plot_reliability_diagram
    from dartboard.plots._metrics import plot_calibration_curve

    sec = results["classification"]
    cal = sec["calibration"]
    if "low" not in cal:  # results saved before the per-bin intervals
        return _figure(lambda fig: plot_calibration_curve(
            prob_pred=cal["prob_pred"], prob_true=cal["prob_true"], counts=cal["counts"],
            name=sec.get("model"), ax=fig.subplots()), (5, 4.6))
    row = _metric_row(sec, "ece")
    return _figure(lambda fig: plot_reliability_diagram(
        points=cal, ece=row["estimate"] if row else None, interval=_interval(row),
        name=sec.get("model"), fig=fig), (5, 5.6))


def _draw_gaps(results: dict[str, Any]) -> Any:
    from dartboard.plots import plot_group_gaps

    rows = results["classification"]["difference"]
    return _figure(lambda fig: plot_group_gaps(rows, ax=fig.subplots()),
                   (6.5, 0.32 * len(rows) + 1.4))


def _draw_errors(results: dict[str, Any]) -> Any:
    from dartboard.plots._metrics import plot_error_distribution

    errors = results["regression"]["errors"]
    return _figure(lambda fig: plot_error_distribution(errors=errors, ax=fig.subplots()),
                   (6.5, 4))


def _draw_fit(results: dict[str, Any]) -> Any:
    from dartboard.plots._regression import plot_predicted_vs_actual

    sec = results["regression"]
    fit = sec["fit"]
    return _figure(lambda fig: plot_predicted_vs_actual(
        predicted=fit["predicted"], actual=fit["actual"], name=sec.get("model"),
        ax=fig.subplots()), (5, 4.6))


def _draw_residuals(results: dict[str, Any]) -> Any:
    from dartboard.plots._regression import plot_residuals

    sec = results["regression"]
    fit = sec["fit"]
    return _figure(lambda fig: plot_residuals(
        predicted=fit["predicted"], residual=fit["residual"], name=sec.get("model"),
        ax=fig.subplots()), (5, 4.6))


def _draw_sweep(results: dict[str, Any]) -> Any:
    from dartboard.plots import plot_dart_sweep
    from dartboard.report._inputs import sweep_from_input

    sweep = sweep_from_input(results["selection"]["sweep"])
    return _figure(lambda fig: plot_dart_sweep(sweep, ax=fig.subplots()), _HALF)


def _draw_folds(results: dict[str, Any]) -> Any:
    import pandas as pd

    from dartboard.plots import plot_fold_scores

    # the ranking rows are dart_rank's table, in rank order
    ranking = pd.DataFrame(results["selection"]["ranking"])
    return _figure(lambda fig: plot_fold_scores(ranking, ax=fig.subplots()), _HALF)


def _draw_cd(results: dict[str, Any]) -> Any:
    from dartboard.plots import plot_critical_difference
    from dartboard.report._inputs import rank_from_input

    ranked = rank_from_input(results["selection"]["critical_difference"])
    return _figure(lambda fig: plot_critical_difference(ranked, ax=fig.subplots()), (7, 3.2))


def _draw_stability(results: dict[str, Any]) -> Any:
    from dartboard.plots import plot_stability
    from dartboard.report._inputs import stability_from_input

    st = results["stability"]
    metrics = stability_from_input(st["figure"], st["probas"])
    return _figure(lambda fig: plot_stability(metrics, ax=fig.subplots(1, 2)), (9, 3.8))


_DRAW: dict[str, tuple[Callable[[dict[str, Any]], Any], tuple[str, ...]]] = {
    "dart-sweep": (_draw_sweep, ("selection",)),
    "fold-scores": (_draw_folds, ("selection",)),
    "critical-difference": (_draw_cd, ("selection",)),
    "roc": (_draw_roc, ("classification", "roc")),
    "pr": (_draw_pr, ("classification", "pr")),
    "confusion": (_draw_confusion, ("classification", "confusion")),
    "calibration": (_draw_calibration, ("classification", "calibration")),
    "group-gaps": (_draw_gaps, ("classification", "difference")),
    "stability": (_draw_stability, ("stability", "figure")),
    "predicted-actual": (_draw_fit, ("regression", "fit")),
    "residuals": (_draw_residuals, ("regression", "fit")),
    "error-distribution": (_draw_errors, ("regression", "errors")),
}


def _band_note(band: dict[str, Any] | None) -> str:
    """The sentence a curve's caption gains when the results hold its band."""
    if not band:
        return ""
    resamples = band.get("n_resamples")
    how = f"{band['method']}, {resamples:,} resamples" if resamples else band["method"]
    return (f" The shaded area is the curve's {band['confidence_level']:.0%} "
            f"{band['kind']} confidence band ({how}).")


def _caption(fig_id: str, results: dict[str, Any]) -> str:
    caption = FIGURES[fig_id][1]
    band = {"roc": "roc_band", "pr": "pr_band"}.get(fig_id)
    if band is not None:
        caption += _band_note(results["classification"].get(band))
    if fig_id == "calibration":
        method = results["classification"]["calibration"].get("method")
        if method:
            caption += (f" With clusters the bars are {method} intervals (rows of a cluster "
                        "move together), not Wilson's.")
    return caption


def _has(results: dict[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = results
    for key in path:
        if not isinstance(node, dict) or node.get(key) is None:
            return False
        node = node[key]
    return True


def build_figures(results: dict[str, Any]) -> tuple[dict[str, dict[str, str]], list[str]]:
    """SVG of every figure the results hold data for, and notes on those that could
    not be drawn because the part of dartboard drawing them is not installed."""
    figures: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    for fig_id, (draw, needs) in _DRAW.items():
        if not _has(results, needs):
            continue
        try:
            fig = draw(results)
        except ImportError as exc:
            notes.append(f"Figure '{fig_id}' not available: {exc}")
            continue
        figures[fig_id] = {"svg": svg_of(fig, fig_id), "caption": _caption(fig_id, results),
                           "section": FIGURES[fig_id][0]}
    return figures, notes


def render_report(results: dict[str, Any]) -> str:
    """The HTML text of the report for a results dictionary (see ``dartboard demo``).

    Sections (``selection``, ``classification``, ``stability``, ``profile``,
    ``regression``) and figures appear when the results hold their data. Results that
    lack a field a present section needs raise ``ValueError``.

    Parameters
    ----------
    results : dict
        The results dictionary (``results.json`` of ``dartboard demo``).

    Returns
    -------
    str
        The HTML page.

    Examples
    --------
    >>> html = render_report({"title": "A model"})
    >>> html.startswith("<!DOCTYPE html>")
    True
    """
    import jinja2

    results = to_jsonable(results)
    try:
        return _render(results)
    except (jinja2.UndefinedError, KeyError, IndexError) as exc:
        raise InputError(f"results lack a field the report needs ({type(exc).__name__}: "
                         f"{exc}); give the results.json that dartboard wrote") from None


def _render(results: dict[str, Any]) -> str:
    import jinja2
    import markupsafe

    figures, notes = build_figures(results)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("dartboard.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined)
    env.filters["fmt"] = format_number
    env.globals["cells"] = lambda row, columns: format_cells(row, [c[0] for c in columns])
    template = env.get_template("report.html")
    return template.render(r=results, figures=figures,
                           notes=list(results.get("notes", [])) + notes,
                           svg=lambda fig_id: markupsafe.Markup(figures[fig_id]["svg"]))


def write_json(results: dict[str, Any], path: str | os.PathLike[str], *,
               inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """Save results as compact JSON (NaN/inf become null), atomically.

    Parameters
    ----------
    results : dict
        The results dictionary (``results.json`` of ``dartboard demo``).
    path : str or path-like
        The file to write (a regular file, or missing in an existing directory).
    inputs : iterable of str or path-like, optional
        The files the results were read from: ``path`` must not be one of them
        (by any name or link; :func:`check_target`).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os, tempfile
    >>> path = write_json({"auc": float("nan")}, os.path.join(tempfile.mkdtemp(), "r.json"))
    >>> path.read_text()
    '{"auc":null}\\n'
    """
    return write_text_atomic(path, json_text(results), inputs)


def json_text(results: dict[str, Any]) -> str:
    """The text :func:`write_json` saves."""
    return json.dumps(to_jsonable(results), separators=(",", ":"), allow_nan=False) + "\n"


def write_report(results: dict[str, Any], path: str | os.PathLike[str], *,
                 inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """Render the report and write it to ``path`` atomically; returns the path.
    A path that cannot be written fails before the rendering.

    Parameters
    ----------
    results : dict
        The results dictionary (``results.json`` of ``dartboard demo``).
    path : str or path-like
        The file to write (a regular file, or missing in an existing directory).
    inputs : iterable of str or path-like, optional
        The files the results were read from (the data, a ``results.json``):
        ``path`` must not be one of them, by any name or link
        (:func:`check_target`).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os, tempfile
    >>> path = write_report({"title": "A model"}, os.path.join(tempfile.mkdtemp(), "r.html"))
    >>> path.read_text().startswith("<!DOCTYPE html>")
    True
    """
    inputs = [os.fspath(item) for item in inputs]
    check_target(path, inputs)
    return write_text_atomic(path, render_report(results), inputs)
