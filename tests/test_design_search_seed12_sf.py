"""What the seed-12 search of the score drivers and the fields' drivers found (session 10),
as strict xfails naming each defect.

``scripts/design_search_scores.py`` and ``scripts/design_search_fields.py`` ran with seed 12
on session 10's main (seed >= 12 draws more ``trial_bootstrap_ci`` designs, iid
simultaneous bands and global-level correlations).  Each confirmed defect that is new (not
a class already known or being fixed) is stated here on one fixed-seed test set of the
search's own draw, as a property that fails on main (a warning that does not fire), cheap
at CI scale (one interval each, B = 200).  A companion test pins what makes the comparison
fair.  When a fix lands, its xfail flips (strict) and the marker goes.  Numbers, designs
and verdicts: docs/validation.md, "Design search, seed 12: score drivers and fields
(session 10)"; results in ``scripts/data/design_search_{scores,fields}_seed12.json``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from _scripts import SEARCH_KW as KW
from _scripts import load_script, search_set, warned

pytestmark = [pytest.mark.slow, pytest.mark.search]

dsf = load_script("design_search_fields.py")
mlci = dsf.mlci


# ------------------------------------------ global-level correlation over 3 items (s12f #1)
def _s12f_1() -> tuple:
    d, pop, x = search_set(dsf, 12, 1, 11, 24)
    assert d.metric == "pearson" and d.p["level"] == "global" and d.p["resample"] == "both"
    assert x["x"].shape == (36, 3)  # 36 systems, 3 items
    return pop.truth, x


def test_global_correlation_over_three_items_misses_here() -> None:
    # the comparison the xfail below rests on: this test set's interval misses the
    # population value (0.7525) by far, and a mean over the same 3 items as conditions
    # (the crossed bootstrap resamples 3 item clusters) warns of its few conditions
    truth, x = _s12f_1()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mlci.correlation_ci(
            x["x"], x["z"], coefficient="pearson", correlation_level="global", resample="both", **KW
        )
    assert r.confidence_interval[1] < truth - 0.1
    cells = (x["x"] * x["z"]).ravel()
    items = np.tile(np.arange(3), 36)
    assert "FewConditionsWarning" in warned(
        lambda: mlci.bootstrap_ci(cells, metric="mean", conditions=items, **KW)
    )


# found (seed-12 fields #1): Pearson at the global level over 36 systems x 3 items, systems
# and items resampled, a large item effect shared by both scores (vd 1.49): auto (BCa)
# covered 0.790 of 100 and 0.830 of 300 other test sets (BCa the same, percentile 0.787),
# never warned, 48 of 51 misses below the truth 0.7525.  The global-level rule counts
# systems (below 20), not the items the crossed bootstrap also resamples; here 0.4147,
# [0.1414, 0.6064] (B = 200).
# Fixed (session 10, lead): correlation_ci warns at the global level below 20 items.
def test_global_correlation_over_few_items_warns() -> None:
    _, x = _s12f_1()
    assert warned(
        lambda: mlci.correlation_ci(
            x["x"], x["z"], coefficient="pearson", correlation_level="global", resample="both", **KW
        )
    )
