"""Run score-analysis's own test suite against mlci through a name-only shim.

The shim (``benchmarks/score_analysis_shim/score_analysis``) puts mlci's objects under
score-analysis's names, renaming arguments only; the tests are score-analysis's, from its
sdist (they are not in its wheel).  Usage::

    pip download score-analysis==0.3.12 --no-deps --no-binary :all: -d /tmp/sa
    python benchmarks/run_score_analysis_suite.py /tmp/sa/score_analysis-0.3.12.tar.gz

It prints the pass/fail count per test file and the reason of every failure (the last
line of its error); docs/scores.md lists each failure with the convention behind it.
Not part of CI: it needs the sdist from the network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

FILES = (
    "test_scores.py",
    "test_cm.py",
    "test_metrics.py",
    "test_roc_curve.py",
    "test_group_scores.py",
)
HERE = Path(__file__).resolve().parent


def main(sdist: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers() if "/tests/" in m.name]
            tar.extractall(tmp, members=members, filter="data")
        tests = next(Path(tmp).glob("*/tests"))
        env = dict(os.environ)
        src = HERE.parent / "src"
        env["PYTHONPATH"] = os.pathsep.join([str(HERE / "score_analysis_shim"), str(src)])
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rf",
            "--tb=line",
            "-W",
            "ignore",
            "-o",
            "filterwarnings=",
            "--continue-on-collection-errors",
            *(str(tests / f) for f in FILES),
        ]
        out = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
    print(summarize(out.stdout))
    return 0


def summarize(stdout: str) -> str:
    """Passed/failed counts, then every failing test (parameters folded) with the last
    line of its error and how many parametrisations failed that way."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if "= FAILURES =" in line), len(lines))
    errors = [line for line in lines[start:] if re.match(r"^/\S+:\d+: ", line)]
    failed = [line.split(" - ")[0][len("FAILED ") :] for line in lines if line.startswith("FAILED")]
    groups: dict[str, Counter[str]] = {}
    for test, err in zip(failed, errors, strict=False):
        file, name = test.split("::")[0].rsplit("/", 1)[-1], test.split("::")[1].split("[")[0]
        msg = re.sub(r"^\S+?:\d+: ", "", err)[:120]
        groups.setdefault(f"{file}::{name}", Counter())[msg] += 1
    out = [lines[-1] if lines else "no output"]
    for test, reasons in groups.items():
        out += [f"{test} x{k}: {msg}" for msg, k in reasons.items()]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
