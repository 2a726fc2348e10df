"""The ``dartboard`` command line."""

from __future__ import annotations

import typer

from dartboard import __version__

app = typer.Typer(name="dartboard", no_args_is_help=True, add_completion=False,
                  help="How good is a model really, and which one to pick.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dartboard {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """dartboard: metrics with intervals, model comparison, DART selection, audits."""


@app.command()
def demo() -> None:
    """Evaluate a classifier on scikit-learn's breast-cancer data."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from dartboard import metrics

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
    report = metrics.classification_report(y_te, model.predict(X_te))
    typer.echo(report.round(4).to_string())


def main() -> None:
    app()
