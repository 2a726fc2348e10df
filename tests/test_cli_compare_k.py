"""``dartboard compare`` with more than two models: the k-model table and its JSON."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from typer.testing import CliRunner

from dartboard import compare_k_models
from dartboard.cli import app
from dartboard.metrics import f1_score, roc_auc_score

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"y": y})
    for j in range(4):
        df[f"m{j}"] = np.where(rng.random(n) < 0.7 + 0.05 * j, y, 1 - y)
        df[f"s{j}"] = y * (j + 1) + rng.normal(size=n) * (10 ** j)  # different scales
    path = tmp_path_factory.mktemp("cli_k") / "k.csv"
    df.to_csv(path, index=False)
    return path, df


@pytest.mark.parametrize("method", ["maxt", "holm"])
def test_k_models_json_is_the_library_result(preds, method):
    path, df = preds
    res = run("compare", path, "--y-true", "y", "--a", "m0", "--b", "m1", "--model", "m2",
              "--model", "m3", "--metric", "f1", "--n-resamples", "500", "--seed", "4",
              "--method", method, "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["models"] == pytest.approx({m: skm.f1_score(df.y, df[m])
                                               for m in ("m0", "m1", "m2", "m3")})
    ref = compare_k_models(f1_score, df.y, df[["m0", "m1", "m2", "m3"]], method=method,
                           n_resamples=500, random_state=4, pos_label=1)
    got = pd.DataFrame(payload["pairwise"])
    assert got[["model_a", "model_b"]].values.tolist() == \
        ref.pairwise[["model_a", "model_b"]].values.tolist()
    np.testing.assert_allclose(got["pvalue_adjusted"], ref.pairwise["pvalue_adjusted"])
    assert payload["method"] == method and len(got) == 6


def test_k_models_table_equals_json(preds):
    path, _ = preds
    args = ("compare", path, "--y-true", "y", "--a", "s0", "--b", "s1", "--model", "s2",
            "--metric", "roc_auc", "--n-resamples", "300")
    payload = json.loads(run(*args, "--json").stdout)
    res = run(*args)
    assert res.exit_code == 0, res.output
    rows = [[c.strip() for c in line.split("│")] for line in res.stdout.splitlines()
            if "│" in line]
    assert [r[1] for r in rows[:3]] == [f"{payload['models'][m]:.4f}" for m in ("s0", "s1", "s2")]
    pairs = rows[3:]
    assert [r[4] for r in pairs] == [f"{p['pvalue_adjusted']:.4f}" for p in payload["pairwise"]]
    assert [r[5] == "significant" for r in pairs] == [p["significant"]
                                                     for p in payload["pairwise"]]
    # AUC of each model, whatever its scale
    _, df = preds
    assert payload["models"]["s2"] == pytest.approx(roc_auc_score(df.y, df.s2))


@pytest.mark.parametrize("extra, message", [
    (["--model", "m0"], "--a, --b and --model must name different columns"),
    (["--model", "m2", "--method", "tukey"], "method must be one of"),
    (["--model", "nope"], "nope"),
])
def test_k_models_bad_input(preds, extra, message):
    path, _ = preds
    res = run("compare", path, "--y-true", "y", "--a", "m0", "--b", "m1", *extra)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def test_k_models_report_shows_the_adjusted_table(preds, tmp_path):
    path, _ = preds
    out = tmp_path / "k.html"
    args = ("compare", path, "--y-true", "y", "--a", "m0", "--b", "m1", "--model", "m2",
            "--n-resamples", "300")
    res = run(*args, "--report", out)
    assert res.exit_code == 0, res.output
    payload = json.loads(run(*args, "--json").stdout)
    html = out.read_text()
    section = html[html.index('id="k-models"'):]
    for pair in payload["pairwise"]:
        assert f"<td>{pair['model_a']}</td><td>{pair['model_b']}</td>" in section
        assert f"<td>{pair['pvalue_adjusted']:.4f}</td>" in section
    assert "Adjusted p-value" in section


def test_report_needs_more_than_two_models(preds, tmp_path):
    path, _ = preds
    res = run("compare", path, "--y-true", "y", "--a", "m0", "--b", "m1", "--report",
              tmp_path / "two.html")
    assert res.exit_code == 2 and "--report needs more than two models" in res.output
    assert not (tmp_path / "two.html").exists()
