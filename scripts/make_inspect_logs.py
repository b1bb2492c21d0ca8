"""Write the inspect-ai logs of tests/llm/data/inspect/ with inspect-ai itself.

Every log is written by ``inspect_ai.eval`` (inspect-ai 0.3.285, its ``mockllm`` provider,
an in-memory dataset, no network): complete runs, a run killed with SIGKILL (status
``started``), a run stopped by a solver error (``error``), a run interrupted by SIGINT
(``cancelled``), a run on another dataset with the same task name and sample ids, and runs
with the epoch reducers ``pass_at_2`` and a custom one.  Each case runs in its own
subprocess (a killed run kills its process).  ``max_samples=1`` makes the order of the
samples, and so where a run stops, reproducible; ``log_buffer=2`` flushes every two
samples, as a long run does every few.

    python scripts/make_inspect_logs.py            # writes tests/llm/data/inspect/*.eval

The ``.json`` copies of the killed and cancelled runs (``inspect log convert``, with the
bulky per-sample fields removed) let the documented-format reader be tested without
inspect-ai.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "llm" / "data" / "inspect"
N_ITEMS = 10

#: case -> (model, dataset name, epochs, reducer, how the run ends)
CASES = {
    "complete_a": ("mockllm/a", "toyset", 2, None, None),
    "complete_b": ("mockllm/b", "toyset", 2, None, None),
    "killed": ("mockllm/c", "toyset", 2, None, "kill"),
    "error": ("mockllm/c", "toyset", 2, None, "error"),
    "cancelled": ("mockllm/c", "toyset", 2, None, "sigint"),
    "otherdata": ("mockllm/d", "toyset-v2", 2, None, None),
    "pass_at_2": ("mockllm/a", "toyset", 4, "pass_at_2", None),
    "custom_reducer": ("mockllm/a", "toyset", 4, "best_of", None),
}
STOP_AFTER = 12  # sample runs before a killed / failed / interrupted run stops


def run_case(name: str, log_dir: str) -> None:
    """One inspect-ai run (in this process)."""
    warnings.simplefilter("ignore")
    from inspect_ai import Epochs, Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, ScoreReducer, match, score_reducer, value_to_float
    from inspect_ai.solver import generate, solver

    model_name, dataset, epochs, reducer, stop = CASES[name]
    calls = {"n": 0}
    seen: dict[int, int] = {}

    @solver
    def stopper():
        async def solve(state, gen):
            calls["n"] += 1
            if stop and calls["n"] > STOP_AFTER:
                if stop == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                elif stop == "sigint":
                    os.kill(os.getpid(), signal.SIGINT)
                else:
                    raise RuntimeError("the tool broke")
            return state

        return solve

    @score_reducer(name="best_of")
    def best_of() -> ScoreReducer:
        to_float = value_to_float()

        def reduce(scores: list[Score]) -> Score:
            return Score(value=max(to_float(s.value) for s in scores))

        return reduce

    def answer(messages, tools, tool_choice, config):
        text = messages[-1].text
        q = int(text.split()[-1])
        n = seen[q] = seen.get(q, -1) + 1  # the how-many-th answer to question q
        right = str(q % 3)
        if model_name == "mockllm/a":
            ok = q % 2 == q % 3 if epochs == 2 else (q % 5 != 4 and (q + n) % 3 == 0)
        elif model_name == "mockllm/b":
            ok = q % 4 != 3
        else:
            ok = q % 3 != 2
        out = ModelOutput.from_content(model="mockllm", content=right if ok else "x")
        # usage given: the mock provider then counts no tokens (no tokenizer download)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    # another dataset under the same task name and sample ids: other questions from q1 on
    prefix = "Question" if dataset == "toyset" else "Item"
    samples = [
        Sample(
            input=f"{'Question' if i == 0 else prefix} {i}",
            target=str(i % 3),
            id=f"q{i}",
            metadata={"passage": f"p{i // 3}"},
        )
        for i in range(N_ITEMS)
    ]
    task = Task(
        dataset=MemoryDataset(samples, name=dataset),
        solver=[stopper(), generate()],
        scorer=match(),
        epochs=Epochs(epochs, [best_of()] if reducer == "best_of" else reducer),
        name="toy",
    )
    model = get_model(model_name, custom_outputs=answer)
    try:
        inspect_eval(task, model=model, log_dir=log_dir, display="none", max_samples=1,
                     log_buffer=2, log_format="eval")  # fmt: skip
    except BaseException:  # the interrupted run raises after writing its log
        if stop is None:
            raise


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, __file__, "--case", name, tmp], check=False)
            (log,) = Path(tmp).glob("*.eval")
            shutil.copy(log, OUT / f"{name}.eval")
        print(name, (OUT / f"{name}.eval").stat().st_size, "bytes")
    from inspect_ai.log import read_eval_log, write_eval_log

    for name in ("killed", "cancelled"):
        log = read_eval_log(str(OUT / f"{name}.eval"))
        for s in log.samples or []:  # the bulky per-sample fields; the reader needs none
            s.events, s.messages = [], []
        path = OUT / f"{name}.json"
        write_eval_log(log, str(path), format="json")
        data = json.loads(path.read_text())
        for s in data.get("samples", []):
            for key in ("output", "events", "messages", "attachments", "model_usage"):
                s.pop(key, None)
        data.pop("reductions", None)
        path.write_text(json.dumps(data, indent=1) + "\n")
        print(path.name, path.stat().st_size, "bytes")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--case":
        run_case(sys.argv[2], sys.argv[3])
    else:
        main()
