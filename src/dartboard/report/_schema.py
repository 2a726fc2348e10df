"""What the report reads from a results dictionary, checked before anything is drawn.

``dartboard report`` renders a ``results.json`` that a person may have edited. Every
field the report reads is checked here against what it must hold (a JSON object, a
list of table rows, numbers, arrays of one length, a square matrix, a table that
pandas can rebuild with the columns a figure reads), so that a wrong field is one
``ValueError`` that names it (``'classification.roc.tpr' must be a list of numbers
as long as 'classification.roc.fpr' (14); got a list of 13``) rather than a failure
deep inside a figure. Fields the report does not read are not checked, and ``null``
is an absent optional field, as the report treats it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dartboard.exceptions import InputError

__all__ = ["check_results"]

Rule = Callable[[Any, str], None]


def check_results(results: Any) -> None:
    """Raise ``ValueError`` naming the first field of ``results`` the report cannot
    draw from (see the module docstring).

    Parameters
    ----------
    results : dict
        A results dictionary.

    Examples
    --------
    >>> check_results({"title": "A model"})
    >>> check_results({"selection": {}})
    Traceback (most recent call last):
    ...
    dartboard.exceptions.InputError: 'selection' needs the field 'ranking'
    """
    _TOP(results, "")


def _shape(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return "a JSON object" if isinstance(value, dict) else type(value).__name__


def _fail(path: str, expected: str, value: Any) -> None:
    raise InputError(f"{path!r} must be {expected}; got {_shape(value)}")


def _join(path: str, key: Any) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key


# ------------------------------------------------------------------ rules


def _anything(value: Any, path: str) -> None:
    """Text the page shows as it is (any JSON value prints)."""


def _number(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        _fail(path, "a finite number", value)


def _count(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        _fail(path, "a whole number of at least 1", value)


def _maybe(rule: Rule) -> Rule:
    def check(value: Any, path: str) -> None:
        if value is not None:
            rule(value, path)
    return check


def _text(value: Any, path: str) -> None:
    if not isinstance(value, str):
        _fail(path, "a string", value)


def _key(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        _fail(path, "a string or a number", value)


def _list(item: Rule, *, what: str = "a list", min_length: int = 0) -> Rule:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list) or len(value) < min_length:
            _fail(path, what + (f" of at least {min_length}" if min_length else ""), value)
        for i, v in enumerate(value):
            item(v, _join(path, i))
    return check


_NUMBERS = _list(_number, what="a list of numbers")
_MATRIX = _list(_NUMBERS, what="a list of rows of numbers")
_SOME_NUMBERS = _list(_number, what="a list of numbers", min_length=1)
_MAYBE_NUMBERS = _list(_maybe(_number), what="a list of numbers (or null)")


def _object(fields: dict[str, Rule], required: tuple[str, ...] = (),
            exact: bool = False, *, then: Callable[[dict, str], None] | None = None) -> Rule:
    """A JSON object: ``required`` fields present and not null, each field present
    checked by its rule; ``exact``: no other field; ``then`` checks across fields."""
    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            _fail(path, "a JSON object", value)
        for name in required:
            if value.get(name) is None:
                raise InputError(f"{path!r} needs the field {name!r}" if path else
                                 f"the field {name!r} is needed")
        if exact and set(value) - set(fields):
            extra = sorted(set(value) - set(fields))
            raise InputError(f"{path!r} holds fields the report does not know: {extra}; "
                             f"expected {sorted(fields)}")
        for name, rule in fields.items():
            if value.get(name) is not None:
                rule(value[name], _join(path, name))
        if then is not None:
            then(value, path)
    return check


def _rows(fields: dict[str, Rule] | None = None, required: tuple[str, ...] = (),
          present: tuple[str, ...] = ()) -> Rule:
    """Table rows: a list of JSON objects (cells print as they are); ``present``: fields
    a table reads that may be null (an interval's end, a tie's higher group)."""
    def there(value: dict, path: str) -> None:
        for name in present:
            if name not in value:
                raise InputError(f"{path!r} needs the field {name!r} (null is fine)")
    return _list(_object(fields or {}, required, then=there if present else None),
                 what="a list of JSON objects (table rows)")


_PAIRS = _list(_list(_anything, what="a [key, heading] pair", min_length=2),
               what="a list of [key, heading] pairs")


def _pairs(value: Any, path: str) -> None:
    _PAIRS(value, path)
    for i, pair in enumerate(value):
        if len(pair) != 2:
            _fail(_join(path, i), "a [key, heading] pair", pair)
        _key(pair[0], _join(_join(path, i), 0))


def _same_length(*names: str) -> Callable[[dict, str], None]:
    def check(value: dict, path: str) -> None:
        given = [n for n in names if value.get(n) is not None]
        for name in given[1:]:
            if len(value[name]) != len(value[given[0]]):
                raise InputError(f"{_join(path, name)!r} must be as long as "
                                 f"{_join(path, given[0])!r} ({len(value[given[0]])}); "
                                 f"got {_shape(value[name])}")
    return check


def _table(numeric: tuple[str, ...] = (), other: tuple[str, ...] = ()) -> Rule:
    """A table saved as {columns, dtypes, data} that pandas rebuilds, with the
    columns a figure reads (``numeric`` ones of numbers)."""
    shape = _object({"columns": _list(_text, what="a list of column names"),
                     "dtypes": _list(_text, what="a list of dtype names"),
                     "data": _list(_list(_anything, what="a list (one table row)"),
                                   what="a list of table rows")},
                    ("columns", "dtypes", "data"),
                    then=_same_length("columns", "dtypes"))

    def check(value: Any, path: str) -> None:
        shape(value, path)
        width = len(value["columns"])
        for i, row in enumerate(value["data"]):
            if len(row) != width:
                _fail(_join(_join(path, "data"), i), f"a row of {width} cells", row)
        from dartboard.report._inputs import _frame

        try:
            frame = _frame(value)
        except (ValueError, TypeError) as exc:
            raise InputError(f"{path!r} is not a table pandas can rebuild: "
                             f"{' '.join(str(exc).split())}") from None
        missing = [c for c in (*numeric, *other) if c not in frame.columns]
        if missing:
            raise InputError(f"{_join(path, 'columns')!r} must include {missing}")
        for name in numeric:
            if frame[name].dtype.kind not in "iuf":
                raise InputError(f"column {name!r} of {path!r} must hold numbers; its dtype "
                                 f"is {frame[name].dtype}")
    return check


# ------------------------------------------------------------------ sections


def _metrics_then(value: dict, path: str) -> None:
    """The gap table's caption reads the first metric's confidence level."""
    if value.get("difference") or value.get("pairwise"):
        metrics = value["metrics"]
        if not metrics or not isinstance(metrics[0].get("confidence_level"), (int, float)) \
                or isinstance(metrics[0].get("confidence_level"), bool):
            raise InputError(f"{_join(path, 'metrics')!r} must start with a row whose "
                             "'confidence_level' is a number (the gaps' caption shows it)")


def _square(value: dict, path: str) -> None:
    matrix, labels = value["matrix"], value["labels"]
    for i, row in enumerate(matrix):
        if len(row) != len(matrix):
            raise InputError(f"{_join(path, 'matrix')!r} must be square; row {i} has "
                             f"{len(row)} cells, there are {len(matrix)} rows")
    if len(labels) != len(matrix):
        raise InputError(f"{_join(path, 'labels')!r} must name the {len(matrix)} classes "
                         f"of the matrix; got {_shape(labels)}")


_METRIC = {"metric": _key, "estimate": _maybe(_number), "low": _maybe(_number),
           "high": _maybe(_number), "confidence_level": _maybe(_number)}
#: a gap's row: its numbers, and the groups the table names (a string, "" when none)
_GAP = {**_METRIC, "groups": _text, "higher": _anything, "better": _anything,
        "method": _anything}
_GAP_CELLS = ("estimate", "low", "high", "method", "higher", "better")
_BAND = _object({"axis": _text, "grid": _NUMBERS, "low": _MAYBE_NUMBERS,
                 "high": _MAYBE_NUMBERS, "confidence_level": _number, "kind": _anything},
                ("axis", "grid", "low", "high", "confidence_level", "kind"),
                then=_same_length("grid", "low", "high"))
_INTERVAL = _object({"estimate": _maybe(_number), "low": _maybe(_number),
                     "high": _maybe(_number)})
_OPERATING = _object({"criterion": _anything, "threshold": _number, "midpoint": _number,
                      "intervals": _object({k: _INTERVAL for k in ("tpr", "tnr", "precision")},
                                           ("tpr", "tnr", "precision"))},
                     ("criterion", "threshold", "midpoint", "intervals"))
_CALIBRATION = ("prob_pred", "prob_true", "counts", "low", "high", "bin_low", "bin_high")


def _calibration_then(value: dict, path: str) -> None:
    """Saved with per-bin intervals (``low``): the reliability diagram needs them all."""
    if value.get("low") is not None:
        _object({}, _CALIBRATION)(value, path)
    _same_length(*_CALIBRATION)(value, path)


def _assumptions(value: Any, path: str) -> None:
    """What the evaluation decided without being told: each entry ``{value, why}``."""
    if not isinstance(value, dict):
        _fail(path, "a JSON object", value)
    entry = _object({"why": _text}, ("why",))
    for what, assumed in value.items():
        entry(assumed, _join(path, str(what)))
        if "value" not in assumed:
            raise InputError(f"{_join(path, str(what))!r} needs the field 'value'")


def _evaluation(figures: dict[str, Rule]) -> Rule:
    """A classification or regression section (``Evaluation.to_dict`` and more)."""
    return _object({"metrics": _rows(_METRIC, ("metric",)),
                    "groups": _rows({**_METRIC, "n": _maybe(_number)}, ("metric",)),
                    "difference": _rows(_GAP, ("metric", "groups"), _GAP_CELLS),
                    "fairness": _rows(_GAP, ("summary", "groups"), _GAP_CELLS),
                    "pairwise": _rows(_GAP, ("metric", "groups"), _GAP_CELLS),
                    "assumptions": _assumptions,
                    "error_summary": _rows(), "model": _text, **figures}, ("metrics",),
                   then=_metrics_then)


_CLASSIFICATION = _evaluation({
    "roc": _object({"fpr": _SOME_NUMBERS, "tpr": _SOME_NUMBERS}, ("fpr", "tpr"),
                   then=_same_length("fpr", "tpr")),
    "pr": _object({"precision": _SOME_NUMBERS, "recall": _SOME_NUMBERS,
                   "prevalence": _number},
                  ("precision", "recall"), then=_same_length("precision", "recall")),
    "roc_band": _BAND, "pr_band": _BAND, "operating_point": _OPERATING,
    "confusion": _object({"labels": _list(_key, what="a list of class labels"),
                          "matrix": _MATRIX},
                         ("labels", "matrix"), then=_square),
    "calibration": _object({**{k: _MAYBE_NUMBERS for k in _CALIBRATION},
                            "design_effect": _MAYBE_NUMBERS, "method": _text},
                           _CALIBRATION[:3], then=_calibration_then),
})
_REGRESSION = _evaluation({
    "errors": _SOME_NUMBERS,
    "fit": _object({"predicted": _NUMBERS, "actual": _NUMBERS, "residual": _NUMBERS},
                   ("predicted", "actual", "residual"),
                   then=_same_length("predicted", "actual", "residual")),
})


def _winners_known(value: dict, path: str) -> None:
    from dartboard.report._inputs import _frame

    index = _frame(value["configurations"])["index"]
    if not index.is_unique:
        raise InputError(f"column 'index' of {_join(path, 'configurations')!r} must name "
                         "each configuration once")
    known = set(index.tolist())
    unknown = [i for i in _frame(value["winners"])["index"].tolist() if i not in known]
    if unknown:
        raise InputError(f"{_join(path, 'winners')!r} names configurations {unknown[:5]} "
                         f"that {_join(path, 'configurations')!r} does not hold")


def _ranks_then(value: dict, path: str) -> None:
    """Every field of the rank result, and as many models as the summary has rows."""
    from dartboard.report._inputs import _frame

    absent = [f for f in _RANK_FIELDS if f not in value]
    if absent:
        raise InputError(f"{path!r} needs the field(s) {absent}")
    rows = len(_frame(value["summary"]))
    if value["n_models"] != rows:
        raise InputError(f"{_join(path, 'n_models')!r} must be the number of models in "
                         f"{_join(path, 'summary')!r} ({rows}); got {value['n_models']!r}")


_SWEEP = _object({"precisions": _SOME_NUMBERS, "chance_level": _number,
                  "configurations": _table(("numerator", "std"), ("index", "configuration")),
                  "winners": _table(("p_start", "p_end"), ("index",)),
                  "crossings": _table(("p", "dart"))},
                 ("precisions", "configurations", "winners", "crossings", "chance_level"),
                 then=_winners_known)
_RANK_FIELDS = ("summary", "statistic", "pvalue", "critical_difference", "q_alpha", "alpha",
                "n_datasets", "n_models", "ranks")
_RANKS = _object({"summary": _table(("average_rank",), ("model",)), "ranks": _table(),
                  "statistic": _maybe(_number), "pvalue": _maybe(_number),
                  "critical_difference": _number, "q_alpha": _maybe(_number),
                  "alpha": _number, "n_datasets": _count, "n_models": _count,
                  "higher_is_better": _anything, "f_statistic": _maybe(_number),
                  "f_pvalue": _maybe(_number)},
                 ("summary", "ranks", "critical_difference", "alpha", "n_datasets",
                  "n_models"), exact=True, then=_ranks_then)
_SELECTION = _object({
    "description": _anything, "precision": _anything,
    "ranking": _rows({"mean": _number, "std": _number, "configuration": _anything},
                     ("configuration", "mean", "std")),
    "ranking_columns": _pairs, "sweep_segments": _rows(),
    "comparison": _object({"verdict": _anything, "rows": _rows()}, ("verdict", "rows")),
    "rank_test": _object({"description": _anything, "rows": _rows(), "columns": _pairs},
                         ("description", "rows", "columns")),
    "sweep": _SWEEP, "critical_difference": _RANKS,
}, ("ranking", "ranking_columns", "sweep", "critical_difference"))


def _probas_fit(value: dict, path: str) -> None:
    """The stability figure draws the probabilities: one equal row per model."""
    if value.get("figure") is None:
        return
    probas = value.get("probas")
    if probas is None:
        raise InputError(f"{path!r} needs the field 'probas' to draw its figure")
    if len({len(row) for row in probas}) > 1:
        raise InputError(f"{_join(path, 'probas')!r} must hold rows of one length (one "
                         "per model, one probability per test point)")


_STABILITY = _object({
    "summary": _rows(), "description": _anything,
    "probas": _list(_NUMBERS, what="a list of rows of numbers (one per model)",
                    min_length=1),
    "figure": _object({"summary": _object({"jitter": _number}, ("jitter",)),
                       "n_models": _count, "classes": _list(_key),
                       "per_point": _table(("label_stability", "total", "aleatoric",
                                            "mutual_information"))},
                      ("summary", "n_models", "classes", "per_point")),
}, ("summary",), then=_probas_fit)
_PROFILE = _object({"description": _anything, "rows": _rows(), "columns": _pairs},
                   ("rows", "columns"))
_K_MODELS = _object({"metric": _anything, "description": _anything, "estimates": _rows(),
                     "pairwise": _rows()}, ("estimates", "pairwise"))


def _section(rule: Rule) -> Rule:
    """A section: drawn when it holds anything (an empty object draws nothing)."""
    def check(value: Any, path: str) -> None:
        if value != {}:
            rule(value, path)
    return check


def _notes_given(value: dict, path: str) -> None:
    if "notes" in value and value["notes"] is None:  # the report lists them as given
        _fail("notes", "a list", None)


# the selection figures are drawn whenever the section is there (an empty one too)
_TOP = _object({
    "highlights": _rows({}, ("label", "value")), "notes": _list(_anything),
    "selection": _SELECTION, "classification": _section(_CLASSIFICATION),
    "regression": _section(_REGRESSION), "stability": _section(_STABILITY),
    "profile": _section(_PROFILE), "k_models": _section(_K_MODELS),
}, then=_notes_given)
