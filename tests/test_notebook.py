"""``examples/quickstart.ipynb`` runs from top to bottom and shows dartboard's tables."""

from __future__ import annotations

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
