"""The HTML report: one self-contained file, every figure present and drawn from the
inputs it is given (it computes nothing: tests/test_evaluation_engine.py checks the
imports), atomic writes, and a note (not a crash) when part of dartboard is missing.
The numbers of its sections are tested with the engine that makes them."""

import json
import re
import sys

import numpy as np
import pytest
from _report_results import every_section

from dartboard import dart_sweep, rank_models, stability_metrics
from dartboard.report import (
    FIGURES,
    render_report,
    write_json,
    write_report,
    write_text_atomic,
)
from dartboard.report._inputs import (
    rank_from_input,
    stability_from_input,
    sweep_from_input,
)

URL = re.compile(r"""(?:src|href|xlink:href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


@pytest.fixture(scope="module")
def results(binary_data):
    return every_section(*binary_data)


@pytest.fixture(scope="module")
def html(results):
    return render_report(results)


def test_every_figure_is_present_once_with_caption_and_inline_svg(html):
    for fig_id in FIGURES:
        blocks = re.findall(rf'<figure data-figure="{fig_id}"[^>]*>(.*?)</figure>', html, re.S)
        assert len(blocks) == 1, fig_id
        assert "<svg" in blocks[0] and "viewBox" in blocks[0] and "<figcaption>" in blocks[0]
        assert 'width="100%"' in blocks[0]


def test_report_is_one_self_contained_file(html):
    assert html.startswith("<!DOCTYPE html>")
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html
    assert not URL.search(html)
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert "default-src 'none'" in html
    assert '<meta name="viewport"' in html and "@media (max-width" in html


def test_svg_ids_are_unique_across_figures(html):
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    for ref in set(re.findall(r'url\(#([^)]+)\)', html)):
        assert ref in ids


def test_user_text_is_escaped(html):
    assert "test &lt;report&gt;" in html and "test <report>" not in html


def test_write_report_and_json_are_atomic_and_complete(tmp_path, results):
    with pytest.raises(FileNotFoundError, match="does not exist"):  # a typo is no new tree
        write_report({"regression": results["regression"]}, tmp_path / "typo" / "report.html")
    (tmp_path / "sub").mkdir()
    path = write_report({"regression": results["regression"]}, tmp_path / "sub" / "report.html")
    assert path.read_text().rstrip().endswith("</html>")
    out = write_json({"x": float("nan"), "y": np.float64(1.5)}, tmp_path / "r.json")
    assert json.loads(out.read_text()) == {"x": None, "y": 1.5}
    target = tmp_path / "partial.html"
    with pytest.raises(TypeError):
        write_text_atomic(target, None)  # fails while writing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "sub"]


def test_report_renders_from_saved_json(tmp_path, results, html):
    saved = write_json(results, tmp_path / "results.json")
    again = render_report(json.loads(saved.read_text()))
    for fig_id in FIGURES:
        assert f'data-figure="{fig_id}"' in again


def test_missing_module_gives_a_note_not_a_crash(monkeypatch, results):
    monkeypatch.setitem(sys.modules, "dartboard.stability", None)
    html = render_report(results)
    assert 'data-figure="stability"' not in html
    assert "Figure &#39;stability&#39; not available" in html
    assert 'data-figure="roc"' in html


def test_figure_inputs_survive_json_unchanged(tmp_path, results):
    # the report rebuilds each figure's input from results.json: the same values
    folds = dict(zip(results["selection"]["configs"], results["selection"]["fold_scores"]))
    saved = json.loads(write_json(results, tmp_path / "r.json").read_text())
    sweep = dart_sweep(folds, np.linspace(0, 10, 11))
    back = sweep_from_input(saved["selection"]["sweep"])
    np.testing.assert_array_equal(back.precisions, sweep.precisions)
    for name in ("configurations", "winners", "crossings"):
        np.testing.assert_array_equal(getattr(back, name).to_numpy(),
                                      getattr(sweep, name).to_numpy(), err_msg=name)
    assert back.configurations.index.equals(sweep.configurations.index)
    ranked = rank_models(folds)
    again = rank_from_input(saved["selection"]["critical_difference"])
    assert again.groups() == ranked.groups()
    assert again.critical_difference == ranked.critical_difference
    np.testing.assert_array_equal(again.summary["average_rank"], ranked.summary["average_rank"])
    y = np.asarray(saved["stability"]["y_true"])
    probas = np.asarray(saved["stability"]["probas"])
    metrics = stability_metrics(probas, y_true=y)
    st = stability_from_input(saved["stability"]["figure"], probas)
    for column in ("label_stability", "total", "aleatoric", "mutual_information"):
        np.testing.assert_array_equal(st.per_point[column], metrics.per_point[column])
    assert st.summary["jitter"] == metrics.summary["jitter"] and st.n_models == 8
