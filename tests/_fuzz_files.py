"""Fuzz cases for the surfaces that touch files and stores (issue 29): the streamed
evaluations over hostile folders, the writers over hostile targets, MLflow keys of
hostile group labels, and ``dartboard report`` over hand-edited results.

Each surface is ``case(rng, folder) -> (outcome, where)`` with outcome one of

* ``ok``: accepted, and the answer equals its oracle (the in-memory
  :func:`dartboard.evaluate` on the rows of the distinct files, ``os.stat`` for which
  names are one file, a plain loop over the rows for MLflow, the bytes written);
* ``refused``: a ``ValueError``/``TypeError``/``OSError`` naming what is wrong, where
  the case is one to refuse (or the in-memory evaluation refuses the same rows);
* ``crash``: any other exception, or a refusal that names nothing;
* ``differs``: another answer than the oracle, a hostile case accepted, or a good
  one refused;
* ``mutated``: an input file changed, a special file replaced, a temporary left;
* ``known``: streamed rows the in-memory evaluation refuses (one interval undefined,
  issue 29.18; one score column for one class): the stream gives the estimates.

``run_surface(name, seed)`` runs one case in a fresh temporary folder; the default
suite runs a few per surface (tests/test_fuzz_files.py) and
``benchmarks/fuzz_long.py`` many.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import stat
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import dartboard as db

# ------------------------------------------------------------------ streamed files

_HOSTILE_FOLDERS = ("none", "none", "mirror", "hard link", "listed twice", "loop",
                    "damaged page", "not parquet", "zero weights", "zero file", "no rows")
_REFUSED = {"loop": "links back", "damaged page": "could not be read",
            "not parquet": "notes.parquet", "zero weights": "sums to zero",
            "no rows": "no rows"}


def _part(rng: np.random.Generator, n: int, k: int, weights: str) -> pd.DataFrame:
    y = rng.integers(0, k, n)
    s = np.round(rng.random(n) * 0.6 + 0.4 * (y == k - 1), int(rng.integers(1, 4)))
    frame = pd.DataFrame({"y": y, "s": s, "p": np.where(rng.random(n) < 0.7, y,
                                                        rng.integers(0, k, n))})
    if weights == "ints":
        frame["w"] = rng.integers(0, 4, n)
    elif weights == "floats":
        frame["w"] = rng.random(n) * 3
    return frame


def _folder(rng: np.random.Generator, root: Path, hostile: str
            ) -> tuple[Any, list[pd.DataFrame], str]:
    """Write the parts (some in a sub-directory) and the hostile extra; returns the
    source to pass, the distinct parts and the weights kind."""
    data = root / "preds"
    (data / "sub").mkdir(parents=True)
    k = 3 if rng.random() < 0.2 else 2
    weights = str(rng.choice(["none", "ints", "floats"]))
    if hostile in ("zero weights", "zero file"):
        weights = "ints"
    sizes = [0 if hostile == "no rows" else int(rng.integers(1, 30))
             for _ in range(int(rng.integers(1, 4)))]
    parts, names = [], []
    for i, n in enumerate(sizes):
        frame = _part(rng, n, k, weights)
        if hostile == "zero weights" or (hostile == "zero file" and i == 0):
            frame["w"] = 0
        name = data / ("sub" if i % 2 else "") / f"part{i}.parquet"
        frame.to_parquet(name)
        parts.append(frame)
        names.append(str(name))
    source: Any = str(data) if rng.random() < 0.6 else str(data / "**" / "*.parquet")
    if hostile == "mirror":
        os.symlink("sub", data / "mirror")
    elif hostile == "hard link":
        os.link(names[0], data / "again.parquet")
    elif hostile == "listed twice":
        source = names + [names[0].replace("preds", "preds/sub/..", 1)]
    elif hostile == "loop":
        os.symlink("..", data / "sub" / "up")
    elif hostile == "damaged page":
        _damage(Path(names[-1]))
    elif hostile == "not parquet":
        (data / "notes.parquet").write_bytes(b"PAR1 this is not a Parquet file")
    return source, parts, weights


def _damage(path: Path) -> None:
    import pyarrow.parquet as pq

    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)  # y: always read
    data = bytearray(path.read_bytes())
    data[chunk.data_page_offset:chunk.data_page_offset + 48] = b"\xff" * 48
    path.write_bytes(bytes(data))


def _hashes(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def _refusal(exc: BaseException) -> bool:
    from dartboard.cli._io import is_bad_input

    return isinstance(exc, (ValueError, TypeError, OSError)) and is_bad_input(exc)


def _streamed(engine: str, rng: np.random.Generator, root: Path) -> tuple[str, str]:
    hostile = str(rng.choice(_HOSTILE_FOLDERS))
    source, parts, weights = _folder(rng, root, hostile)
    if hostile == "zero file" and len(parts) == 1:
        hostile = "zero weights"  # the one file is every file
    columns = str(rng.choice(["y_score", "y_pred", "both"]))
    kw: dict[str, Any] = {"y_true": "y", "n_resamples": 20, "random_state": 0}
    if columns in ("y_score", "both"):
        kw["y_score"] = "s"
        kw["exact"] = bool(rng.random() < 0.8)
    if columns in ("y_pred", "both"):
        kw["y_pred"] = "p"
    if weights != "none":
        kw["sample_weight"] = "w"
    if engine == "parquet":
        kw["batch_size"] = int(rng.choice([1, 7, 10**12]))
    where = f"{engine}: {hostile}, {columns}, weights={weights}, {_brief(kw)}"
    before = _hashes(root)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = _stream(engine, source, kw)
    except Exception as exc:  # noqa: BLE001 - every exception is sorted below
        if _hashes(root) != before:
            return "mutated", where
        if not _refusal(exc):
            return "crash", f"{where}: {type(exc).__name__}: {exc}"
        if hostile in _REFUSED:
            # another reason is fine when the rows themselves are refused in memory
            # (three classes for one score column, say)
            if _REFUSED[hostile] not in str(exc) and not _memory_refuses(parts, kw):
                return "differs", f"{where}: refused for another reason: {exc}"
            return "refused", where
        if "or pos_label naming the positive class" in str(exc):
            return "refused", where  # documented: streamed scores need pos_label then
        return ("refused" if _memory_refuses(parts, kw) else "differs"), f"{where}: {exc}"
    if _hashes(root) != before:
        return "mutated", where
    if hostile in _REFUSED:
        return "differs", f"{where}: accepted (n = {ev.n_rows}, files {ev.n_files})"
    return _compare(ev, parts, kw, where)


def _stream(engine: str, source: Any, kw: dict[str, Any]) -> Any:
    if engine == "parquet":
        from dartboard.scale import evaluate_parquet

        return evaluate_parquet(source, **kw)
    from dartboard.scale import evaluate_dask

    return evaluate_dask(source, scheduler="synchronous", **kw)


def _memory(parts: list[pd.DataFrame], kw: dict[str, Any], column: str) -> Any:
    whole = pd.concat(parts)
    given = {"y_score": whole["s"].to_numpy()} if column == "y_score" else \
        {"y_pred": whole["p"].to_numpy()}
    w = whole["w"].to_numpy() if "sample_weight" in kw else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return db.evaluate(whole["y"].to_numpy(), sample_weight=w, n_resamples=20,
                           random_state=0, **given)


def _memory_refuses(parts: list[pd.DataFrame], kw: dict[str, Any]) -> bool:
    for column in ("y_score", "y_pred"):
        if column in kw:
            try:
                _memory(parts, kw, column)
            except (ValueError, TypeError):
                return True
    if "y_score" in kw and "y_pred" in kw:  # labels with scores, as the stream has them
        whole = pd.concat(parts)
        w = whole["w"].to_numpy() if "sample_weight" in kw else None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                db.evaluate(whole["y"].to_numpy(), whole["p"].to_numpy(),
                            y_score=whole["s"].to_numpy(), sample_weight=w, n_resamples=20,
                            random_state=0)
        except (ValueError, TypeError):
            return True
    return False


def _compare(ev: Any, parts: list[pd.DataFrame], kw: dict[str, Any], where: str
             ) -> tuple[str, str]:
    """The streamed estimates against memory's, and the rows and files counted."""
    if ev.n_rows != sum(len(p) for p in parts) or ev.n_files != len(parts):
        return "differs", f"{where}: n = {ev.n_rows}, files {ev.n_files}; expected " \
                          f"{sum(len(p) for p in parts)} rows in {len(parts)} files"
    expected: dict[str, float] = {}
    for column in ("y_pred", "y_score"):
        if column not in kw:
            continue
        try:
            memory = _memory(parts, kw, column)
        except (ValueError, TypeError) as exc:
            if "no interval can be formed" in str(exc) or "y_true has 1 classes" in str(exc):
                # memory refuses what the stream reports: one undefined interval fails
                # the whole in-memory evaluation (issue 29.18), and one score column of
                # a y_true of one class is refused in memory where the stream reports
                # the count metrics and ROC AUC undefined, as roc_auc_score does
                return "known", f"{where}: memory refuses ({column}): {exc}"
            return "differs", f"{where}: streamed, but memory refuses ({column}): {exc}"
        if column == "y_pred" or "y_pred" not in kw:
            expected.update(memory.overall["estimate"].to_dict())
        else:  # both given: the scores' metrics from the scores
            expected.update({m: v for m, v in memory.overall["estimate"].items()
                             if m not in expected})
        if ("y_pred" in kw) != ("y_score" in kw):
            left = {m for m, _ in ev.result.streamed.left_out}
            if sorted([*ev.metrics, *left]) != sorted(memory.metrics):
                return "differs", f"{where}: streamed {ev.metrics} + left out {sorted(left)}" \
                                  f" != in memory {memory.metrics}"
    for metric, value in ev.overall["estimate"].items():
        bound = ev.overall.loc[metric].get("error_bound") if "error_bound" in ev.overall \
            else None
        other = expected.get(metric)
        if other is None:
            return "differs", f"{where}: {metric} has no in-memory twin"
        tolerance = 1e-9 + (float(bound) if bound is not None and bound == bound else 0.0)
        if not (math.isnan(value) and math.isnan(other)) and not math.isclose(
                value, other, rel_tol=1e-9, abs_tol=tolerance):
            return "differs", f"{where}: {metric} {value!r} != in memory {other!r}"
    return "ok", where


