"""The parameters the drop-in metrics share, described once.

scikit-learn's metrics share their parameter names and meanings (``y_true``,
``sample_weight``, ``multioutput``...). :func:`documented` completes a metric's
numpydoc docstring from the function's own signature: every parameter not yet
described gets its entry from :data:`GLOSSARY` (worded for the metric's input kind,
from the registry) or from the decorator's keywords, with its default; a missing
description is an error at import, so a new parameter cannot go undocumented. The
formula, edge cases and examples stay in the function's own docstring.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any

from dartboard.metrics._registry import get_spec

__all__ = ["GLOSSARY", "documented"]

_LABELS = ("array-like of shape (n_samples,) or (n_samples, n_labels)",
           "True labels; a 0/1 indicator matrix for multilabel data.")
_VALUES = ("array-like of shape (n_samples,) or (n_samples, n_outputs)", "True target values.")

#: name -> (type, description), or input kind (the registry's) -> (type, description)
GLOSSARY: dict[str, Any] = {
    "y_true": {"labels": _LABELS, "scores": _LABELS,
               "probabilities": ("array-like of shape (n_samples,)", "True class labels."),
               "values": _VALUES},
    "y_pred": {"labels": ("array-like of shape (n_samples,) or (n_samples, n_labels)",
                          "Predicted labels, as a classifier's ``predict`` returns them."),
               "values": ("array-like of shape (n_samples,) or (n_samples, n_outputs)",
                          "Predicted target values.")},
    "y_score": ("array-like of shape (n_samples,) or (n_samples, n_classes)",
                "Scores, higher for the positive class: probabilities or decision values "
                "(one column per class for multiclass or multilabel data)."),
    "y_proba": ("array-like of shape (n_samples,) or (n_samples, n_classes)",
                "Predicted probabilities: of the positive class when 1-D, else one column "
                "per class (in the order of the sorted labels) with rows summing to 1."),
    "sample_weight": ("array-like of shape (n_samples,)",
                      "Sample weights; None weighs every sample equally."),
    "multioutput": ("{'raw_values', 'uniform_average'} or array-like of shape (n_outputs,)",
                    "How the values of several outputs are combined: ``'raw_values'`` "
                    "returns one per output, ``'uniform_average'`` their mean, an array "
                    "their mean with these weights."),
    "normalize": ("bool", "Return the fraction (True) or the number (False) of samples."),
    "pos_label": {"labels": ("int, float, bool or str",
                             'The class reported when ``average="binary"``.'),
                  **dict.fromkeys(("scores", "probabilities"), (
                      "int, float, bool or str",
                      "The positive class. None: 1 when the labels are {0, 1} or {-1, 1} "
                      "(an error for other labels), as scikit-learn."))},
    "labels": {"labels": ("array-like of shape (n_classes,)",
                          "Classes to report on, in this order; None: the sorted labels "
                          "present. Counts are still taken over all samples."),
               **dict.fromkeys(("scores", "probabilities"), (
                   "array-like of shape (n_classes,)",
                   "All the classes, in order, when ``y_true`` does not show every one of "
                   "them; None: the sorted labels present."))},
    "average": ("{'binary', 'micro', 'macro', 'weighted', 'samples'} or None",
                "How per-class values are combined: the ``pos_label`` class only, the "
                "ratio of the summed counts, the unweighted or support-weighted mean "
                "over classes, the mean over samples (multilabel); None returns one "
                "value per class."),
    "zero_division": ("{'warn', 0.0, 1.0, np.nan}",
                      "Value of a 0/0 ratio; 'warn' gives 0.0 and an "
                      "UndefinedMetricWarning."),
}
_SECTIONS = ("Parameters", "Returns", "Yields", "Raises", "Warns", "Warnings", "See Also",
             "Notes", "References", "Examples")
_HEADER = re.compile(r"^(" + "|".join(_SECTIONS) + r")\n-+$", re.MULTILINE)


def _entry(name: str, parameter: inspect.Parameter, kind: str | None,
           given: Any) -> str:
    found = given if given is not None else GLOSSARY.get(name)
    if isinstance(found, dict):
        found = found.get(kind or "")
    if found is None:
        raise KeyError(f"parameter {name!r} has no description: pass it to documented()")
    kind_of, text = found
    if parameter.kind is inspect.Parameter.VAR_KEYWORD:
        name = f"**{name}"
    elif parameter.default is not inspect.Parameter.empty:
        kind_of = f"{kind_of}, default={parameter.default!r}"
    body = textwrap.fill(text, 84, initial_indent=" " * 4, subsequent_indent=" " * 4)
    return f"{name} : {kind_of}\n{body}\n"


def _entries(body: str) -> list[tuple[list[str], str]]:
    """The entries of a Parameters section: ``(names, text)``, in order."""
    entries: list[tuple[list[str], str]] = []
    for line in body.splitlines(keepends=True):
        if re.match(r"^[*\w]", line):
            names = [n.strip().lstrip("*") for n in line.split(" : ")[0].split(",")]
            entries.append((names, line))
        elif entries:
            entries[-1] = (entries[-1][0], entries[-1][1] + line)
    return entries


def _with_parameters(doc: str, function: Any, kind: str | None,
                     given: dict[str, tuple[str, str]]) -> str:
    """The docstring with every parameter described, in the signature's order."""
    section = _section(doc, "Parameters")
    existing = _entries(doc[section[0]:section[1]].rstrip("\n") + "\n") if section else []
    written: list[str] = []
    used: set[int] = set()
    for name, parameter in inspect.signature(function).parameters.items():
        found = next((i for i, (names, _) in enumerate(existing) if name in names), None)
        if found is None:
            written.append(_entry(name, parameter, kind, given.get(name)))
        elif found not in used:
            used.add(found)
            written.append(existing[found][1])
    # an entry naming no parameter is left for numpydoc's PR02 to report
    written += [text for i, (_, text) in enumerate(existing) if i not in used]
    body = "".join(written)
    if section is None:
        return _insert_section(doc, "Parameters", body) if body else doc
    rest = doc[section[1]:]
    return doc[:section[0]] + body + ("\n" + rest if rest else "")


