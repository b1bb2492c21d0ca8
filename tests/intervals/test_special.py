"""scipy.special's ufuncs without its package (mlci.intervals.special): the same objects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

from mlci.intervals.special import SPECIAL_FUNCTIONS, special_function

SRC = Path(__file__).resolve().parents[2] / "src"


def run_fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (mlci from this tree); its last stdout line is
    JSON."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(SPECIAL_FUNCTIONS))
def test_the_objects_scipy_special_exports(name):
    # scipy.special loaded (as here): its own attribute
    assert special_function(name) is getattr(special, name)


def test_loaded_alone_then_the_package_exports_the_same_ufuncs():
    names = sorted(SPECIAL_FUNCTIONS)
    out = run_fresh(
        "import json, sys\n"
        "from mlci.intervals.special import special_function\n"
        f"fs = {{n: special_function(n) for n in {names!r}}}\n"
        "alone = 'scipy.special' not in sys.modules\n"
        "compiled = 'scipy.special._ufuncs' in sys.modules\n"
        "q = float(fs['stdtrit'](2999.0, 0.975)).hex()\n"
        "import scipy.special as sp\n"
        "same = all(getattr(sp, n) is f for n, f in fs.items())\n"
        "print(json.dumps({'alone': alone, 'compiled': compiled, 'same': same, 'q': q,"
        " 'dir': sorted(dir(sp)), 'ver': sp.stdtrit(2999.0, 0.975).hex()}))"
    )
    assert out["alone"] and out["compiled"]
    assert out["same"]  # a later `import scipy.special` exports these very ufuncs
    assert out["q"] == out["ver"]
    # and the package is whole: the names of a plain import
    plain = run_fresh("import json, scipy.special as sp; print(json.dumps(sorted(dir(sp))))")
    assert out["dir"] == plain


def test_the_package_is_imported_when_another_thread_runs():
    # the compiled module is loaded alone only in a one-thread process (nothing else can
    # import meanwhile): with a second thread alive, the package is imported as usual
    out = run_fresh(
        "import json, sys, threading\n"
        "stop = threading.Event(); t = threading.Thread(target=stop.wait); t.start()\n"
        "from mlci.intervals.special import special_function\n"
        "f = special_function('ndtr')\n"
        "loaded = 'scipy.special' in sys.modules\n"
        "stop.set(); t.join()\n"
        "import scipy.special as sp\n"
        "print(json.dumps({'loaded': loaded, 'same': f is sp.ndtr}))"
    )
    assert out == {"loaded": True, "same": True}


@pytest.mark.parametrize("df", [1, 2.5, 9, 29, 2999, 1e6, np.inf])
def test_values_are_scipy_stats_to_the_last_bit(df):
    # scipy.stats.t.ppf / cdf (its own evaluation): an independent path to the same numbers
    p = np.array([1e-10, 0.0005, 0.025, 0.05, 0.5, 0.9, 0.975, 0.995])
    t = np.array([-40.0, -3.5, -1.96, -0.1, 0.0, 0.7, 2.0, 8.0])
    np.testing.assert_array_equal(special_function("stdtrit")(df, p), stats.t.ppf(p, df))
    np.testing.assert_array_equal(special_function("stdtr")(df, t), stats.t.cdf(t, df))
    np.testing.assert_array_equal(special_function("ndtri")(p), stats.norm.ppf(p))
    np.testing.assert_array_equal(special_function("ndtr")(t), stats.norm.cdf(t))


def test_a_name_it_does_not_serve_is_refused():
    with pytest.raises(ValueError, match="`name` must be one of"):
        special_function("gamma")
