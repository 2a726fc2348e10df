"""Lazy public names for dartboard's packages.

A package lists which module defines each public name; the module is imported the
first time the name is used. ``import dartboard`` and the command line stay fast,
and heavy modules (matplotlib, dask, scikit-learn) load only when needed.
"""

from __future__ import annotations

import importlib

# no typing import at run time: ``import dartboard`` is the first thing the command
# runs, and typing alone would double the time before it can answer Ctrl-C
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any


def attach(package: str, families: Mapping[str, Iterable[str]], *,
           namespace: dict[str, Any], submodules: Iterable[str] = ()
           ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``.

    ``families`` maps a module path (absolute, or relative to ``package`` when it
    starts with a dot) to the public names it defines; ``submodules`` are exposed
    as attributes too. ``namespace`` is the package's ``globals()``: a name, once
    imported, is cached there so the lookup runs only once.
    """
    where = {}
    for module, names in families.items():
        path = package + module if module.startswith(".") else module
        where.update(dict.fromkeys(names, path))
    subs = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
            namespace[name] = value
            return value
        if name in subs:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where) | subs)

    return __getattr__, __dir__, sorted(where)
