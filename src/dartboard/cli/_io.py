"""Files in, errors out: reading tables and columns, and reporting errors.

Bad input (a missing file or column, an unreadable file, a bad option value) ends
with exit code 2 and one line ``error: ...`` on standard error, never a traceback.
An unexpected failure inside dartboard ends with exit code 1 and one line
``internal error: ...`` (the traceback with ``--debug``): a bug is never disguised
as bad input. Ctrl-C ends with ``interrupted`` and exit code 130, SIGTERM with
``terminated`` and 143 (128 + the signal, as a shell reports a killed process);
both unwind like an exception, so a file being written is removed, not left half.
SIGKILL cannot be caught: a killed write leaves its hidden temporary file, which the
next write of the same output removes (``report._write.remove_stale_temporaries``).
An option that takes one value and is given twice (``--cluster a --cluster b``) is
refused, not read as its last value; options meant to repeat (``--group``) may.
Subcommands raise :mod:`dartboard.exceptions`' input errors (and ``OSError``) and
never catch them; :class:`CommandGroup` is the one place that reports them, by class. Output files are
checked before any work (:func:`check_output`) and written atomically at the very
end by the report's writer, so a failed command leaves no file behind.
"""

from __future__ import annotations

import csv
import io
import os
import signal
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from dartboard.exceptions import DartboardError, FileFormatError, InputError

EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
DEBUG_OPTION = "--debug"

_PARQUET = {".parquet", ".pq", ".parq"}


def one_line(text: str) -> str:
    return " ".join(str(text).split())


class Stopped(Exception):
    """Ctrl-C or SIGTERM, carried past click (which would turn it into an abort)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised by its handler: unwinds exactly like Ctrl-C."""


def is_bad_input(exc: BaseException) -> bool:
    """Whether ``exc`` means "the input is wrong" (exit 2) rather than a bug (exit 1),
    by its class alone: dartboard's input errors (:mod:`dartboard.exceptions`, raised
    by its checks, which name the argument) and ``OSError`` (a file that cannot be
    opened) are bad input; every other exception, a ``ValueError`` from numpy's
    arithmetic or a ``TypeError`` of an operation included, is a bug, whatever the
    input was."""
    return isinstance(exc, (DartboardError, OSError))