def _brief(kw: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in kw.items() if k not in ("y_true", "random_state"))


# ------------------------------------------------------------------ writers

_TARGETS = ("missing", "regular", "link to regular", "dangling link", "fifo",
            "link to fifo", "directory", "link loop", "no directory")
_WRITTEN = ("missing", "regular", "link to regular", "dangling link")


def _target(kind: str, root: Path) -> Path:
    target = root / "out.html"
    if kind == "regular":
        target.write_text("old")
    elif kind in ("link to regular", "dangling link"):
        if kind == "link to regular":
            (root / "real.html").write_text("old")
        os.symlink("real.html", target)
    elif kind in ("fifo", "link to fifo"):
        os.mkfifo(root / ("pipe" if kind == "link to fifo" else "out.html"))
        if kind == "link to fifo":
            os.symlink("pipe", target)
    elif kind == "directory":
        target.mkdir()
    elif kind == "link loop":
        os.symlink("out.html", target)
    elif kind == "no directory":
        target = root / "missing" / "out.html"
    return target


def _writers(rng: np.random.Generator, root: Path) -> tuple[str, str]:
    from dartboard.report import write_json, write_report
    from dartboard.report._write import write_texts_atomic

    kind = str(rng.choice(_TARGETS))
    writer = str(rng.choice(["write_json", "write_report", "pair"]))
    target = _target(kind, root)
    where = f"{writer} over {kind}"
    lstat = {p.name: (p.lstat().st_ino, stat.S_IFMT(p.lstat().st_mode))
             for p in root.iterdir()}
    payload = {"x": float(rng.random())}
    try:
        if writer == "write_json":
            write_json(payload, target)
        elif writer == "write_report":
            write_report({"title": "t", "notes": [str(payload["x"])]}, target)
        else:
            write_texts_atomic({root / "results.json": json.dumps(payload),
                                target: "<html>" + str(payload["x"])})
    except Exception as exc:  # noqa: BLE001 - sorted below
        after = {p.name: (p.lstat().st_ino, stat.S_IFMT(p.lstat().st_mode))
                 for p in root.iterdir()}
        if after != lstat:
            return "mutated", f"{where}: {sorted(lstat)} became {sorted(after)}"
        if not _refusal(exc) or "cannot write" not in str(exc):
            return "crash", f"{where}: {type(exc).__name__}: {exc}"
        return ("differs" if kind in _WRITTEN else "refused"), f"{where}: {exc}"
    if kind not in _WRITTEN:
        return "mutated", f"{where}: written over"
    real = Path(os.path.realpath(target))
    text = real.read_text()
    if str(payload["x"]) not in text or os.path.islink(target) != ("link" in kind):
        return "differs", f"{where}: wrote {text[:60]!r}; link kept: {os.path.islink(target)}"
    if any(p.name.endswith(".tmp") for p in root.iterdir()):
        return "mutated", f"{where}: a temporary was left"
    return "ok", where


