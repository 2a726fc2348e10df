"""The package face: lazy imports, ``dir()``, ``__version__`` and the command line."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import dartboard
import dartboard.metrics
from dartboard.cli import app

HEAVY = ("numpy", "pandas", "sklearn", "scipy", "matplotlib", "dartboard.metrics")


def fresh_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.strip()


def test_import_is_lazy():
    loaded = fresh_python(
        "import sys, dartboard\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    assert loaded == ""  # nothing heavy is imported by `import dartboard`


def test_public_names_load_on_first_use():
    loaded = fresh_python(
        "import sys, dartboard\n"
        "f = dartboard.metrics.f1_score\n"
        "print(f.__module__, 'dartboard.metrics._confusion' in sys.modules)")
    assert loaded == "dartboard.metrics._confusion True"


def test_version_matches_distribution_metadata():
    assert dartboard.__version__ == importlib.metadata.version("dartboard")
    assert dartboard.__version__.count(".") == 2


def test_dir_lists_lazy_names_and_submodules():
    names = dir(dartboard)
    for name in ("__version__", "interval", "permutation_test", "dart_score", "metrics",
                 "scale", "plots", "report"):
        assert name in names
    assert set(dartboard.__all__) | set(dartboard._PUBLIC) <= set(names)
    metric_names = dir(dartboard.metrics)
    for name in ("confusion_matrix", "f1_score", "ConfusionCounts", "classification_report",
                 "specificity_score", "UndefinedMetricWarning"):
        assert name in metric_names
    assert set(dartboard.metrics.__all__) <= set(metric_names)


@pytest.mark.parametrize("package", ["dartboard", "dartboard.metrics", "dartboard.plots",
                                     "dartboard.report", "dartboard.scale",
                                     "dartboard.evaluation", "dartboard.uncertainty",
                                     "dartboard.compare"])
def test_dir_shows_public_names_only(package):
    import importlib
    import types

    module = importlib.import_module(package)
    shown = {name for name in dir(module) if not name.startswith("_")}
    # besides the public names only submodules (bound once imported), no helper of the
    # package itself (attach, the annotations future, the registry's specs)
    # dartboard's __all__ names its subpackages; its re-exports are the lazy names
    extra = shown - set(module.__all__) - set(getattr(module, "_PUBLIC", ()))
    assert all(isinstance(getattr(module, name), types.ModuleType) for name in extra), extra
    assert not {"attach", "annotations", "specs"} & shown


def test_count_metrics_resolve_from_their_module():
    from dartboard.metrics import _confusion

    for name in _confusion.__all__:
        assert name in dartboard.metrics.__all__, name
        assert getattr(dartboard.metrics, name) is getattr(_confusion, name)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="module 'dartboard' has no attribute 'nope'"):
        dartboard.nope  # noqa: B018
    with pytest.raises(AttributeError, match="'dartboard.metrics' has no attribute 'nope'"):
        dartboard.metrics.nope  # noqa: B018


def test_cli_help():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    assert "--version" in result.output
    assert "demo" in result.output


def test_cli_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"dartboard {dartboard.__version__}"


def test_cli_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(app, ["no-such-command"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_console_script_runs():
    entry = [ep for ep in importlib.metadata.entry_points(group="console_scripts")
             if ep.name == "dartboard"]
    # the entry point loads the command line itself, so that a Ctrl-C while it loads
    # ends quietly (tests/test_cli_hostile.py)
    assert entry and entry[0].value == "dartboard.__main__:main"
    # what the installed `dartboard` script does, in a fresh interpreter
    out = subprocess.run([sys.executable, "-c", "from dartboard.__main__ import main; main()",
                          "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"dartboard {dartboard.__version__}"


def test_cli_without_arguments_prints_help():
    out = subprocess.run([sys.executable, "-c", "from dartboard.cli import main; main()"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Usage:" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
