"""The one number formatter: its rules, checked by reading the text back, and the
command line and the HTML report showing the same number the same way."""

import math
import re
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dartboard._format import format_cells, format_number, format_row
from dartboard.cli._output import print_table
from dartboard.report import render_report

FIXED = re.compile(r"^-?\d+\.\d{4}$")
SCIENTIFIC = re.compile(r"^-?\d\.\d{3}e[+-]\d{2,3}$")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_finite_float_reads_back_within_its_shown_precision(x):
    text = format_number(x)
    back, exact = Decimal(text), Decimal(x)  # exact decimal arithmetic, no overflow
    if FIXED.match(text):
        # four decimals where they show at least one unit of the last one
        assert 1e-4 <= abs(x) < 1e5 or x == 0
        assert abs(back - exact) <= Decimal("0.00005")
    else:
        assert SCIENTIFIC.match(text), text
        assert 0 < abs(x) < 1e-4 or abs(x) >= 1e5
        assert abs(back - exact) <= Decimal("0.0005") * abs(exact)
    # a non-zero number never reads as zero, zero never as negative
    assert (back == 0) == (x == 0)
    assert not text.startswith("-") or x < 0


@pytest.mark.parametrize("value, text", [
    (0.81234, "0.8123"), (1.0, "1.0000"), (-0.25, "-0.2500"),
    # the p-value of 1/2001 resamples: fixed decimals, as the command line showed it
    (1 / 2001, "0.0005"), (1e-4, "0.0001"),
    # below one unit of the last decimal it would read 0.0000
    (9.9e-5, "9.900e-05"), (2e-5, "2.000e-05"), (-3e-7, "-3.000e-07"),
    (5e-324, "4.941e-324"),
    # huge: scientific from 1e5 up
    (99999.5, "99999.5000"), (1e5, "1.000e+05"), (1234567.0, "1.235e+06"),
    (-2.5e12, "-2.500e+12"),
])
def test_floats(value, text):
    assert format_number(value) == text
    assert format_number(np.float64(value)) == text


@pytest.mark.parametrize("zero", [0.0, -0.0, np.float64(-0.0), np.float32(-0.0)])
def test_zero_and_negative_zero(zero):
    assert format_number(zero) == "0.0000"


@pytest.mark.parametrize("value", [None, math.nan, np.nan, np.float32("nan")])
def test_undefined_reads_n_a(value):
    assert format_number(value) == "n/a"


def test_infinities():
    assert format_number(math.inf) == "inf"
    assert format_number(-np.inf) == "-inf"
    assert format_number(np.float32("inf")) == "inf"


@pytest.mark.parametrize("value, text", [
    (0, "0"), (7, "7"), (-42, "-42"), (12345, "12,345"), (10**12, "1,000,000,000,000"),
    (np.int64(168), "168"), (np.uint32(4_000_000_000), "4,000,000,000"),
    (np.int8(-5), "-5"),
])
def test_integers_with_thousands_separators(value, text):
    assert format_number(value) == text


def test_bools_are_words_not_numbers():
    assert [format_number(v) for v in (True, False, np.True_, np.False_)] == \
        ["yes", "no", "yes", "no"]


def test_numpy_float32_is_a_float_and_text_passes_through():
    assert format_number(np.float32(0.5)) == "0.5000"
    assert format_number("bca") == "bca"


def test_digits():
    assert format_number(2.5, 2) == "2.50"
    assert format_number(0.01, 2) == "0.01"
    assert format_number(0.005, 2) == "5.000e-03"
    assert format_number(1 / 3, 6) == "0.333333"


# numbers the two faces used to show differently (the command line: 0.0005, 12345,
# -0.0000; the report: 4.998e-04, 12,345) and a few ordinary ones
SHARED = [1 / 2001, 12345, -0.0, 2e-5, 1234567.0, 0.8123, 3, None]