class CommandGroup(TyperGroup):
    """Runs a subcommand and turns bad input into ``error: ...`` and exit code 2,
    internal errors into ``internal error: ...`` and exit code 1, Ctrl-C and SIGTERM
    into one line and 130 or 143; warnings become one ``warning: ...`` line each,
    printed once the command has succeeded."""

    # click types main() with overloads on standalone_mode; this one forwards them all
    def main(self, args: Any = None, prog_name: Any = None,  # type: ignore[override]
             complete_var: Any = None, standalone_mode: bool = True, **extra: Any) -> Any:
        # warnings are said once each, after the command succeeded: a failed command
        # says one line (the error), not the warnings that led up to it
        said: dict[str, None] = {}

        def show_warning(message: Any, category: Any, *_: Any, **__: Any) -> None:
            said[f"warning: {one_line(str(message))}"] = None

        args = list(sys.argv[1:] if args is None else args)
        debug = DEBUG_OPTION in args
        args = [a for a in args if a != DEBUG_OPTION]
        rv: Any = None
        repeated = self._repeated_option(args)
        if repeated:
            self._fail(repeated, standalone_mode, EXIT_BAD_INPUT)
        try:
            with warnings.catch_warnings(), _sigterm_unwinds():
                # the command decides how its warnings are said, whatever filters the
                # interpreter was started with (an "error" filter would end the command
                # with an internal error instead)
                warnings.simplefilter("default")
                warnings.showwarning = show_warning
                rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, **extra)
            for line in said:
                typer.echo(line, err=True)
        except Stopped as exc:
            self._fail(str(exc), standalone_mode, exc.code, prefix="")
        except typer.Abort as exc:  # a signal while the command line was parsed
            self._aborted(exc, standalone_mode)
        except typer.TyperException as exc:  # usage errors: unknown option, missing value
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(exc.ctx.get_help())  # type: ignore[attr-defined]  # click's NoArgsIsHelpError has ctx
                rv = 0
            else:
                self._fail(exc.format_message(), standalone_mode, exc.exit_code)
        except Exception as exc:
            self._failed(exc, debug, standalone_mode)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _Terminated:
            raise Stopped("terminated", EXIT_TERMINATED) from None
        except KeyboardInterrupt:
            raise Stopped("interrupted", EXIT_INTERRUPTED) from None

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The subcommands with the whole first sentence of their help, wrapped, where
        click would cut it to the terminal's width and end it with "..."."""
        rows = [(name, command.get_short_help_str(limit=sys.maxsize))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _repeated_option(self, args: list[str]) -> str | None:
        """The refusal of an option that takes one value given more than once (click
        would keep the last one silently: ``--cluster a --cluster b`` would cluster by
        ``b`` alone), or None. Options meant to repeat (``--group``, ``--proba``) may."""
        name = next((a for a in args if not a.startswith("-")), None)
        command = self.commands.get(name) if name is not None else None
        if name is None or command is None:
            return None
        seen = _single_option_values(command, args[args.index(name) + 1:])
        for opt, values in seen.items():
            if len(values) > 1:
                shown = ", ".join(map(repr, values))
                return (f"{opt} was given {len(values)} times ({shown}); it takes one "
                        "value: give it once")
        return None

    def _aborted(self, exc: BaseException, standalone_mode: bool) -> None:
        """A signal while the command line was parsed: terminated, interrupted or
        aborted."""
        if isinstance(exc.__cause__, _Terminated):
            self._fail("terminated", standalone_mode, EXIT_TERMINATED, prefix="")
        if isinstance(exc.__cause__, KeyboardInterrupt):
            self._fail("interrupted", standalone_mode, EXIT_INTERRUPTED, prefix="")
        self._fail("aborted", standalone_mode, 1)

    def _failed(self, exc: Exception, debug: bool, standalone_mode: bool) -> None:
        """An exception out of the command: bad input (exit 2) or an internal error
        (exit 1, with the traceback under the debug option)."""
        if debug:
            traceback.print_exception(exc, file=sys.stderr)
        if is_bad_input(exc):
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            self._fail(one_line(str(message)) or type(exc).__name__, standalone_mode,
                       EXIT_BAD_INPUT)
        hint = "" if debug else f" (rerun with {DEBUG_OPTION} for the traceback)"
        self._fail(f"{type(exc).__name__}: {one_line(str(exc))}{hint}", standalone_mode,
                   EXIT_INTERNAL, prefix="internal error: ")

    @staticmethod
    def _fail(message: str, standalone_mode: bool, code: int, prefix: str = "error: ") -> None:
        typer.echo(f"{prefix}{one_line(message)}", err=True)
        if standalone_mode:
            sys.exit(code)
        raise typer.Exit(code)


def _single_option_values(command: Any, args: list[str]) -> dict[str, list[str]]:
    """The values given to each of ``command``'s options that take one value (by its
    long spelling: ``-o`` and ``--output`` are one), in ``args`` up to ``--``."""
    # typer's own copy of click: options are told by their kind, not their class
    taking = [param for param in command.params if param.param_type_name == "option"
              and not getattr(param, "is_flag", False) and not getattr(param, "count", False)]
    single = {opt: param for param in taking if not param.multiple for opt in param.opts}
    takes = {opt for param in taking for opt in param.opts}
    seen: dict[str, list[str]] = {}
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            break
        opt, eq, value = arg.partition("=")
        if opt not in takes or (eq and not opt.startswith("--")):
            continue
        if not eq:
            value = next(rest, "")
        if opt in single:
            seen.setdefault(max(single[opt].opts, key=len), []).append(value)
    return seen


class _sigterm_unwinds:
    """While a command runs, SIGTERM raises (like Ctrl-C) instead of killing the
    process on the spot, so ``finally`` blocks remove temporary files."""

    def __enter__(self) -> None:
        self.installed = False
        try:
            self.previous = signal.signal(signal.SIGTERM, _raise_terminated)
            self.installed = True
        except ValueError:  # not the main thread: leave the handler alone
            pass

    def __exit__(self, *exc: Any) -> None:
        if self.installed:
            signal.signal(signal.SIGTERM, self.previous)


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated()


def check_output(path: Path, option: str, inputs: Any = ()) -> None:
    """Fail before any work when an output file cannot be written where asked: the
    writer's own check (:func:`dartboard.report.check_target`: a regular file or a
    new one, never a directory, FIFO or device, and none of the command's ``inputs``
    by any name or link), then the directory's permission."""
    from dartboard.report import check_target

    try:
        target = check_target(path, inputs)
    except (ValueError, FileNotFoundError) as exc:
        raise InputError(f"{option}: {exc}") from None
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {str(path)!r}: directory {str(target.parent)!r} is not "
                         "writable")


