"""Before/after check of a refactor: the same numbers from ``dartboard demo`` and
``dartboard evaluate``.

    python benchmarks/results_parity.py snapshot DIR     # evaluate outputs into DIR
    python benchmarks/results_parity.py compare A B      # two results.json or two DIRs

``snapshot`` writes a fixed CSV of predictions (binary scores and labels, string
labels, multiclass probabilities, regression values, groups) and saves the
``--json`` output of ``dartboard evaluate`` for each kind of input. ``compare``
walks two JSON documents (or every ``*.json`` of two directories) and lists every
path where they differ; keys may be added on the B side, and the profile section of
a demo's results (measured times and memory) is skipped. Exit code 1 on any
difference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

_CASES = {
    "scores": ["--y-true", "y", "--y-score", "score"],
    "labels_groups": ["--y-true", "y", "--y-pred", "pred", "--group", "g"],
    "labels_wilson_groups": ["--y-true", "y", "--y-pred", "pred", "--group", "g", "--ci",
                             "clopper-pearson"],
    "strings": ["--y-true", "ys", "--y-pred", "ps"],
    "decision": ["--y-true", "ypm", "--y-score", "dec"],
    "multiclass": ["--y-true", "y3", "--proba", "pa", "--proba", "pb", "--proba", "pc",
                   "--group", "g"],
    "multiclass_labels": ["--y-true", "y3", "--y-pred", "p3"],
    "regression": ["--y-true", "yr", "--y-pred", "yhat", "--group", "g"],
    "regression_percentile": ["--y-true", "yr", "--y-pred", "yhat", "--ci", "percentile"],
}
# measured, not computed: they differ from run to run
_SKIP = {"profile", "timings", "paths"}


def _write_csv(path: Path) -> None:
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    proba = rng.dirichlet([1, 1, 1], n)
    y3 = np.array(["a", "b", "c"])[np.where(rng.random(n) < 0.6, proba.argmax(1),
                                            rng.integers(0, 3, n))]
    yr = rng.normal(size=n)
    pd.DataFrame({
        "y": y, "score": score, "pred": (score >= 0.5) * 1, "g": rng.choice(["u", "v"], n),
        "ys": np.array(["no", "yes"])[y], "ps": np.array(["no", "yes"])[(score >= 0.5) * 1],
        "ypm": 2 * y - 1, "dec": 4 * score - 2,
        "y3": y3, "p3": np.array(["a", "b", "c"])[proba.argmax(1)],
        "pa": proba[:, 0], "pb": proba[:, 1], "pc": proba[:, 2],
        "yr": yr, "yhat": yr + rng.normal(scale=0.5, size=n),
    }).to_csv(path, index=False)


def snapshot(out: Path) -> None:
    from typer.testing import CliRunner

    from dartboard.cli import app

    out.mkdir(parents=True, exist_ok=True)
    csv = out / "preds.csv.data"
    _write_csv(csv)
    for name, args in _CASES.items():
        res = CliRunner().invoke(app, ["evaluate", str(csv), *args, "--json",
                                       "--n-resamples", "500"])
        if res.exit_code != 0:
            raise SystemExit(f"{name}: {res.output}")
        (out / f"{name}.json").write_text(res.stdout)


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: missing" for k in a if k not in b and k not in _SKIP]
        for k in a:
            if k in b and k not in _SKIP:
                out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    same = a == b and type(a) is type(b)
    return [] if same else [f"{path}: {a!r} != {b!r}"]


def compare(a: Path, b: Path) -> int:
    pairs = [(a, b)] if a.is_file() else [(p, b / p.name) for p in sorted(a.glob("*.json"))]
    bad = 0
    for pa, pb in pairs:
        found = differences(json.loads(pa.read_text()), json.loads(pb.read_text()))
        print(f"{pa.name}: {'same numbers' if not found else f'{len(found)} difference(s)'}")
        for line in found[:20]:
            print("   ", line)
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "snapshot":
        snapshot(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        raise SystemExit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        raise SystemExit(__doc__)