# ------------------------------------------------------------------ MLflow keys

_ALPHABET = list("ab_?/. -:,é\x00\t漢") + ["..", "a?b", "a_b", ""]


def _mlflow_keys(rng: np.random.Generator, root: Path) -> tuple[str, str]:
    from mlflow.utils.validation import _validate_metric_name

    from dartboard.evaluation._mlflow import metric_values

    labels: list[str] = []
    while len(labels) < int(rng.integers(2, 6)):
        label = "".join(rng.choice(_ALPHABET, size=int(rng.integers(0, 5))))
        label = label * int(rng.choice([1, 1, 1, 40]))  # now and then past 64 characters
        if label not in labels:
            labels.append(label)
    where = f"mlflow keys of groups {labels!r}"
    groups = np.repeat(np.asarray(labels, dtype=object), 4)
    y = np.tile([0, 1, 1, 0], len(labels))
    pred = np.where(rng.random(y.size) < 0.7, y, 1 - y)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = db.evaluate(y, pred, groups=groups, metrics=["accuracy", "recall"],
                             n_resamples=20, random_state=0)
    except Exception as exc:  # noqa: BLE001 - groups evaluate() refuses are not keys
        return ("refused" if _refusal(exc) else "crash"), f"{where}: evaluate: {exc}"
    try:
        values = metric_values(ev)
    except Exception as exc:  # noqa: BLE001
        return ("crash" if not _refusal(exc) else "differs"), f"{where}: {exc}"
    expected = [v for r in (*ev.result.metrics, *ev.result.groups)
                for v in (r.estimate, r.low, r.high) if v is not None and math.isfinite(v)]
    if sorted(values.values()) != sorted(expected):
        return "differs", f"{where}: {len(values)} values logged, {len(expected)} expected"
    for key in values:
        try:
            _validate_metric_name(key)
        except Exception as exc:  # noqa: BLE001 - MLflow's own check is the oracle
            return "differs", f"{where}: MLflow refuses the key {key!r}: {exc}"
    return "ok", where


