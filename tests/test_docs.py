"""The API reference covers the public names, and their docstrings pass numpydoc.

The reference lists its names in ``docs/api/*.rst`` (autosummary); the checks and
their exclusions are the ones ``docs/conf.py`` gives Sphinx, so the suite and the
documentation build enforce the same thing.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pydoc
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dartboard

validate = pytest.importorskip("numpydoc.validate").validate

DOCS = Path(__file__).resolve().parents[1] / "docs"
MODULES = ("dartboard", "dartboard.metrics", "dartboard.uncertainty", "dartboard.compare",
           "dartboard.evaluation", "dartboard.scale", "dartboard.plots", "dartboard.selection",
           "dartboard.stability", "dartboard.profiling", "dartboard.report",
           "dartboard.exceptions", "dartboard.evals")
CONF = runpy.run_path(str(DOCS / "conf.py"))
CHECKS = CONF["numpydoc_validation_checks"]
MEMBER = re.compile(CONF["MEMBER"])
MEMBER_CHECKS = CONF["MEMBER_CHECKS"]


def public_names(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    if module_name == "dartboard":  # its __all__ names the subpackages (a short help())
        return list(dartboard._PUBLIC)
    return list(module.__all__)


def reference_entries() -> list[tuple[str, str]]:
    """``(module, name)`` of every autosummary entry of docs/api."""
    entries = []
    for path in sorted((DOCS / "api").glob("*.rst")):
        module, in_list, pages = None, False, False
        for line in path.read_text().splitlines():
            found = re.match(r"\.\. (?:current)?module:: (\S+)", line)
            if found:
                module = found.group(1)
            if line.startswith(".. autosummary::"):
                in_list, pages = True, False
            elif in_list and line.strip() and not line.startswith(" "):
                in_list = False
            elif in_list and line.strip().startswith(":toctree:"):
                pages = True  # a list without :toctree: (the index's) only links
            elif in_list and pages and line.startswith("   ") and not line.strip().startswith(":"):
                entries.append((module, line.strip()))
    return entries


ENTRIES = reference_entries()


def documented_objects() -> dict[str, object]:
    return {f"{module}.{name}": getattr(importlib.import_module(module), name)
            for module, name in ENTRIES}


def test_the_reference_lists_names_of_the_modules():
    assert len(ENTRIES) > 150
    for module, name in ENTRIES:
        assert module in MODULES, (module, name)
        assert name in public_names(module), f"{module}.{name} is not public"


def test_every_public_name_has_one_page():
    documented = documented_objects()
    ids = [id(obj) for obj in documented.values() if not isinstance(obj, (str, tuple))]
    assert len(ids) == len(set(ids)), "a name is documented twice"
    by_id = {id(obj): name for name, obj in documented.items()}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module_name):
            obj = getattr(module, name)
            assert f"{module_name}.{name}" in documented or id(obj) in by_id, \
                f"{module_name}.{name} has no page in docs/api"


def test_top_level_names_are_documented_at_the_top_level():
    documented = documented_objects()
    for name in dartboard._PUBLIC:
        assert f"dartboard.{name}" in documented, name


def _members(cls: type) -> list[str]:
    """What the class template (docs/_templates/autosummary/class.rst) lists."""
    if issubclass(cls, BaseException):
        return []
    return [name for name in dir(cls) if not name.startswith("_")
            and (callable(inspect.getattr_static(cls, name))
                 or isinstance(inspect.getattr_static(cls, name), (property,
                                                                    classmethod)))]


def _pages() -> list[tuple[str, object]]:
    pages = []
    for name, obj in documented_objects().items():
        if not callable(obj):
            continue
        pages.append((name, obj))
        if inspect.isclass(obj):
            pages += [(f"{name}.{member}", (obj, member)) for member in _members(obj)]
    return pages


@pytest.mark.parametrize(("name", "obj"), _pages(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_docstring_passes_numpydoc(name, obj):
    if isinstance(obj, tuple):
        cls, member = obj
        target = f"{cls.__module__}.{cls.__qualname__}.{member}"
        checks = MEMBER_CHECKS
        assert MEMBER.search(name)
    else:
        target = f"{obj.__module__}.{obj.__qualname__}"
        checks = CHECKS
        assert not MEMBER.search(name)
    errors = [f"{code}: {message}" for code, message in validate(target)["errors"]
              if code in checks]
    assert not errors, f"{name}:\n" + "\n".join(errors)


def test_the_checks_are_the_documented_ones():
    assert {"GL08", "SS01", "PR01", "PR02", "RT01", "EX01"} <= CHECKS


def test_help_is_a_short_map():
    text = pydoc.render_doc(dartboard, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 120
    for part in ("metrics", "uncertainty", "compare", "evaluate(", "docs/"):
        assert part in text
    assert "class Interval" not in text  # no re-exported docstring rendered


def test_names_stay_reachable_without_all():
    names = dir(dartboard)
    assert set(dartboard._PUBLIC) <= set(names)
    assert dartboard.evaluate is importlib.import_module("dartboard.evaluation").evaluate
    star = subprocess.run([sys.executable, "-c", "from dartboard import *; print(metrics.__name__)"],
                          capture_output=True, text=True, check=True)
    assert star.stdout.strip() == "dartboard.metrics"


def test_every_metric_is_a_plain_function():
    """No factory: a metric's code, signature and docstring are its own."""
    from dartboard.metrics._registry import specs

    for spec in specs():
        function = spec.function
        assert function.__code__.co_name == spec.name, spec.name
        assert inspect.getsource(function).lstrip().startswith(("@", "def ")), spec.name
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        assert not kinds & {inspect.Parameter.VAR_POSITIONAL,
                            inspect.Parameter.VAR_KEYWORD}, spec.name


