"""Shared data of the engine tests: a decision and score data set with speakers and strata."""

from __future__ import annotations

import pandas as pd
import pytest
from backend_frames import make_frame


@pytest.fixture(scope="session")
def frame() -> pd.DataFrame:
    return make_frame(40_000)