def test_command_line_and_report_show_the_same_text(capsys):
    rows = [{"q": f"v{i}", "v": v} for i, v in enumerate(SHARED)]
    print_table(None, rows, [("q", "quantity"), ("v", "value")])
    cli = {}
    for line in capsys.readouterr().out.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) == 2 and cells[0].startswith("v"):
            cli[cells[0]] = cells[1]
    html = render_report({"profile": {"rows": rows,
                                      "columns": [("q", "Quantity"), ("v", "Value")]}})
    report = dict(re.findall(r"<td>(v\d+)</td><td>([^<]*)</td>", html))
    assert len(cli) == len(report) == len(SHARED)
    assert cli == report
    # and that text is the spec's, not merely the same on both sides
    assert [cli[f"v{i}"] for i in range(len(SHARED))] == \
        ["0.0005", "12,345", "0.0000", "2.000e-05", "1.235e+06", "0.8123", "3", "n/a"]


# ------------------------------------------------------------------ rows of numbers

@pytest.mark.parametrize("values, texts", [
    ([0.45123, 0.40261, 0.49684], ["0.4512", "0.4026", "0.4968"]),
    ([47.612, 44.65, 50.58], ["47.61", "44.65", "50.58"]),
    # a squared error: no 2.922e+05 beside the 866.4628 of its neighbours
    ([292231.4, 270100.2, 315000.9], ["292,231", "270,100", "315,001"]),
    ([3254.12, 2916.5, 3613.49], ["3,254", "2,916", "3,613"]),
    ([158.6, None, None], ["158.6", "n/a", "n/a"]),
    ([0.0, 0.0, 0.041], ["0.0000", "0.0000", "0.0410"]),
    ([-0.00004, 0.5], ["0.0000", "0.5000"]),  # rounds to zero: no sign
    ([2e-5, 1e-6], ["2.000e-05", "1.000e-06"]),
    ([2.5e15, 1.0], ["2.500e+15", "1.000e+00"]),
    ([float("inf"), 1.0, float("nan")], ["inf", "1.0000", "n/a"]),
])
def test_format_row_shares_one_number_of_decimals(values, texts):
    assert format_row(values) == texts


@given(st.lists(st.floats(-1e12, 1e12), min_size=1, max_size=3))
def test_format_row_reads_back_within_its_last_decimal(values):
    texts = format_row(values)
    if "e" in texts[0]:
        assert all(SCIENTIFIC.match(t) for t in texts)
        return
    decimals = {len(t.split(".")[1]) if "." in t else 0 for t in texts}
    assert len(decimals) == 1  # one number of decimals in the row
    unit = 10.0 ** -decimals.pop()
    for value, text in zip(values, texts):
        back = float(text.replace(",", ""))
        assert abs(back - value) <= 0.5 * unit + 1e-12 * abs(value)
        assert not text.startswith("-") or back < 0


def test_command_line_and_report_show_a_regression_row_the_same_way(capsys):
    rows = [{"metric": "mean_squared_error", "estimate": 292231.4, "low": 270100.2,
             "high": 315000.9, "method": "bca"},
            {"metric": "r2", "estimate": 0.45123, "low": 0.40261, "high": 0.49684,
             "method": "bca"}]
    columns = [("metric", "metric"), ("estimate", "estimate"), ("low", "low"),
               ("high", "high"), ("method", "interval")]
    print_table(None, rows, columns)
    cli = [[c.strip() for c in line.split("│")] for line in capsys.readouterr().out.splitlines()
           if "│" in line]
    html = render_report({"regression": {"metrics": rows, "heading": "r"}})
    report = re.findall(r"<tr><td>([a-z_0-9]+)</td><td>([^<]*)</td><td>([^<]*)</td>"
                        r"<td>([^<]*)</td>", html)
    expected = [["mean_squared_error", "292,231", "270,100", "315,001", "bca"],
                ["r2", "0.4512", "0.4026", "0.4968", "bca"]]
    assert cli == expected
    assert [list(r) for r in report] == [e[:4] for e in expected]
    assert format_cells(rows[0], ["metric", "estimate"]) == ["mean_squared_error",
                                                             "2.922e+05"]  # alone: its own
