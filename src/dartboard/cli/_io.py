"""Files in, errors out: reading tables and columns, and reporting bad input.

Bad input (a missing file or column, an unreadable file, a bad option value) ends
with exit code 2 and one line ``error: ...`` on standard error, never a traceback.
Subcommands raise ordinary ``ValueError``/``TypeError``/``OSError`` and never catch
them; :class:`CommandGroup` is the one place that reports them. Output files are
checked before any work (:func:`check_output`) and written atomically at the very
end by the report's writer, so a failed command leaves no file behind.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

# Exceptions that mean "the input is wrong", reported in one line with exit code 2.
# (json, pandas and pyarrow parse errors are ValueErrors; unreadable files OSErrors.)
USER_ERRORS = (ValueError, TypeError, OSError, KeyError)
EXIT_BAD_INPUT = 2

_PARQUET = {".parquet", ".pq", ".parq"}


def one_line(text: str) -> str:
    return " ".join(str(text).split())


class CommandGroup(TyperGroup):
    """Runs a subcommand and turns bad input into ``error: ...`` and exit code 2;
    warnings become one ``warning: ...`` line each."""

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        def show_warning(message: Any, category: Any, *_: Any, **__: Any) -> None:
            typer.echo(f"warning: {one_line(str(message))}", err=True)

        try:
            with warnings.catch_warnings():
                warnings.showwarning = show_warning
                rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, **extra)
        except typer.Abort:
            self._fail("aborted", standalone_mode, 1)
        except typer.TyperException as exc:  # usage errors: unknown option, missing value
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(exc.ctx.get_help())
                rv = 0
            else:
                self._fail(exc.format_message(), standalone_mode, exc.exit_code)
        except USER_ERRORS as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            self._fail(one_line(str(message)) or type(exc).__name__, standalone_mode,
                       EXIT_BAD_INPUT)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)

    @staticmethod
    def _fail(message: str, standalone_mode: bool, code: int) -> None:
        typer.echo(f"error: {one_line(message)}", err=True)
        if standalone_mode:
            sys.exit(code)
        raise typer.Exit(code)


def check_output(path: Path, option: str) -> None:
    """Fail before any work when an output file cannot be written where asked."""
    if not Path(path).parent.is_dir():
        raise ValueError(f"{option} {str(path)!r}: directory {str(Path(path).parent)!r} does "
                         "not exist")


def is_stream_source(path: str) -> bool:
    """A directory or a glob: Parquet files to stream rather than one table to read."""
    return Path(path).is_dir() or any(ch in path for ch in "*?[")


def read_table(path: str, what: str = "FILE") -> Any:
    """A DataFrame from a CSV, Parquet or (for results) JSON file, with rows."""
    table = _read_file(path, what)
    if len(table) == 0:
        raise ValueError(f"{what} {path!r} has no rows (columns: "
                         f"{', '.join(map(str, list(table.columns)[:12]))})")
    return table


def _read_file(path: str, what: str) -> Any:
    import pandas as pd

    p = Path(path)
    if not p.exists():
        raise ValueError(f"{what} {path!r} does not exist")
    if p.is_dir():
        raise ValueError(f"{what} {path!r} is a directory; give a CSV or Parquet file")
    with open(p, "rb") as handle:
        magic = handle.read(4)
    suffix = p.suffix.lower()
    if suffix in _PARQUET or magic == b"PAR1":
        try:
            return pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise ValueError(f"cannot read Parquet file {path!r}: {one_line(str(exc))}") \
                from None
    if suffix == ".json":
        try:
            return pd.read_json(p)
        except ValueError as exc:
            raise ValueError(f"cannot read JSON table {path!r}: {one_line(str(exc))}") \
                from None
    try:
        sep = _csv_separator(p)
        return pd.read_csv(p, sep=sep, index_col=0 if _blank_first_header(p, sep) else None)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read CSV file {path!r}: {one_line(str(exc))}") from None


def _csv_separator(path: Path) -> str:
    """',' unless the header has none and a ';' (European locales), tab or '|'."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        header = handle.readline()
    if "," in header:
        return ","
    return next((sep for sep in ";\t|" if sep in header), ",")


def _blank_first_header(path: Path, sep: str) -> bool:
    """DataFrame.to_csv writes its index under a blank header: read it as the index
    (row numbers are not a feature, a fold score or a label)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.readline().startswith(sep)


def column(table: Any, name: str, option: str, path: str) -> Any:
    """Column ``name`` of ``table``; the error names the option and lists the columns."""
    if name not in table.columns:
        shown = ", ".join(map(str, list(table.columns)[:12]))
        raise ValueError(f"column {name!r} ({option}) not found in {path!r}; its columns "
                         f"are: {shown}")
    return table[name]


def numeric(values: Any, name: str, option: str) -> Any:
    """A numeric column without missing values, as an array."""
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(values):
        bad = values[pd.to_numeric(values, errors="coerce").isna()]
        example = bad.iloc[0] if len(bad) else values.iloc[0]
        raise ValueError(f"column {name!r} ({option}) must be numeric; got values such as "
                         f"{example!r}")
    if values.isna().any():
        raise ValueError(f"column {name!r} ({option}) has {int(values.isna().sum())} "
                         "missing value(s)")
    return values.to_numpy()


def labels(values: Any, name: str, option: str) -> Any:
    """A column of labels (any type) without missing values, as an array."""
    if values.isna().any():
        raise ValueError(f"column {name!r} ({option}) has {int(values.isna().sum())} "
                         "missing value(s)")
    return values.to_numpy()


def is_numeric(values: Any) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(values))
