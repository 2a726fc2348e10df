"""Files written whole or not at all, and only where a file may be replaced.

Every file dartboard writes (the report, ``results.json``, the command line's
``--report``, ``--out`` and ``-o``) goes through :func:`write_texts_atomic`: a
temporary file beside the target, then ``os.replace``, so a reader never sees
half a file and a failed run leaves none. A rename replaces whatever the name held,
so the target must be a regular file or missing: a FIFO, a device (``/dev/null``),
a socket or a directory is refused (:func:`check_target`) rather than replaced by a
regular file. A symbolic link is followed: the file it names is written and the
link stays a link. A writer that knows the files its results were read from passes
them as ``inputs``: a target that is one of them (by another name, through a link,
or a hard link: the same file on disk) is refused, so that a report never replaces
the data it reports on.
"""

from __future__ import annotations

import glob
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from dartboard.exceptions import InputError

__all__ = ["check_target", "write_text_atomic", "write_texts_atomic",
           "remove_stale_temporaries"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def check_target(path: str | os.PathLike[str],
                 inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """The file a write to ``path`` replaces, checked: ``path`` itself, or the file
    its symbolic link(s) lead to; a regular file, or missing in an existing directory,
    and none of ``inputs``.

    Raises ``ValueError`` naming ``path`` and what it is (a directory, a FIFO, a
    device, a socket, a link that loops, one of the input files) and
    ``FileNotFoundError`` when the directory does not exist: a mistyped path is an
    error, not a new directory tree.

    Parameters
    ----------
    path : str or path-like
        Where a file is to be written.
    inputs : iterable of str or path-like, optional
        Files the results were read from, which the write must not replace: ``path``
        is refused when it is one of them on disk (``os.path.samefile``: the same
        file by another path, a symbolic link to it or a hard link).

    Returns
    -------
    pathlib.Path
        The file the write replaces (links resolved).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_target(os.path.join(folder, "report.html")).name
    'report.html'
    >>> check_target(folder)
    Traceback (most recent call last):
    ...
    dartboard.exceptions.InputError: cannot write ...: it is a directory; give a file name
    >>> data = write_text_atomic(os.path.join(folder, "data.csv"), "y,p\\n1,1\\n")
    >>> check_target(os.path.join(folder, ".", "data.csv"), inputs=[data])
    Traceback (most recent call last):
    ...
    dartboard.exceptions.InputError: cannot write ...: it is the input file ...; ...
    """
    shown = os.fspath(path)
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise FileNotFoundError(f"cannot write {shown}: directory {target.parent} does "
                                    "not exist") from None
        return target
    except OSError as exc:  # a link that loops, a name too long
        raise InputError(f"cannot write {shown}: {exc.strerror or exc}") from None
    for test, kind in _KINDS:
        if test(mode):
            hint = "give a file name" if kind == "a directory" else \
                "only a regular file (or a new one) is written, never replaced by one"
            raise InputError(f"cannot write {shown}: it is {kind}; {hint}")
    if not stat.S_ISREG(mode):
        raise InputError(f"cannot write {shown}: it is not a regular file")
    _refuse_inputs(target, shown, inputs)
    return target


def _refuse_inputs(target: Path, shown: str,
                   inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Refuse ``target`` (an existing regular file) when it is one of ``inputs`` on
    disk: the same device and inode, whatever path, link or hard link leads to it."""
    for item in inputs:
        try:
            same = os.path.samefile(target, item)
        except (OSError, ValueError):  # an input that is gone (or not a path) is not it
            same = False
        if same:
            raise InputError(f"cannot write {shown}: it is the input file "
                             f"{os.fspath(item)!r}, which would be replaced (its data lost); "
                             "write to another file")


def write_text_atomic(path: str | os.PathLike[str], text: str,
                      inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same directory and
    ``os.replace``, so the file appears complete or not at all.

    The directory must exist, and ``path`` must be a regular file or missing
    (:func:`check_target`).

    Parameters
    ----------
    path : str or path-like
        The file to write (a regular file, or missing in an existing directory).
    text : str
        The file's content (UTF-8).
    inputs : iterable of str or path-like, optional
        Files that must not be replaced (:func:`check_target`).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os, tempfile
    >>> path = write_text_atomic(os.path.join(tempfile.mkdtemp(), "a.txt"), "done")
    >>> path.read_text()
    'done'
    """
    return write_texts_atomic({path: text}, inputs)[0]


def write_texts_atomic(texts: dict[str | os.PathLike[str], str],
                       inputs: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    """Write several files that belong together (a report and its results) so that
    all of them appear or none does; returns the paths as given.

    Every target is checked first (:func:`check_target`: none may be one of
    ``inputs``); every text goes to a temporary file beside its target; only when
    all are written are they renamed
    into place, each target checked again just before (a FIFO made meanwhile is not
    replaced). An error or an interrupt (Ctrl-C, or SIGTERM turned into an
    exception by the command line) removes the temporaries, and a rename that fails
    removes the files already renamed. SIGKILL (or a power cut) cannot be caught:
    its temporary ``.<name>.<pid>.<random>.tmp`` stays, and the next write of the
    same file removes it once process ``<pid>`` is gone.
    """
    inputs = [os.fspath(item) for item in inputs]
    paths = [Path(p) for p in texts]
    targets = [check_target(p, inputs) for p in paths]
    for target in targets:
        remove_stale_temporaries(target)
    staged: list[str] = []
    placed: list[Path] = []
    try:
        for target, text in zip(targets, texts.values()):
            fd, tmp = tempfile.mkstemp(dir=target.parent,
                                       prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp")
            staged.append(tmp)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600; a normal file's mode
        for tmp, path, target in zip(staged, paths, targets):
            check_target(path, inputs)
            os.replace(tmp, target)
            placed.append(target)
    except BaseException:
        for tmp in staged:
            Path(tmp).unlink(missing_ok=True)
        if len(placed) < len(paths):
            for target in placed:
                target.unlink(missing_ok=True)
        raise
    return paths


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporaries a killed writer of ``path`` left beside it: only files
    named as :func:`write_texts_atomic` names them, by a process that no longer runs
    (a live writer, or another user's, is left alone). POSIX only: elsewhere a
    process cannot be probed without side effects, and nothing is removed."""
    if os.name != "posix":
        return []
    pattern = re.compile(rf"\.{re.escape(path.name)}\.(\d+)\.[A-Za-z0-9_]+\.tmp")
    removed = []
    for candidate in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        match = pattern.fullmatch(candidate.name)
        if match and not _running(int(match.group(1))):
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: probes, sends nothing
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or not a pid): not ours to judge
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
