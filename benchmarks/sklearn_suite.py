"""Run scikit-learn's own metric tests with dartboard's functions in its place.

Copies the installed ``sklearn/metrics/tests`` modules named in ``MODULES`` into a
temporary directory, beside a ``conftest.py`` that, before any test module is
imported, replaces every function that ``dartboard.metrics`` shares with
``sklearn.metrics`` (by name) in the ``sklearn.metrics`` namespace -- which is where
the test modules import them from -- and in scikit-learn's scorer registry. Each
replacement is a thin wrapper that records that the test reached dartboard.

Then pytest runs, and the script prints pass/fail counts per test module and per
failure category, for all tests and for those that called a dartboard function.

    python benchmarks/sklearn_suite.py                      # exact messages
    python benchmarks/sklearn_suite.py --ignore-messages    # pytest.raises/warns(match=) off
    python benchmarks/sklearn_suite.py -k precision --show 40

``--ignore-messages`` drops the ``match=`` of ``pytest.raises`` and ``pytest.warns``,
so a test fails only when the exception or warning class (or a value) differs.
Names whose meaning differs on purpose (``SKIP``) are left as scikit-learn's.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

MODULES = ("test_classification.py", "test_ranking.py", "test_regression.py",
           "test_common.py", "test_score_objects.py")
# dartboard's cosine_similarity is the paired form, sklearn.metrics.pairwise's the matrix
SKIP = frozenset({"cosine_similarity"})

CONFTEST = r'''
import functools
import json
import os

import pytest
import sklearn.metrics
from sklearn.metrics import _scorer

import dartboard.metrics

# scikit-learn's own fixtures (global_random_seed, global_dtype, ...)
pytest_plugins = ["sklearn.conftest"]

SKIP = set(json.loads(os.environ["DARTBOARD_SUITE_SKIP"]))
REACHED = [False]


def _wrap(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        REACHED[0] = True
        return func(*args, **kwargs)
    # pickled by reference to this module, where the wrapper lives under its name
    wrapper.__module__, wrapper.__qualname__ = __name__, func.__name__
    globals()[func.__name__] = wrapper
    return wrapper


SHARED = sorted(n for n in dartboard.metrics.__all__
                if n not in SKIP and callable(getattr(sklearn.metrics, n, None))
                and not isinstance(getattr(dartboard.metrics, n), type))
_ORIGINAL = {n: getattr(sklearn.metrics, n) for n in SHARED}
_PATCHED = {n: _wrap(getattr(dartboard.metrics, n)) for n in SHARED}
for _name, _func in _PATCHED.items():
    setattr(sklearn.metrics, _name, _func)
_BY_ORIGINAL = {id(f): _PATCHED[n] for n, f in _ORIGINAL.items()}
for _scorer_obj in _scorer._SCORERS.values():
    _func = getattr(_scorer_obj, "_score_func", None)
    if id(_func) in _BY_ORIGINAL:
        _scorer_obj._score_func = _BY_ORIGINAL[id(_func)]

if os.environ.get("DARTBOARD_SUITE_IGNORE_MESSAGES") == "1":
    def _no_match(original):
        @functools.wraps(original)
        def call(*args, **kwargs):
            kwargs.pop("match", None)
            return original(*args, **kwargs)
        return call
    pytest.raises = _no_match(pytest.raises)
    pytest.warns = _no_match(pytest.warns)


def pytest_report_header(config):
    return f"dartboard in place of sklearn.metrics for: {', '.join(SHARED)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    if call.when == "setup":
        REACHED[0] = False
    outcome = yield
    report = outcome.get_result()
    if call.when == "call":
        report.user_properties.append(("reached", REACHED[0]))
        if call.excinfo is not None:
            message = str(call.excinfo.value).strip().splitlines()
            report.user_properties.append(
                ("error", f"{call.excinfo.typename}: {message[0] if message else ''}"))
'''

PLUGIN = r'''
import json
import os

RESULTS = []


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        props = dict(report.user_properties)
        RESULTS.append({"nodeid": report.nodeid, "when": report.when,
                        "outcome": report.outcome, "reached": props.get("reached", False),
                        "error": props.get("error", "")})


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        with open(os.environ["DARTBOARD_SUITE_RESULTS"], "w") as fh:
            json.dump(RESULTS, fh)
'''


def categorize(error: str) -> str:
    """A failure's kind, from the first line of its exception."""
    if "Regex pattern did not match" in error or "did not match" in error.lower():
        return "message text differs"
    if "DID NOT RAISE" in error:
        return "no exception where sklearn raises"
    if "DID NOT WARN" in error or "No warnings of type" in error:
        return "no warning where sklearn warns"
    kind = error.split(":", 1)[0]
    if kind in ("TypeError", "ValueError", "InvalidParameterError"):
        return f"{kind} raised (different class or unexpected)"
    if kind in ("AssertionError", "Failed"):
        return f"{kind}: value, type or warning differs"
    return kind or "other"


