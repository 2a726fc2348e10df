"""The self-contained HTML report.

:func:`render_report` turns a results dictionary (what ``dartboard demo`` saves as
``results.json``, or what ``dartboard evaluate --report`` collects) into one HTML
page with inline SVG figures and no network access; :func:`write_report` writes it
atomically. The section builders in :mod:`dartboard.report._sections` turn data into
the JSON-ready sections the page is drawn from.
"""

from __future__ import annotations

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
