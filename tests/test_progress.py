"""Progress bars on long work: shown when asked (``progress=True``, even off a terminal),
on a terminal when the work lasts, and never in a pipe, a log or a test's output
(``progress=None`` off a terminal, ``progress=False`` anywhere)."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest

import dartboard
from dartboard import _progress
from dartboard._progress import Bar, asked, check_progress, takes_progress, track
from dartboard.compare import compare_k_models


class _Terminal(io.StringIO):
    """A stand-in for a terminal's standard error."""

    def isatty(self) -> bool:
        return True


def _on_terminal(monkeypatch):
    """Standard error replaced by a terminal, within the test's body (pytest's capture
    sets its own stream back between a fixture and the test)."""
    out = _Terminal()
    monkeypatch.setattr("sys.stderr", out)
    return out


@pytest.fixture
def grouped():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    s = np.clip(0.3 * y + 0.7 * rng.random(400), 0, 1)
    g = np.repeat(["a", "b", "c", "d"], 100)
    return y, s, g


def test_progress_true_draws_even_off_a_terminal(capsys):
    assert list(track(range(3), "counting", progress=True)) == [0, 1, 2]
    err = capsys.readouterr().err
    assert "counting" in err and "3/3" in err


@pytest.mark.parametrize("progress", [None, False])
def test_automatic_and_false_write_nothing_off_a_terminal(capsys, progress):
    with asked(progress):
        assert list(track(range(3), "counting")) == [0, 1, 2]
        with Bar(5, "waiting") as bar:
            time.sleep(_progress.DELAY + 0.3)  # long enough to show on a terminal
            assert not bar.shown
    assert capsys.readouterr() == ("", "")


def test_on_a_terminal_a_short_piece_of_work_shows_nothing(monkeypatch):
    terminal = _on_terminal(monkeypatch)
    assert list(track(range(3), "quick")) == [0, 1, 2]
    assert terminal.getvalue() == ""


def test_on_a_terminal_work_that_lasts_shows_its_bar(monkeypatch):
    terminal = _on_terminal(monkeypatch)
    monkeypatch.setattr(_progress, "DELAY", 0.05)
    with Bar(4, "lasting") as bar:
        bar.advance()
        time.sleep(0.4)  # one long step: the bar appears during it, not at the next advance
        assert bar.shown
        bar.advance(3)
    assert not bar.shown
    assert "lasting" in terminal.getvalue()


def test_expected_long_work_shows_at_once_and_false_wins_on_a_terminal(monkeypatch):
    terminal = _on_terminal(monkeypatch)
    with Bar(2, "expected", expected_seconds=_progress.EXPECTED) as bar:
        assert bar.shown
    with asked(False), Bar(2, "silenced", expected_seconds=60.0) as bar:
        assert not bar.shown
    assert "expected" in terminal.getvalue() and "silenced" not in terminal.getvalue()


def test_nested_bars_share_one_display(capsys):
    with asked(True):
        with Bar(2, "outer") as outer:
            with Bar(3, "inner") as inner:
                assert outer.shown and inner.shown
                assert outer._progress is inner._progress
                inner.advance(3)
            assert not inner.shown and outer.shown
    assert _progress._DISPLAY._progress is None
    err = capsys.readouterr().err
    assert "outer" in err and "inner" in err


def test_an_inner_none_keeps_the_outer_choice():
    with asked(False):
        with asked(None) as choice:
            assert choice is False
        with asked(True) as choice:
            assert choice is True
    with asked(None) as choice:
        assert choice is None


def test_takes_progress_hands_the_keyword_down():
    @takes_progress
    def work(*, progress=None):
        return _progress._ASKED.get()

    assert work(progress=True) is True and work(progress=False) is False
    assert work() is None


@pytest.mark.parametrize("bad", ["yes", 1, 0.0, [True]])
def test_progress_must_be_true_false_or_none(bad):
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        check_progress(bad)
    assert check_progress(np.bool_(True)) is True


def test_grouped_evaluation_and_gaps_show_progress_when_asked(capsys, grouped):
    y, s, g = grouped
    ev = dartboard.evaluate(y, y_score=s, groups=g, metrics=["accuracy", "roc_auc"],
                            n_resamples=200, random_state=0, progress=True)
    assert "metrics by group" in capsys.readouterr().err
    loud = ev.difference(progress=True)
    err = capsys.readouterr().err
    assert "difference between groups" in err and "resampling 4 groups' roc_auc" in err
    again = dartboard.evaluate(y, y_score=s, groups=g, metrics=["accuracy", "roc_auc"],
                               n_resamples=200, random_state=0, progress=False)
    quiet = again.difference(progress=False)
    assert capsys.readouterr().err == ""
    assert quiet.equals(loud)  # the bar changes nothing but the screen
    ev.fairness(progress=True)
    assert "fairness between groups" in capsys.readouterr().err


def test_grouped_work_is_silent_by_default_in_tests(capfd, grouped):
    y, s, g = grouped
    ev = dartboard.evaluate(y, y_score=s, groups=g, metrics=["accuracy"], n_resamples=200,
                            random_state=0)
    ev.difference()
    assert capfd.readouterr() == ("", "")


