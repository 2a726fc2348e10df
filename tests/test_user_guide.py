"""Run the examples of the home page, the user guide, getting started and the migration pages.

Every ``.rst`` page of ``docs/index.rst``, ``docs/getting_started.rst``, ``docs/user_guide`` and
``docs/migration`` is a doctest file: its ``>>>`` examples run in order, in one
namespace per page, and their printed output must match. A page added later is found
by the glob, so the guide cannot silently rot. Pages run in a temporary working
directory (some write a report or a Parquet file there) that holds pROC's ``aSAH.csv``,
which the pROC migration page reads.
"""

from __future__ import annotations

import doctest
import shutil
from pathlib import Path

import matplotlib
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
DATA = Path(__file__).resolve().parent / "data"
PAGES = sorted([DOCS / "index.rst", DOCS / "getting_started.rst",
                *(DOCS / "user_guide").glob("*.rst"),
                *(DOCS / "migration").glob("*.rst")])
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_pages_are_found():
    assert len(PAGES) >= 15
    assert all(page.is_file() for page in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_examples(page, tmp_path, monkeypatch):
    shutil.copy(DATA / "aSAH.csv", tmp_path)
    monkeypatch.chdir(tmp_path)
    matplotlib.use("Agg")
    result = doctest.testfile(str(page), module_relative=False, optionflags=FLAGS,
                              globs={"__name__": "__doc__"}, raise_on_error=False,
                              verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