def _section(doc: str, title: str) -> tuple[int, int] | None:
    """``(start, end)`` of a section's body, or None."""
    headers = list(_HEADER.finditer(doc))
    for i, header in enumerate(headers):
        if header.group(1) == title:
            end = headers[i + 1].start() if i + 1 < len(headers) else len(doc)
            return header.end() + 1, end
    return None


def _insert_section(doc: str, title: str, body: str) -> str:
    """Put a new section before the first section that follows it in numpydoc order."""
    later = _SECTIONS[_SECTIONS.index(title) + 1:]
    at = next((h.start() for h in _HEADER.finditer(doc) if h.group(1) in later), None)
    block = f"{title}\n{'-' * len(title)}\n{body}\n"
    if at is None:
        return doc.rstrip() + "\n\n" + block
    return doc[:at] + block + doc[at:]


def documented(returns: str | None = None,
               **parameters: tuple[str, str]) -> Callable[[Any], Any]:
    """Complete a metric's docstring with its Parameters and Returns sections.

    Parameters
    ----------
    returns : str, optional
        The Returns section's body (``type`` then an indented description), added
        when the docstring has none.
    **parameters : tuple of (str, str)
        ``name=(type, description)`` for parameters the glossary does not describe
        (or describes differently for this metric).

    Returns
    -------
    callable
        A decorator that rewrites ``__doc__`` and returns the function itself.
    """
    def decorate(function: Any) -> Any:
        # without the source's indentation (as help() shows it), whatever the nesting
        doc = inspect.cleandoc(function.__doc__) + "\n"
        try:
            kind = get_spec(function.__name__).input
        except ValueError:  # a scorer helper: no registry entry
            kind = None
        doc = _with_parameters(doc, function, kind, parameters)
        if returns is not None and _section(doc, "Returns") is None:
            doc = _insert_section(doc, "Returns", textwrap.dedent(returns).strip("\n") + "\n")
        function.__doc__ = doc
        return function
    return decorate
