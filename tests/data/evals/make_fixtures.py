"""Write the small real-format files the tests of ``dartboard.evals`` read.

Run from the repository root with lm-evaluation-harness and inspect_ai installed
(``python tests/data/evals/make_fixtures.py``); the files it writes are committed, so
the tests need neither package. What each tool writes is written by the tool itself:

* ``lm_eval/model_a``, ``lm_eval/model_b``: ``lm_eval.simple_evaluate`` with its
  ``dummy`` model (random log-likelihoods, two seeds) on a local multiple-choice task
  of 30 questions about 6 passages (``doc.passage_id``), saved by its
  ``EvaluationTracker`` (``samples_<task>_<date>.jsonl`` and ``results_<date>.json``);
* ``inspect/passages_a.eval``, ``passages_b.eval``: ``inspect_ai.eval`` of a task of
  18 questions about 6 passages (``metadata.passage``), 3 epochs, a scorer with
  ``accuracy()``, ``stderr()`` and ``stderr(cluster="passage")`` whose grades are a
  fixed function of (question, epoch); one sample of model a fails in its third epoch
  (an errored sample); ``passages_a.json`` is the same log written by
  ``inspect_ai.log.write_eval_log(format="json")`` and ``passages_a_deflate.eval`` the
  archive re-packed with deflate (how Inspect compressed before zstandard);
* ``helm/per_instance_stats.json`` and ``stats.json``: HELM's layout
  (``PerInstanceStats``, ``Stat``) written here, HELM not being installed: 12
  instances, 2 trials, one perturbed copy;
* ``table/scores.{csv,jsonl,parquet}``: a plain table of 12 questions x 2 epochs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def _lm_eval() -> None:
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    work = HERE / "_lm_eval_work"
    shutil.rmtree(work, ignore_errors=True)
    (work / "tasks").mkdir(parents=True)
    rng = np.random.default_rng(0)
    with open(work / "docs.jsonl", "w") as handle:
        for i in range(30):
            handle.write(json.dumps({"question": f"Question {i} about passage {i // 5}?",
                                     "choices": ["alpha", "beta"],
                                     "label": int(rng.integers(2)),
                                     "passage_id": f"p{i // 5}"}) + "\n")
    (work / "tasks" / "passages_mc.yaml").write_text(
        "task: passages_mc\ndataset_path: json\ndataset_kwargs:\n  data_files:\n"
        f"    test: {work / 'docs.jsonl'}\ntest_split: test\noutput_type: multiple_choice\n"
        'doc_to_text: "{{question}}"\ndoc_to_choice: "{{choices}}"\n'
        'doc_to_target: "{{label}}"\nmetric_list:\n  - metric: acc\n  - metric: acc_norm\n')
    manager = TaskManager(include_path=str(work / "tasks"))
    for model, seed in (("model_a", 1), ("model_b", 2)):
        res = lm_eval.simple_evaluate(model="dummy", tasks=["passages_mc"],
                                      task_manager=manager, log_samples=True,
                                      random_seed=seed, numpy_random_seed=seed)
        out = work / model
        tracker = EvaluationTracker(output_path=str(out))
        samples = res.pop("samples")
        tracker.save_results_aggregated(results=res, samples=samples)
        for task, rows in samples.items():
            tracker.save_results_samples(task_name=task, samples=rows)
        target = HERE / "lm_eval" / model
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for path in out.rglob("*.json*"):
            shutil.copy(path, target / path.name)
    shutil.rmtree(work)


def _uniform(key: str) -> float:
    """A fixed number in [0, 1) for ``key`` (the same on every machine and run)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) / 16**12


def _grade(question: str, epoch: int, p: float) -> str:
    return "C" if _uniform(f"{question}/{epoch}") < p else "I"


def _inspect() -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import write_eval_log
    from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr
    from inspect_ai.solver import TaskState, solver

    @solver
    def answer(fail: str | None):
        async def solve(state: TaskState, generate):  # no model call: no network
            if fail is not None and f"{state.sample_id}/{state.epoch}" == fail:
                raise RuntimeError("the model's server went away")
            return state
        return solve

    @scorer(metrics=[accuracy(), stderr(), stderr(cluster="passage")])
    def graded(shift: float):
        async def score(state: TaskState, target: Target) -> Score:
            p = min(state.metadata["p"] + shift, 0.95)
            return Score(value=_grade(str(state.sample_id), state.epoch, p))
        return score

    samples = [Sample(id=f"q{i}", input=f"Question {i}", target="x",
                      metadata={"passage": f"p{i // 3}", "p": 0.2 + 0.12 * (i // 3)})
               for i in range(18)]
    out = HERE / "inspect"
    shutil.rmtree(out, ignore_errors=True)
    work = HERE / "_inspect_work"
    for model, shift, fail in (("a", 0.0, "q17/3"), ("b", 0.1, None)):
        task = Task(dataset=samples, solver=answer(fail), scorer=graded(shift), epochs=3,
                    name="passages")
        log = inspect_eval(task, model="mockllm/model", log_dir=str(work / model),
                           display="none", fail_on_error=False)[0]
        out.mkdir(exist_ok=True)
        shutil.copy(log.location, out / f"passages_{model}.eval")
        if model == "a":
            write_eval_log(log, str(out / "passages_a.json"), format="json")
            _deflated(out / "passages_a.eval", out / "passages_a_deflate.eval")
    shutil.rmtree(work)


def _deflated(source: Path, target: Path) -> None:
    """The archive re-packed with deflate, as Inspect wrote .eval files before zstandard
    (and readable by any Python's zipfile)."""
    import zipfile

    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w",
                                                         zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))


def _stat(name: str, value: float, split: str = "test") -> dict:
    return {"name": {"name": name, "split": split}, "count": 1, "sum": value,
            "sum_squared": value ** 2, "min": value, "max": value, "mean": value,
            "variance": 0.0, "stddev": 0.0}


def _helm() -> None:
    out = HERE / "helm"
    out.mkdir(exist_ok=True)
    entries, scores = [], []
    for i in range(12):
        for trial in range(2):
            value = float(_uniform(f"id{i}/{trial}") < 0.4)
            scores.append(value)
            entries.append({"instance_id": f"id{i}", "train_trial_index": trial,
                            "stats": [_stat("exact_match", value),
                                      _stat("num_output_tokens", 7.0)]})
    entries.append({"instance_id": "id0", "train_trial_index": 0,
                    "perturbation": {"name": "typos", "robustness": True, "fairness": False,
                                     "computed_on": "perturbed", "prob": 0.1},
                    "stats": [_stat("exact_match", 0.0)]})
    (out / "per_instance_stats.json").write_text(json.dumps(entries, indent=2))
    mean = float(np.mean(scores))
    (out / "stats.json").write_text(json.dumps([
        {"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": mean,
         "sum_squared": mean ** 2, "min": mean, "max": mean, "mean": mean,
         "variance": 0.0, "stddev": 0.0}], indent=2))


def _table() -> None:
    out = HERE / "table"
    out.mkdir(exist_ok=True)
    rows = [{"question": f"t{i}", "epoch": e, "passage": f"g{i // 3}",
             "score": float(_uniform(f"t{i}/{e}") < 0.3 + 0.1 * (i // 3))}
            for i in range(12) for e in range(2)]
    frame = pd.DataFrame(rows)
    frame.to_csv(out / "scores.csv", index=False)
    frame.to_json(out / "scores.jsonl", orient="records", lines=True)
    frame.to_parquet(out / "scores.parquet", index=False)


if __name__ == "__main__":
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    _lm_eval()
    _inspect()
    _helm()
    _table()