def check_output_dir(path: Path, option: str, names: tuple[str, ...]) -> None:
    """Fail before any work when files ``names`` cannot be written into directory
    ``path`` (created when missing, with its parents)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{option} {str(path)!r} is a file; give a directory (created if "
                         "missing)")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"{option} {str(path)!r}: {str(existing)!r} is not a writable "
                         "directory")
    if path.is_dir():
        for name in names:
            check_output(path / name, option)


def is_stream_source(path: str) -> bool:
    """A directory or a glob: Parquet files to stream rather than one table to read.
    A path that exists is that file, whatever characters its name holds."""
    p = Path(path)
    return p.is_dir() or (not p.exists() and any(ch in path for ch in "*?["))


def read_table(path: str, what: str = "FILE") -> Any:
    """A DataFrame from a CSV, Parquet or (for results) JSON file, with rows."""
    table = _read_file(path, what)
    if len(table) == 0:
        raise InputError(f"{what} {path!r} has no rows (columns: "
                         f"{', '.join(map(str, list(table.columns)[:12]))})")
    return table


def _read_file(path: str, what: str) -> Any:
    import pandas as pd

    p = Path(path)
    if not p.exists():
        raise InputError(f"{what} {path!r} does not exist")
    if p.is_dir():
        raise InputError(f"{what} {path!r} is a directory; give a CSV or Parquet file")
    # a pipe (process substitution, /dev/stdin) can be read once: it is read whole and
    # the bytes parsed, where reopening it would lose what the first look consumed
    source: Any = p if p.is_file() else io.BytesIO(p.read_bytes())
    with _opened(source, None) as handle:
        magic = handle.read(4)
    suffix = p.suffix.lower()
    if suffix in _PARQUET or magic == b"PAR1":
        try:
            return pd.read_parquet(source)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise FileFormatError(f"cannot read Parquet file {path!r}: "
                                  f"{one_line(str(exc))}") from None
    if suffix == ".json":
        try:
            return pd.read_json(source)
        except ValueError as exc:
            raise FileFormatError(f"cannot read JSON table {path!r}: "
                                  f"{one_line(str(exc))}") from None
    try:
        sep = _csv_separator(source)
        _refuse_repeated_names(source, sep, path)
        return pd.read_csv(source, sep=sep,
                           index_col=0 if _blank_first_header(source, sep) else None)
    except (ValueError, UnicodeDecodeError, csv.Error) as exc:
        raise FileFormatError(f"cannot read CSV file {path!r}: {one_line(str(exc))}") \
            from None


def _opened(source: Any, encoding: str | None) -> Any:
    """``source`` (a path, or the bytes of a pipe) opened from its start: as bytes, or
    as text in ``encoding`` with undecodable bytes replaced."""
    if isinstance(source, io.BytesIO):
        data = source.getvalue()
        return io.BytesIO(data) if encoding is None else \
            io.StringIO(data.decode(encoding, errors="replace"), newline="")
    if encoding is None:
        return open(source, "rb")
    return open(source, encoding=encoding, errors="replace", newline="")


def _refuse_repeated_names(source: Any, sep: str, shown: str) -> None:
    """pandas renames a repeated column ``a`` to ``a.1``; which one is meant cannot be
    known, so a header that repeats a name is refused."""
    with _opened(source, "utf-8-sig") as handle:
        header = next(csv.reader(handle, delimiter=sep), [])
    seen = [name for name in header if name]
    repeated = sorted({name for name in seen if seen.count(name) > 1})
    if repeated:
        raise InputError(f"the header of {shown!r} repeats column name(s) "
                         f"{', '.join(map(repr, repeated[:8]))}; give each column its "
                         "own name")


def _csv_separator(source: Any) -> str:
    """',' unless the header has none and a ';' (European locales), tab or '|'."""
    with _opened(source, "utf-8") as handle:
        header = handle.readline()
    if "," in header:
        return ","
    return next((sep for sep in ";\t|" if sep in header), ",")


def _blank_first_header(source: Any, sep: str) -> bool:
    """DataFrame.to_csv writes its index under a blank header: read it as the index
    (row numbers are not a feature, a fold score or a label)."""
    with _opened(source, "utf-8") as handle:
        return handle.readline().startswith(sep)


def column(table: Any, name: str, option: str, path: str) -> Any:
    """Column ``name`` of ``table``; the error names the option and lists the columns."""
    if name not in table.columns:
        shown = ", ".join(map(str, list(table.columns)[:12]))
        raise InputError(f"column {name!r} ({option}) not found in {path!r}; its columns "
                         f"are: {shown}")
    values = table[name]
    if isinstance(values, type(table)):
        raise InputError(f"column {name!r} ({option}) appears more than once in {path!r}")
    if values.dtype == object and values.map(_is_nested).any():
        raise InputError(f"column {name!r} ({option}) in {path!r} holds lists or nested "
                         "values; give one number or label per row")
    return values


def _is_nested(value: Any) -> bool:
    """A list, dict or array in one cell (Parquet's nested types)."""
    return isinstance(value, (list, tuple, dict, set)) or getattr(value, "ndim", 0) > 0


def numeric(values: Any, name: str, option: str) -> Any:
    """A numeric column without missing values, as an array."""
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(values):
        bad = values[pd.to_numeric(values, errors="coerce").isna()]
        example = bad.iloc[0] if len(bad) else values.iloc[0]
        raise InputError(f"column {name!r} ({option}) must be numeric; got values such as "
                         f"{example!r}")
    if values.isna().any():
        raise InputError(f"column {name!r} ({option}) has {int(values.isna().sum())} "
                         "missing value(s)")
    return values.to_numpy()


def labels(values: Any, name: str, option: str) -> Any:
    """A column of labels (any type) without missing values, as an array."""
    if values.isna().any():
        raise InputError(f"column {name!r} ({option}) has {int(values.isna().sum())} "
                         "missing value(s)")
    return values.to_numpy()


def is_numeric(values: Any) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(values))
