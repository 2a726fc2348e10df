"""The ``dartboard`` command line.

``dartboard --no-progress <command>`` quiets the progress bars (``--progress`` shows
them even off a terminal). Subcommands: ``demo``, ``evaluate``, ``compare``, ``select``, ``audit``, ``profile``,
``report`` and the group ``evals`` (``show``, ``compare``). Tables go to standard
output (``--json`` prints the same numbers as JSON instead), progress bars and
warnings to standard error. Bad input (a missing file or column, an unreadable file,
a bad option value) ends with exit code 2 and one line ``error: ...`` on standard
error, never a traceback, and no output file:
every file is written atomically at the very end. A bug inside dartboard ends with
exit code 1 and one line ``internal error: ...`` (``--debug`` prints the traceback);
Ctrl-C with ``interrupted`` and exit code 130, SIGTERM with ``terminated`` and 143.

Layout: ``_io`` reads files and columns and reports errors, ``_output`` prints
tables (numbers by :func:`dartboard._format.format_number`, as the report shows
them) and JSON, ``_metrics`` asks the metric registry what a named metric is, and
one module per subcommand group holds the commands. Every module imports its heavy
dependencies inside the command, so ``dartboard --help`` loads none of them.
"""

from __future__ import annotations

import typer

from dartboard import __version__
from dartboard.cli._audit import audit, profile
from dartboard.cli._compare import compare
from dartboard.cli._demo import demo
from dartboard.cli._evals import evals_app
from dartboard.cli._evaluate import evaluate
from dartboard.cli._io import DEBUG_OPTION, CommandGroup
from dartboard.cli._report import report
from dartboard.cli._select import select

__all__ = ["app", "main"]

app = typer.Typer(name="dartboard", cls=CommandGroup, no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="How good is a model really, and which one to pick.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dartboard {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit."),
          debug: bool = typer.Option(False, DEBUG_OPTION,
                                     help="Print the traceback of an internal error "
                                          "(accepted anywhere on the command line)."),
          progress: bool | None = typer.Option(
              None, "--progress/--no-progress",
              help="Progress bars on standard error: always, or never (default: on a "
                   "terminal, for work that lasts more than a second).")
          ) -> None:
    """dartboard: metrics with intervals, model comparison, DART selection, audits."""
    if progress is not None:  # for the whole command: its work inherits the choice
        from dartboard._progress import set_default

        set_default(progress)


# in this order in --help
for _command in (demo, evaluate, compare, select, audit, profile, report):
    app.command()(_command)
del _command
app.add_typer(evals_app, name="evals")


def main() -> None:
    app()
