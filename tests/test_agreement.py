"""Agreement coefficients against the ``krippendorff`` package, statsmodels and published
values (docs/agreement.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

import mlci
from mlci.metrics import get_kernel
from mlci.metrics.agreement import AgreementGridKernel, agreement_kernel

krippendorff = pytest.importorskip("krippendorff")

DATA = Path(__file__).parent / "data"
LEVELS = ["nominal", "ordinal", "interval", "ratio"]
pytestmark = pytest.mark.filterwarnings("ignore::mlci.exceptions.FewConditionsWarning")


def _kripp_2011():
    """Krippendorff (2011), section C: 12 units x 4 observers, 7 ratings missing."""
    rows = (DATA / "krippendorff2011_reliability.csv").read_text().splitlines()[1:]
    return np.array([[float(v) if v else np.nan for v in line.split(",")[1:]] for line in rows])


def _fleiss_wikipedia():
    """The counts table of Wikipedia's worked example, as a ratings matrix (10 x 14)."""
    rows = (DATA / "fleiss_wikipedia_counts.csv").read_text().splitlines()[1:]
    counts = np.array([[int(v) for v in line.split(",")[1:]] for line in rows])
    return counts, np.array([np.repeat(np.arange(1, 6), c) for c in counts])


def _value(kernel, w=None):
    if w is None:
        w = np.bincount(kernel.keys, minlength=kernel.m)
    return float(kernel.evaluate(np.asarray(w, dtype=float)[None, :])[0])


