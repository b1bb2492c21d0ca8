"""Tests of the joint bootstrap for verification trials (mlci.verification_trials)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score, roc_curve

from mlci.verification_trials import EerKernel, trial_bootstrap_ci, trial_weights


def eer_reference(y, s, w=None):
    """EER from scikit-learn's ROC polyline crossing fnr = fpr (independent reference)."""
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    d = (1 - tpr) - fpr
    i = np.argmax(d <= 0)
    d0, d1 = d[i - 1], d[i]
    return fpr[i - 1] + d0 / (d0 - d1) * (fpr[i] - fpr[i - 1])


def _trials(n_spk=20, per=4, seed=0, sep=2.0):
    rng = np.random.default_rng(seed)
    spk = np.repeat(np.arange(n_spk), per)
    ses = np.tile(np.arange(per) // 2, n_spk)
    ids = np.array([f"r{i}" for i in range(len(spk))])
    e, t = np.triu_indices(len(spk), k=1)
    lab = spk[e] == spk[t]
    sc = rng.normal(sep * lab, 1.0) + 0.5 * rng.normal(size=n_spk)[spk[e]]
    return (
        ids[e],
        ids[t],
        sc,
        lab,
        dict(zip(ids, spk, strict=True)),
        dict(zip(ids, ses, strict=True)),
    )


@pytest.mark.parametrize("ties", [False, True])
def test_eer_kernel_matches_sklearn_roc_crossing(ties):
    rng = np.random.default_rng(1)
    n = 400
    lab = rng.random(n) < 0.3
    sc = rng.normal(1.5 * lab, 1)
    if ties:
        sc = np.round(sc, 1)
    k = EerKernel(lab, sc)
    for _ in range(6):
        w = rng.integers(0, 3, n).astype(float)
        wa = np.bincount(k.keys, weights=w, minlength=k.m)[None, :]
        assert k.evaluate(wa)[0] == pytest.approx(eer_reference(lab, sc, w), abs=1e-12)


def test_eer_window_fallback_is_exact():
    # weights that move the crossing far from the data's: the windowed pass must fall back
    rng = np.random.default_rng(2)
    n = 60_000
    lab = rng.random(n) < 0.5
    sc = rng.normal(3.0 * lab, 1)
    k = EerKernel(lab, sc)
    w = np.where(lab & (sc < 2.0), 50.0, 1.0)
    wa = np.bincount(k.keys, weights=w, minlength=k.m)[None, :]
    assert k.evaluate(wa)[0] == pytest.approx(eer_reference(lab, sc, w), abs=1e-12)


def _loop_weights(enr, tst, speaker_of, rng, same_speaker="once"):
    """Straightforward per-replicate dictionary loop (the benchmark's baseline)."""
    speakers = sorted(set(speaker_of[i] for i in np.r_[enr, tst]))
    drawn = Counter(rng.choice(len(speakers), size=len(speakers)).tolist())
    mult = {s: drawn.get(k, 0) for k, s in enumerate(speakers)}
    out = []
    for a, b in zip(enr, tst, strict=True):
        sa, sb = speaker_of[a], speaker_of[b]
        if sa == sb and same_speaker == "once":
            out.append(mult[sa])
        else:
            out.append(mult[sa] * mult[sb])
    return np.array(out, dtype=float)


def test_weights_are_products_of_multiplicities():
    e, t, _, _, spk_of, _ = _trials(n_spk=8, per=3)
    for rule in ("once", "product"):
        w = trial_weights(e, t, speaker_of=spk_of, n_resamples=30, rng=0, same_speaker=rule)
        assert w.shape == (30, len(e))
        se = np.array([spk_of[i] for i in e])
        st = np.array([spk_of[i] for i in t])
        for r in range(30):
            # recover speaker multiplicities from the same-speaker trials and check all
            k = {}
            for a, b, wt in zip(se, st, w[r], strict=True):
                if a == b:
                    k[a] = wt if rule == "once" else np.sqrt(wt)
            assert sum(k.values()) == 8  # 8 draws of 8 speakers
            for a, b, wt in zip(se, st, w[r], strict=True):
                if a != b:
                    assert wt == k[a] * k[b]


def test_same_distribution_as_loop_baseline():
    e, t, sc, lab, spk_of, _ = _trials(n_spk=15, per=4, seed=3)
    fast = trial_bootstrap_ci(
        e, t, sc, lab, speaker_of=spk_of, metric="eer", n_resamples=1500, rng=0
    )
    rng = np.random.default_rng(0)
    slow = np.array([eer_reference(lab, sc, _loop_weights(e, t, spk_of, rng)) for _ in range(1500)])
    assert fast.estimate == pytest.approx(eer_reference(lab, sc))
    assert fast.standard_error == pytest.approx(np.std(slow, ddof=1), rel=0.1)
    assert np.mean(fast.bootstrap_distribution) == pytest.approx(np.mean(slow), abs=0.004)


def test_roc_auc_callable_and_levels():
    e, t, sc, lab, spk_of, ses_of = _trials(seed=4)
    r1 = trial_bootstrap_ci(
        e, t, sc, lab, speaker_of=spk_of, metric="roc_auc", n_resamples=200, rng=5
    )
    assert r1.estimate == pytest.approx(roc_auc_score(lab, sc))
    r2 = trial_bootstrap_ci(
        e, t, sc, lab, speaker_of=spk_of, metric=roc_auc_score, n_resamples=200, rng=5
    )
    # same weights, same metric: identical distributions
    np.testing.assert_allclose(r1.bootstrap_distribution, r2.bootstrap_distribution)
    r3 = trial_bootstrap_ci(
        e,
        t,
        sc,
        lab,
        speaker_of=spk_of,
        session_of=ses_of,
        resample=("speaker", "session", "id"),
        n_resamples=200,
        rng=5,
        method="bca",
    )
    assert r3.scheme == "joint(speaker, session, id)"
    assert r3.details["jackknife_size"] == 20
    prod = trial_bootstrap_ci(
        e, t, sc, lab, speaker_of=spk_of, same_speaker="product", n_resamples=400, rng=5
    )
    once = trial_bootstrap_ci(e, t, sc, lab, speaker_of=spk_of, n_resamples=400, rng=5)
    assert prod.standard_error > once.standard_error


def test_joint_wider_than_trial_iid():
    # target scores depend on the speaker: target trials are correlated through their
    # speaker, which the iid trial bootstrap ignores
    rng = np.random.default_rng(6)
    spk = np.repeat(np.arange(25), 4)
    ids = np.array([f"r{i}" for i in range(100)])
    e, t = np.triu_indices(100, k=1)
    lab = spk[e] == spk[t]
    eff = rng.normal(0, 1.0, 25)
    sc = rng.normal(2.0 * lab, 1.0) + 1.5 * lab * eff[spk[e]]  # speaker-dependent targets
    spk_of = dict(zip(ids, spk, strict=True))
    joint = trial_bootstrap_ci(
        ids[e], ids[t], sc, lab, speaker_of=spk_of, metric="eer", n_resamples=500, rng=0
    )
    k = EerKernel(lab, sc)
    rng2 = np.random.default_rng(1)
    trial_iid = [
        k.evaluate(
            np.bincount(
                k.keys,
                weights=rng2.multinomial(len(sc), np.full(len(sc), 1 / len(sc))).astype(float),
                minlength=k.m,
            )[None, :]
        )[0]
        for _ in range(300)
    ]
    assert joint.standard_error > 1.3 * np.std(trial_iid, ddof=1)


def test_reproducible_across_batches():
    e, t, sc, lab, spk_of, _ = _trials(seed=7)
    a = trial_bootstrap_ci(e, t, sc, lab, speaker_of=spk_of, n_resamples=100, rng=3, batch=1)
    b = trial_bootstrap_ci(e, t, sc, lab, speaker_of=spk_of, n_resamples=100, rng=3)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


def test_bad_inputs():
    e, t, sc, lab, spk_of, _ = _trials(n_spk=5)
    partial = {k: v for k, v in spk_of.items() if k not in ("r0", "r3")}
    with pytest.raises(
        ValueError,
        match=r"2 id\(s\) of the trials are missing from "
        r"`speaker_of`: 'r0', 'r3'",
    ):
        trial_bootstrap_ci(e, t, sc, lab, speaker_of=partial)
    with pytest.raises(ValueError, match="`session_of` is None"):
        trial_bootstrap_ci(e, t, sc, lab, speaker_of=spk_of, resample=("speaker", "session"))
    with pytest.raises(ValueError, match="must include 'speaker'"):
        trial_bootstrap_ci(e, t, sc, lab, speaker_of=spk_of, resample=("id",))
    with pytest.raises(ValueError, match="`same_speaker`"):
        trial_bootstrap_ci(e, t, sc, lab, speaker_of=spk_of, same_speaker="twice")
    with pytest.raises(ValueError, match="one entry per trial"):
        trial_bootstrap_ci(e, t[:-1], sc, lab, speaker_of=spk_of)
    with pytest.raises(ValueError, match="one entry per trial"):
        trial_bootstrap_ci(e, t, sc[:-1], lab, speaker_of=spk_of)
    with pytest.raises(TypeError, match="`speaker_of` must map"):
        trial_bootstrap_ci(e, t, sc, lab, speaker_of=[1, 2])
    with pytest.raises(ValueError, match="single speaker"):
        trial_bootstrap_ci(e, t, sc, lab, speaker_of={k: 0 for k in spk_of})
