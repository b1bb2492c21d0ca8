"""Test-suite configuration.

Long statistical simulations are marked ``slow``; their size is multiplied by the
environment variable ``MLCI_SLOW_SCALE``.  A plain ``python -m pytest`` runs them at
scale 0.1 (about a minute in all), so the README's test command stays quick; the full
studies behind docs/validation.md run with ``MLCI_SLOW_SCALE=1 python -m pytest -m slow``.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MLCI_SLOW_SCALE", "0.1")

# In CI a missing test dependency must fail the run, not skip its tests: a module-level
# ``pytest.importorskip("statsmodels...")`` (or sklearn, mlxtend, confidence_intervals...)
# would otherwise silently skip every test of the module (about 230 tests in all).
# ``.ci/run`` sets MLCI_STRICT_DEPS=1 (so does a CI service's ``CI``); MLCI_ALLOW_MISSING
# lists modules that may still be skipped (comma-separated, e.g. "pyspark").
STRICT_DEPS = bool(os.environ.get("MLCI_STRICT_DEPS") or os.environ.get("CI"))
ALLOW_MISSING = {m.strip() for m in os.environ.get("MLCI_ALLOW_MISSING", "").split(",") if m}


def _require(modname: str, minversion: str | None = None, reason: str | None = None, **kw):
    """``pytest.importorskip`` that raises instead of skipping (strict CI)."""
    try:
        return _IMPORTORSKIP(modname, minversion=minversion, reason=reason, **kw)
    except pytest.skip.Exception as exc:
        if modname.split(".")[0] in ALLOW_MISSING:
            raise
        raise ImportError(
            f"Test dependency {modname!r} is missing or too old ({exc.msg}). In CI "
            "(MLCI_STRICT_DEPS or CI set) a missing dependency is an error, not a skip: "
            "install the test extras with `pip install -e '.[test,inspect]'`, or list the "
            "module in MLCI_ALLOW_MISSING to skip its tests knowingly."
        ) from None


_IMPORTORSKIP = pytest.importorskip
if STRICT_DEPS:
    pytest.importorskip = _require

# Property tests (hypothesis) draw their examples from a fixed seed in CI, so that a run of
# the same commit always tests the same examples: a CI failure is reproducible and cannot
# come and go between runs. Locally (no CI / MLCI_STRICT_DEPS) they explore new examples
# each run; HYPOTHESIS_PROFILE=explore forces that in CI too.
try:
    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("ci", derandomize=True, print_blob=True)
    _hyp_settings.register_profile("explore", derandomize=False)
    _profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if STRICT_DEPS else "")
    if _profile:
        _hyp_settings.load_profile(_profile)
except ImportError:  # hypothesis is a test extra; its tests import it themselves
    pass

# conftest files hold fixtures, not doctests: collecting them as doctest modules imports a
# second "conftest" module (tests/backends/conftest.py) under the same name
collect_ignore_glob = ["conftest.py", "*/conftest.py"]
