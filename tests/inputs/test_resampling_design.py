"""mlci.Resampling: the resampling design's rarely changed details, one immutable object
validated once (issue 23 item 3), and the deprecated keywords it replaces."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import mlci
from mlci.inputs import RESAMPLING_FIELDS, check_resampling

Y = np.arange(300) % 2
P = np.where(np.arange(300) % 7 == 0, 1 - Y, Y)
SPK = np.arange(300) % 23


def test_defaults_repr_and_immutability():
    r = mlci.Resampling()
    assert repr(r) == "Resampling()"
    assert repr(mlci.Resampling(two_stage=True, weights="poisson")) == (
        "Resampling(two_stage=True, weights='poisson')"
    )
    assert repr(mlci.Resampling(sampler=np.ones)) == "Resampling(sampler=ones)"
    assert mlci.Resampling(two_stage=True) == mlci.Resampling(two_stage=True)
    assert hash(mlci.Resampling(two_stage=True)) == hash(mlci.Resampling(two_stage=True))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.two_stage = True  # type: ignore[misc]
    assert RESAMPLING_FIELDS == tuple(inspect.signature(mlci.Resampling).parameters)
    assert mlci.Resampling(stratify=np.True_).stratify is True  # normalised once


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"two_stage": "yes"}, TypeError, "`two_stage` must be True or False"),
        ({"stratify": 1}, TypeError, "`stratify` must be True or False"),
        ({"weights": "bayesian"}, ValueError, "`weights` must be one of 'multinomial', 'poiss"),
        ({"weights": None}, ValueError, "`weights` must be one of"),
        ({"sampler": "multinomial"}, TypeError, "`sampler` must be a function"),
        ({"jackknife_groups": 1}, ValueError, "`jackknife_groups` must be an integer >= 2"),
        ({"jackknife_groups": 2.5}, TypeError, "`jackknife_groups` must be an integer"),
        ({"smoothing": -1}, ValueError, "`smoothing` must be True, False or a finite"),
        ({"smoothing": "yes"}, TypeError, "`smoothing` must be True"),
        ({"subsample": 1.5}, ValueError, "`subsample` must lie strictly between 0 and 1"),
        ({"subsample": "half"}, TypeError, "`subsample` must be the fraction"),
        ({"algorithm": "fast"}, ValueError, "`algorithm` must be one of"),
        ({"sampler": np.ones, "weights": "poisson"}, ValueError, "`sampler` replaces"),
        # an unknown field, or a positional one: the constructor's own TypeError, naming it
        ({"two_stages": True}, TypeError, "unexpected keyword argument 'two_stages'"),
    ],
)
def test_bad_fields_are_refused_when_built_naming_them(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        mlci.Resampling(**kwargs)


def test_positional_fields_are_refused():
    with pytest.raises(TypeError, match="positional"):
        mlci.Resampling(True)  # type: ignore[misc]


def test_a_driver_refuses_what_it_does_not_offer_and_what_is_not_a_resampling():
    with pytest.raises(TypeError, match=r"`resampling` must be a mlci.Resampling.*got dict"):
        mlci.bootstrap_ci(Y, P, metric="accuracy", resampling={"two_stage": True})
    with pytest.raises(ValueError, match=r"mlci.bootstrap_ci does not offer `smoothing`"):
        mlci.bootstrap_ci(Y, P, metric="accuracy", resampling=mlci.Resampling(smoothing=0.1))
    assert check_resampling(None, (), "f", stratify=True) == mlci.Resampling(stratify=True)


def test_strata_with_stratify_is_refused():
    with pytest.raises(ValueError, match="strat"):
        mlci.bootstrap_ci(
            Y, P, metric="accuracy", strata=SPK % 3, resampling=mlci.Resampling(stratify=True)
        )


def test_old_keywords_warn_and_give_the_same_result():
    new = mlci.bootstrap_ci(
        Y, P, metric="accuracy", conditions=SPK, n_resamples=300, rng=2,
        resampling=mlci.Resampling(two_stage=True, weights="poisson"),
    )  # fmt: skip
    with pytest.warns(FutureWarning, match=r"mlci\.Resampling\(two_stage=\.\.\., weights") as w:
        old = mlci.bootstrap_ci(Y, P, metric="accuracy", conditions=SPK, n_resamples=300,
                                rng=2, two_stage=True, weights="poisson")  # fmt: skip
    assert w[0].filename == __file__  # at the caller's line
    np.testing.assert_array_equal(old.bootstrap_distribution, new.bootstrap_distribution)
    assert old.confidence_interval == new.confidence_interval
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="Give `resampling` only"):
        mlci.bootstrap_ci(Y, P, metric="accuracy", two_stage=True,
                          resampling=mlci.Resampling())  # fmt: skip
    # a bad old value is refused as the field (after the warning)
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="`weights` must be"):
        mlci.bootstrap_ci(Y, P, metric="accuracy", weights="bayesian")


def test_the_signature_shows_resampling_only():
    params = inspect.signature(mlci.bootstrap_ci).parameters
    assert "resampling" in params
    assert not set(RESAMPLING_FIELDS) & set(params)
