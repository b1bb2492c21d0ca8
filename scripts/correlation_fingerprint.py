"""Fingerprint of ``correlation_ci``'s results and warnings, before and after a refactoring.

One md5 per call (its result's repr with the details, and its warnings' classes and
messages in the order emitted) over levels, schemes, coefficients, methods and shapes on
both sides of every few-units threshold (session 11, corrfix: the warnings' table)::

    PYTHONPATH=src python scripts/correlation_fingerprint.py > before.txt
    (change the code)
    PYTHONPATH=src python scripts/correlation_fingerprint.py | diff before.txt -
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np

import mlci


def scores(ns: int, ni: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng([ns, ni, seed])
    system, item = g.normal(size=(ns, 1)), g.normal(size=(1, ni))
    x = system + item + 0.7 * g.normal(size=(ns, ni))
    z = 0.8 * system + 1.2 * item + 0.7 * g.normal(size=(ns, ni))
    return x, z


def main() -> None:
    shapes = [(3, 5), (7, 30), (8, 3), (12, 19), (19, 20), (20, 8), (25, 40), (40, 25), (60, 12)]
    for ns, ni in shapes:
        x, z = scores(ns, ni, 0)
        for level in ("system", "item", "global"):
            for resample in ("systems", "items", "both"):
                for coef in ("pearson", "spearman", "kendall_tau"):
                    for method in ("auto", "percentile"):
                        if coef == "kendall_tau" and ns * ni > 400 and method != "auto":
                            continue
                        with warnings.catch_warnings(record=True) as caught:
                            warnings.simplefilter("always")
                            try:
                                r = mlci.correlation_ci(x, z, coefficient=coef,
                                                        correlation_level=level,
                                                        resample=resample, method=method,
                                                        n_resamples=200, rng=1)  # fmt: skip
                                text = repr((r, r.details))
                            except Exception as e:
                                text = repr(("ERR", type(e).__name__, str(e)))
                        msgs = [f"{w.category.__name__}:{w.message}" for w in caught]
                        h = hashlib.md5(repr((text, msgs)).encode()).hexdigest()
                        print(ns, ni, level, resample, coef, method, h, len(msgs))


if __name__ == "__main__":
    main()
