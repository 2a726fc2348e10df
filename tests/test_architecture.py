"""The package's structure keeps its promises (DESIGN.md, section 1): no import circle,
no private name of one subpackage imported by another, and no engine that decides what
to do by comparing a metric's registry facts with strings (it asks the metric's family
or a registry property instead)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "dartboard"


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(module: str) -> list[tuple[str, list[str], bool]]:
    """(imported module, names, at module level) of every dartboard import."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if path.name == "__init__.py" else \
                    module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            target, names = node.names[0].name, []
        else:
            continue
        if target.startswith("dartboard"):
            out.append((target, names, id(node) in top))
    return out


def _lazy_targets(module: str) -> set[str]:
    """The modules a package's lazy public names come from (``_lazy.attach``'s table:
    absolute paths, or relative ones starting with a dot): edges like imports."""
    path = MODULES[module]
    if path.name != "__init__.py":
        return set()
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = module + node.value if node.value.startswith(".") else node.value
            if name in MODULES and name != module:
                out.add(name)
    return out


def _edges(module: str) -> set[str]:
    """The dartboard modules ``module`` imports (a name that is a submodule counts), and
    the ones its lazy public names load."""
    out = _lazy_targets(module)
    for target, names, _ in _imports(module):
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        # ``from package import _module`` depends on the module, not on what the
        # package's __init__ re-exports
        whole = [] if names and len(subs) == len(names) else [target]
        out.update(t for t in [*whole, *subs] if t in MODULES)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def _subpackage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""


def test_no_import_circle():
    graph = {m: _edges(m) for m in MODULES}
    assert _cycles(graph) == []


def _unit(module: str) -> str:
    """A module's unit of layering: its subpackage, or itself for a top-level module
    (``dartboard._validation``) and the root package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else module


def test_no_two_subpackages_import_each_other():
    """Layers read top-down (DESIGN.md, "One route"): if ``a`` imports ``b`` anywhere
    (at module level, in a function, through a lazy name), ``b`` imports nothing of ``a``.
    Kernels sit below the families (``dartboard._kernels``), interval logic that asks the
    families above them (``dartboard.uncertainty``); an evaluation draws its own figure
    (``dartboard.evaluation._figure``), which ``dartboard.plots`` re-exports."""
    uses: dict[tuple[str, str], list[str]] = {}
    for module in MODULES:
        for target in _edges(module):
            a, b = _unit(module), _unit(target)
            if a != b:
                uses.setdefault((a, b), []).append(f"{module} -> {target}")
    pairs = sorted((a, b, uses[a, b][:2], uses[b, a][:2])
                   for a, b in uses if a < b and (b, a) in uses)
    assert pairs == []


def test_the_edges_see_a_pair():
    """The check above can fail: the edges of two modules known to import in one
    direction, and a made-up reverse edge, form a pair."""
    assert "dartboard.families._base" in _edges("dartboard.families._counts")
    assert "dartboard._kernels._bootstrap" in _edges("dartboard.families._counts")
    assert "dartboard._kernels._result" in _edges("dartboard.uncertainty")  # a lazy name
    graph = {"dartboard.families._counts": {"dartboard._kernels._bootstrap"},
             "dartboard._kernels._bootstrap": {"dartboard.families._counts"}}
    assert _cycles(graph) == [sorted(graph)]


# where a module may be imported by a string of its name: the lazy public names of the
# packages, and the third-party modules a user names for the CLI's audit of estimators
_LOADERS = {"dartboard._lazy", "dartboard.cli._audit"}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_loaded_by_a_string_of_its_name(module):
    """The registry holds metric functions and family objects, not module names to load
    (``importlib.import_module``, ``__import__``); only the lazy loader may."""
    if module in _LOADERS:
        return
    calls = []
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__"):
                calls.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and node.module == "importlib" and \
                any(a.name == "import_module" for a in node.names):
            calls.append(node.lineno)
    assert calls == [], f"{module} loads a module by name at lines {calls}"


def test_no_private_name_crosses_a_subpackage():
    crossing = []
    for module in MODULES:
        for target, names, _ in _imports(module):
            for name in names:
                private = name.startswith("_") and not name.startswith("__")
                if private and f"{target}.{name}" not in MODULES and \
                        _subpackage(module) != _subpackage(target):
                    crossing.append((module, target, name))
    assert crossing == []


# a comparison of a registry fact with a string literal: spec.kind == "count",
# spec.family != "scores", s.input in ("scores", ...) (numpy's dtype.kind is no fact)
_FACTS = "kind|family|input|default_interval|rate"
_COMPARISON = re.compile(rf"(?<!dtype)(?<!\))\.({_FACTS})\s*(==|!=|in\s*\(|not\s+in\s*\()\s*[\"'(]")


@pytest.mark.parametrize("module", sorted(m for m in MODULES
                                          if not m.startswith("dartboard.families")
                                          and m != "dartboard.metrics._registry"))
def test_no_engine_compares_registry_facts_with_strings(module):
    text = MODULES[module].read_text()
    assert not _COMPARISON.findall(text), module


# a metric's registry name compared with a string: metric.name == "roc_auc_score",
# metric.name in ("average_precision_score", ...); the families look their metrics'
# capabilities up instead (ScoresFamily's kernel kinds, a function's signature)
_NAME_TEST = re.compile(r"\bmetric\.name\s*(==|!=|in\s*\(|not\s+in\s*\()\s*[\"'(]")


@pytest.mark.parametrize("module", sorted(m for m in MODULES
                                          if m.startswith("dartboard.families")))
def test_no_family_tests_a_metric_by_its_registry_name(module):
    text = MODULES[module].read_text()
    assert not _NAME_TEST.findall(text), module


def test_the_name_test_pattern_finds_what_it_names():
    # the pattern must match the forms it forbids, or the test above cannot fail
    for line in ('metric.name == "roc_auc_score"', "metric.name != 'max_error'",
                 'metric.name in ("a", "b")', 'metric.name not in ("a",)'):
        assert _NAME_TEST.search(line), line
    assert not _NAME_TEST.search("metric.name in KERNELS")
