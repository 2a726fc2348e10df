"""The binned calibration state: what every calibration number is computed from.

Rows are put in bins of their confidence (the predicted probability the
calibration is judged on, see :mod:`dartboard.metrics._calibration`) and
counted per class group ``g``, outcome ``o`` (0 or 1: did the event happen)
and bin ``b``:

- ``weight[g, o, b]``: number (sum of weights) of rows,
- ``sum_p[g, o, b]``: sum of (weighted) confidences,
- ``sum_p2[g, o, b]``: sum of (weighted) squared confidences.

The bin's count is ``weight[g, 0, b] + weight[g, 1, b]``, its observed
frequency ``weight[g, 1, b] / count`` and its mean confidence
``(sum_p[g, 0, b] + sum_p[g, 1, b]) / count``. Keeping the two outcomes apart
costs nothing and gives the bootstrap the joint law of (bin, outcome) counts;
the squared sums give within-bin variances (the Brier decomposition's two
within-bin terms, the bootstrap's second moment).

Bins. Equal width (``edges=None``): bin ``b = floor(n_bins * p)`` computed in
float64, so bin ``b`` holds ``b / n_bins <= p < (b + 1) / n_bins`` (left-closed,
as ``torch.bucketize(..., right=True) - 1`` in torchmetrics), and ``p = 1``
exactly falls in an extra bin ``n_bins`` of its own, as in torchmetrics (whose
bin arrays have ``n_bins + 1`` entries): a confidence of exactly 1 is judged on
those rows alone. Given ``edges`` (per group, ``n_bins + 1`` increasing values,
equal-mass bins), bin ``b`` holds ``edges[b] <= p < edges[b + 1]`` for the inner
edges, and the outer bins are open-ended; the extra bin stays empty.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard.metrics._state import check_same_kind

__all__ = ["CalibrationState", "Scratch", "bin_keys"]

#: rows binned at a time (their float64 confidences and keys stay in cache)
CHUNK_ROWS = 2**16


class Scratch:
    """Buffers for binning ``rows`` rows at a time, reused chunk after chunk.

    A fresh float64 array per chunk of 2**16 rows costs page faults on its first
    touch, and on a virtual machine they cost more than the binning itself.
    """

    __slots__ = ("real", "key")

    def __init__(self, rows: int) -> None:
        self.real = np.empty(rows)
        self.key = np.empty(rows, dtype=np.intp)


def bin_keys(conf: np.ndarray, hit: np.ndarray, n_bins: int,
             edges: np.ndarray | None, scratch: Scratch | None = None) -> np.ndarray:
    """Flat cell index ``o * (n_bins + 1) + b`` of each row (one pass each step);
    in ``scratch.key`` when given."""
    slots = n_bins + 1
    m = conf.shape[0]
    scratch = scratch if scratch is not None and scratch.key.shape[0] >= m else Scratch(m)
    key = scratch.key[:m]
    if edges is None:
        # in float64 whatever conf's dtype (exact for float32 conf); cast before adding
        # the outcome's offset: n p + S can round up to the next integer
        np.copyto(key, np.multiply(conf, n_bins, out=scratch.real[:m], dtype=np.float64),
                  casting="unsafe")
    else:
        key[...] = np.searchsorted(edges[1:-1], conf, side="right")
    # the outcome's offset as a product of small integers: numpy's masked add
    # (``where=hit``) is a branch per row, several times slower on random outcomes
    hit = np.asarray(hit, dtype=bool)
    key += hit.view(np.uint8) * np.min_scalar_type(slots).type(slots)
    return key


class CalibrationState:
    """Mergeable per-bin sums of calibration (see the module docstring).

    Parameters
    ----------
    n_bins : int
    n_groups : int
        1 for binary and top-label calibration, the number of classes for
        classwise and marginal calibration.
    edges : ndarray of shape (n_groups, n_bins + 1), optional
        Equal-mass edges; None for equal-width bins.
    multiclass : str
        What the groups are (``"top_label"``, ``"classwise"``, ``"marginal"``;
        ``"binary"`` for a 1-D probability of the positive class); states of
        different kinds do not merge.

    Examples
    --------
    >>> state = CalibrationState(2).add([0.2, 0.4, 0.7, 0.9], [False, True, True, True])
    >>> round(state.compute("calibration_error"), 6)
    0.2
    """

    __slots__ = ("n_bins", "n_groups", "edges", "multiclass", "weight", "sum_p", "sum_p2")

    def __init__(self, n_bins: int = 15, n_groups: int = 1, *, edges: Any = None,
                 multiclass: str = "binary") -> None:
        self.n_bins = int(n_bins)
        self.n_groups = int(n_groups)
        self.edges = None if edges is None else np.asarray(edges, dtype=np.float64)
        self.multiclass = multiclass
        shape = (self.n_groups, 2, self.n_bins + 1)
        self.weight = np.zeros(shape)
        self.sum_p = np.zeros(shape)
        self.sum_p2 = np.zeros(shape)

    # ------------------------------------------------------------------ data in

    def add(self, conf: Any, hit: Any, sample_weight: Any = None, *,
            second_moment: bool = True, scratch: Scratch | None = None
            ) -> CalibrationState:
        """Add checked confidences and outcomes in place; return ``self``.

        ``conf`` and ``hit`` are (n,) for one group or (n, n_groups); ``hit`` is
        boolean. ``second_moment=False`` skips the squared sums (a one-shot
        metric that does not need them). ``scratch``: buffers to reuse (a caller
        that adds many small batches passes the same one each time).
        """
        conf = np.asarray(conf)
        if conf.dtype.kind != "f":
            conf = conf.astype(np.float64)
        hit = np.asarray(hit, dtype=bool)
        if conf.ndim == 1:
            conf, hit = conf[:, None], hit[:, None]
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        size = 2 * (self.n_bins + 1)
        # chunks that stay in cache (and widen float32 to float64 only there); with
        # many bins, long enough that the per-chunk bin counts are a small cost
        step = max(CHUNK_ROWS, 4 * size)
        if scratch is None or scratch.key.shape[0] < min(step, conf.shape[0]):
            scratch = Scratch(min(step, conf.shape[0]))
        for start in range(0, conf.shape[0], step):
            rows = slice(start, start + step)
            for g in range(self.n_groups):
                self._add_group(g, conf[rows, g], hit[rows, g],
                                None if w is None else w[rows], second_moment, scratch)
        return self

    def _add_group(self, g: int, conf: np.ndarray, hit: np.ndarray, w: np.ndarray | None,
                   second_moment: bool, scratch: Scratch) -> None:
        c = np.ascontiguousarray(conf)
        m = c.shape[0]
        key = bin_keys(c, hit, self.n_bins, None if self.edges is None else self.edges[g],
                       scratch)
        size = 2 * (self.n_bins + 1)
        # bincount's weights are float64: a float32 chunk is widened into the scratch
        # buffer (exactly), after the keys are done with it
        c64 = c
        if c.dtype != np.float64:
            c64 = scratch.real[:m]
            np.copyto(c64, c)
        wc = c64 if w is None else c64 * w
        self.weight[g] += np.bincount(key, weights=w, minlength=size).reshape(2, -1)
        self.sum_p[g] += np.bincount(key, weights=wc, minlength=size).reshape(2, -1)
        if second_moment:
            self.sum_p2[g] += np.bincount(key, weights=wc * c64,
                                          minlength=size).reshape(2, -1)

    def update(self, y_true: Any, y_proba: Any, sample_weight: Any = None, *,
               pos_label: Any = None, labels: Any = None) -> CalibrationState:
        """Add a batch of labels and probabilities in place; return ``self``.

        The batch is read as :func:`~dartboard.metrics.calibration_error` reads
        it (1-D: probability of ``pos_label``; 2-D: one column per class of
        ``labels``, or per integer label 0 .. K-1 when ``labels`` is None).
        """
        from dartboard.metrics._calibration import confidences

        multiclass = "top_label" if self.multiclass == "binary" else self.multiclass
        conf, hit, w, kind = confidences(y_true, y_proba, sample_weight, pos_label,
                                         multiclass, labels=labels, batch=True)
        if kind != self.multiclass:
            raise ValueError(f"this state holds {self.multiclass} calibration; the batch's "
                             f"y_proba gives {kind} (1-D: binary, 2-D: multiclass)")
        return self.add(conf, hit, w)

    def merge(self, other: CalibrationState) -> CalibrationState:
        """Return a new state holding both (the same bins and kind required)."""
        check_same_kind(self, other)
        same_edges = (self.edges is None and other.edges is None) or (
            self.edges is not None and other.edges is not None
            and np.array_equal(self.edges, other.edges))
        if (self.n_bins, self.n_groups, self.multiclass) != \
                (other.n_bins, other.n_groups, other.multiclass) or not same_edges:
            raise ValueError("cannot merge calibration states with different bins or kinds: "
                             f"{self.n_bins} bins x {self.n_groups} {self.multiclass} and "
                             f"{other.n_bins} bins x {other.n_groups} {other.multiclass}")
        out = CalibrationState(self.n_bins, self.n_groups, edges=self.edges,
                               multiclass=self.multiclass)
        out.weight = self.weight + other.weight
        out.sum_p = self.sum_p + other.sum_p
        out.sum_p2 = self.sum_p2 + other.sum_p2
        return out

    # ------------------------------------------------------------------ numbers out

    def compute(self, metric: Any = "calibration_error", **kwargs: Any) -> Any:
        """``calibration_error`` (keywords ``norm``, ``debiased``) or ``brier_decomposition``.

        The keywords fixed by the state (``n_bins``, ``strategy``, ``multiclass``)
        may be repeated; another value than the state's is an error.
        """
        from dartboard.metrics import _calibration as cal
        from dartboard.metrics._state import resolve_metric

        resolve_metric({"calibration_error": cal.calibration_error,
                        "brier_decomposition": cal.brier_decomposition}, metric)
        name = metric if isinstance(metric, str) else metric.__name__
        fixed = {"n_bins": self.n_bins,
                 "multiclass": None if self.multiclass == "binary" else self.multiclass}
        for key, value in fixed.items():
            if key in kwargs and kwargs.pop(key) != value and value is not None:
                raise ValueError(f"{key}={value!r} is fixed by this state; got another value")
        kwargs.pop("strategy", None)
        if self.weight.sum() == 0:
            raise ValueError("CalibrationState is empty; update it with data first")
        if name == "brier_decomposition":
            if kwargs:
                raise ValueError(f"brier_decomposition takes no keywords here; got "
                                 f"{sorted(kwargs)}")
            return cal.decomposition_from_sums(self.weight, self.sum_p, self.sum_p2)
        norm, debiased = cal.norm_iv(kwargs.pop("norm", "l1"), kwargs.pop("debiased", False))
        if kwargs:
            raise ValueError(f"unknown keyword(s) {sorted(kwargs)} for calibration_error")
        return float(cal.error_from_sums(self.weight, self.sum_p, norm, debiased,
                                         self.multiclass))

    def error_bound(self, metric: Any) -> float:
        """0.0: the sums are exact (up to rounding); the bins are the metric's own."""
        return 0.0

    def bins(self, group: int = 0) -> dict[str, np.ndarray]:
        """Per-bin arrays of one group: ``count``, ``positives``, ``sum_p``, ``low``, ``high``
        (the bin's edges; the extra bin of ``p = 1`` is ``[1, 1]``)."""
        n = self.n_bins
        if self.edges is None:
            low = np.append(np.arange(n) / n, 1.0)
            high = np.append(np.arange(1, n + 1) / n, 1.0)
        else:
            e = self.edges[group]
            low, high = np.append(e[:-1], e[-1]), np.append(e[1:], e[-1])
        return {"count": self.weight[group].sum(0), "positives": self.weight[group, 1],
                "sum_p": self.sum_p[group].sum(0), "low": low, "high": high}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CalibrationState) and self.n_bins == other.n_bins \
            and self.multiclass == other.multiclass and all(
                np.array_equal(getattr(self, k), getattr(other, k))
                for k in ("weight", "sum_p", "sum_p2")) and (
                (self.edges is None) == (other.edges is None))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"CalibrationState(n_bins={self.n_bins}, n_groups={self.n_groups}, "
                f"multiclass={self.multiclass!r}, rows={self.weight.sum() / self.n_groups:g})")
