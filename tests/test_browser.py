"""The demo's report in headless Chromium: every figure is laid out with a non-zero
size at phone and desktop widths, the page does not overflow the phone's width, and
nothing is fetched from anywhere (no resource entries, no CSP violations).

A copy of the report gets one measuring script, allowed by a nonce added to the
report's own Content-Security-Policy (which otherwise forbids scripts and every
fetch); the script records CSP violations from the start, measures after load and
writes its findings into the DOM, which ``--dump-dom`` prints.
"""

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from test_demo import quick_demo

from dartboard.report import FIGURES

pytestmark = pytest.mark.browser


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = _chromium()
if CHROMIUM is None:
    pytest.skip("no Chromium found (install Debian's chromium: apt-get install chromium)",
                allow_module_level=True)

_MEASURE = """<script nonce="dartboard-test">
var violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
window.addEventListener('load', function () {
  var out = {figures: {}, violations: violations,
             resources: performance.getEntriesByType('resource').map(
                 function (r) { return r.name; }),
             clientWidth: document.documentElement.clientWidth,
             scrollWidth: document.documentElement.scrollWidth};
  document.querySelectorAll('figure[data-figure]').forEach(function (f) {
    var root = f.querySelector('svg'), box = f.getBoundingClientRect(),
        svg = root.getBoundingClientRect();
    out.figures[f.dataset.figure] = {w: box.width, h: box.height,
                                     svgW: svg.width, svgH: svg.height,
                                     scale: svg.width / root.viewBox.baseVal.width};
  });
  var pre = document.createElement('pre');
  pre.id = 'dartboard-measure';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _flags(profile_dir, width, height):
    return [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={profile_dir}", "--hide-scrollbars",
            f"--window-size={width},{height}"]


def _run(args):
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def pages():
    out, _, _ = quick_demo()
    html = (out / "report.html").read_text()
    csp = "default-src 'none';"
    assert csp in html
    instrumented = html.replace(csp, f"{csp} script-src 'nonce-dartboard-test';", 1)
    instrumented = instrumented.replace("</head>", _MEASURE + "\n</head>", 1)
    work = Path(tempfile.mkdtemp(prefix="dartboard-browser-"))
    try:
        page = work / "measure.html"
        page.write_text(instrumented)
        yield out / "report.html", page, work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(page, work, width):
    dom = _run(_flags(work / f"profile-{width}", width, 900)
               + ["--virtual-time-budget=5000", "--dump-dom", page.as_uri()])
    found = re.search(r'<pre id="dartboard-measure">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.mark.parametrize("width", [390, 1280])
def test_every_figure_laid_out_and_nothing_fetched(pages, width):
    _, page, work = pages
    m = _measure(page, work, width)
    assert sorted(m["figures"]) == sorted(FIGURES)
    for fig_id, box in m["figures"].items():
        assert box["w"] > 0 and box["h"] > 0 and box["svgW"] > 0 and box["svgH"] > 0, fig_id
        assert box["w"] <= m["clientWidth"], fig_id
    assert m["resources"] == []
    assert m["violations"] == []
    assert m["scrollWidth"] <= m["clientWidth"]  # no sideways scrolling of the page


def test_figures_share_one_text_size_on_a_wide_screen(pages):
    """Every figure is drawn at its own size (96 pixels per inch, 4/3 of a pixel per
    point of its SVG), so matplotlib's 10 pt text is the same size in all of them: no
    wide figure blown up to twice its fonts."""
    _, page, work = pages
    m = _measure(page, work, 1280)
    scales = {fig_id: box["scale"] for fig_id, box in m["figures"].items()}
    assert all(abs(s - 4 / 3) < 0.01 for s in scales.values()), scales


def test_dom_has_no_external_urls(pages):
    report, _, work = pages
    dom = _run(_flags(work / "profile-dom", 1280, 900)
               + ["--virtual-time-budget=3000", "--dump-dom", report.as_uri()])
    assert dom.count("<figure data-figure=") == len(FIGURES)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", dom)
    assert "<script" not in dom


@pytest.mark.parametrize("width", [390, 1280])
def test_screenshot(pages, width):
    report, _, work = pages
    shot = work / f"report-{width}.png"
    _run(_flags(work / f"profile-shot-{width}", width, 2400)
         + [f"--screenshot={shot}", report.as_uri()])
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_the_checks_catch_an_external_request(pages):
    """The same measurement on a page that does try to fetch something reports it."""
    _, page, work = pages
    leaky = work / "leaky.html"
    leaky.write_text(page.read_text().replace(
        "<main>", '<main><img src="http://example.invalid/pixel.png" alt="">', 1))
    m = _measure(leaky, work, 1280)
    assert any("example.invalid" in v for v in m["violations"]), m["violations"]


_NOTEBOOK_MEASURE = """<script>
window.addEventListener('load', function () {
  var out = {clientWidth: document.documentElement.clientWidth,
             scrollWidth: document.documentElement.scrollWidth, tables: []};
  document.querySelectorAll('.dartboard-ev table').forEach(function (t) {
    var box = t.getBoundingClientRect(), cell = t.querySelector('td');
    var style = getComputedStyle(cell), page = getComputedStyle(document.body);
    out.tables.push({w: box.width, h: box.height, rows: t.rows.length,
                     color: style.color, pageColor: page.color});
  });
  var pre = document.createElement('pre');
  pre.id = 'dartboard-measure';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_notebook_view_fits_and_follows_the_theme(tmp_path, width, theme):
    """The notebook table of a grouped evaluation, in a page styled as JupyterLab's
    light or dark theme: laid out, text in the theme's colour (nothing hard-coded),
    and the page itself never scrolls sideways (a wide table scrolls in its box)."""
    import numpy as np

    import dartboard

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    pred = np.where(rng.random(500) < 0.8, y, 1 - y)
    groups = rng.choice(["north", "south", "east", "west", "centre"], 500)
    ev = dartboard.evaluate(y, pred, groups=groups, n_resamples=200, random_state=0)
    colors = {"light": ("#ffffff", "rgb(33, 33, 33)"), "dark": ("#111111",
                                                               "rgb(212, 212, 212)")}
    background, text = colors[theme]
    page = tmp_path / "notebook.html"
    page.write_text(f"<!doctype html><html><head><meta name='viewport' content='width="
                    f"device-width'>{_NOTEBOOK_MEASURE}</head><body style='background:"
                    f"{background};color:{text}'>{ev._repr_html_()}</body></html>")
    dom = _run(_flags(tmp_path / "profile", width, 900)
               + ["--virtual-time-budget=3000", "--dump-dom", page.as_uri()])
    found = re.search(r'<pre id="dartboard-measure">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    m = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert len(m["tables"]) == 2
    for table in m["tables"]:
        assert table["w"] > 0 and table["h"] > 0 and table["rows"] > 2
        assert table["color"] == table["pageColor"] == text
    assert m["scrollWidth"] <= m["clientWidth"]


_RESULT_MEASURE = _NOTEBOOK_MEASURE.replace(".dartboard-ev table", ".dartboard-result table")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_result_views_fit_and_follow_the_theme(tmp_path, theme):
    """The notebook views of an Interval, a Comparison and an OperatingPoint, in a page
    styled as JupyterLab's theme: each a laid-out table in the theme's text colour, none
    wider than a phone."""
    import numpy as np

    import dartboard
    from dartboard.metrics import f1_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    score = np.clip(0.35 * y + 0.65 * rng.random(300), 0, 1)
    pred, other = (score > 0.5).astype(int), rng.integers(0, 2, 300)
    views = [dartboard.interval(f1_score, y, pred, n_resamples=500, random_state=0),
             dartboard.compare_models(f1_score, y, pred, other, n_resamples=500,
                                      random_state=0),
             dartboard.select_threshold(y, score, n_resamples=200, random_state=0)]
    colors = {"light": ("#ffffff", "rgb(33, 33, 33)"), "dark": ("#111111",
                                                               "rgb(212, 212, 212)")}
    background, text = colors[theme]
    page = tmp_path / "results.html"
    page.write_text(f"<!doctype html><html><head><meta name='viewport' content='width="
                    f"device-width'>{_RESULT_MEASURE}</head><body style='background:"
                    f"{background};color:{text}'>"
                    + "".join(v._repr_html_() for v in views) + "</body></html>")
    dom = _run(_flags(tmp_path / "profile", 390, 900)
               + ["--virtual-time-budget=3000", "--dump-dom", page.as_uri()])
    found = re.search(r'<pre id="dartboard-measure">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    m = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert len(m["tables"]) == 3
    for table in m["tables"]:
        assert table["w"] > 0 and table["h"] > 0 and table["rows"] >= 4
        assert table["color"] == table["pageColor"] == text
    assert m["scrollWidth"] <= m["clientWidth"]
