"""``dartboard.evaluate()`` and the :class:`Evaluation` it returns.

An evaluation holds every metric with its interval, overall and per group, and
answers the questions asked between groups (fairlearn's ``MetricFrame``
vocabulary): ``difference()``, ``ratio()``, ``group_min()``, ``group_max()`` and the
fairness summaries, each with an interval.

Intervals of gaps come from the grouped bootstrap (``._groups``): each group is
resampled on its own, count metrics from one multinomial per group over its
confusion cells, other metrics by resampling the group's rows. A gap is always
between two different groups, names the higher one and the better one, and keeps
every group whose metric has a value. With two groups its interval is that of their
difference (Newcombe's for a proportion, the groups' bin-pivot intervals combined for
the calibration error); with more, the pair was picked by looking
at the data, and the interval is that of the true largest gap, selection-aware
(``._gaps``, ``._simultaneous``); ``pairwise()`` gives every pair with
intervals that hold all at once.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import numpy as np

from dartboard._progress import asked, track
from dartboard._typing import GapMethod
from dartboard._validation import check_option, describe
from dartboard.evaluation._finalize import NO_INTERVAL, GroupGaps
from dartboard.evaluation._options import EvaluationOptions
from dartboard.evaluation._result import EvaluationResult, MetricRow
from dartboard.exceptions import InputError, InputTypeError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["Evaluation", "GAP_METHODS"]

#: ``method`` of :meth:`Evaluation.difference` and :meth:`Evaluation.ratio`
GAP_METHODS: tuple[str, ...] = get_args(GapMethod)
_ROW_COLUMNS = ["estimate", "low", "high", "method", "n"]
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


class Evaluation:
    """Every metric with its interval, overall, per group and between groups.

    Returned by :func:`dartboard.evaluate` (and the streaming evaluations of
    :mod:`dartboard.scale`). Tables are pandas DataFrames; ``to_dict()`` and
    ``to_json()`` give plain values; in a notebook the object shows itself as a
    table.

    Parameters
    ----------
    result : EvaluationResult
        The engine's typed result (rows and the points of the figures).
    gaps : GroupGaps, optional
        The gaps between groups and their intervals (with ``groups=``).
    states : dict, optional
        The merged family states the numbers were computed from (streamed
        evaluations keep them, see :attr:`states`).
    sources : tuple of str, optional
        The files the rows were read from (a streamed evaluation's Parquet files):
        :meth:`to_html` never writes over one of them.
    options : EvaluationOptions, optional
        The checked options the evaluation was made with (:attr:`options`).

    See Also
    --------
    dartboard.evaluate : Makes an evaluation.
    dartboard.plots.plot_evaluation : What ``plot`` draws.

    Examples
    --------
    >>> from dartboard import evaluate
    >>> ev = evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...               groups=["a", "a", "a", "a", "b", "b", "b", "b"], random_state=0)
    >>> ev.task, ev.n_rows
    ('binary', 8)
    >>> row = ev.overall.loc["accuracy"]
    >>> float(row["estimate"]), row["method"]
    (0.75, 'wilson')
    >>> gap = ev.difference().loc["recall"]
    >>> float(gap["estimate"]), gap["groups"]
    (0.5, 'b vs a')
    """

    def __init__(self, result: EvaluationResult, gaps: GroupGaps | None = None,
                 states: dict[str, Any] | None = None, *, sources: tuple[str, ...] = (),
                 options: EvaluationOptions | None = None) -> None:
        self.result = result
        self._gaps = gaps
        self._states = states
        self._sources = tuple(sources)
        self._options = options

    @property
    def options(self) -> EvaluationOptions | None:
        """The checked options this evaluation was made with
        (:class:`~dartboard.EvaluationOptions`): ``evaluate(other, ..., options=ev.options)``
        asks the same of other data. None for an evaluation built by hand."""
        return self._options

    # ---------------------------------------------------------------- tables

    @property
    def task(self) -> str:
        """``"binary"``, ``"multiclass"`` or ``"regression"``."""
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
    def overall(self) -> pd.DataFrame:
        """One row per metric: estimate, low, high, method, n."""
        import pandas as pd

        frame = pd.DataFrame([_row_values(r) for r in self.result.metrics],
                             index=pd.Index(self.metrics, name="metric"), columns=_ROW_COLUMNS)
        frame.attrs["confidence_level"] = self._level
        return _with_design(frame, self.result.metrics)

    @cached_property
    def operating_point(self) -> pd.DataFrame | None:
        """The operating point chosen by ``threshold_criterion`` (None when none was
        asked for): one row per quantity (``threshold``, ``tpr``, ``tnr``,
        ``precision``, ``npv``, ``f1``, ``expected_cost``) with estimate, low, high
        and method; ``attrs`` hold the criterion, target, guarantee, threshold, pROC's
        midpoint and the confidence level. The metric rows of :attr:`overall` are
        those of the labels (scores at 0.5, or 0 for decision functions), not of
        this threshold."""
        from dartboard.evaluation._operating import operating_frame

        return operating_frame(self.result.operating_point)

    @cached_property
    def by_group(self) -> pd.DataFrame | None:
        """Per group and metric (index: the group columns, then ``metric``): estimate,
        low, high, method, n. None when no groups were given."""
        import pandas as pd

        res = self.result
        if res.groups is None:
            return None
        groups, columns, keys = res.grouping
        names = list(columns)
        per_group = len(groups) // len(keys)
        tuples = [(*keys[i // per_group], r.metric) for i, r in enumerate(groups)]
        index = pd.MultiIndex.from_tuples(tuples, names=[*names, "metric"])
        frame = pd.DataFrame([_row_values(r) for r in groups], index=index,
                             columns=_ROW_COLUMNS)
        frame.attrs["confidence_level"] = self._level
        return _with_design(frame, res.groups)

    @property
    def _level(self) -> float:
        rows = self.result.metrics
        return rows[0].confidence_level if rows else float("nan")

    def estimates_by_group(self) -> pd.DataFrame:
        """The estimates as a wide table, groups by metrics (fairlearn's ``by_group``).

        Returns
        -------
        pandas.DataFrame
            Groups (rows) by metrics (columns).
        """
        frame = self._group_frame()["estimate"].unstack("metric")
        return frame[self.metrics]

    # ---------------------------------------------------------------- gaps

    def _require_groups(self) -> Evaluation:
        self._group_gaps()
        return self

    def _group_frame(self) -> pd.DataFrame:
        frame = self._require_groups().by_group
        assert frame is not None  # a grouped evaluation
        return frame

    def _group_gaps(self) -> GroupGaps:
        if self.result.groups is None or self._gaps is None:
            raise InputError("this evaluation has no groups; pass groups= to "
                             "dartboard.evaluate to compare groups")
        return self._gaps

    def _group_values(self, label: str) -> np.ndarray:
        """(G,) per-group estimates of a metric (nan where undefined), in the groups'
        order (:attr:`by_group`'s)."""
        self._require_groups()
        return self._group_estimates[label].copy()

    @cached_property
    def _group_estimates(self) -> dict[str, np.ndarray]:
        """Every metric's per-group estimates, read once from the rows (group by group,
        each in the metrics' order, as :attr:`by_group` lays them out)."""
        found: dict[str, list[float]] = {}
        for row in self.result.groups or ():
            found.setdefault(row.metric, []).append(row.estimate)
        return {label: np.array(values, dtype=float) for label, values in found.items()}

    def _group_labels(self) -> list[str]:
        return [", ".join(str(v) for v in key) for key in self.result.grouping[2]]

    def _gap_table(self, kind: str, method: str, metrics: Any, progress: Any = None) -> Any:
        import pandas as pd

        from dartboard.evaluation._gaps import GAP_COLUMNS, gap_rows

        self._require_groups()
        check_option(method, "method", GAP_METHODS)
        labels = self._gap_metrics(metrics)
        with asked(progress):
            rows = gap_rows(self, (([label], kind) for label in
                                   track(labels, f"{kind} between groups")), method,
                            ahead=labels)
        frame = pd.DataFrame(rows, index=pd.Index(labels, name="metric"), columns=GAP_COLUMNS)
        frame.attrs["confidence_level"] = self._group_gaps().confidence_level
        return frame

    def _gap_metrics(self, metrics: Any) -> list[str]:
        if metrics is None:
            # the rows with an interval; a streamed evaluation shows the gaps of every row
            # it has states for (their method says when there is no interval)
            streamed = self._gaps is not None and self._gaps.streamed
            return [r.metric for r in self.result.metrics if r.low is not None
                    or (streamed and r.method != NO_INTERVAL)]
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in self.metrics]
        if unknown:
            raise InputError(f"metrics {unknown} are not rows of this evaluation; its rows "
                             f"are {self.metrics}")
        return metrics

    def difference(self, method: GapMethod = "between_groups", *, metrics: Any = None,
                   progress: bool | None = None) -> pd.DataFrame:
        """Per metric, the largest gap between groups, with its interval.

        ``method="between_groups"``: the highest group's value minus the lowest's
        (max - min); ``"to_overall"``: the largest ``|group - overall|``. Columns:
        estimate, low, high, method, ``groups`` (which two, the higher first),
        ``higher`` (the group with the higher value; None when they tie) and
        ``better`` (``higher`` for a metric where greater is better, the other group
        for an error rate or a loss; None for a tie or a metric of one's own).

        With two groups the interval is that of the difference between them (below 0:
        the data do not tell which is higher). With more, the pair was picked by
        looking at the data, and the interval is that of the true largest gap,
        selection-aware (method "max-T, selection-aware"): ``low`` = 0 means the data
        do not show a gap. Every group with a value counts, also one whose interval
        cannot be formed (recall of a group without positives is 0.0, as in
        scikit-learn and fairlearn). See :meth:`pairwise` for every pair.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            Between the extreme groups, or of each group to the overall value.
        metrics : sequence of str, optional
            Only these metrics (table labels); None: all.
        progress : bool, optional
            A progress bar on standard error while the groups are resampled: None
            (the default) shows it when standard error is a terminal and the work
            lasts more than a second; True always; False never.

        Returns
        -------
        pandas.DataFrame
            Indexed by metric.

        Examples
        --------
        >>> import numpy as np, dartboard
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 600)
        >>> g = np.repeat(["a", "b", "c"], 200)
        >>> pred = np.where(rng.random(600) < np.where(g == "c", 0.7, 0.9), y, 1 - y)
        >>> ev = dartboard.evaluate(y, pred, metrics=["accuracy", "false_positive_rate"],
        ...                         groups=g, random_state=0)
        >>> d = ev.difference()
        >>> d.loc["accuracy", ["groups", "higher", "better"]].tolist()
        ['b vs c', 'b', 'b']
        >>> d.loc["false_positive_rate", ["groups", "higher", "better"]].tolist()
        ['c vs a', 'c', 'a']
        >>> bool(d.loc["accuracy", "low"] > 0), d.loc["accuracy", "method"]
        (True, 'max-T, selection-aware (3 pairs)')
        """
        return self._gap_table("difference", method, metrics, progress)

    def ratio(self, method: GapMethod = "between_groups", *, metrics: Any = None,
              progress: bool | None = None) -> pd.DataFrame:
        """Per metric, the smallest ratio between groups (min / max; ``"to_overall"``:
        the smallest of group/overall and overall/group), with its interval.

        The columns and intervals are those of :meth:`difference`, on the log scale:
        the ratio is exp(-(the largest gap of log values)), so with more than two
        groups its interval is selection-aware too (``high`` = 1: no gap shown). A
        group's value of 0 or below has no log: the ratio is then given without an
        interval unless there are two groups.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            Between the extreme groups, or of each group to the overall value.
        metrics : sequence of str, optional
            Only these metrics (table labels); None: all.
        progress : bool, optional
            A progress bar on standard error while the groups are resampled: None
            (the default) shows it when standard error is a terminal and the work
            lasts more than a second; True always; False never.

        Returns
        -------
        pandas.DataFrame
            Indexed by metric.
        """
        return self._gap_table("ratio", method, metrics, progress)

    def pairwise(self, metrics: Any = None, *, simultaneous: bool = True,
                 progress: bool | None = None) -> pd.DataFrame:
        """Every pair of groups, per metric: the higher group minus the lower, with
        an interval.

        Index: (metric, ``groups``: "a vs b", the higher first). Columns: estimate
        (>= 0), low, high, method, higher (None for a tie) and better. With
        ``simultaneous=True`` the intervals of a metric's pairs hold all at once
        (max-T from the grouped bootstrap, see ``._simultaneous``), so they may
        be read together and for pairs picked by looking; with two groups the one
        pair's own interval (Newcombe's for a proportion). ``simultaneous=False``
        gives each pair's own interval, valid only for a pair named before looking
        at the data.

        Parameters
        ----------
        metrics : sequence of str, optional
            Only these metrics (table labels); None: all.
        simultaneous : bool, default=True
            Intervals that hold for all pairs of a metric at once.
        progress : bool, optional
            A progress bar on standard error while the groups are resampled: None
            (the default) shows it when standard error is a terminal and the work
            lasts more than a second; True always; False never.

        Returns
        -------
        pandas.DataFrame
            Indexed by (metric, groups).

        Examples
        --------
        >>> import numpy as np, dartboard
        >>> rng = np.random.default_rng(1)
        >>> y = rng.integers(0, 2, 900)
        >>> g = np.repeat(["a", "b", "c"], 300)
        >>> pred = np.where(rng.random(900) < np.where(g == "c", 0.7, 0.9), y, 1 - y)
        >>> pairs = dartboard.evaluate(y, pred, metrics=["accuracy"], groups=g,
        ...                            random_state=0).pairwise()
        >>> pairs.index.get_level_values("groups").tolist()
        ['a vs b', 'a vs c', 'b vs c']
        >>> (pairs["low"] > 0).tolist(), pairs["method"].iloc[0]
        ([False, True, True], 'max-T, simultaneous (3 pairs)')
        """
        import pandas as pd

        from dartboard.evaluation._gaps import PAIR_COLUMNS, pair_rows

        self._require_groups()
        if not isinstance(simultaneous, (bool, np.bool_)):
            raise InputTypeError(f"simultaneous must be True or False; got {describe(simultaneous)}")
        rows, index = [], []
        with asked(progress):
            for label in track(self._gap_metrics(metrics), "pairs of groups"):
                for row in pair_rows(self, label, bool(simultaneous)):
                    rows.append(row)
                    index.append((label, row["groups"]))
        frame = pd.DataFrame(rows, columns=PAIR_COLUMNS,
                             index=pd.MultiIndex.from_tuples(index, names=["metric", "groups"])
                             if index else None)
        frame.attrs["confidence_level"] = self._group_gaps().confidence_level
        return frame

    def _extreme(self, which: str) -> Any:
        import pandas as pd

        self._require_groups()
        keys = self._group_labels()
        rows, labels = [], []
        frame = self._group_frame()
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

    def group_min(self) -> pd.DataFrame:
        """Per metric, the group with the smallest value, its value and that group's
        interval (the first in group order when several tie). The interval is that
        group's own: the smallest of several groups is picked by looking, so the true
        minimum over groups can lie below it (see :meth:`difference` for a
        selection-aware interval of the gap).

        Returns
        -------
        pandas.DataFrame
            Indexed by metric: group, estimate, low, high.
        """
        return self._extreme("min")

    def group_max(self) -> pd.DataFrame:
        """Per metric, the group with the largest value, its value and that group's
        interval (the first in group order when several tie; the interval is that
        group's own, as in :meth:`group_min`).

        Returns
        -------
        pandas.DataFrame
            Indexed by metric: group, estimate, low, high.
        """
        return self._extreme("max")

    def fairness(self, method: GapMethod = "between_groups", *,
                 progress: bool | None = None) -> pd.DataFrame:
        """Demographic parity, equalized odds and equal opportunity (difference and
        ratio), each with its interval.

        As fairlearn defines them: demographic parity compares selection rates;
        equalized odds takes the worse of the true-positive-rate and
        false-positive-rate gaps (the larger difference, the smaller ratio); equal
        opportunity compares true positive rates. Binary tasks only. The columns are
        :meth:`difference`'s; ``better`` is empty for the selection rate, whose better
        side depends on what is predicted. Equalized odds picks the larger of two
        gaps by looking, so its interval is selection-aware over both rates' gaps.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            Between the extreme groups, or of each group to the overall value.
        progress : bool, optional
            A progress bar on standard error while the groups are resampled: None
            (the default) shows it when standard error is a terminal and the work
            lasts more than a second; True always; False never.

        Returns
        -------
        pandas.DataFrame
            One row per criterion and kind (difference, ratio).
        """
        import pandas as pd

        from dartboard.evaluation._gaps import GAP_COLUMNS, gap_rows

        self._require_groups()
        if self.task != "binary":
            raise InputError("the fairness summaries compare rates of the positive class of a "
                             f"binary task; this evaluation is {self.task}")
        if self.result.positive_label is None:
            raise InputError("the fairness summaries compare rates of the positive class, "
                             "which this evaluation was not told: pass pos_label")
        check_option(method, "method", GAP_METHODS)
        with asked(progress):
            rows = gap_rows(self, (([f"__{rate}" for rate in rates], kind) for _, rates, kind
                                   in track(_FAIRNESS, "fairness between groups")), method)
        for (_name, rates, _kind), row in zip(_FAIRNESS, rows):
            if len(rates) > 1 and row["metric"] is not None:
                row["groups"] = f"{_RATE_NAMES[row['metric'][2:]]}: {row['groups']}"
        frame = pd.DataFrame(rows, index=pd.Index([f[0] for f in _FAIRNESS], name="summary"),
                             columns=GAP_COLUMNS)
        frame.attrs["confidence_level"] = self._group_gaps().confidence_level
        return frame

    # ---------------------------------------------------------------- output

    def to_frame(self) -> pd.DataFrame:
        """A tidy long table: one row per (scope, group, metric) with the group columns,
        metric, estimate, low, high, method, n and confidence_level.

        Returns
        -------
        pandas.DataFrame
            The long table.
        """
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
        """Plain values (JSON-ready): the engine's result, and with groups the gaps, every
        pair (``pairwise``) and, for a binary task, the fairness summaries.

        Returns
        -------
        dict
            JSON-ready values.
        """
        out = self.result.to_dict()
        if self.result.groups is not None:
            out["difference"] = _records(self.difference(), "metric")
            out["ratio"] = _records(self.ratio(), "metric")
            out["pairwise"] = [{"metric": m, "groups": g, **{k: _plain(v) for k, v in row.items()}}
                               for (m, g), row in self.pairwise().iterrows()]
            if self.task == "binary" and self._group_gaps().has_rates \
                    and self.result.positive_label is not None:
                out["fairness"] = _records(self.fairness(), "summary")
        return out

    def to_json(self, **kwargs: Any) -> str:
        """``to_dict()`` as JSON text (nan as null).

        Parameters
        ----------
        **kwargs
            Keywords of ``json.dumps`` (``indent``...).

        Returns
        -------
        str
            The JSON text.
        """
        return json.dumps(_jsonable(self.to_dict()), **kwargs)

    def _repr_html_(self) -> str:
        from dartboard.evaluation._display import evaluation_html

        return evaluation_html(self)

    def describe(self) -> str:
        """One line: the model's name, the task, the rows (and the files they were
        streamed from) and the groups, e.g. ``model 'lr', binary, n = 400 streamed from 2
        Parquet files, 3 groups``.

        Returns
        -------
        str
            The line.
        """
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
        from dartboard.evaluation._display import evaluation_text

        return evaluation_text(self)

    def plot(self, ax: Axes | None = None, *, metrics: Any = None) -> Axes | np.ndarray:
        """Each metric with its interval bar (per group when grouped); a matplotlib Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Drawn on a new pyplot figure when omitted (``plt.show()`` shows it).
        metrics : sequence of str, optional
            Only these metrics (table labels); None: all.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.
        """
        from dartboard.evaluation._figure import plot_evaluation

        return plot_evaluation(self, ax=ax, metrics=metrics)

    def to_html(self, path: str | os.PathLike[str], *, title: str | None = None,
                inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
        """Write the self-contained HTML report of this evaluation to ``path``.

        Parameters
        ----------
        path : str or path-like
            The file to write (a regular file, or a new one).
        title : str, optional
            The report's title; default ``"dartboard evaluation: <model>"``.
        inputs : iterable of str or path-like, optional
            Files the report must never replace, such as the file the predictions
            were read from; a streamed evaluation adds the files it read. A ``path``
            that is one of them (by another name, a symbolic or a hard link) is
            refused with a ``ValueError`` and nothing is written.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        from dartboard._version import __version__
        from dartboard.report import write_report

        key = "regression" if self.task == "regression" else "classification"
        section = dict(self.to_dict(), heading="Evaluation")
        if self.result.group_columns:
            section["group_column"] = ", ".join(self.result.group_columns)
        default = "dartboard evaluation" + (f": {self.model}" if self.model else "")
        streamed = self.result.streamed
        notes = [f"Left out of the streamed evaluation: {line}."
                 for line in (streamed.left_out_lines() if streamed else [])]
        return write_report({"title": title or default, "dartboard_version": __version__,
                             key: section, "notes": notes}, path,
                            inputs=(*self._sources, *inputs))

    def log_mlflow(self, *, prefix: str = "", report: bool = True) -> str:
        """Log each metric with its bounds (``<m>``, ``<m>_low``, ``<m>_high``; per group
        ``by_group/<group>/<m>``) to the active MLflow run (one is started when none
        is, named after ``model``), the model's name and the row count as parameters,
        and the HTML report as an artifact; returns the run's id. A group label MLflow
        cannot take as it is becomes its safe characters and a digest of the label
        (``"a?b"`` -> ``a_b-c2a7b64a``), so that no two labels share a key. Needs
        MLflow (``pip install ".[mlflow]"`` from a clone, which works with MLflow's
        default store).

        Parameters
        ----------
        prefix : str, default=""
            Prefix of every metric key.
        report : bool, default=True
            Log the HTML report as an artifact.

        Returns
        -------
        str
            The run's id.
        """
        from dartboard.evaluation._mlflow import log_evaluation

        return log_evaluation(self, prefix=prefix, report=report)


def _with_design(frame: Any, rows: Any) -> Any:
    """The frame with ``design_effect`` and ``effective_n`` columns when the rows came in
    clusters (nan where a row has no interval)."""
    if not any(r.design_effect is not None for r in rows):
        return frame
    frame["design_effect"] = [np.nan if r.design_effect is None else r.design_effect
                              for r in rows]
    frame["effective_n"] = [np.nan if r.effective_n is None else r.effective_n for r in rows]
    return frame


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
