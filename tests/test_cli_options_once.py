"""Options that take one value are given once, and a bad ``--ci`` is told as such
(issue 36, items 13 and 16): ``--cluster a --cluster b`` clustered by ``b`` alone
without a word, and ``--ci bogus --cluster ...`` said "assumes independent rows"
instead of listing the methods."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from dartboard._kernels._clustered import CLUSTER_METHODS
from dartboard._kernels._methods import CLUSTERED_ANALYTIC_METHODS, METHODS
from dartboard.cli import app

runner = CliRunner()


@pytest.fixture
def rows(tmp_path):
    rng = np.random.default_rng(1)
    n = 120
    y = rng.integers(0, 2, n)
    path = tmp_path / "rows.csv"
    pd.DataFrame({"y": y, "s": np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1),
                  "p": y ^ (rng.random(n) < 0.2), "b": rng.integers(0, 2, n),
                  "doc": np.repeat(np.arange(20), 6), "site": np.repeat(np.arange(10), 12)}
                 ).to_csv(path, index=False)
    return path


def _one_error_line(out, match):
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.output
    assert match in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("args, match", [
    (["--cluster", "doc", "--cluster", "site"],
     "--cluster was given 2 times ('doc', 'site'); it takes one value"),
    (["--cluster=doc", "--cluster", "site"], "--cluster was given 2 times ('doc', 'site')"),
    (["--seed", "1", "--seed=2"], "--seed was given 2 times ('1', '2')"),
    (["--y-true", "y"], "--y-true was given 2 times ('y', 'y')"),
])
def test_evaluate_refuses_an_option_given_twice(rows, args, match):
    out = runner.invoke(app, ["evaluate", str(rows), "--y-true", "y", "--y-score", "s",
                              *args])
    _one_error_line(out, match)


def test_short_and_long_spellings_are_one_option(rows, tmp_path):
    out = runner.invoke(app, ["report", "results.json", "-o", str(tmp_path / "a.html"),
                              "--output", str(tmp_path / "b.html")])
    _one_error_line(out, "--output was given 2 times")
    assert not (tmp_path / "a.html").exists() and not (tmp_path / "b.html").exists()


def test_options_meant_to_repeat_still_repeat(rows):
    out = runner.invoke(app, ["evaluate", str(rows), "--y-true", "y", "--y-pred", "p",
                              "--group", "doc", "--group", "site", "--n-resamples", "50",
                              "--json"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["compare", str(rows), "--y-true", "y", "--a", "p", "--b", "b",
                              "--model", "doc", "--model", "site", "--n-resamples", "49",
                              "--json"])
    assert out.exit_code == 0, out.output


def test_a_value_that_looks_like_an_option_is_a_value(rows):
    # "--cluster" here is the value of --y-true (a column that does not exist), not a
    # second --cluster
    out = runner.invoke(app, ["evaluate", str(rows), "--y-true", "--cluster", "--y-score",
                              "s", "--cluster", "doc"])
    _one_error_line(out, "column '--cluster' (--y-true) not found")


def test_an_unknown_ci_with_clusters_lists_the_methods_that_fit(rows):
    line = _one_error_line(
        runner.invoke(app, ["evaluate", str(rows), "--y-true", "y", "--y-score", "s",
                            "--ci", "bogus", "--cluster", "doc"]),
        "--ci must be an interval method; got 'bogus'; with clusters choose 'auto'")
    assert "assumes independent rows" not in line
    for method in (*CLUSTER_METHODS, *CLUSTERED_ANALYTIC_METHODS):
        assert repr(method) in line
    line = _one_error_line(
        runner.invoke(app, ["evaluate", str(rows), "--y-true", "y", "--y-score", "s",
                            "--ci", "bogus"]),
        "--ci must be an interval method; got 'bogus'; choose one of")
    assert all(repr(method) in line for method in METHODS)


def test_an_independent_rows_ci_with_clusters_is_named_as_given(rows):
    _one_error_line(runner.invoke(app, ["evaluate", str(rows), "--y-true", "y", "--y-score",
                                        "s", "--ci", "wilson", "--cluster", "doc"]),
                    "--ci wilson assumes independent rows; with clusters use 'auto'")
