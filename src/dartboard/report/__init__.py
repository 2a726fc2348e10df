"""The self-contained HTML report.

:func:`render_report` turns a results dictionary (what ``dartboard demo`` saves as
``results.json``, or what ``dartboard evaluate --report`` collects) into one HTML
page with inline SVG figures and no network access; :func:`write_report` writes it
atomically. The report draws what it is given and computes nothing: the metric
sections come from :func:`dartboard.evaluation.evaluate_predictions`, and the inputs
of the selection and stability figures are stored by whoever computed them with
the helpers of :mod:`dartboard.report._inputs`.
"""

from dartboard.report._render import (
                                      FIGURES,
                                      render_report,
                                      svg_of,
                                      write_json,
                                      write_report,
                                      write_text_atomic,
)

__all__ = ["FIGURES", "render_report", "svg_of", "write_json", "write_report",
           "write_text_atomic"]
