"""Scorers: scikit-learn's scorer names, computed by dartboard's metric functions.

``get_scorer("f1_macro")`` is ``sklearn.metrics.make_scorer(dartboard.metrics.f1_score,
average="macro", pos_label=None)``: a scikit-learn scorer object, so
``cross_validate``, ``GridSearchCV`` and ``check_scoring`` take it as they take
their own. How each name is scored (which metric, which keywords, the sign, and
which estimator method gives its input: ``predict``, ``predict_proba`` or
``decision_function``) is scikit-learn's fact: it is read from the installed
scikit-learn's own scorer of that name, so the two cannot drift apart. Only the
metric function is swapped for dartboard's (found in the registry by its name).
Names whose metric dartboard does not compute (the clustering scores, such as
``adjusted_rand_score``) are scikit-learn's own scorers: ``get_scorer_names()`` is
scikit-learn's list, and every name on it gives a scorer.

Examples
--------
>>> from sklearn.datasets import load_breast_cancer
>>> from sklearn.linear_model import LogisticRegression
>>> from sklearn.model_selection import cross_val_score
>>> X, y = load_breast_cancer(return_X_y=True)
>>> model = LogisticRegression(max_iter=5000)
>>> scores = cross_val_score(model, X[:, :5], y, cv=3, scoring=get_scorer("roc_auc"))
>>> bool((scores > 0.9).all())
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from numpy.typing import ArrayLike

from dartboard._validation import describe
from dartboard.exceptions import InputError, InputTypeError
from dartboard.metrics._classification_losses import class_likelihood_ratios
from dartboard.metrics._docs import documented
from dartboard.metrics._registry import MetricSpec, get_spec, spec_for

__all__ = ["ScoringFacts", "get_scorer", "get_scorer_names", "make_scorer", "scoring_facts"]


def positive_likelihood_ratio(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """``LR+`` of :func:`class_likelihood_ratios`, 1.0 where undefined (scikit-learn's
    scorer function)."""
    return class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[0]


def negative_likelihood_ratio(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """``LR-`` of :func:`class_likelihood_ratios`, 1.0 where undefined (scikit-learn's
    scorer function)."""
    return class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[1]


# scikit-learn scores these with functions of its scorer module, not of sklearn.metrics
_SCORER_FUNCTIONS = {f.__name__: f for f in (positive_likelihood_ratio,
                                             negative_likelihood_ratio)}


def _ours(function_name: str) -> Callable[..., Any] | None:
    if function_name in _SCORER_FUNCTIONS:
        return _SCORER_FUNCTIONS[function_name]
    try:
        return get_spec(function_name).function
    except ValueError:
        return None


@cache
def _scorers() -> dict[str, Any]:
    """Every scikit-learn scorer name: a dartboard scorer where dartboard has the metric,
    else scikit-learn's own scorer (the clustering scores)."""
    from sklearn.metrics import _scorer as skm  # not the namespace: it may be patched

    out = {}
    for name in skm.get_scorer_names():
        theirs = skm.get_scorer(name)
        function = _ours(getattr(theirs._score_func, "__name__", ""))
        out[name] = theirs if function is None else skm.make_scorer(
            function, response_method=theirs._response_method,
            greater_is_better=theirs._sign > 0, **theirs._kwargs)
    return out


@documented(
    returns="list of str\n    The names :func:`get_scorer` accepts, sorted.",
)
def get_scorer_names() -> list[str]:
    """Sorted names of the scorers :func:`get_scorer` knows: scikit-learn's names, all
    of them.

    Examples
    --------
    >>> {"accuracy", "f1_macro", "neg_log_loss", "r2"} <= set(get_scorer_names())
    True
    """
    return sorted(_scorers())


@documented(
    returns="callable\n    ``scorer(estimator, X, y)``, as scikit-learn's model selection "
            "expects.",
    scoring=("str or callable",
             "A scorer name (``get_scorer_names()``) or a scorer, returned as is."),
)
def get_scorer(scoring: Any) -> Any:
    """The scorer called ``scoring``, computed by dartboard's metric (scikit-learn's
    own scorer for the clustering scores, whose metrics dartboard does not compute).

    Drop-in for ``sklearn.metrics.get_scorer``: a string is looked up (a new
    copy each time, as scikit-learn), a callable or None is returned as it is.

    Examples
    --------
    >>> get_scorer("neg_mean_squared_error")
    make_scorer(mean_squared_error, greater_is_better=False, response_method='predict')
    """
    if not isinstance(scoring, str):
        if scoring is None or callable(scoring):
            return scoring
        raise InputTypeError(f"scoring must be a scorer name, a callable or None; got "
                             f"{describe(scoring)}")
    import copy

    scorers = _scorers()
    if scoring not in scorers:
        raise InputError(f"{scoring!r} is not a valid scoring value. Use "
                         "dartboard.metrics.get_scorer_names() to get valid options.")
    return copy.deepcopy(scorers[scoring])


