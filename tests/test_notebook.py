"""``examples/quickstart.ipynb`` runs from top to bottom and shows dartboard's tables, and
a plot called without ``ax`` (and without ``plt.show()``) shows its figure in its cell."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "quickstart.ipynb"


def test_quickstart_notebook_runs(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), \
        "the notebook is stored without outputs"
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs
            if o.output_type == "execute_result" and "text/html" in o.get("data", {})]
    assert sum('class="dartboard-ev"' in h for h in html) == 2  # the two evaluations
    assert any("demographic_parity_difference" in h for h in html)
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the figure
    report = tmp_path / "quickstart-report.html"
    assert report.exists() and "<html" in report.read_text(encoding="utf-8")


def test_a_plot_without_ax_shows_its_figure_in_its_cell(tmp_path):
    # a plain kernel, as a user's Jupyter starts it: no %matplotlib magic, and without the
    # test suite's MPLBACKEND=Agg, so ipykernel chooses its inline backend by itself
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    cells = [
        "import numpy as np\nimport dartboard\nfrom dartboard.plots import plot_roc_curve\n"
        "y = np.array([0, 0, 1, 1, 0, 1, 1, 0])\n"
        "s = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.7, 0.3])",
        "ax = plot_roc_curve(y, s)",
        "dartboard.plots.plot_reliability_diagram(y, s, n_bins=2, random_state=0);",
        "dartboard.evaluate(y, s > 0.5, metrics=['accuracy'], random_state=0).plot();",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute(env=env)
    for cell in nb.cells:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.outputs
    for cell in nb.cells[1:]:
        images = [o for o in cell.outputs
                  if o.output_type == "display_data" and "image/png" in o.get("data", {})]
        assert len(images) == 1, (cell.source, cell.outputs)
