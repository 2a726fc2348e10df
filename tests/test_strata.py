"""``interval(..., strata=)``: the bootstrap resamples rows within each stratum."""

import numpy as np
import pytest

import dartboard as db
from dartboard.exceptions import InputError
from dartboard.uncertainty import IntervalWarning


def _accuracy(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def test_strata_of_the_classes_is_stratified_true():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    p = np.where(rng.random(60) < 0.8, y, 1 - y)
    for method in ("percentile", "bca"):
        a = db.interval(_accuracy, y, p, strata=y, method=method, n_resamples=300,
                        random_state=1)
        b = db.interval(_accuracy, y, p, stratified=True, method=method, n_resamples=300,
                        random_state=1)
        assert (a.low, a.high) == (b.low, b.high)
        assert a.method == f"{b.method} (stratified: 2 strata)"


def test_every_resample_keeps_each_stratum_s_rows():
    strata = np.repeat(["north", "south", "east"], [7, 2, 11])
    seen = []

    def sizes(y_true, y_pred):  # y_pred carries the stratum of each resampled row
        counts = tuple(int(np.sum(y_pred == s)) for s in ("north", "south", "east"))
        seen.append(counts)
        return float(np.mean(y_true))

    y = np.random.default_rng(2).integers(0, 2, 20)
    db.interval(sizes, y, strata, strata=strata, method="percentile", n_resamples=200,
                random_state=0)
    assert len(seen) == 201 and set(seen) == {(7, 2, 11)}


def test_a_stratum_of_one_row_is_always_drawn_itself():
    y = np.r_[np.zeros(30), 1.0]
    drawn = []

    def last(y_true, y_pred):
        drawn.append(int(np.sum(y_true == 1)))
        return float(np.mean(y_true))

    with pytest.warns(IntervalWarning, match="degenerate"):  # every resample alike
        db.interval(last, y, y, strata=np.r_[np.zeros(30), 1], method="percentile",
                    n_resamples=100, random_state=0)
    assert set(drawn) == {1}


def test_strata_narrow_the_interval_of_a_difference_fixed_by_design():
    # two strata whose accuracies differ: resampling within them removes the
    # variance of how many rows each contributes
    y = np.ones(400, dtype=int)
    p = np.r_[np.ones(200, dtype=int), np.zeros(200, dtype=int)]
    p[:20] = 0
    p[200:210] = 1
    strata = np.repeat([0, 1], 200)
    plain = db.interval("accuracy", y, p, method="percentile", n_resamples=2000,
                        random_state=0)
    within = db.interval("accuracy", y, p, strata=strata, method="percentile",
                         n_resamples=2000, random_state=0)
    assert within.high - within.low < 0.6 * (plain.high - plain.low)


@pytest.mark.parametrize("kwargs, message", [
    ({"strata": [0, 1, 0]}, "strata"),
    ({"strata": [0, 1, None, 0, 1, 0]}, "strata"),
    ({"strata": [0, 1, 1, 0, 1, 0], "stratified": True}, "not both"),
    ({"strata": [0, 1, 1, 0, 1, 0], "clusters": [0, 0, 1, 1, 2, 2]}, "strata"),
    ({"strata": [0, 1, 1, 0, 1, 0], "method": "wilson"}, "bootstrap"),
])
def test_bad_strata(kwargs, message):
    y = [0, 1, 1, 0, 1, 0]
    p = [0, 1, 0, 0, 1, 1]
    before = list(kwargs["strata"])
    with pytest.raises(InputError, match=message):
        db.interval("accuracy", y, p, n_resamples=100, random_state=0, **kwargs)
    assert list(kwargs["strata"]) == before
