"""In CI a missing test dependency fails the run instead of skipping its tests.

``tests/conftest.py`` replaces ``pytest.importorskip`` when ``MLCI_STRICT_DEPS`` (set by
``.ci/run``) or ``CI`` is set.  Checked in a subprocess, so that the replacement never
leaks into this session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")
PROBE = f"""
import importlib.util, pytest
spec = importlib.util.spec_from_file_location("probe_conftest", {str(CONFTEST)!r})
spec.loader.exec_module(importlib.util.module_from_spec(spec))
assert pytest.importorskip("math").sqrt(4) == 2
try:
    pytest.importorskip("mlci_no_such_module")
except ImportError as exc:
    print("ERROR", exc)
except pytest.skip.Exception as exc:
    print("SKIP", exc.msg)
"""


def _probe(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "MLCI_STRICT_DEPS")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_missing_dependency_is_an_error_in_ci():
    for env in ({"MLCI_STRICT_DEPS": "1"}, {"CI": "true"}):
        out = _probe(**env)
        assert out.startswith("ERROR Test dependency 'mlci_no_such_module' is missing"), out
        assert "pip install -e '.[test,inspect]'" in out


def test_missing_dependency_is_a_skip_outside_ci_or_when_allowed():
    assert _probe().startswith("SKIP could not import 'mlci_no_such_module'")
    out = _probe(MLCI_STRICT_DEPS="1", MLCI_ALLOW_MISSING="pyspark, mlci_no_such_module")
    assert out.startswith("SKIP"), out


def test_ci_script_sets_strict_dependencies():
    run = (Path(__file__).parents[1] / ".ci" / "run").read_text()
    assert "export MLCI_STRICT_DEPS=1" in run
