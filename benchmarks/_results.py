"""Result files of the benchmark scripts: provenance, logs, CSV and reST tables.

A run's standard output is kept as a log under ``benchmarks/results/logs/``; its
first lines (``# key: value``) say when, where, how and with which settings it ran
(written by :func:`provenance` before the script starts; ``benchmarks/regenerate.py``
does this). A script's ``render(log_text)`` turns the log back into tables, and
:func:`write_tables` writes each table twice: ``results/<name>.csv`` (the provenance as
``#`` comment lines, then plain CSV; ``pandas.read_csv(path, comment="#")`` reads it)
and ``results/<name>.rst`` (the provenance as a note, then a ``csv-table``), which the
pages under ``docs/validation/`` include. No number in these files is typed by hand:
re-rendering a log gives the same files.
"""

from __future__ import annotations

import csv
import io
import os
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "dartboard")


@dataclass
class Table:
    """One table of a run: ``name`` becomes the file name, ``title`` the caption.

    A table without ``columns`` is the run's own lines (``rows`` of one cell each),
    shown as a literal block: for scripts that print sentences, not columns.
    """

    name: str
    title: str
    columns: list[str]
    rows: list[list[object]]
    notes: list[str] = field(default_factory=list)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _versions(packages: tuple[str, ...]) -> str:
    found = []
    for name in packages:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(found)


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True, timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine() -> str:
    """CPU model, cores and load, OS: where the numbers were measured."""
    load = "n/a"
    if hasattr(os, "getloadavg"):
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{_cpu_model()}, {os.cpu_count()} cores (load average {load} at the start), "
            f"{platform.system()} {platform.release()}")


def provenance(command: str, settings: str, extra_packages: tuple[str, ...] = ()) -> str:
    """The ``# key: value`` header a run's log starts with."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = {
        "date": now,
        "machine": machine(),
        "software": f"Python {platform.python_version()}, "
                    f"{_versions(tuple(dict.fromkeys(PACKAGES + extra_packages)))}",
        "code": f"commit {_commit()}",
        "command": command,
        "settings": settings,
    }
    return "".join(f"# {k}: {v}\n" for k, v in lines.items())


def read_header(log_text: str) -> dict[str, str]:
    """The ``# key: value`` lines of a log (the header and the closing ``finished``)."""
    header = {}
    for line in log_text.splitlines():
        if line.startswith("# ") and ": " in line:
            key, value = line[2:].split(": ", 1)
            header.setdefault(key, value)
    return header


def _csv_text(columns: list[str], rows: list[list[object]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return buf.getvalue()


def _rst(table: Table, header: dict[str, str], log_name: str) -> str:
    note = [f"**{key}**: {value}" for key, value in header.items()]
    note.append(f"**log**: ``benchmarks/results/logs/{log_name}``")
    out = [".. This file is written by benchmarks/regenerate.py; do not edit it.", ""]
    if table.columns:
        out += [".. csv-table:: " + table.title, "   :header-rows: 1", ""]
        out += ["   " + line for line in _csv_text(table.columns, table.rows).splitlines()]
    else:
        out += [f"**{table.title}**", "", "::", ""]
        out += ["   " + str(row[0]) for row in table.rows]
    out += ["", ".. note::", ""]
    out += [f"   | {line}" for line in note + table.notes]
    return "\n".join(out) + "\n"


def write_tables(tables: list[Table], log_path: Path, out_dir: Path = RESULTS) -> list[Path]:
    """Write each table as ``<name>.csv`` and ``<name>.rst`` with the log's provenance."""
    header = read_header(log_path.read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        csv_path = out_dir / f"{table.name}.csv"
        comments = "".join(f"# {k}: {v}\n" for k, v in header.items())
        comments += f"# log: benchmarks/results/logs/{log_path.name}\n"
        comments += "".join(f"# note: {n}\n" for n in table.notes)
        csv_path.write_text(comments + _csv_text(table.columns or ["output"], table.rows))
        rst_path = out_dir / f"{table.name}.rst"
        rst_path.write_text(_rst(table, header, log_path.name))
        written += [csv_path, rst_path]
    return written


def output_lines(log_text: str) -> list[list[str]]:
    """The run's own lines of a log (not the header), as one-cell rows of a Table."""
    return [[line.rstrip()] for line in log_text.splitlines()
            if line.strip() and not line.startswith("# ")]


def markdown_tables(text: str) -> list[list[list[str]]]:
    """The ``| a | b |`` tables of a log, each a list of rows of cells (header first)."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("<!--"):  # a run's progress note between rows: not a row
            continue
        if line.startswith("|") and line.rstrip().endswith("|"):
            cells = [c.strip() for c in line.strip()[1:-1].split("|")]
            if not all(set(c) <= {"-", ":"} and c for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


if __name__ == "__main__":  # pragma: no cover - a look at this machine's header
    sys.stdout.write(provenance("python benchmarks/_results.py", "none"))
