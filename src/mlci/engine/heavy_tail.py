"""Heavy-tailed losses of a regression metric: the diagnostic and the warning.

(Draft: the diagnostics only, for ``scripts/heavy_tail_study.py``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["loss_tail_diagnostics"]


def loss_tail_diagnostics(values: Any) -> dict[str, float]:
    """Shape of the per-sample losses ``values`` (squared or absolute errors)."""
    v = np.asarray(values, dtype=float)
    n = v.size
    r = v - v.mean()
    m2, m3, m4 = np.mean(r**2), np.mean(r**3), np.mean(r**4)
    out = {
        "skewness": float(m3 / m2**1.5) if m2 > 0 else float("nan"),
        "kurtosis": float(m4 / m2**2) if m2 > 0 else float("nan"),
        "top_share": float(v.max() / v.sum()) if v.sum() > 0 else float("nan"),
        "effective_n": float(n * m2**2 / m4) if m4 > 0 else float("nan"),
    }
    k = max(2, int(round(np.sqrt(n))))
    s = np.sort(v)[::-1]
    if n > k and s[k] > 0:
        out["hill"] = float(1.0 / np.mean(np.log(s[:k] / s[k])))
    else:
        out["hill"] = float("nan")
    return out