def run(args: argparse.Namespace) -> list[dict]:
    import sklearn

    source = pathlib.Path(sklearn.__file__).parent / "metrics" / "tests"
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="sklearn_suite_"))
    try:
        for name in MODULES:
            shutil.copy(source / name, workdir / name)
        (workdir / "conftest.py").write_text(CONFTEST)
        (workdir / "suite_results_plugin.py").write_text(PLUGIN)
        results = workdir / "results.json"
        env = dict(os.environ, DARTBOARD_SUITE_RESULTS=str(results),
                   DARTBOARD_SUITE_SKIP=json.dumps(sorted(SKIP)),
                   DARTBOARD_SUITE_IGNORE_MESSAGES="1" if args.ignore_messages else "0",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(workdir),
                                                            os.environ.get("PYTHONPATH")])))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "suite_results_plugin", "-W", "ignore", "--tb=no", "-rN",
               "-n", str(args.workers), "--rootdir", str(workdir), str(workdir)]
        if args.k:
            cmd += ["-k", args.k]
        subprocess.run(cmd, cwd=workdir, env=env, check=False,
                       stdout=subprocess.DEVNULL if not args.verbose else None)
        return json.loads(results.read_text())
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def summarize(results: list[dict], show: int) -> None:
    def table(rows: list[dict], title: str) -> None:
        by_module: dict[str, collections.Counter] = collections.defaultdict(
            collections.Counter)
        for r in rows:
            by_module[r["nodeid"].split("::")[0]][r["outcome"]] += 1
        total = collections.Counter()
        print(f"\n{title}")
        print(f"  {'module':28s} {'passed':>7s} {'failed':>7s} {'skipped':>8s}")
        for module in sorted(by_module):
            c = by_module[module]
            total.update(c)
            print(f"  {module:28s} {c['passed']:7d} {c['failed']:7d} {c['skipped']:8d}")
        print(f"  {'total':28s} {total['passed']:7d} {total['failed']:7d} "
              f"{total['skipped']:8d}")

    table(results, "all tests")
    reached = [r for r in results if r["reached"]]
    table(reached, "tests that called a dartboard function")
    failed = [r for r in reached if r["outcome"] == "failed"]
    print("\nfailures (reaching dartboard) by category")
    for kind, n in collections.Counter(categorize(r["error"]) for r in failed).most_common():
        print(f"  {n:5d}  {kind}")
    print("\nfailures by test function")
    functions = collections.Counter(re.sub(r"\[.*", "", r["nodeid"]) for r in failed)
    for name, n in functions.most_common(show):
        print(f"  {n:5d}  {name}")
    print("\nfailure messages")
    messages = collections.Counter(re.sub(r"\d+", "#", r["error"])[:150] for r in failed)
    for msg, n in messages.most_common(show):
        print(f"  {n:5d}  {msg}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ignore-messages", action="store_true",
                        help="drop match= from pytest.raises and pytest.warns")
    parser.add_argument("-k", help="pytest -k expression")
    parser.add_argument("-n", "--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=25,
                        help="how many failing functions and messages to list")
    parser.add_argument("--json", help="also write the per-test results here")
    parser.add_argument("--verbose", action="store_true", help="show pytest's output")
    args = parser.parse_args()
    results = run(args)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    summarize(results, args.show)


if __name__ == "__main__":
    main()
