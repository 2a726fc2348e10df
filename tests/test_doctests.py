"""Run the examples in every docstring of every dartboard module.

Modules are discovered with ``pkgutil.walk_packages``, so modules added later are
checked too. A module may be skipped only when it needs an optional dependency that
is not installed; any other import error fails.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dartboard

# extras declared in pyproject.toml ([project.optional-dependencies])
OPTIONAL_DEPENDENCIES = {"dask", "distributed", "polars"}


def module_names():
    names = ["dartboard"]
    for info in pkgutil.walk_packages(dartboard.__path__, prefix="dartboard.",
                                      onerror=lambda name: None):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # importing it would run the CLI
            names.append(info.name)
    return sorted(names)


def import_or_skip(name):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in OPTIONAL_DEPENDENCIES:
            pytest.skip(f"{name} needs the optional dependency {missing}")
        raise


@pytest.mark.parametrize("name", module_names())
def test_doctests(name):
    module = import_or_skip(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                   | doctest.NORMALIZE_WHITESPACE)
    failures = []
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test, out=failures.append)
    assert not failures, "".join(failures)


def test_discovery_finds_the_core_modules():
    names = module_names()
    for core in ("dartboard._validation", "dartboard._results", "dartboard.metrics._confusion",
                 "dartboard.cli"):
        assert core in names


def test_confusion_examples_really_run():
    from dartboard.metrics import _confusion

    tests = doctest.DocTestFinder().find(_confusion, globs=vars(_confusion).copy())
    examples = sum(len(t.examples) for t in tests)
    assert examples >= 15  # every public count metric carries an example
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0
