"""Every subcommand fed malformed files (issue 16): exit code 2, one ``error:`` line,
no traceback, no output file. Files that are odd but valid (a byte-order mark, quoted
newlines inside values) are read as their plain twin is."""

import json

import numpy as np
import pandas as pd
import pytest
from _fuzz_files import edited, every_section_results, hand_edits, report_edited
from typer.testing import CliRunner

from dartboard.cli import app
from dartboard.evaluation._engine import evaluate_predictions

runner = CliRunner()

# each subcommand with its options; {f} is the input, {out} a file it must not leave
COMMANDS = {
    "evaluate": ["evaluate", "{f}", "--y-true", "y", "--y-score", "s", "--pos-label", "pos",
                 "--n-resamples", "50", "--report", "{out}"],
    "compare": ["compare", "{f}", "--y-true", "y", "--a", "a", "--b", "b",
                "--n-resamples", "50"],
    "select": ["select", "{f}"],
    "audit": ["audit", "{f}", "--target", "y", "--model",
              "sklearn.tree.DecisionTreeClassifier", "--n-estimators", "2"],
    "profile": ["profile", "{f}", "--target", "y", "--model",
                "sklearn.tree.DecisionTreeClassifier", "--repeats", "1"],
    "report": ["report", "{f}", "-o", "{out}"],
}


def _valid(command):
    """A valid input for ``command``: CSV text, or JSON text for ``report``."""
    rng = np.random.default_rng(7)
    n = 60
    y = np.where(rng.random(n) < 0.5, "neg", "pos")
    s = np.clip(0.3 * (y == "pos") + 0.7 * rng.random(n), 0, 1)
    if command == "report":
        res = evaluate_predictions(y, y_score=s, n_resamples=50, random_state=0,
                                   pos_label="pos").to_dict()
        return json.dumps({"classification": json.loads(json.dumps(res, default=float))})
    if command == "select":
        table = pd.DataFrame({"config": [f"c{i}" for i in range(4)],
                              **{f"f{k}": rng.random(4) for k in range(5)}})
    elif command in ("audit", "profile"):
        table = pd.DataFrame({"x0": s + rng.normal(scale=0.1, size=n),
                              "x1": rng.random(n), "y": y})
    else:
        flip = rng.random(n) < 0.3
        table = pd.DataFrame({"y": y, "s": s, "a": np.where(s > 0.5, "pos", "neg"),
                              "b": np.where(flip, y[::-1], y)})
    return table.to_csv(index=False)


def _quoted_newlines(text):
    """The same table with a newline inside every text value (quoted, so valid CSV)."""
    table = pd.read_csv(pd.io.common.StringIO(text))
    for c in table.columns:
        if table[c].dtype == object:
            table[c] = table[c].str.replace("o", "o\n", n=1, regex=False)
    return table.to_csv(index=False)


def _parquet_bytes(text):
    import io

    buf = io.BytesIO()
    pd.read_csv(io.StringIO(text)).to_parquet(buf)
    return buf.getvalue()


MALFORMED = {
    "empty": lambda d, c: _write(d / "empty.csv", b""),
    "header only": lambda d, c: _write(d / "header.csv",
                                       _valid(c).splitlines()[0].encode() + b"\n"
                                       if c != "report" else b"{}"),
    "binary garbage": lambda d, c: _write(d / "garbage.csv",
                                          np.random.default_rng(1).bytes(3000)),
    "truncated parquet": lambda d, c: _write(d / "cut.parquet", _parquet_bytes(
        _valid("evaluate"))[:400]),
    "duplicate column names": lambda d, c: _write(d / "dup.csv", _duplicated(_valid(c))),
    "unicode column names": lambda d, c: _write(d / "uni.csv", _lookalike(_valid(c))),
    "mixed schemas in a directory": lambda d, c: _mixed(d),
    "bom in binary garbage": lambda d, c: _write(d / "bomgarbage.csv",
                                                 b"\xef\xbb\xbf" + b"\x00\xff" * 500),
}


def _write(path, data):
    path.write_bytes(data)
    return path


def _duplicated(text):
    """Every column twice (a, b, a, b): which one is meant cannot be known."""
    rows = [line.split(",") for line in text.splitlines()]
    return "\n".join(",".join(r + r) for r in rows).encode() + b"\n"


