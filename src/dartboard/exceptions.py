"""The errors dartboard raises about its input.

Every check of an argument, an array or a file raises one of these. Each is also
the built-in class a caller already catches: :class:`InputError` is a
``ValueError`` and :class:`InputTypeError` a ``TypeError``, so code written for
scikit-learn's metrics (``except ValueError``) catches dartboard's refusals too,
and :class:`InvalidParameterError` is both, as scikit-learn's class of that name.
scikit-learn's warning classes stay where scikit-learn has them
(:class:`dartboard.metrics.UndefinedMetricWarning` is a subclass of
``sklearn.exceptions.UndefinedMetricWarning``).

The command line tells bad input from a fault of dartboard by these classes alone:
a :class:`DartboardError` (or an ``OSError``: a file that cannot be opened) ends
with ``error: <message>`` and exit code 2; any other exception is an internal
error (exit code 1) with a hint to rerun with ``--debug`` for its traceback.

Examples
--------
>>> import dartboard.metrics as dm
>>> from dartboard.exceptions import InputError
>>> try:
...     dm.accuracy_score([0, 1], [0, 1, 1])
... except ValueError as exc:
...     isinstance(exc, InputError)
True
"""

from __future__ import annotations

__all__ = ["DartboardError", "FewClustersWarning", "FileFormatError", "InputError",
           "InputTypeError", "InvalidParameterError"]


class DartboardError(Exception):
    """Base of the errors dartboard raises on purpose about what it was given.

    Examples
    --------
    >>> import dartboard
    >>> from dartboard.exceptions import DartboardError
    >>> try:
    ...     dartboard.interval("accuracy", [0, 1, 1], [0, 1])
    ... except DartboardError as exc:
    ...     print(type(exc).__name__)
    InputError
    """


class InputError(DartboardError, ValueError):
    """A value is wrong: an array's content or shape, an option outside its range,
    labels that do not fit. A ``ValueError``.

    Examples
    --------
    >>> import dartboard.metrics as dm
    >>> try:
    ...     dm.recall_score([0, 1, 1], [0, 1, 1], pos_label=5)
    ... except ValueError as exc:
    ...     print(type(exc).__name__)
    InputError
    """


class InputTypeError(DartboardError, TypeError):
    """An argument of the wrong type (a string where a number belongs, an object
    without the method needed). A ``TypeError``.

    Examples
    --------
    >>> import dartboard
    >>> try:
    ...     dartboard.interval("accuracy", [0, 1], [0, 1], confidence_level="high")
    ... except TypeError as exc:
    ...     print(type(exc).__name__)
    InputTypeError
    """


class InvalidParameterError(InputError, InputTypeError):
    """A bad option value. As scikit-learn's exception of the same name it is both a
    ``ValueError`` and a ``TypeError``, so code written against either catches it.

    Examples
    --------
    >>> from dartboard.exceptions import InvalidParameterError
    >>> issubclass(InvalidParameterError, ValueError), issubclass(InvalidParameterError,
    ...                                                           TypeError)
    (True, True)
    """


class FileFormatError(InputError):
    """A file's content cannot be read as the table, JSON or Parquet expected (the
    parser's own error is its ``__cause__``). A ``ValueError``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from dartboard.exceptions import FileFormatError
    >>> from dartboard.scale import evaluate_parquet
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "scores.parquet"
    ...     _ = path.write_text("not parquet")
    ...     try:
    ...         evaluate_parquet(path, y_true="y", y_score="score")
    ...     except FileFormatError:
    ...         print("refused")
    refused
    """


class FewClustersWarning(UserWarning):
    """Rows come in fewer clusters than the clustered intervals were measured to cover
    with (``dartboard._kernels._clustered_analytic.FEW_CLUSTERS``): the interval may
    hold the truth less often than its level says. An evaluation records it in its
    ``assumptions`` too.

    Examples
    --------
    >>> import warnings
    >>> import dartboard
    >>> from dartboard.exceptions import FewClustersWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = dartboard.interval("accuracy", [0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1],
    ...                            clusters=[0, 0, 1, 1, 2, 2])
    >>> any(issubclass(w.category, FewClustersWarning) for w in caught)
    True
    """
