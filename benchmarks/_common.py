"""Shared helpers of the mlci benchmarks: timing, peak memory, subprocess cases, tables.

Every measured case runs in a fresh Python process (``run_case``), so that one case's
allocations, caches and threads never leak into the next and the peak resident memory
of the call can be read from the kernel.  The child process:

1. builds the data (not timed),
2. resets the kernel's peak-RSS counter (``/proc/self/clear_refs``, Linux) and records
   the current RSS,
3. runs the call once (timed with ``time.perf_counter`` and ``time.process_time``),
4. reports wall time, CPU time and *working memory*: peak RSS during the call minus the
   RSS before it.

Slow peers are timed on a reduced number of replicates and extrapolated linearly; the
row says so (``extrapolated_from``).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = [
    "fmt_bytes",
    "fmt_seconds",
    "machine_info",
    "markdown_table",
    "measure_call",
    "run_case",
]

_MIB = 2**20


# --------------------------------------------------------------------------- memory
def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM) of this process; False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_rss_bytes() -> int:
    hwm = _status_kib("VmHWM")
    if hwm is not None:
        return hwm * 1024
    import resource

    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _rss_bytes() -> int:
    rss = _status_kib("VmRSS")
    return rss * 1024 if rss is not None else 0


def measure_call(fn: Callable[[], Any]) -> dict[str, Any]:
    """Run ``fn()`` once; return wall and CPU seconds and the working memory of the call.

    ``memory_bytes`` is the peak resident set size during the call minus the resident
    set size just before it (``exact_peak`` False when the peak counter could not be
    reset, in which case the figure is the process's peak since it started).
    """
    import gc

    gc.collect()
    exact = _reset_peak()
    before = _rss_bytes()
    c0 = time.process_time()
    t0 = time.perf_counter()
    value = fn()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = _peak_rss_bytes()
    return {
        "seconds": wall,
        "cpu_seconds": cpu,
        "memory_bytes": max(peak - before, 0),
        "exact_peak": exact,
        "value": value,
    }


# --------------------------------------------------------------------------- subprocess
def run_case(
    script: str, case: dict[str, Any], *, timeout: float = 900.0, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run ``python script --case JSON`` in a fresh process and return its JSON answer.

    The child must print exactly one JSON object on its last stdout line.  Failures are
    returned as ``{"error": ...}`` rather than raised, so a broken peer never stops a run.
    """
    cmd = [sys.executable, script, "--case", json.dumps(case)]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit code {proc.returncode}"}
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError:
        return {"error": f"unreadable answer: {lines[-1][:200]}"}


# --------------------------------------------------------------------------- machine
def machine_info() -> dict[str, Any]:
    """CPU model, logical cores, Python/numpy/scipy versions (for the record)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info: dict[str, Any] = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    for mod in ("numpy", "scipy", "mlci"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception:  # pragma: no cover - optional
            info[mod] = None
    try:
        info["load_average"] = os.getloadavg()
    except OSError:  # pragma: no cover
        pass
    return info


# --------------------------------------------------------------------------- formatting
def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "—"
    if s < 0.01:
        return f"{s * 1e3:.2f} ms"
    if s < 1:
        return f"{s * 1e3:.0f} ms"
    if s < 100:
        return f"{s:.2f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def fmt_bytes(b: float | None) -> str:
    if b is None:
        return "—"
    if b >= 2**30:
        return f"{b / 2**30:.1f} GiB"
    return f"{b / _MIB:.0f} MiB"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)
