"""Run one R script per test module and read back its numbers (the R cross-check suite).

A module sets ``R_PACKAGES`` (R packages it needs), ``R_INPUTS`` (name -> 1-d array of
numbers, written to ``<name>.txt``, one value per line at full precision) and ``R_SCRIPT``
(R code).  The script reads an input with ``get("name")`` and records a result with
``put("name", value)``; every result comes back as a float array (``NA`` -> NaN).  The
``r_results`` fixture (tests/r/conftest.py) runs the script once per module, in a
temporary directory.

Without ``Rscript`` or one of the packages the tests are skipped with a message saying
what to install, except in CI (``CI=true``, as mlci.feedback reads it), where a missing R
fails: the cross-checks
must run there (``.ci/run`` installs Debian's ``r-base-core`` and ``r-cran-*``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import numpy as np
import pytest

APT = (
    "apt-get install -y r-base-core r-cran-proc r-cran-boot r-cran-survey "
    "r-cran-clubsandwich r-cran-sandwich r-cran-lmtest"
)

_PRELUDE = r"""
.args <- commandArgs(trailingOnly = TRUE)
.in <- .args[1]
.out_file <- .args[2]
.out <- list()
get <- function(name) scan(file.path(.in, paste0(name, ".txt")), quiet = TRUE)
put <- function(name, value) .out[[name]] <<- as.numeric(value)
"""

_EPILOGUE = r"""
.con <- file(.out_file, "w")
for (.nm in names(.out)) {
  .v <- .out[[.nm]]
  writeLines(paste(c(.nm, ifelse(is.na(.v), "NA", sprintf("%.17g", .v))), collapse = " "),
             .con)
}
close(.con)
"""


def _missing(message: str) -> None:
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{message} (CI=true: the R cross-checks must run in CI; {APT})")
    pytest.skip(f"{message}; to run the R cross-checks: {APT}")


@cache
def _installed(packages: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
    """(path of Rscript or None, the packages that are missing)."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, packages
    code = (
        "p <- commandArgs(trailingOnly = TRUE); "
        "cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)], sep = '\\n')"
    )
    out = subprocess.run(
        [rscript, "--vanilla", "-e", code, *packages],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return rscript, tuple(line for line in out.stdout.split() if line)


def require_r(packages: tuple[str, ...]) -> str:
    """The path of ``Rscript``, after checking that ``packages`` are installed (skip or,
    in CI, fail otherwise)."""
    rscript, missing = _installed(tuple(packages))
    if rscript is None:
        _missing("Rscript (R) is not installed")
    if missing:
        _missing(f"R package(s) {', '.join(missing)} not installed")
    assert rscript is not None
    return rscript


def run_r(
    script: str, inputs: dict[str, np.ndarray], packages: tuple[str, ...], workdir: Path
) -> dict[str, np.ndarray]:
    """Run ``script`` once with ``inputs``; its ``put`` results by name."""
    rscript = require_r(packages)
    indir = workdir / "in"
    indir.mkdir(parents=True, exist_ok=True)
    for name, values in inputs.items():
        arr = np.asarray(values, dtype=float).ravel()
        (indir / f"{name}.txt").write_text("".join(f"{v!r}\n" for v in arr.tolist()))
    loads = "".join(f"suppressPackageStartupMessages(library({p}))\n" for p in packages)
    path = workdir / "script.R"
    path.write_text(_PRELUDE + loads + script + _EPILOGUE)
    out_file = workdir / "out.txt"
    proc = subprocess.run(
        [rscript, "--vanilla", str(path), str(indir), str(out_file)],
        capture_output=True,
        text=True,
        timeout=170,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"Rscript failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    results: dict[str, np.ndarray] = {}
    for line in out_file.read_text().splitlines():
        name, *values = line.split(" ")
        results[name] = np.array([np.nan if v == "NA" else float(v) for v in values])
    return results