def test_k_model_comparison_shows_its_permutations(capsys):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 120)
    preds = {m: np.where(rng.random(120) < q, y, 1 - y) for m, q in
             (("a", 0.9), ("b", 0.8), ("c", 0.7))}
    quiet = compare_k_models("accuracy", y, preds, n_resamples=199, random_state=0,
                             progress=False)
    assert capsys.readouterr().err == ""
    loud = compare_k_models("accuracy", y, preds, n_resamples=199, random_state=0,
                            progress=True)
    assert "3-way permutations" in capsys.readouterr().err
    assert quiet.pairwise.equals(loud.pairwise)
    with pytest.raises(TypeError, match="progress"):
        compare_k_models("accuracy", y, preds, progress="yes")


def test_nested_cv_shows_its_repeats(capsys):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = X @ [1.0, -1.0] + rng.normal(size=40)
    res = dartboard.nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error",
                                       cv=3, n_repeats=2, random_state=0, progress=True)
    err = capsys.readouterr().err
    assert "nested CV: repeats of 6 fits" in err and "2/2" in err
    again = dartboard.nested_cv_interval(LinearRegression(), X, y,
                                         scoring="mean_squared_error", cv=3, n_repeats=2,
                                         random_state=0, progress=False)
    assert capsys.readouterr().err == ""
    assert (res.estimate, res.low, res.high) == (again.estimate, again.low, again.high)


def test_streamed_parquet_shows_its_rows(capsys, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for i in range(2):
        pq.write_table(pa.table({"y": [0, 1, 1, 0] * 5, "p": [0, 1, i, 0] * 5}),
                       tmp_path / f"part{i}.parquet")
    from dartboard.scale import evaluate_parquet

    evaluate_parquet(tmp_path, y_true="y", y_pred="p", metrics=["accuracy"], progress=True)
    err = capsys.readouterr().err
    assert "reading 2 Parquet files" in err and "40/40" in err
    evaluate_parquet(tmp_path, y_true="y", y_pred="p", metrics=["accuracy"])
    assert capsys.readouterr().err == ""


def test_bands_and_clustered_resampling_show_when_asked(capsys, grouped):
    y, s, g = grouped
    dartboard.roc_band(y, s, specificities=[0.5, 0.9], n_resamples=200, random_state=0,
                       progress=True)
    assert "curve band draws" in capsys.readouterr().err
    clusters = np.arange(400) // 8
    ev = dartboard.evaluate(y, s > 0.5, groups=g, clusters=clusters, metrics=["accuracy"],
                            n_resamples=200, random_state=0, progress=True)
    err = capsys.readouterr().err
    # the overall rows and each cluster's states, which take seconds with many clusters
    assert "the states of each cluster" in err and "metrics" in err
    ev.difference(progress=True)
    err += capsys.readouterr().err
    assert "metrics by group" in err and "clusters" in err


def test_dask_partitions_show_when_asked(capsys):
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd
    import pandas as pd

    from dartboard.scale import evaluate_dask

    frame = pd.DataFrame({"y": np.arange(200) % 2, "p": (np.arange(200) // 3) % 2})
    ddf = dd.from_pandas(frame, npartitions=4)
    loud = evaluate_dask(ddf, y_true="y", y_pred="p", metrics=["accuracy"],
                         scheduler="synchronous", progress=True)
    err = capsys.readouterr().err
    assert "reading 4 partitions" in err and "4/4" in err
    quiet = evaluate_dask(ddf, y_true="y", y_pred="p", metrics=["accuracy"],
                          scheduler="synchronous")
    assert capsys.readouterr().err == ""
    assert loud.overall.equals(quiet.overall)


def _cli_csv(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    pd.DataFrame({"y": y, "s": np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1),
                  "g": rng.choice(["u", "v", "w"], 300)}).to_csv(tmp_path / "p.csv",
                                                                 index=False)
    return ["evaluate", str(tmp_path / "p.csv"), "--y-true", "y", "--y-score", "s",
            "--group", "g", "--n-resamples", "100"]


def test_the_cli_off_a_terminal_prints_no_bar(tmp_path):
    from typer.testing import CliRunner

    from dartboard.cli import app

    res = CliRunner().invoke(app, _cli_csv(tmp_path))
    assert res.exit_code == 0, res.output
    assert "\x1b[?25l" not in res.output  # a live display hides the cursor first
    assert "metrics by group" not in res.output and "resampling" not in res.output


def test_the_cli_progress_flags(tmp_path):
    """``--progress`` draws the bars off a terminal; ``--no-progress`` sets the choice
    that every bar of the command reads (off, on a terminal too); the table is the same
    either way."""
    import contextvars

    from typer.testing import CliRunner

    from dartboard.cli import app

    def run(*flags):
        # each invocation in a fresh context, as each command is its own process
        context = contextvars.Context()
        res = context.run(CliRunner().invoke, app, [*flags, *_cli_csv(tmp_path)])
        return res, context.run(_progress._ASKED.get)

    (loud, on), (plain, auto), (quiet, off) = run("--progress"), run(), run("--no-progress")
    assert (on, auto, off) == (True, None, False)
    assert loud.exit_code == 0 and "metrics by group" in loud.stderr
    assert plain.stderr == "" and quiet.stderr == ""
    assert loud.stdout == plain.stdout == quiet.stdout