def _lookalike(text):
    """Column names that look like the asked ones but are not (zero-width space,
    Cyrillic letters): not found, and the error shows them unambiguously."""
    header, _, rest = text.partition("\n")
    names = [name + "\u200b" if i % 2 else name.replace("y", "у").replace("s", "ѕ")
             for i, name in enumerate(header.split(","))]
    names = [n if n not in header.split(",") else n + "\u200b" for n in names]
    return (",".join(names) + "\n" + rest).encode()


def _mixed(d):
    parts = d / "parts"
    parts.mkdir()
    pd.DataFrame({"y": [0, 1, 0, 1], "s": [0.1, 0.9, 0.2, 0.8]}).to_parquet(parts / "a.parquet")
    pd.DataFrame({"y": ["x", "y"], "t": ["a", "b"]}).to_parquet(parts / "b.parquet")
    return parts


def _run(command, source, tmp_path):
    out = tmp_path / "out" / "result.html"
    out.parent.mkdir()
    argv = [a.replace("{f}", str(source)).replace("{out}", str(out))
            for a in COMMANDS[command]]
    return runner.invoke(app, argv), out.parent


# look-alike column names are valid for select (its fold columns are not named):
# the twin test below covers that pair
@pytest.mark.parametrize("command, kind", [
    (c, k) for c in COMMANDS for k in MALFORMED
    if not (c == "select" and k == "unicode column names")])
def test_malformed_file_exit_2_one_line_no_output(tmp_path, command, kind):
    source = MALFORMED[kind](tmp_path, command)
    res, out_dir = _run(command, source, tmp_path)
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""
    assert list(out_dir.iterdir()) == []


def _table(stdout):
    """The printed table without the lines naming the files."""
    return [line for line in stdout.replace("odd", "plain").splitlines()
            if not line.startswith("report:")]


# look-alike names are valid only where columns are read by position (select's folds;
# the other commands name their columns: see the malformed cases); JSON escapes newlines
# inside strings, so report has nothing to quote
@pytest.mark.parametrize("command, quirk", [
    (c, q) for c in COMMANDS for q in ("bom", "quoted newlines", "unicode names")
    if not (q == "unicode names" and c != "select")
    and not (q == "quoted newlines" and c == "report")])
def test_odd_but_valid_file_reads_as_its_plain_twin(tmp_path, command, quirk):
    text = _valid(command)
    if quirk == "bom":
        odd = "\ufeff" + text
    elif quirk == "unicode names":
        odd = _lookalike(text).decode()  # fold columns are read by position, not name
    else:
        odd = _quoted_newlines(text)
    suffix = ".json" if command == "report" else ".csv"
    plain_path, odd_path = tmp_path / f"plain{suffix}", tmp_path / f"odd{suffix}"
    plain_path.write_text(text, encoding="utf-8")
    odd_path.write_text(odd, encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain, _ = _run(command, plain_path, tmp_path / "a")
    res, out_dir = _run(command, odd_path, tmp_path / "b")
    assert plain.exit_code == 0, plain.output
    assert res.exit_code == 0, res.output
    if quirk != "quoted newlines" and command not in ("profile", "audit"):  # timings
        assert _table(res.stdout) == _table(plain.stdout)
    if "{out}" in COMMANDS[command]:
        assert [p.name for p in out_dir.iterdir()] == ["result.html"]


# ------------------------------------------------------------ Ctrl-C while loading

_INTERRUPT_WHILE_LOADING = """
import builtins, sys
import typer.main

where = sys.argv.pop(1)
if where == "import":  # Ctrl-C while the command line's modules load
    real = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "dartboard.cli._evaluate":
            raise KeyboardInterrupt
        return real(name, *args, **kwargs)

    builtins.__import__ = interrupted
else:  # Ctrl-C while typer builds the command, before the command group runs
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    typer.main.get_command = interrupted
from dartboard.__main__ import main

main()
"""


@pytest.mark.parametrize("where", ["import", "build"])
def test_ctrl_c_while_the_command_loads_is_one_line_and_130(where):
    # issue 29.22: a Ctrl-C in the first 0.15 s printed a KeyboardInterrupt traceback
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _INTERRUPT_WHILE_LOADING, where, "--version"],
                         capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stderr, out.stdout) == (130, "interrupted\n", "")