# ------------------------------------------------------------------ hand-edited results

HOSTILE_VALUES = [None, "zz", 3.5, -1, True, [], {}, [1, 2], ["a"], [[1]], {"a": 1},
                  "DELETE", [None], float("nan"), 10**12]


def _fields(node: Any, path: tuple = ()) -> Any:
    """Every field of a results dictionary (a list stands for its first item)."""
    if path:
        yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _fields(value, (*path, key))
    elif isinstance(node, list) and node:
        yield from _fields(node[0], (*path, 0))


def edited(results: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    """``results`` with the field at ``path`` set to ``value`` ("DELETE": removed),
    and only the section that holds it (and the regression section, so that a report
    has something to draw when the edited field is the only one of its section)."""
    import copy

    out = {"title": "edited", "regression": results["regression"],
           path[0]: copy.deepcopy(results[path[0]])}
    node = out
    for key in path[:-1]:
        node = node[key]
    if isinstance(value, str) and value == "DELETE":
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def hand_edits(results: dict[str, Any], seed: int = 0, size: int | None = None
               ) -> list[tuple[tuple, Any]]:
    """(path, value) pairs, all of them or a seeded sample of ``size``."""
    cases = [(p, v) for p in _fields(results) for v in HOSTILE_VALUES]
    if size is None:
        return cases
    picks = np.random.default_rng(seed).choice(len(cases), size=size, replace=False)
    return [cases[i] for i in sorted(picks)]


def report_edited(results: dict[str, Any], path: tuple, value: Any, folder: Path
                  ) -> tuple[int, list[str], str]:
    """``dartboard report`` on the edited results: (exit code, stderr lines, output)."""
    from typer.testing import CliRunner

    from dartboard.cli import app

    source = folder / "results.json"
    source.write_text(json.dumps(edited(results, path, value)))
    res = CliRunner().invoke(app, ["report", str(source), "-o", str(folder / "out.html")])
    return res.exit_code, res.stderr.strip().splitlines(), res.output


_SECTIONS: dict[str, Any] = {}


def every_section_results() -> dict[str, Any]:
    """A results dictionary with every section, as saved to JSON (built once)."""
    if not _SECTIONS:
        from _report_results import every_section

        rng = np.random.default_rng(11)
        y = rng.integers(0, 2, 120)
        proba = np.clip(0.3 * y + 0.7 * rng.random(120), 0, 1)
        _SECTIONS.update(json.loads(json.dumps(every_section(y, proba, n_resamples=50),
                                               default=float)))
    return _SECTIONS


def _report_edits(rng: np.random.Generator, root: Path) -> tuple[str, str]:
    results = every_section_results()
    cases = hand_edits(results)
    path, value = cases[int(rng.integers(len(cases)))]
    code, lines, output = report_edited(results, path, value, root)
    where = f"report with {'.'.join(map(str, path))} = {value!r}"
    if code == 0:
        return "ok", where
    if code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and all(
            str(k) in lines[0] for k in path[:2] if isinstance(k, str)):
        return "refused", where
    return ("crash" if code == 1 else "differs"), f"{where}: exit {code}: {output[-300:]}"


SURFACES = {
    "evaluate_parquet (files)": lambda rng, root: _streamed("parquet", rng, root),
    "evaluate_dask (files)": lambda rng, root: _streamed("dask", rng, root),
    "writers (targets)": _writers,
    "log_mlflow (keys)": _mlflow_keys,
    "dartboard report (edited)": _report_edits,
}


def run_surface(name: str, rng: np.random.Generator) -> tuple[str, str]:
    """One case of surface ``name`` in a fresh temporary folder (removed after)."""
    root = Path(tempfile.mkdtemp(prefix="dartboard-fuzz-"))
    try:
        return SURFACES[name](rng, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
