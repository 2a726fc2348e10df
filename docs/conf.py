"""Sphinx configuration of dartboard's documentation site.

Build (from the repository root, in a venv with the ``docs`` extra)::

    sphinx-build -W --keep-going -n docs docs/_build/html
"""

from __future__ import annotations

import importlib
import re
from datetime import date
from pathlib import Path

from docutils import nodes
from numpydoc.validate import validate
from numpydoc.xref import DEFAULT_LINKS
from sphinx.util import logging

import dartboard

logger = logging.getLogger("dartboard.docs")

project = "dartboard"
author = "The dartboard developers"
copyright = f"2024-{date.today().year}, {author}"  # noqa: A001
release = dartboard.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",
    "matplotlib.sphinxext.plot_directive",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**/README.rst"]
default_role = "literal"

# -- API reference ---------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# numpydoc checks every documented object as its page is built; with -W a failure
# stops the build. GL08 a docstring; SS01 a summary line; PR01/PR02 every parameter
# documented and none unknown; RT01 a Returns section; EX01 an Examples section (they
# run as doctests, tests/test_doctests.py). tests/test_docs.py applies the same checks
# with the same exclusions, so the suite fails where the build would.
numpydoc_validation_checks = {"GL08", "SS01", "PR01", "PR02", "RT01", "EX01"}
# Members on a class page (``dartboard.Interval.to_dict``) are checked by
# _validate_member below with every check but EX01: the class's own Examples show
# its members in use, and an example per property would repeat it.
MEMBER = r"\.[A-Z]\w*\.[a-z]\w*$"
MEMBER_CHECKS = numpydoc_validation_checks - {"EX01"}
# Module constants (``dartboard.evaluation.TASKS``, ``dartboard.report.FIGURES``) are
# documented by their ``#:`` comment: a tuple has no parameters, returns or examples.
CONSTANT = r"\.[A-Z][A-Z0-9_]+$"
numpydoc_validation_exclude = {MEMBER, CONSTANT}


# Every API page links to the user-guide page of its job: the page of its section of
# docs/api (evaluation.rst -> evaluating), or the one GUIDE_PAGE names for it. The
# autosummary templates read ``guide`` (autosummary_context).
GUIDE_OF_SECTION = {"evaluation": "evaluating", "metrics": "metrics",
                    "uncertainty": "intervals", "compare": "comparing",
                    "selection": "selection", "scale": "scale", "plots": "evaluating",
                    "report": "report"}
GUIDE_PAGE = {
    **dict.fromkeys(["roc_band", "pr_band", "CurveBand", "select_threshold",
                     "evaluate_threshold", "OperatingPoint", "plot_roc_curve",
                     "plot_precision_recall_curve"], "curves"),
    **dict.fromkeys(["calibration_bins", "CalibrationBins", "calibration_test",
                     "interval_from_calibration_state", "calibration_error",
                     "brier_decomposition", "BrierDecomposition", "calibration_curve",
                     "plot_reliability_diagram", "plot_calibration_curve"], "calibration"),
    **dict.fromkeys(["stability_metrics", "stability_audit", "StabilityResult",
                     "plot_stability"], "stability"),
    **dict.fromkeys(["profile_pipeline", "Profile"], "profiling"),
    **dict.fromkeys(["plot_critical_difference"], "comparing"),
    **dict.fromkeys(["plot_dart_sweep", "plot_fold_scores"], "selection"),
}


def _guide_pages() -> dict[str, str]:
    """``{module.name: user-guide page}`` for every autosummary entry of docs/api."""
    pages = {}
    for path in sorted(Path(__file__).parent.joinpath("api").glob("*.rst")):
        section = GUIDE_OF_SECTION.get(path.stem)
        module = None
        for line in path.read_text().splitlines():
            found = re.match(r"\.\. (?:current)?module:: (\S+)", line)
            if found:
                module = found.group(1)
            elif section and re.match(r"   [A-Za-z_]\w*$", line):
                name = line.strip()
                pages[f"{module}.{name}"] = GUIDE_PAGE.get(name, section)
    return pages


autosummary_context = {"guide": _guide_pages()}

