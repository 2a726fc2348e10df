"""Groups of an evaluation: encoding one or several group columns, and the grouped bootstrap.

Several columns give their intersections, as fairlearn's multiple sensitive
features do: a group is one observed combination of values. A missing value in a
group column is an error, never a silently dropped row: a sample without a group
would fall out of every per-group number while still counting overall.

The gaps between groups are drawn by the families
(:func:`dartboard.families._base.group_replicates`, each group's cells on their own);
:func:`generic_group_replicates` resamples each group's rows for a metric no family
computes (a user's callable), in memory-bounded batches.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any

import numpy as np

from dartboard._progress import bar
from dartboard._validation import describe, to_numpy
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["GroupIndex", "encode_groups", "generic_group_replicates", "replicate_batches"]


@dataclasses.dataclass(frozen=True)
class GroupIndex:
    """Group codes of the samples and what each code stands for.

    Attributes
    ----------
    codes : ndarray of shape (n_samples,)
        0 .. G-1, in the sorted order of the groups' keys.
    keys : tuple of tuple
        Per group, its value in each group column.
    names : tuple of str
        The group columns' names.
    sizes : ndarray of shape (G,)
        Samples per group.
    """

    codes: np.ndarray
    keys: tuple[tuple[Any, ...], ...]
    names: tuple[str, ...]
    sizes: np.ndarray

    @property
    def n_groups(self) -> int:
        return len(self.keys)

    def label(self, g: int) -> str:
        """The group's name in tables and JSON: its values joined by ``", "``."""
        return ", ".join(str(v) for v in self.keys[g])

    @cached_property
    def _members(self) -> tuple[np.ndarray, ...]:
        # a stable sort of small integers is a radix sort: O(n)
        small = self.codes.astype(np.int16) if self.n_groups < 2 ** 15 else self.codes
        order = np.argsort(small, kind="stable")
        return tuple(np.split(order, np.cumsum(self.sizes)[:-1]))

    def members(self) -> list[np.ndarray]:
        """The sample indices of each group, in code order (computed once)."""
        return list(self._members)


def _columns(groups: Any) -> list[tuple[str, Any]]:
    """(name, values) of each group column given as an array, Series, DataFrame (of any
    library narwhals reads), dict or a list of columns."""
    import narwhals.dependencies as nwd
    import pandas as pd

    if isinstance(groups, pd.Series):
        return [(str(groups.name) if groups.name is not None else "group", groups.to_numpy())]
    if isinstance(groups, dict):
        if not groups:
            raise InputError("groups is an empty dict")
        return [(str(k), v) for k, v in groups.items()]
    if nwd.is_into_dataframe(groups):
        return _frame_columns(groups)
    if isinstance(groups, (list, tuple)) and groups and all(_is_column(c) for c in groups):
        return _listed_columns(groups)
    arr = to_numpy(groups, name="groups")
    if arr.ndim == 2 and arr.dtype.kind != "O":
        return [(f"group_{j}", arr[:, j]) for j in range(arr.shape[1])] \
            if arr.shape[1] > 1 else [("group", arr[:, 0])]
    return [("group", groups)]


def _frame_columns(groups: Any) -> list[tuple[str, Any]]:
    """Every column of a data frame (pandas' own values; another library's through
    narwhals, as numpy)."""
    import pandas as pd

    if isinstance(groups, pd.DataFrame):
        if groups.shape[1] == 0:
            raise InputError("groups is a DataFrame without columns")
        return [(str(c), groups[c].to_numpy()) for c in groups.columns]
    import narwhals.stable.v2 as nw

    frame = nw.from_native(groups, eager_only=True)
    if not frame.columns:
        raise InputError("groups is a DataFrame without columns")
    return [(str(c), frame.get_column(c).to_numpy()) for c in frame.columns]