def test_documented_fills_parameters_in_signature_order():
    from dartboard.metrics._docs import documented

    @documented(returns="float\n    The value.", alpha=("float", "A level."))
    def mean_absolute_error(y_true, y_pred, *, alpha=0.5, sample_weight=None):
        """Summary.

        Parameters
        ----------
        sample_weight : array-like
            Kept as written.

        Examples
        --------
        >>> 1
        1
        """

    doc = mean_absolute_error.__doc__
    order = [doc.index(f"\n{name} :") for name in ("y_true", "y_pred", "alpha",
                                                   "sample_weight")]
    assert order == sorted(order)
    assert "alpha : float, default=0.5\n    A level." in doc
    assert "Kept as written." in doc and doc.count("sample_weight :") == 1
    assert doc.index("Returns") < doc.index("Examples")
    assert validate_docstring(mean_absolute_error) == []


def test_documented_refuses_an_undescribed_parameter():
    from dartboard.metrics._docs import documented

    def mean_absolute_error(y_true, y_pred, *, novel=1):
        """Summary."""

    with pytest.raises(KeyError, match="'novel' has no description"):
        documented()(mean_absolute_error)


def validate_docstring(function) -> list[str]:
    from numpydoc.docscrape import FunctionDoc

    parsed = FunctionDoc(function)
    documented = {name for p in parsed["Parameters"] for name in p.name.split(", ")}
    return sorted(set(inspect.signature(function).parameters) ^ documented)


def _described(obj) -> list[str]:
    """The parameters (and class fields) of a docstring whose description is empty."""
    from numpydoc.docscrape import NumpyDocString

    parsed = NumpyDocString(inspect.getdoc(obj) or "")
    return [p.name for p in parsed["Parameters"] + parsed["Other Parameters"]
            if not "".join(p.desc).strip()]


@pytest.mark.parametrize(("name", "obj"), _pages(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_every_parameter_is_described(name, obj):
    """numpydoc's PR01/PR02 check that a parameter is listed, not that it says anything:
    a name with a type and no sentence is a hole in the reference page."""
    if isinstance(obj, tuple):
        cls, member = obj
        static = inspect.getattr_static(cls, member)
        obj = static.fget if isinstance(static, property) else getattr(cls, member)
    assert _described(obj) == [], f"{name}: parameters without a description"


def test_the_empty_description_check_can_fail():
    def f(a, b):
        """Summary.

        Parameters
        ----------
        a : int
        b : int
            Described.
        """

    assert _described(f) == ["a"]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize(("block", "copied"), [
    (">>> import dartboard\n>>> ev = dartboard.evaluate(\n...     y, y_pred=p)\n>>> ev\n"
     "Evaluation(binary, n = 3)\n  accuracy 0.5\n",
     "import dartboard\nev = dartboard.evaluate(\n    y, y_pred=p)\nev"),
    (">>> for i in range(2):\n...     print(i)\n...\n0\n1\n",
     "for i in range(2):\n    print(i)\n"),
    ("pip install .\ndartboard --help\n", "pip install .\ndartboard --help"),
])
def test_the_copy_button_leaves_out_prompts_and_outputs(block, copied):
    script = (f"const {{ stripPrompts }} = require({json.dumps(str(DOCS / '_static' / 'copybutton.js'))});"
              f"process.stdout.write(stripPrompts({json.dumps(block)}));")
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert out.stdout == copied


def test_the_gallery_sections_are_its_folders():
    """Each folder of examples/gallery is one section of the gallery, in conf.py's order,
    with a README.txt (its heading) and at least one example."""
    gallery = DOCS.parent / "examples" / "gallery"
    folders = sorted(p.name for p in gallery.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert sorted(CONF["GALLERY_SECTIONS"]) == folders
    assert not list(gallery.glob("plot_*.py")), "an example outside every section"
    for name in folders:
        assert (gallery / name / "README.txt").is_file(), name
        assert list((gallery / name).glob("plot_*.py")), name
