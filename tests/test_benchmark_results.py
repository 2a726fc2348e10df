"""The committed benchmark results are what their logs render to, and nothing else.

``benchmarks/regenerate.py --from-logs`` re-renders every committed log; a table edited
by hand, a log without its table, or a table without its log fails here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
RESULTS = BENCH / "results"


@pytest.fixture(scope="module")
def regenerate():
    sys.path.insert(0, str(BENCH))
    try:
        import regenerate as module

        yield module
    finally:
        sys.path.remove(str(BENCH))


def _logged_runs(module):
    return [r for r in module.RUNS if (RESULTS / "logs" / f"{r.name}.txt").exists()]


def test_every_committed_table_is_its_log_rendered(regenerate, tmp_path):
    runs = _logged_runs(regenerate)
    assert runs, "no committed logs"
    rendered = set()
    for run in runs:
        for path in regenerate.render(run, RESULTS / "logs" / f"{run.name}.txt", tmp_path):
            rendered.add(path.name)
            assert path.read_text() == (RESULTS / path.name).read_text(), path.name
    committed = {p.name for p in RESULTS.glob("*.csv")} | {p.name for p in RESULTS.glob("*.rst")}
    assert committed == rendered


def test_every_log_records_where_and_how_it_ran(regenerate):
    from _results import read_header

    for run in _logged_runs(regenerate):
        header = read_header((RESULTS / "logs" / f"{run.name}.txt").read_text())
        for key in ("date", "machine", "software", "command", "settings"):
            assert header.get(key), (run.name, key)
        assert run.script in header["command"], run.name


def test_markdown_tables_skip_rules_and_split_cells(regenerate):
    from _results import markdown_tables

    text = "intro\n| a | b |\n|---|---|\n| 1 | 2 |\n\n| c |\n|---|\n| 3 |\n"
    assert markdown_tables(text) == [[["a", "b"], ["1", "2"]], [["c"], ["3"]]]


def test_progress_notes_between_rows_do_not_cut_a_table(regenerate):
    from _results import markdown_tables

    text = "| a |\n|---|\n| 1 |\n<!-- cell 1: 3 s -->\n| 2 |\n\n| b |\n|---|\n| 3 |\n"
    assert markdown_tables(text) == [[["a"], ["1"], ["2"]], [["b"], ["3"]]]


def test_every_logged_row_reaches_a_rendered_table(regenerate, tmp_path):
    # a line between rows once cut the clustered table after its first cell (6 of 241 rows)
    from _results import markdown_tables

    for run in _logged_runs(regenerate):
        tables = markdown_tables((RESULTS / "logs" / f"{run.name}.txt").read_text())
        logged = sum(len(t) - 1 for t in tables)
        if not logged:
            continue  # a log of another layout, rendered by its script's own reader
        written = regenerate.render(run, RESULTS / "logs" / f"{run.name}.txt", tmp_path)
        rendered = sum(sum(1 for line in p.read_text().splitlines()
                           if line and not line.startswith("#")) - 1
                       for p in written if p.suffix == ".csv")
        assert rendered >= logged, (run.name, rendered, logged)