def _listed_columns(groups: list[Any] | tuple[Any, ...]) -> list[tuple[str, Any]]:
    """A list of columns (the README's form), never rows: numpy would read it as a
    (k, n) matrix, and a square one would pass as the wrong groups. Named by the
    columns' own distinct names, else ``group_0``, ``group_1``, ..."""
    names: list[Any] = [getattr(c, "name", None) for c in groups]
    if not all(isinstance(v, str) and v for v in names) or len(set(names)) < len(names):
        names = [f"group_{j}" for j in range(len(groups))]
    return list(zip(names, groups))


def _is_column(value: Any) -> bool:
    """Whether an entry of a list of groups is a column of values (not one value)."""
    if isinstance(value, (str, bytes)) or np.isscalar(value) or value is None:
        return False
    return hasattr(value, "__len__") and np.ndim(value) >= 1


def encode_groups(groups: Any, n_samples: int) -> GroupIndex:
    """Encode group column(s) of ``n_samples`` rows.

    Raises ``ValueError`` for a length other than ``n_samples``, a missing value
    (None or NaN) or a 2-D column; ``TypeError`` for values that cannot be
    compared (mixed strings and numbers in one column).

    Examples
    --------
    >>> gi = encode_groups({"sex": ["F", "M", "F"], "age": [1, 1, 2]}, 3)
    >>> gi.codes.tolist(), gi.keys, gi.names
    ([0, 2, 1], (('F', 1), ('F', 2), ('M', 1)), ('sex', 'age'))
    """
    if groups is None:
        raise InputTypeError("groups must be a column (array, list, Series) or several (a "
                             "DataFrame or a list of columns); got None")
    cols = _columns(groups)
    names = tuple(name for name, _ in cols)
    if len(set(names)) != len(names):
        raise InputError(f"group column names must be distinct; got {list(names)}")
    coded = [_checked_column(name, col, groups, len(cols), n_samples) for name, col in cols]
    if n_samples == 0:
        raise InputError("groups need at least one sample")
    uniques = [u for u, _ in coded]
    inverse = [inv for _, inv in coded]
    combined = np.ravel_multi_index(inverse, [u.shape[0] for u in uniques]) \
        if len(inverse) > 1 else inverse[0]
    present, codes = np.unique(combined, return_inverse=True)
    parts = np.unravel_index(present, [u.shape[0] for u in uniques]) \
        if len(inverse) > 1 else (present,)
    keys = tuple(tuple(_python(uniques[j][parts[j][g]]) for j in range(len(uniques)))
                 for g in range(present.shape[0]))
    codes = codes.reshape(-1).astype(np.int64)
    return GroupIndex(codes, keys, names, np.bincount(codes, minlength=len(keys)))


