"""Write the lm-evaluation-harness logs of tests/llm/data/lm_eval/ with the harness itself.

Every file is written by ``lm_eval`` (lm-evaluation-harness 0.4.13, installed without
torch: ``pip install lm-eval``) with its ``dummy`` model (random log-likelihoods from
Python's ``random``, seeded by ``--seed``) on a local multiple-choice task (a YAML task
on a JSON-lines file: no download).  ``--model_args pretrained=<name>`` gives the run
its model name (the dummy model ignores it; the harness's EvaluationTracker names the
output folder and ``model_name`` after it).

Layouts (lm_eval/loggers/evaluation_tracker.py):

* ``--output_path DIR``: ``DIR/<model_name_sanitized>/results_<date>.json`` and
  ``.../samples_<task>_<date>.jsonl``  (``dir_layout/``, models org/model-a, org/model-b);
* ``--output_path DIR/X.json``: ``DIR/X_<date>.json`` and ``DIR/samples_<task>_<date>.jsonl``
  side by side (``json_layout/``, two models in one folder);
* ``otherdata/``: org/model-c on a second data file with the same ``doc_id``s but other
  questions from document 2 on (their ``doc_hash`` differs).

    python scripts/make_lm_eval_logs.py [path/to/lm_eval]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "llm" / "data" / "lm_eval"
N_DOCS = 40

TASK_YAML = """task: toy_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
"""


def write_task(folder: Path, other: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "toy.jsonl"
    with open(data, "w") as fh:
        for i in range(N_DOCS):
            q = f"Question {i}" if not other or i < 2 else f"Another question {i}"
            doc = {"question": q, "choices": ["A", "B", "C"], "answer": i % 3,
                   "subject": f"s{i // 5}"}  # fmt: skip
            fh.write(json.dumps(doc) + "\n")
    (folder / "toy.yaml").write_text(TASK_YAML.format(data=data))
    return folder


def run(lm_eval: str, tasks: Path, model: str, seed: int, output: Path) -> None:
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    cmd = [lm_eval, "--model", "dummy", "--model_args", f"pretrained={model}",
           "--tasks", "toy_mc", "--include_path", str(tasks), "--seed", str(seed),
           "--output_path", str(output), "--log_samples"]  # fmt: skip
    subprocess.run(cmd, check=True, env=env, capture_output=True)


def main(lm_eval: str) -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    with tempfile.TemporaryDirectory() as tmp:
        same = write_task(Path(tmp) / "same", other=False)
        other = write_task(Path(tmp) / "other", other=True)
        run(lm_eval, same, "org/model-a", 1, OUT / "dir_layout")
        run(lm_eval, same, "org/model-b", 2, OUT / "dir_layout")
        run(lm_eval, same, "org/model-a", 1, OUT / "json_layout" / "model-a.json")
        run(lm_eval, same, "org/model-b", 2, OUT / "json_layout" / "model-b.json")
        run(lm_eval, other, "org/model-c", 3, OUT / "otherdata")
    for path in sorted(OUT.rglob("*.json*")):
        if path.suffix == ".json":  # the machine-specific environment report and paths
            info = json.loads(path.read_text())
            for key in ("pretty_env_info", "git_hash", "upper_git_hash"):
                info.pop(key, None)
            for cfg in info.get("configs", {}).values():
                cfg["dataset_kwargs"] = {"data_files": {"test": "toy.jsonl"}}
            path.write_text(json.dumps(info, indent=2) + "\n")
        print(path.relative_to(OUT), path.stat().st_size, "bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "lm_eval")
