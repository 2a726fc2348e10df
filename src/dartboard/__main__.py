"""The ``dartboard`` command (also ``python -m dartboard``).

Loading the command line (typer, click, rich and dartboard's commands) takes a few
tenths of a second. A Ctrl-C in that time ends as one during a command does: the
line ``interrupted`` and exit code 130, never a traceback. Once a command runs,
:class:`dartboard.cli._io.CommandGroup` answers Ctrl-C itself.
"""

from __future__ import annotations

import sys

# 128 + SIGINT, as a shell reports a process Ctrl-C ended (the signal module is
# not imported for it: importing it takes longer than the rest of this file)
_INTERRUPTED = 130


def _interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C, or an error Python made of one: a KeyboardInterrupt
    inside a class body's ``__set_name__`` (typer's imports define such classes)
    reaches us as ``RuntimeError`` with the interrupt as its cause."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def main() -> None:
    try:
        from dartboard.cli import app

        app()
    except (KeyboardInterrupt, RuntimeError) as exc:
        # only while loading: the command group answers Ctrl-C itself
        if not _interrupt(exc):
            raise
        sys.stderr.write("interrupted\n")
        raise SystemExit(_INTERRUPTED) from None


if __name__ == "__main__":
    main()
