"""Data of the engine tests: decisions, scores and values with a speaker effect."""

from __future__ import annotations

import numpy as np
import pandas as pd


def make_frame(n: int, n_speakers: int = 60, seed: int = 0) -> pd.DataFrame:
    """Labels, decisions, scores and values with a speaker effect (conditions matter)."""
    rng = np.random.default_rng(seed)
    speaker = rng.integers(0, n_speakers, n)
    skill = rng.normal(0.0, 0.7, n_speakers)[speaker]
    y = rng.integers(0, 2, n)
    score = np.round(y * 1.2 + skill + rng.normal(0.0, 1.0, n), 6)
    pred = (score > 0.6).astype(np.int64)
    return pd.DataFrame(
        {
            "label": y,
            "prediction": pred,
            "score": score,
            "speaker": np.array([f"spk{s:03d}" for s in speaker]),
            "stratum": rng.integers(0, 3, n),
            "loss": np.round(np.abs(rng.normal(0.3 + 0.1 * skill, 0.2)), 4),
            "weight": rng.integers(1, 30, n).astype(float),
        }
    )


def binned_interval(res):
    """The interval of the binned scores inside a binned ranking result, checking that
    the reported interval is it widened by the certified bound (kept inside [0, 1])."""
    inner = res.details["binned_interval"]
    bound = res.details["error_bound"]
    low, high = res.confidence_interval
    assert low == max(inner["low"] - bound, 0.0) and high == min(inner["high"] + bound, 1.0)
    return (inner["low"], inner["high"])
