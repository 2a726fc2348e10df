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


def _edges(module: str) -> set[str]:
    """The dartboard modules ``module`` imports (a name that is a submodule counts)."""
    out = set()
    for target, names, _ in _imports(module):
        out.update(t for t in [target, *(f"{target}.{n}" for n in names)] if t in MODULES)
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