@pytest.mark.parametrize(
    "level,published",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_published_example(level, published):
    r = _kripp_2011()
    ref = krippendorff.alpha(reliability_data=r.T, level_of_measurement=level)
    got = _value(agreement_kernel("krippendorff_alpha", r, level_of_measurement=level))
    assert got == pytest.approx(ref, abs=1e-12)
    assert round(got, 3) == published  # Krippendorff (2011)
    res = mlci.agreement_ci(r, level_of_measurement=level, n_resamples=200, rng=0)
    assert res.estimate == pytest.approx(ref, abs=1e-12)
    grid = AgreementGridKernel("krippendorff_alpha", r, level)
    assert _value(grid, np.ones(grid.m)) == pytest.approx(ref, abs=1e-12)


def test_fleiss_published_example():
    counts, ratings = _fleiss_wikipedia()
    ref = fleiss_kappa(counts)
    assert round(ref, 3) == 0.210  # Wikipedia, "Fleiss' kappa"
    assert _value(agreement_kernel("fleiss_kappa", ratings)) == pytest.approx(ref, abs=1e-12)
    res = mlci.bootstrap_ci(ratings, metric="fleiss_kappa", n_resamples=200, rng=0)
    assert res.estimate == pytest.approx(ref, abs=1e-12)
    assert res.method == "studentized"


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", LEVELS)
def test_every_resampling_equals_the_repeated_matrix(seed, level):
    rng = np.random.default_rng(seed)
    nu, nr = 25, 5
    truth = rng.integers(1, 6, nu)
    r = np.clip(truth[:, None] + rng.integers(-1, 2, (nu, nr)), 1, 5).astype(float)
    r[rng.random((nu, nr)) < 0.2] = np.nan
    items = agreement_kernel("krippendorff_alpha", r, level_of_measurement=level)
    grid = AgreementGridKernel("krippendorff_alpha", r, level)
    for _ in range(3):
        rows, cols = rng.integers(0, nu, nu), rng.integers(0, nr, nr)
        ref = krippendorff.alpha(reliability_data=r[rows][:, cols].T, level_of_measurement=level)
        cells = np.bincount(rows, minlength=nu)[:, None] * np.bincount(cols, minlength=nr)[None]
        assert _value(grid, cells.ravel()) == pytest.approx(ref, abs=1e-12)
        ref_items = krippendorff.alpha(reliability_data=r[rows].T, level_of_measurement=level)
        w = np.bincount(items.keys, weights=np.bincount(rows, minlength=nu), minlength=items.m)
        assert _value(items, w) == pytest.approx(ref_items, abs=1e-12)


def test_fleiss_resampling_equals_statsmodels():
    rng = np.random.default_rng(3)
    r = np.clip(rng.integers(0, 3, 30)[:, None] + rng.integers(-1, 2, (30, 6)), 0, 2)
    grid = AgreementGridKernel("fleiss_kappa", r)
    for _ in range(3):
        rows, cols = rng.integers(0, 30, 30), rng.integers(0, 6, 6)
        ref = fleiss_kappa(aggregate_raters(r[rows][:, cols])[0])
        cells = np.bincount(rows, minlength=30)[:, None] * np.bincount(cols, minlength=6)[None]
        assert _value(grid, cells.ravel()) == pytest.approx(ref, abs=1e-12)


def test_string_categories_and_none():
    r = _kripp_2011()
    labels = np.where(np.isnan(r), None, np.char.add("c", np.nan_to_num(r).astype(int).astype(str)))
    res = mlci.agreement_ci(labels.astype(object), n_resamples=50, rng=0)
    ref = krippendorff.alpha(reliability_data=r.T, level_of_measurement="nominal")
    assert res.estimate == pytest.approx(ref, abs=1e-12)


def test_resampling_schemes_and_methods():
    rng = np.random.default_rng(4)
    r = np.clip(rng.integers(1, 6, 60)[:, None] + rng.integers(-1, 2, (60, 10)), 1, 5)
    out = {}
    for resample in ("items", "raters", "both"):
        res = mlci.agreement_ci(
            r, level_of_measurement="ordinal", resample=resample, n_resamples=200, rng=0
        )
        low, high = res.confidence_interval
        assert low < res.estimate < high
        out[resample] = (res.method, high - low)
    assert {m for m, _ in out.values()} == {"bca"}
    # resampling both units is at least as wide as resampling either (both add variance)
    assert out["both"][1] > max(out["items"][1], out["raters"][1]) * 0.9
    fk = mlci.agreement_ci(r, metric="fleiss_kappa", n_resamples=200, rng=0)
    assert fk.method == "studentized"


def test_few_raters_warn():
    r = _kripp_2011()
    with pytest.warns(mlci.FewConditionsWarning, match="only 4"):
        mlci.agreement_ci(r, resample="raters", n_resamples=50, rng=0)


# -------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "ratings,kwargs,err,match",
    [
        (np.arange(5.0), {}, ValueError, "`ratings` must be a 2-d matrix"),
        (np.ones((5, 1)), {}, ValueError, "two raters"),
        (np.full((3, 3), np.nan), {}, ValueError, "no rating"),
        ("kripp", {"metric": "fleiss_kappa"}, ValueError, "missing rating"),
        (
            "kripp",
            {"metric": "fleiss_kappa", "level_of_measurement": "ordinal"},
            ValueError,
            "nominal",
        ),
        ("kripp", {"metric": "cohen"}, ValueError, "`metric` must be one of"),
        (
            "kripp",
            {"level_of_measurement": "metric"},
            ValueError,
            "`level_of_measurement` must be one of",
        ),
        ("kripp", {"resample": "units"}, ValueError, "`resample` must be one of"),
        ("kripp", {"resample": "raters", "method": "studentized"}, ValueError, "over raters"),
        ("kripp", {"n_resamples": 0}, ValueError, "`n_resamples`"),
        (
            np.array([["a", "b"], ["b", "b"]]),
            {"level_of_measurement": "interval"},
            TypeError,
            "numeric ratings",
        ),
        (
            np.array([[-1.0, 2.0], [1.0, 1.0]]),
            {"level_of_measurement": "ratio"},
            ValueError,
            "non-negative",
        ),
        (np.array([[1.0, np.inf], [1.0, 1.0]]), {}, ValueError, "infinite"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), {}, ValueError, "at least two ratings"),
        (None, {}, ValueError, "`ratings` is required"),
    ],
)
def test_agreement_ci_bad_inputs(ratings, kwargs, err, match):
    if isinstance(ratings, str):
        ratings = _kripp_2011()
    with pytest.raises(err, match=match):
        mlci.agreement_ci(ratings, **{"n_resamples": 20, **kwargs})


def test_registered_metrics_bad_inputs():
    with pytest.raises(ValueError, match="`ratings` must be 2-d"):
        get_kernel("krippendorff_alpha", (np.arange(4),), {})
    with pytest.raises(ValueError, match="`level_of_measurement` must be one of"):
        get_kernel("krippendorff_alpha", (np.ones((4, 2)),), {"level_of_measurement": "nope"})
    with pytest.raises(ValueError, match="do not apply"):
        get_kernel("fleiss_kappa", (np.ones((4, 2)),), {"level_of_measurement": "nominal"})