@pytest.mark.skipif(__import__("os").name != "posix", reason="SIGINT to a child process")
def test_ctrl_c_at_any_moment_of_loading_gives_no_traceback_of_ours():
    # the installed script, interrupted by a real SIGINT at moments spread over its
    # loading; Python's own start-up (before any of dartboard runs) can still print
    # its "Fatal Python error: init_import_site" report, and an interrupt inside the
    # import machinery, before the first line of dartboard runs (the launcher's import
    # line the only frame: no source compiled to bytecode yet, the window is
    # milliseconds), a traceback through the launcher alone: those are the
    # interpreter's. A traceback is ours when one of its frames is dartboard's code.
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    import dartboard

    package = str(Path(dartboard.__file__).parent)
    script = Path(sys.executable).with_name("dartboard")
    if not script.exists():
        pytest.skip("the dartboard script is not installed beside this Python")
    start = time.perf_counter()
    subprocess.run([script, "--version"], capture_output=True, timeout=120)
    loading = time.perf_counter() - start
    ours = []
    for fraction in np.linspace(0.1, 0.9, 7):
        proc = subprocess.Popen([script, "--version"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(fraction * loading)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        if "Traceback" in err or "init_import_site" in err:
            if package in err:
                ours.append((round(fraction * loading, 3), proc.returncode, err[-600:]))
        elif err:
            assert err == "interrupted\n" and proc.returncode == 130, err
    assert not ours, ours


def test_a_streamed_glob_lists_what_the_file_read_whole_has_and_it_has_not(tmp_path):
    # issue 25.7: the glob printed 3 of the file's 16 metrics and said nothing of the rest
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    pd.DataFrame({"y": y, "s": np.clip(0.3 * y + 0.7 * rng.random(200), 0, 1),
                  "g": rng.choice(["a", "b"], 200)}).to_parquet(tmp_path / "part0.parquet")
    common = ["--y-true", "y", "--y-score", "s", "--group", "g", "--n-resamples", "50"]
    whole = runner.invoke(app, ["evaluate", str(tmp_path / "part0.parquet"), *common,
                                "--json"])
    streamed = runner.invoke(app, ["evaluate", str(tmp_path / "*.parquet"), *common, "--json"])
    table = runner.invoke(app, ["evaluate", str(tmp_path / "*.parquet"), *common])
    assert whole.exit_code == streamed.exit_code == table.exit_code == 0, table.output
    memory = [m["metric"] for m in json.loads(whole.stdout)["metrics"]]
    payload = json.loads(streamed.stdout)
    shown = [m["metric"] for m in payload["metrics"]]
    # the stream gives every metric the file read whole gives (the labels cut from the
    # scores at the same threshold, the probability metrics of scores in [0, 1]), and
    # its gaps have intervals: nothing is left out, and nothing says so
    assert shown == memory and len(memory) == 16
    assert payload["streamed"]["left_out"] == []
    assert "left out of the streamed evaluation" not in table.stdout
    gaps = {r["metric"]: r for r in payload["difference"]}
    assert all(np.isfinite(gaps[m]["low"]) for m in ("roc_auc", "average_precision"))


# ------------------------------------------------------------ hand-edited results.json

_SAMPLE = 12  # seeded cases per run of the suite; benchmarks/fuzz_long.py runs them all


@pytest.fixture(scope="module")
def saved_results():
    return every_section_results()


@pytest.mark.parametrize("case", range(_SAMPLE))
def test_a_hand_edited_results_json_is_drawn_or_names_its_field(tmp_path, saved_results,
                                                                 case):
    # issue 29.21: an edited field failed inside a figure, "internal error" and exit 1
    path, value = hand_edits(saved_results, size=_SAMPLE)[case]
    code, lines, output = report_edited(saved_results, path, value, tmp_path)
    assert code in (0, 2), (path, value, output)
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("error: "), (path, value, lines)
        named = [k for k in path[:2] if isinstance(k, str)]
        assert all(repr(k)[1:-1] in lines[0] for k in named), (path, value, lines)
    else:
        assert (tmp_path / "out.html").read_text().rstrip().endswith("</html>")


@pytest.mark.parametrize("path, value, message", [
    # what the fuzzing of issue 29.21 found failing inside the report
    (("classification", "model"), 3.5, "'classification.model' must be a string"),
    (("classification", "metrics", 0, "confidence_level"), None,
     "'classification.metrics' must start with a row whose 'confidence_level' is a number"),
    (("classification", "confusion", "labels"), 3.5,
     "'classification.confusion.labels' must be a list of class labels"),
    (("classification", "confusion", "matrix", 0), [1, 2, 3],
     "'classification.confusion.matrix' must be square"),
    (("classification", "roc"), [], "'classification.roc' must be a JSON object"),
    (("classification", "pr", "prevalence"), [1, 2],
     "'classification.pr.prevalence' must be a finite number"),
    (("classification", "calibration", "prob_true"), [0.5],
     "'classification.calibration.prob_true' must be as long as"),
    (("selection", "critical_difference", "n_models"), 10**12,
     "'selection.critical_difference.n_models' must be the number of models"),
    (("selection", "critical_difference", "extra"), 1, "fields the report does not know"),
    (("selection", "sweep", "configurations", "dtypes", 0), "no such dtype",
     "'selection.sweep.configurations' is not a table pandas can rebuild"),
    (("stability", "probas", 0), [0.5], "'stability.probas' must hold rows of one length"),
    (("regression", "errors"), [], "'regression.errors' must be a list of numbers of at "
                                   "least 1"),
    (("notes",), None, "'notes' must be a list"),
    # found by the long fuzz profile: the regression's fit points and a gap row's cells
    (("regression", "fit", "actual", 0), [[1]],
     "'regression.fit.actual[0]' must be a finite number"),
    (("classification", "difference", 0, "low"), "DELETE",
     "'classification.difference[0]' needs the field 'low' (null is fine)"),
])
def test_hand_edits_that_failed_inside_the_report_name_the_field(tmp_path, saved_results,
                                                                  path, value, message):
    results = dict(saved_results, notes=[])
    source = tmp_path / "results.json"
    source.write_text(json.dumps(edited(results, path, value)))
    res = runner.invoke(app, ["report", str(source), "-o", str(tmp_path / "out.html")])
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert message in lines[0] and lines[0].startswith(f"error: '{source}': "), lines[0]
    assert not (tmp_path / "out.html").exists()


# ------------------------------------------------------------ pipes as input


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_pipe_is_read_once_as_its_file_is(tmp_path, suffix):
    # process substitution (<(cat preds.csv)) hands a pipe: each look at it consumed a
    # part, so the header lost its first bytes ("No columns to parse from file")
    import os
    import subprocess
    import sys
    import threading

    text = _valid("evaluate")
    data = text.encode() if suffix == ".csv" else _parquet_bytes(text)
    plain = tmp_path / f"plain{suffix}"
    plain.write_bytes(data)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_bytes(data))
    writer.start()
    common = ["--y-true", "y", "--y-score", "s", "--pos-label", "pos", "--n-resamples", "50"]
    # a process of its own: a second open of the pipe would wait for a writer forever
    try:
        piped = subprocess.run([sys.executable, "-m", "dartboard", "evaluate", str(pipe),
                                *common], capture_output=True, text=True, timeout=300)
    finally:
        if writer.is_alive():  # the command never opened the pipe: let the writer go
            with open(pipe, "rb") as drain:
                drain.read()
        writer.join(timeout=60)
    whole = runner.invoke(app, ["evaluate", str(plain), *common])
    assert piped.returncode == whole.exit_code == 0, piped.stderr
    assert piped.stdout.replace("pipe", plain.name) == whole.stdout


def test_an_interrupt_python_wrapped_while_loading_is_still_one_line_and_130(
        monkeypatch, capsys):
    # a SIGINT inside a class body's __set_name__ (typer importing pathlib's
    # ipaddress) reaches main() as RuntimeError caused by the KeyboardInterrupt
    import dartboard.cli
    from dartboard.__main__ import main

    def wrapped():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on 'cached_property'") from exc

    monkeypatch.setattr(dartboard.cli, "app", wrapped)
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 130 and capsys.readouterr().err == "interrupted\n"

    def broken():
        raise RuntimeError("a bug, not an interrupt")

    monkeypatch.setattr(dartboard.cli, "app", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main()
