"""The R cross-check suite's fixture: one R process per test module (tests/r/rscript.py)."""

from __future__ import annotations

import pytest
from rscript import run_r


@pytest.fixture(scope="module")
def r_results(request, tmp_path_factory):
    """The module's ``R_SCRIPT`` run once on its ``R_INPUTS``: ``{name: float array}``."""
    mod = request.module
    workdir = tmp_path_factory.mktemp(mod.__name__.rpartition(".")[2])
    return run_r(mod.R_SCRIPT, mod.R_INPUTS, tuple(mod.R_PACKAGES), workdir)
