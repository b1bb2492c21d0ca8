"""Peak memory and CPU of one ``ece`` interval over conditions (issue 25).

``bootstrap_ci(y, p, metric="ece", conditions=c, n_resamples=B)`` on ``n`` samples with
2,000 conditions, in this process: prints the CPU seconds and the peak resident set
(``ru_maxrss``, which includes the ~100 MB of the interpreter, numpy and scipy)::

    nice python benchmarks/bench_ece_memory.py --rows 1e6 -B 100
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("-B", type=int, default=100)
    ap.add_argument("--conditions", type=int, default=2000)
    args = ap.parse_args()
    import mlci

    n = int(args.rows)
    rng = np.random.default_rng(0)
    p = rng.random(n)
    y = (rng.random(n) < p**1.5).astype(int)
    c = rng.integers(0, args.conditions, n)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.bootstrap_ci(y, p, metric="ece", conditions=c, n_resamples=args.B, rng=1)
    cpu = time.process_time() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"ece n={n:.0e} B={args.B} {args.conditions} conditions ({res.method}): "
        f"CPU {cpu:.2f} s, peak RSS {peak:.0f} MB (before the call {before:.0f} MB), "
        f"interval {tuple(res.confidence_interval)!r}"
    )


if __name__ == "__main__":
    main()
