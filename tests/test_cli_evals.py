"""``dartboard evals show`` and ``dartboard evals compare``: the JSON is the library's
result, tables show naive and clustered side by side, the HTML page is written, and
bad input ends with exit code 2 and one ``error:`` line, no traceback, no file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dartboard.cli import app
from dartboard.evals import compare, interval, load

runner = CliRunner()
DATA = Path(__file__).parent / "data" / "evals"
LM_A = next((DATA / "lm_eval" / "model_a").glob("samples_*.jsonl"))
LM_B = next((DATA / "lm_eval" / "model_b").glob("samples_*.jsonl"))
INSPECT = DATA / "inspect" / "passages_a.json"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_show_json_is_the_library_result():
    res = run("evals", "show", LM_A, INSPECT, "--cluster", "passage_id", "--json")
    assert res.exit_code == 2  # Inspect's samples have no passage_id: refused
    assert res.output.strip().startswith("error: ") and "Traceback" not in res.output
    res = run("evals", "show", LM_A, LM_B, "--cluster", "doc.passage_id", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["runs"]
    ref = interval(load(LM_A, cluster="doc.passage_id"))
    assert rows[0]["run"] == "model_a" and rows[1]["run"] == "model_b"
    assert rows[0]["estimate"] == pytest.approx(ref.estimate)
    assert rows[0]["naive_se"] == pytest.approx(ref.naive_standard_error)
    assert rows[0]["clustered_se"] == pytest.approx(ref.standard_error)
    assert rows[0]["design_effect"] == pytest.approx(ref.design_effect)
    assert rows[0]["reported_se"] == pytest.approx(ref.naive_standard_error)


def test_show_table_has_naive_and_clustered_side_by_side():
    res = run("evals", "show", INSPECT, "--cluster", "passage")
    assert res.exit_code == 0, res.output
    header = res.output.splitlines()[1]
    for column in ("naive se", "clustered se", "design effect", "tool's se", "errored"):
        assert column in header
    assert "answer-to-answer noise" in res.output and "half width" in res.output


def test_compare_json_verdict_and_report(tmp_path):
    out = tmp_path / "r.html"
    res = run("evals", "compare", LM_A, LM_B, "--cluster", "doc.passage_id", "--json",
              "--report", out)
    assert res.exit_code == 0, res.output
    payload = json.loads(res.output)
    ref = compare(load(LM_A, cluster="doc.passage_id"), load(LM_B, cluster="doc.passage_id"))
    assert payload["difference"] == pytest.approx(ref.difference)
    assert payload["pvalue"] == pytest.approx(ref.pvalue)
    assert payload["standard_error"] == pytest.approx(ref.standard_error)
    assert payload["verdict"].startswith("No significant difference")
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "se, paired and clustered" in page
    assert "<script" not in page and "http" not in page


def test_compare_k_runs(tmp_path):
    out = tmp_path / "k.html"
    res = run("evals", "compare", LM_A, LM_B, LM_A, "--metric", "acc_norm", "--report", out)
    assert res.exit_code == 0, res.output
    assert "adjusted p" in res.output and "max-T" in res.output
    assert out.exists()


@pytest.mark.parametrize("args, message", [
    (("compare", LM_A), "at least two runs; got 1"),
    (("compare", LM_A, INSPECT), "are not on the same questions"),
    (("show", DATA / "missing.jsonl"), "path: no such file"),
    (("show", LM_A, "--metric", "bleu"), "no field 'bleu'"),
    (("show", LM_A, "--confidence-level", "95"), "confidence_level must be strictly"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    out = tmp_path / "never.html"
    res = run("evals", *args, "--report", out)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert not out.exists()


def test_help_lists_the_group():
    res = run("--help")
    assert res.exit_code == 0 and "evals" in res.output
    res = run("evals", "--help")
    assert "show" in res.output and "compare" in res.output
