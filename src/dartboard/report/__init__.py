"""The self-contained HTML report.

:func:`render_report` turns a results dictionary (what ``dartboard demo`` saves as
``results.json``, or what ``dartboard evaluate --report`` collects) into one HTML
page with inline SVG figures and no network access; :func:`write_report` writes it
atomically, over a regular file only (:func:`check_target`). The report draws what it
is given and computes nothing: the metric sections come from
:func:`dartboard.evaluation.evaluate_predictions`, and the inputs of the selection and
stability figures are stored by whoever computed them with the helpers of
:mod:`dartboard.report._inputs`. :func:`check_results` names the first field of a
(hand-edited) results dictionary that the report cannot draw from.
"""

from dartboard.report._render import (
                                      FIGURES,
                                      render_report,
                                      svg_of,
                                      write_json,
                                      write_report,
)
from dartboard.report._schema import check_results
from dartboard.report._write import check_target, write_text_atomic

__all__ = ["FIGURES", "check_results", "check_target", "render_report", "svg_of",
           "write_json", "write_report", "write_text_atomic"]