def _checked_column(name: str, col: Any, groups: Any, n_cols: int, n_samples: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """One group column checked (1-D, one value per sample, no missing value, values
    that hash and order) and encoded: its sorted distinct values and each row's code."""
    import pandas as pd

    arr = to_numpy(col, name=f"groups[{name!r}]" if n_cols > 1 else "groups")
    if arr.ndim != 1:
        raise InputError(f"each group column must be 1-D; {name!r} has shape {arr.shape}")
    if arr.shape[0] != n_samples:
        listed = " (a list is read as a list of group columns)" \
            if isinstance(groups, (list, tuple)) and n_cols > 1 else ""
        raise InputError(f"groups must have one value per sample ({n_samples}); "
                         f"column {name!r} has {arr.shape[0]}{listed}")
    missing = int(pd.isna(arr).sum()) if arr.dtype.kind in "fOUSmM" else 0
    if missing:
        raise InputError(f"group column {name!r} has {missing} missing value(s) (None or "
                         "NaN); give them a group of their own (e.g. fill with "
                         "'missing') so that no sample silently leaves the per-group "
                         "numbers")
    if not arr.shape[0]:  # no rows: refused by the caller, with every column checked
        return arr, np.zeros(0, dtype=np.int64)
    if arr.dtype.kind != "O":
        return _factorize(arr)
    kinds = {type(v).__name__ for v in arr[:1000]}
    if any(isinstance(v, (list, dict, set, np.ndarray)) for v in arr[:1000]):
        raise InputTypeError(f"group column {name!r} holds unhashable values "
                             f"({describe(arr[0])})")
    try:
        return _ordered_codes(arr)
    except TypeError:
        raise InputTypeError(f"group column {name!r} mixes values that cannot be "
                             f"ordered ({', '.join(sorted(kinds))}); use one type") from None


def _factorize(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and the code of each element: dartboard's label encoder
    (no sort for integers of narrow range), or numpy's for values it does not take
    (non-integral floats)."""
    from dartboard._labels import encode_labels

    if arr.dtype.kind in "OU":  # strings: hashed, and only the distinct values sorted
        return _ordered_codes(arr)
    try:
        enc = encode_labels(("groups", arr))
        return enc.classes, enc.codes[0].astype(np.int64)
    except (TypeError, ValueError):
        u, inv = np.unique(arr, return_inverse=True)
        return u, inv.reshape(-1).astype(np.int64)


def _ordered_codes(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(arr, return_inverse=True)`` of strings and other objects at the cost
    of a hash table: the rows are factorized (pandas), and only the distinct values
    sorted (``TypeError`` when they cannot be ordered)."""
    import pandas as pd

    codes, distinct = pd.factorize(arr, use_na_sentinel=False)
    distinct = np.asarray(distinct, dtype=arr.dtype)
    order = np.argsort(distinct, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return distinct[order], rank[codes].astype(np.int64)


def _python(v: Any) -> Any:
    """A numpy scalar as the plain Python value (for JSON and readable indexes)."""
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------- replicates

def generic_group_replicates(statistic: Callable[[np.ndarray], float], index: GroupIndex,
                             n_resamples: int, rng: np.random.Generator,
                             label: str) -> np.ndarray:
    """(R, G + 1) values of a metric on each group's resampled rows and on their union.

    ``statistic(rows)`` computes the metric on the given row indices; a resample on
    which it raises ``ValueError`` or returns nan is undefined (nan), and the number of
    such values is reported in one warning. The row indices of a batch of replicates
    are drawn at once (one generator call per group), in batches of at most
    ``_BATCH_BYTES`` of indices, so memory stays bounded whatever ``n_resamples``.
    """
    members = index.members()
    g_count = index.n_groups
    n = sum(rows.shape[0] for rows in members)
    out = np.full((n_resamples, g_count + 1), np.nan)
    refused = 0
    with bar(n_resamples, f"resampling {g_count} groups' {label}") as work:
        for start, b in replicate_batches(n_resamples, 8 * max(n, 1)):
            drawn = [rows[rng.integers(0, rows.shape[0], size=(b, rows.shape[0]))]
                     for rows in members]
            for r in range(b):
                work.advance()
                sets = [d[r] for d in drawn]
                for g, rows in enumerate(sets + [np.concatenate(sets)]):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            out[start + r, g] = statistic(rows)
                        except ValueError:
                            refused += 1
    if refused:
        warnings.warn(f"{label} was undefined on {refused} of {out.size} resampled groups "
                      "(a class missing, say); those values are left out of the gaps' "
                      "intervals", _interval_warning(), stacklevel=3)
    return out


#: memory of one batch of replicates' row indices or draw counts
_BATCH_BYTES = 64 << 20


def replicate_batches(n_resamples: int, bytes_per_replicate: int
                      ) -> Iterator[tuple[int, int]]:
    """(start, size) of the batches of replicates that fit in ``_BATCH_BYTES``."""
    batch = max(1, min(n_resamples, _BATCH_BYTES // max(bytes_per_replicate, 1)))
    for start in range(0, n_resamples, batch):
        yield start, min(batch, n_resamples - start)


def _interval_warning() -> type[Warning]:
    from dartboard.uncertainty import IntervalWarning

    return IntervalWarning
