"""
A self-contained HTML report of an evaluation
=============================================

An evaluation is often read by people who will not run Python: a reviewer, a
product owner, a regulator. The ``to_html(path)`` method of
:class:`dartboard.Evaluation` writes the whole evaluation (every metric with
its interval, every group, the largest gaps, the ROC and precision-recall curves with their bands, the confusion
matrix, the reliability diagram, and what was assumed) to one HTML file. The
figures are inline SVG and nothing is fetched from the network, so the file can
be mailed, archived or attached to a ticket and still opens years later.

This example writes the report of a breast-cancer classifier to a temporary
directory, checks that its table holds the evaluation's numbers, and shows the
report itself.
"""

# %%
# Evaluate, then write
# --------------------
# ``curve_bands=True`` adds the 95% bands of the ROC and precision-recall
# curves to the evaluation, and so to the report; ``model=`` names the model in
# the report's title.

import re
import tempfile
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import dartboard

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
size = np.where(X_test["mean radius"] > 14, "large tumour", "small tumour")

ev = dartboard.evaluate(y_test, y_proba=model.predict_proba(X_test), groups=size,
                        curve_bands=True, model="logistic regression", random_state=0)
path = ev.to_html(Path(tempfile.mkdtemp()) / "report.html")
html = path.read_text(encoding="utf-8")
fetched = re.findall(r"""(?:src|href)=["']https?:""", html)
print(f"{path.name}: {len(html) / 1024:.0f} KiB, {html.count('<svg')} inline figures, "
      f"{len(fetched)} resources fetched from the network")

# %%
# The report's numbers are the evaluation's
# -----------------------------------------
# The report is drawn from the evaluation; it computes nothing itself. Reading
# its first table back (with the standard library's HTML parser) gives the
# overall metrics, rounded to four decimals, equal to ``ev.overall``.


class Tables(HTMLParser):
    """Collect the text of every table cell, table by table."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.cell.strip())
            self.cell = None


parser = Tables()
parser.feed(html)
header, *body = parser.tables[0]
from_report = pd.DataFrame(body, columns=header).set_index("Metric")
from_report[["Estimate", "Low", "High"]] = from_report[["Estimate", "Low", "High"]].astype(float)
check = (from_report[["Estimate", "Low", "High"]].to_numpy()
         - ev.overall[["estimate", "low", "high"]].round(4).to_numpy())
print(f"largest difference from ev.overall: {np.abs(check).max():.1g}")
from_report

# %%
# The report itself
# -----------------
# Below is the file as written, embedded in this page (in a notebook,
# ``IPython.display.IFrame`` would show it the same way). Scroll through it:
# the metric table, the groups and their largest gaps, the curves with their
# bands, the confusion matrix and the reliability diagram, and at the end what
# the evaluation assumed.


class Embedded:
    """Show an HTML document in an inline frame where rich output is rendered."""

    def __init__(self, document):
        self.document = document

    def _repr_html_(self):
        return (f'<iframe srcdoc="{escape(self.document)}" width="100%" height="700" '
                'style="border: 1px solid #ccc"></iframe>')


Embedded(html)