# Types in Parameters and Returns link to their pages where they are dartboard's
# (``Evaluation`` in evaluate's Returns); other words stay text (no intersphinx).
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
PLAIN_TYPES = frozenset(DEFAULT_LINKS)
numpydoc_xref_aliases = {word: word for word in PLAIN_TYPES}
numpydoc_xref_aliases.update({
    name: f"{module}.{name}"
    for module in ("dartboard", "dartboard.evaluation", "dartboard.metrics",
                   "dartboard.uncertainty", "dartboard.scale")
    for name in getattr(importlib.import_module(module), "__all__", ())
    if isinstance(getattr(importlib.import_module(module), name, None), type)
    and not issubclass(getattr(importlib.import_module(module), name), Warning)
})
numpydoc_xref_aliases.update({name: f"dartboard.{name}" for name in dartboard._PUBLIC
                              if isinstance(getattr(dartboard, name), type)
                              and not issubclass(getattr(dartboard, name), Warning)})


def _validate_member(app, what, name, obj, options, lines):
    if what not in ("method", "attribute", "property") or not re.search(MEMBER, name):
        return
    module, cls, member = name.rsplit(".", 2)
    owner = getattr(importlib.import_module(module), cls)
    target = f"{owner.__module__}.{owner.__qualname__}.{member}"
    errors = [f"{code}: {message}" for code, message in validate(target)["errors"]
              if code in MEMBER_CHECKS]
    if errors:
        logger.warning("[numpydoc] %s:\n  %s", name, "\n  ".join(errors))


def _skip_member(app, what, name, obj, skip, options):
    """Class pages list methods and properties; plain data fields are documented in
    the class docstring, so they are not listed a second time."""
    # ``what`` is the member's kind: a property is "property", a field "attribute"
    if what == "attribute" and not (callable(obj) or isinstance(obj, property)):
        return True
    return None


def _plain_type(app, env, node, contnode):
    """Built-in type words (``float``, ``array-like``) stay plain text: the build is
    offline (no intersphinx), so numpydoc's links to Python's and NumPy's sites would
    not resolve (PLAIN_TYPES below)."""
    if node.get("reftarget") in PLAIN_TYPES:
        return nodes.Text(contnode.astext())
    return None


def _canonical(app, env, node, contnode):
    """A re-export (``dartboard.uncertainty.interval``) links to the one page of its
    object (``dartboard.interval``): every public name is documented once."""
    module, _, name = node.get("reftarget", "").rpartition(".")
    if node.get("refdomain") != "py" or not module.startswith("dartboard.") \
            or name not in dartboard._PUBLIC:
        return None
    try:
        obj = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    if obj is not getattr(dartboard, name):
        return None
    return env.get_domain("py").resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], f"dartboard.{name}", node,
        contnode)


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-docstring", _validate_member)
    app.connect("missing-reference", _canonical)
    app.connect("missing-reference", _plain_type)


# Private modules and helpers (``dartboard._kernels._analytic``) have no pages: a
# docstring that names one points a reader of the source there, shown as code
nitpick_ignore_regex = [(r"py:.*", r"dartboard(\.\w+)*\._\w+.*")]

# The build runs offline (CI reaches package registries only), so there is no
# intersphinx: names from other projects are written as literals, not links.

# -- Gallery ---------------------------------------------------------------
# The gallery in sections: each folder of examples/gallery with its README.txt is one,
# in the order of a reader's questions.
GALLERY_SECTIONS = ["evaluate", "compare", "groups", "clusters", "curves", "calibration",
                    "scale"]
sphinx_gallery_conf = {
    "examples_dirs": "../examples/gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "subsection_order": [f"../examples/gallery/{name}" for name in GALLERY_SECTIONS],
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    # "Examples using this" on every API page: the examples that call a public name,
    # found by the names the examples use (the autosummary templates include them)
    "backreferences_dir": "api/generated/backreferences",
    "doc_module": ("dartboard",),
    "reference_url": {"dartboard": None},
}

# The home page's figure is drawn when the site is built, from the code beside it
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 120)]

# -- HTML ------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"dartboard {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
# A copy button on code blocks that leaves out ">>> " and "... " prompts and outputs
html_js_files = ["copybutton.js"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # Five entries fit in one row at 1280 px; the rest go under "More"
    "header_links_before_dropdown": 5,
    # One sidebar (html_sidebars): the right-hand one would narrow the text to 620 px
    "secondary_sidebar_items": [],
    "navbar_end": ["theme-switcher", "project-links"],
    # a search button, not a field: with the field the header wraps to two rows
    "navbar_persistent": ["search-button"],
}
# The navigation, then the page's own contents, in the left column. Pages without
# sections of their own and without subpages have no sidebar at all.
html_sidebars = {
    "**": ["sidebar-nav-bs", "page-toc"],
    "index": [],
    "install": ["page-toc"],
    "getting_started": ["page-toc"],
    "faq": ["page-toc"],
    "citing": [],
    "changelog": [],
    "glossary": [],
    "project": [],
}
html_show_sourcelink = False
