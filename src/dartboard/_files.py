"""Which Parquet files a path, a directory, a glob or a list of them names.

Each file is read once, however many names reach it: ``os.stat`` (device and inode,
links followed) decides which names are one file, so a symbolic or hard link, a
directory linked twice or a list naming a file twice count it once. Directories are
walked following their links, as a recursive glob does, but a link that leads back
to a directory above it (a loop) is an error naming the link: followed, it would
repeat every file at each level until the system refuses (100 rows read as 4,100
"from 41 files").
"""

from __future__ import annotations

import glob
import os
from typing import Any

from dartboard._validation import describe
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["expand"]

_GLOB_CHARS = set("*?[")


def expand(path_or_glob: Any) -> list[str]:
    """Parquet files named by a path, a directory, a glob or a list of them (sorted).

    Each file is read once, however many names reach it: two names of one file
    (a symbolic or hard link, a directory listed beside a file inside it) are one
    file, the first name in sorted order kept. A directory link that leads back
    to a directory above it (a loop, which would repeat every file at each level)
    is an error naming the link.
    """
    files = _names(path_or_glob)
    seen: set[tuple[int, int]] = set()
    out = []
    for name in files:
        identity = _identity(name)
        if identity not in seen:
            seen.add(identity)
            out.append(name)
    return out


def _names(path_or_glob: Any) -> list[str]:
    if isinstance(path_or_glob, (list, tuple)):
        if not path_or_glob:
            raise InputError("path_or_glob is an empty list; give at least one file")
        return [name for item in path_or_glob for name in _names(item)]
    if not isinstance(path_or_glob, (str, os.PathLike)):
        raise InputTypeError(f"path_or_glob must be a path, a glob pattern or a list of them; got "
                             f"{describe(path_or_glob)}")
    path = os.fspath(path_or_glob)
    if _GLOB_CHARS & set(path) and not os.path.exists(path):
        if "**" in path:  # a recursive pattern follows directory links: refuse loops first
            root = _fixed_root(path)
            if os.path.isdir(root):
                _walk(root, lambda name: False)
        files = sorted(f for f in glob.glob(path, recursive=True) if os.path.isfile(f))
        if not files:
            raise FileNotFoundError(f"no files match the pattern {path!r}")
        return files
    if os.path.isdir(path):
        files = sorted(_walk(path, lambda name: not name.startswith(("_", "."))
                             and name.endswith((".parquet", ".parq", ".pq"))))
        if not files:
            raise FileNotFoundError(f"no Parquet files (*.parquet, *.parq, *.pq) in the "
                                    f"directory {path!r}")
        return files
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {path!r}")
    return [path]


def _identity(path: str) -> tuple[int, int]:
    """The file itself behind a name (device and inode, links followed)."""
    info = os.stat(path)
    return info.st_dev, info.st_ino


def _fixed_root(pattern: str) -> str:
    """The leading directories of a glob pattern that hold no wildcard."""
    parts = pattern.split(os.sep)
    fixed = []
    for part in parts:
        if _GLOB_CHARS & set(part):
            break
        fixed.append(part)
    return os.sep.join(fixed) or "."


def _walk(top: str, wanted: Any) -> list[str]:
    """Files below ``top`` whose name is ``wanted``, following directory links (as a
    recursive glob does) into each directory once; hidden directories are skipped.

    A link to a directory on the way down to it is a loop: a ``ValueError`` naming
    the link, not the same files again at every level until the system refuses.
    """
    found: list[str] = []
    visited: set[tuple[int, int]] = set()

    def visit(directory: str, above: tuple[tuple[int, int], ...]) -> None:
        with os.scandir(directory) as entries:
            listing = sorted(entries, key=lambda e: e.name)
        for entry in listing:
            if entry.is_dir():
                if entry.name.startswith("."):
                    continue
                identity = _identity(entry.path)
                if identity in above:
                    raise InputError(
                        f"{entry.path!r} links back to {os.path.realpath(entry.path)!r}, a "
                        f"directory that holds it: reading {top!r} would repeat its files "
                        "at every level; remove the link or name the files")
                if identity not in visited:
                    visited.add(identity)
                    visit(entry.path, (*above, identity))
            elif entry.is_file() and wanted(entry.name):
                found.append(entry.path)

    root = _identity(top)
    visited.add(root)
    visit(top, (root,))
    return found