@documented(
    returns="callable\n    ``scorer(estimator, X, y)``, as scikit-learn's model selection "
            "expects.",
    score_func=("callable",
                "A metric ``score_func(y_true, y_pred, **kwargs)``."),
    response_method=("str or tuple of str",
                     "The estimator's method giving the metric's second argument "
                     "(``'predict'``, ``'predict_proba'``, ``'decision_function'``, or "
                     "several to try in order)."),
    greater_is_better=("bool",
                       "False for a loss: the scorer then returns its negative."),
    kwargs=("dict",
            "Keywords passed to ``score_func``."),
)
def make_scorer(score_func: Callable[..., Any], *, response_method: Any = "predict",
                greater_is_better: bool = True, **kwargs: Any) -> Any:
    """A scorer from a metric function: ``sklearn.metrics.make_scorer`` itself.

    ``make_scorer(dartboard.metrics.fbeta_score, beta=2)`` gives a scorer that
    scikit-learn's model selection accepts; ``response_method`` is "predict",
    "predict_proba", "decision_function" or a tuple of them (the first the
    estimator has is used), ``greater_is_better=False`` negates a loss.

    Examples
    --------
    >>> from dartboard.metrics import fbeta_score
    >>> make_scorer(fbeta_score, beta=2)
    make_scorer(fbeta_score, response_method='predict', beta=2)
    """
    from sklearn.metrics import _scorer as skm  # not the namespace: it may be patched

    return skm.make_scorer(score_func, response_method=response_method,
                           greater_is_better=greater_is_better, **kwargs)


#: the estimator method that gives a metric its input, by the registry's ``input``
_RESPONSE: dict[str, str | tuple[str, ...]] = {
    "labels": "predict", "values": "predict", "probabilities": "predict_proba",
    "scores": ("decision_function", "predict_proba")}


@dataclass(frozen=True)
class ScoringFacts:
    """What a ``scoring`` argument computes: the metric, its keywords, its sign and
    the estimator method that feeds it.

    Attributes
    ----------
    name : str
        The scorer's name, or the metric's.
    spec : MetricSpec or None
        The registry's spec of the metric; None for a callable dartboard does not know.
    kwargs : dict
        Keywords the scorer passes to the metric.
    response_method : str or tuple of str
        ``"predict"``, ``"predict_proba"``, ``"decision_function"`` or a tuple of
        them (the first the estimator has).
    sign : int
        +1, or -1 for a scorer that negates a loss (``neg_log_loss``).
    """

    name: str
    spec: MetricSpec | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    response_method: str | tuple[str, ...] = "predict"
    sign: int = 1


def _metric_spec(function: Any) -> MetricSpec | None:
    """The spec of a dartboard metric, or of scikit-learn's function of the same name
    (the one ``sklearn.metrics`` exports, compared by identity)."""
    spec = spec_for(function)
    if spec is not None:
        return spec
    import sklearn.metrics

    name = getattr(function, "__name__", None)
    if isinstance(name, str) and getattr(sklearn.metrics, name, None) is function:
        try:
            return get_spec(name)
        except ValueError:
            return None
    return None


def scoring_facts(scoring: Any) -> ScoringFacts:
    """The facts of ``scoring``: a scorer name (``"neg_log_loss"``), a metric name of
    the registry (``"log_loss"``), a scorer object (``make_scorer(...)``, dartboard's
    or scikit-learn's) or a metric function.

    Examples
    --------
    >>> facts = scoring_facts("neg_log_loss")
    >>> facts.spec.name, facts.sign, facts.response_method
    ('log_loss', -1, 'predict_proba')
    >>> scoring_facts("zero_one_loss").response_method
    'predict'
    """
    if isinstance(scoring, str):
        if scoring in _scorers():
            return replace(scoring_facts(get_scorer(scoring)), name=scoring)
        try:
            spec = get_spec(scoring)
        except ValueError:
            raise InputError(f"scoring={scoring!r} is neither a scorer name "
                             "(dartboard.metrics.get_scorer_names()) nor a dartboard metric "
                             "name") from None
        return ScoringFacts(scoring, spec, {}, _RESPONSE[spec.input], 1)
    if hasattr(scoring, "_score_func") and hasattr(scoring, "_sign"):  # a scorer object
        found = _metric_spec(scoring._score_func)
        name = found.name if found is not None else \
            getattr(scoring._score_func, "__name__", type(scoring).__name__)
        return ScoringFacts(name, found, dict(getattr(scoring, "_kwargs", {})),
                            getattr(scoring, "_response_method", "predict"),
                            1 if scoring._sign > 0 else -1)
    if callable(scoring):
        found = _metric_spec(scoring)
        name = getattr(scoring, "__name__", type(scoring).__name__)
        return ScoringFacts(name, found, {}, _RESPONSE[found.input] if found else "predict", 1)
    raise InputTypeError(f"scoring must be a scorer name, a metric name, a scorer or a metric "
                    f"function; got {describe(scoring)}")
