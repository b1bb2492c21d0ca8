"""Scores drivers with strata= whose class mix differs between strata warn that the
interval is conditional on that mix (scores/_design.warn_strata_class_mix; the score
drivers' search, seed 14, #13 and #37)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci


def sites(prevalences: tuple[float, ...], n: int = 800, rng: int = 0):
    g = np.random.default_rng(rng)
    y, s, site = [], [], []
    for k, p in enumerate(prevalences):
        yk = np.zeros(n, int)
        yk[: round(p * n)] = 1
        y.append(yk)
        s.append(g.normal(0, 1, n) + (2.0 + k) * yk)
        site.append(np.full(n, k))
    return np.concatenate(y), np.concatenate(s), np.concatenate(site)


@pytest.mark.parametrize("driver", ["eer_ci", "auc_ci"])
def test_warns_where_the_mix_differs(driver: str) -> None:
    y, s, site = sites((0.02, 0.07, 0.04))
    sc = mlci.Scores.from_labels(y, s)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        getattr(mlci, driver)(sc, strata=site, n_resamples=100, rng=0)
    found = [w for w in rec if "positives make up 2.0%-7.0% of the strata" in str(w.message)]
    assert len(found) == 1 and found[0].category is mlci.FewConditionsWarning


def test_quiet_with_an_even_mix_or_an_explicit_choice() -> None:
    y, s, site = sites((0.05, 0.05, 0.05))
    sc = mlci.Scores.from_labels(y, s)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.FewConditionsWarning)
        mlci.eer_ci(sc, strata=site, n_resamples=100, rng=0)
        y2, s2, site2 = sites((0.02, 0.07, 0.04))
        sc2 = mlci.Scores.from_labels(y2, s2)
        mlci.eer_ci(  # the user chose not to stratify the classes: no advice
            sc2, strata=site2, n_resamples=100, rng=0,
            resampling=mlci.Resampling(stratify=False),
        )  # fmt: skip
