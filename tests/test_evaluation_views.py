"""How an evaluation shows itself: the text a terminal prints (aligned columns, one
number of decimals per row, the groups' rows too) and the notebook table."""

import re

import numpy as np
import pytest

import dartboard
from dartboard._format import format_row


@pytest.fixture(scope="module")
def squared():
    """A regression whose squared error is in the hundreds of thousands."""
    rng = np.random.default_rng(0)
    y = rng.normal(5000.0, 800.0, 400)
    pred = y + rng.normal(0.0, 540.0, 400)
    groups = rng.choice(["north", "south", "east"], 400)
    return dartboard.evaluate(y, pred, groups=groups, n_resamples=200, random_state=0)


def _table(text, start):
    """The lines of the table that starts at line ``start`` (its header), to the next
    unindented line."""
    lines = text.splitlines()[start:]
    out = [lines[0]]
    for line in lines[1:]:
        if not line.startswith("  ") or line.startswith("  ..."):
            break
        out.append(line)
    return out


def test_rows_share_their_decimals_and_never_mix_scientific_with_fixed(squared):
    text = repr(squared)
    assert "e+" not in text and "e-0" not in text
    for row in squared.result.metrics:
        est, low, high = format_row([row.estimate, row.low, row.high])
        line = next(li for li in text.splitlines() if li.strip().startswith(row.metric + " "))
        if row.low is None:  # a sample maximum: no interval
            assert re.search(rf" {re.escape(est)} +n/a \(sample maximum\)$", line), line
        else:
            assert re.search(rf" {re.escape(est)} +\[{re.escape(low)}, {re.escape(high)}\]",
                             line), line
    mse = squared.overall.loc["mean_squared_error"]
    assert mse.estimate > 1e5  # where format_number alone turns scientific
    assert re.search(r"mean_squared_error +\d{3},\d{3}  \[\d{3},\d{3}, \d{3},\d{3}\]", text)


def test_columns_are_aligned(squared):
    text = repr(squared)
    overall = _table(text, 1)
    assert overall[0].split() == ["metric", "estimate", "95%", "interval", "method"]
    # right-aligned numbers: every estimate ends under the end of its heading, every
    # interval under the end of its heading; the methods start in one column
    header = overall[0]
    estimate_end = header.index("estimate") + len("estimate")
    interval_end = header.index("interval") + len("interval")
    method_start = header.index("method")
    for line in overall[1:]:
        assert line[estimate_end - 1].isdigit() and line[estimate_end] == " ", line
        if "[" in line:
            assert line[interval_end - 1] == "]", line
        assert line[method_start - 1] == " " and line[method_start] != " ", line


def test_group_rows_are_shown_in_the_terminal(squared):
    text = repr(squared)
    lines = text.splitlines()
    start = lines.index("by group:")
    table = _table(text, start + 1)
    assert table[0].split()[:3] == ["metric", "group", "n"]
    body = table[1:]
    assert len(body) == len(squared.metrics) * 3
    by_group = squared.by_group
    for line in body:
        cells = line.split()
        if cells[0] in squared.metrics:
            metric, cells = cells[0], cells[1:]
        group, n = cells[0], int(cells[1].replace(",", ""))
        assert by_group.loc[(group, metric), "n"] == n


def test_many_groups_are_cut_with_a_note():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    pred = np.where(rng.random(600) < 0.8, y, 1 - y)
    groups = rng.integers(0, 20, 600)
    ev = dartboard.evaluate(y, pred, groups=groups, metrics=["accuracy"], n_resamples=50,
                            random_state=0)
    text = repr(ev)
    assert "... 8 more groups: see .by_group" in text
    assert len(_table(text, text.splitlines().index("by group:") + 1)) == 1 + 12


def test_notebook_table_formats_rows_as_the_terminal(squared):
    html = squared._repr_html_()
    row = squared.overall.loc["mean_squared_error"]
    est, low, high = format_row([row.estimate, row.low, row.high], 3)
    assert f"<td>{est}</td><td><span class=\"ci\">[{low}, {high}]</span></td>" in html
    assert "e+" not in html
