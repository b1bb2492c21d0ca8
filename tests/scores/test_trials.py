"""Tests of the joint bootstrap for verification trials (mlci.verification_trials)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score, roc_curve

import mlci
from mlci.scores.trials import EerKernel, trial_bootstrap_ci, trial_weights


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


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")
def test_same_distribution_as_loop_baseline():
    e, t, sc, lab, spk_of, _ = _trials(n_spk=15, per=4, seed=3)
    fast = trial_bootstrap_ci(
        lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, metric="eer", n_resamples=1500, rng=0
    )
    rng = np.random.default_rng(0)
    slow = np.array([eer_reference(lab, sc, _loop_weights(e, t, spk_of, rng)) for _ in range(1500)])
    assert fast.estimate == pytest.approx(eer_reference(lab, sc))
    assert fast.standard_error == pytest.approx(np.std(slow, ddof=1), rel=0.1)
    assert np.mean(fast.bootstrap_distribution) == pytest.approx(np.mean(slow), abs=0.004)


def test_roc_auc_callable_and_levels():
    e, t, sc, lab, spk_of, ses_of = _trials(seed=4)
    r1 = trial_bootstrap_ci(
        lab,
        sc,
        enroll_ids=e,
        test_ids=t,
        speaker_of=spk_of,
        metric="roc_auc",
        n_resamples=200,
        rng=5,
    )
    assert r1.estimate == pytest.approx(roc_auc_score(lab, sc))
    r2 = trial_bootstrap_ci(
        lab,
        sc,
        enroll_ids=e,
        test_ids=t,
        speaker_of=spk_of,
        metric=roc_auc_score,
        n_resamples=200,
        rng=5,
    )
    # same weights, same metric: identical distributions
    np.testing.assert_allclose(r1.bootstrap_distribution, r2.bootstrap_distribution)
    r3 = trial_bootstrap_ci(
        lab,
        sc,
        enroll_ids=e,
        test_ids=t,
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
        lab,
        sc,
        enroll_ids=e,
        test_ids=t,
        speaker_of=spk_of,
        same_speaker="product",
        n_resamples=400,
        rng=5,
    )
    once = trial_bootstrap_ci(
        lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, n_resamples=400, rng=5
    )
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
        lab,
        sc,
        enroll_ids=ids[e],
        test_ids=ids[t],
        speaker_of=spk_of,
        metric="eer",
        n_resamples=500,
        rng=0,
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
    with mlci.config_context(batch=1):
        a = trial_bootstrap_ci(
            lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, n_resamples=100, rng=3
        )
    b = trial_bootstrap_ci(
        lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, n_resamples=100, rng=3
    )
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


def test_bad_inputs():
    e, t, sc, lab, spk_of, _ = _trials(n_spk=5)
    partial = {k: v for k, v in spk_of.items() if k not in ("r0", "r3")}
    with pytest.raises(
        ValueError,
        match=r"2 id\(s\) of the trials are missing from "
        r"`speaker_of`: 'r0', 'r3'",
    ):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=t, speaker_of=partial)
    with pytest.raises(ValueError, match="`session_of` is None"):
        trial_bootstrap_ci(
            lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, resample=("speaker", "session")
        )
    with pytest.raises(ValueError, match="must include 'speaker'"):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, resample=("id",))
    with pytest.raises(ValueError, match="`same_speaker`"):
        trial_bootstrap_ci(
            lab, sc, enroll_ids=e, test_ids=t, speaker_of=spk_of, same_speaker="twice"
        )
    with pytest.raises(ValueError, match="`test_ids` has 189 samples"):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=t[:-1], speaker_of=spk_of)
    with pytest.raises(ValueError, match="`y_score` has 189 samples"):
        trial_bootstrap_ci(lab, sc[:-1], enroll_ids=e, test_ids=t, speaker_of=spk_of)
    with pytest.raises(TypeError, match="`speaker_of` must map"):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=t, speaker_of=[1, 2])
    with pytest.raises(ValueError, match="single speaker"):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=t, speaker_of={k: 0 for k in spk_of})


def _eer_on_weights(lab, sc, w):
    k = EerKernel(lab, sc)
    return np.array([k.evaluate(np.bincount(k.keys, weights=r, minlength=k.m)[None])[0] for r in w])


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")
@pytest.mark.parametrize("rule", ["once", "product"])
@pytest.mark.parametrize("n_spk", [6, 40])
def test_speaker_count_path_equals_trial_weights(rule, n_spk):
    # the fast EER path (speaker counts, windows, quadratic forms) must give exactly the
    # EER of the trial weights that trial_weights draws from the same seed; with 6
    # speakers most replicates leave the narrow windows and use the fallbacks
    e, t, sc, lab, spk_of, _ = _trials(n_spk=n_spk, per=4, seed=11)
    sc = np.round(sc, 1)  # ties
    with mlci.config_context(batch=7):
        res = trial_bootstrap_ci(
            lab,
            sc,
            enroll_ids=e,
            test_ids=t,
            speaker_of=spk_of,
            same_speaker=rule,
            n_resamples=300,
            rng=4,
        )
    w = trial_weights(e, t, speaker_of=spk_of, same_speaker=rule, n_resamples=300, rng=4)
    ref = _eer_on_weights(lab, sc, w)
    np.testing.assert_array_equal(np.isnan(res.bootstrap_distribution), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(res.bootstrap_distribution[ok], ref[ok], rtol=0, atol=1e-13)
    # and each value is the crossing of scikit-learn's ROC polyline
    for r in range(0, 300, 60):
        if ok[r]:
            assert res.bootstrap_distribution[r] == pytest.approx(
                eer_reference(lab, sc, w[r]), abs=1e-12
            )


def test_speaker_count_path_jackknife_equals_trial_path():
    # the trial sampler's jackknife rows (delete one group of speakers), in both of its
    # representations (speaker counts, trial weights), give the same EERs
    from mlci.engine.bootstrap import jackknife_values
    from mlci.scores.trials import SpeakerEer, _prepare, _trial_evaluator, _TrialSampler

    e, t, sc, lab, spk_of, _ = _trials(n_spk=25, per=3, seed=12)
    seed = np.random.SeedSequence(0)
    tr1, _ = _prepare(e, t, spk_of, None, ("speaker",), "once")
    fast = SpeakerEer(tr1, lab, sc)
    s1 = _TrialSampler(tr1, 10, seed, speaker_counts=True)
    j1, m1 = jackknife_values(fast.evaluate, s1, 10)
    tr2, _ = _prepare(e, t, spk_of, None, ("speaker",), "once")
    slow, _, _ = _trial_evaluator(tr2, "eer", lab, sc)
    j2, _ = jackknife_values(slow, _TrialSampler(tr2, 10, seed), 10)
    np.testing.assert_allclose(j1, j2, atol=1e-13)
    assert len(j1) == 10 and np.all(m1 == 1)


def test_many_speakers_sparse_pair_form():
    # more speakers than a dense pair-count matrix allows: the sparse product must agree
    from mlci.scores.trials import _PairForm

    rng = np.random.default_rng(13)
    n_cols = 3000
    a, b = rng.integers(0, n_cols, 5000), rng.integers(0, n_cols, 5000)
    form = _PairForm(a, b, n_cols)
    assert not isinstance(form.mat, np.ndarray)
    k = rng.integers(0, 4, (5, n_cols)).astype(float)
    np.testing.assert_array_equal(form(k), (k[:, a] * k[:, b]).sum(axis=1))


def test_string_ids_factorised_like_numpy_unique():
    from mlci.scores.trials import _factorize

    vals = np.array(["b", "a", "c", "a", "b10", "b"], dtype=object)
    ids, inv = _factorize(vals)
    ref_ids, ref_inv = np.unique(vals, return_inverse=True)
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_array_equal(inv, ref_inv)
    with pytest.raises(TypeError, match="ids of one type"):
        _factorize(np.array(["a", 1, "b"], dtype=object))


# --- issue 8
def test_labels_through_the_gate():
    e, t, sc, lab, spk_of, _ = _trials(n_spk=20, per=3, seed=14)
    kw = dict(enroll_ids=e, test_ids=t, speaker_of=spk_of, n_resamples=50, rng=0)
    # more than two classes with pos_label used to be one-vs-rest, silently
    three = np.where(lab, 1, np.arange(len(lab)) % 2 * 2)
    with pytest.raises(ValueError, match="needs binary labels, but `y_true` takes 3 values"):
        trial_bootstrap_ci(three, sc, pos_label=1, **kw)
    words = np.where(lab, "target", "nontarget")
    with pytest.raises(ValueError, match="`pos_label` is not specified"):
        trial_bootstrap_ci(words, sc, **kw)
    a = trial_bootstrap_ci(lab, sc, **kw)
    b = trial_bootstrap_ci(words, sc, pos_label="target", **kw)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    # a None among the labels of a pandas object column: named, or dropped and counted
    s = pd.Series(words, dtype=object)
    s[[0, 5]] = None
    with pytest.raises(ValueError, match=r"`y_true` has 2 missing value.* rows 0, 5"):
        trial_bootstrap_ci(s, sc, pos_label="target", **kw)
    r = trial_bootstrap_ci(s, sc, pos_label="target", dropna=True, **kw)
    assert r.details["n_dropped"] == 2 and r.details["n_trials"] == len(lab) - 2
    # data= with column names
    df = pd.DataFrame({"y": lab, "s": sc, "e": e, "t": t})
    c = trial_bootstrap_ci("y", "s", enroll_ids="e", test_ids="t", data=df, speaker_of=spk_of,
                           n_resamples=50, rng=0)  # fmt: skip
    np.testing.assert_array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    with pytest.raises(ValueError, match="`pos_label` is an option of the built-in metrics"):
        trial_bootstrap_ci(lab, sc, metric=roc_auc_score, pos_label=True, **kw)


def test_speaker_map_and_ids_checked():
    e, t, sc, lab, spk_of, _ = _trials(n_spk=20, per=3, seed=15)
    kw = dict(n_resamples=50, rng=0)
    gaps = dict(spk_of)
    gaps["r4"] = None
    gaps["r7"] = float("nan")
    with pytest.raises(
        ValueError, match=r"`speaker_of` gives a missing value .* 2 id\(s\): 'r4', 'r7'"
    ):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=t, speaker_of=gaps, **kw)
    nums = {int(k[1:]): v for k, v in spk_of.items()}
    with pytest.raises(TypeError, match="`enroll_ids` holds strings but `test_ids` holds numbers"):
        trial_bootstrap_ci(lab, sc, enroll_ids=e, test_ids=[int(x[1:]) for x in t],
                           speaker_of={**spk_of, **nums}, **kw)  # fmt: skip


def test_one_sided_ends_at_the_range():
    e, t, sc, lab, spk_of, _ = _trials(seed=16)
    kw = dict(enroll_ids=e, test_ids=t, speaker_of=spk_of, n_resamples=200, rng=0)
    two = trial_bootstrap_ci(lab, sc, confidence_level=0.9, **kw)
    less = trial_bootstrap_ci(lab, sc, alternative="less", **kw)
    assert tuple(less.confidence_interval) == (0.0, two.confidence_interval.high)
    auc = trial_bootstrap_ci(lab, sc, metric="roc_auc", alternative="greater", **kw)
    assert auc.confidence_interval.high == 1.0
    with pytest.raises(ValueError, match="`alternative`"):
        trial_bootstrap_ci(lab, sc, alternative="one-sided", **kw)


def test_default_method_is_the_statistics_auto_rule():
    # issue 20, item 4: one method resolution; "auto" is the statistic's rule of the
    # score drivers (mlci.engine.scores_rules.scores_auto_method): the EER percentile, as eer_ci
    # (docs/validation.md, "The Scores statistics"), any other statistic BCa
    from mlci.engine.scores_rules import EER_REASON
    from mlci.inputs import AUTO_BCA_REASON

    e, t, sc, lab, spk_of, _ = _trials(seed=17)
    kw = dict(enroll_ids=e, test_ids=t, speaker_of=spk_of, n_resamples=200, rng=0)
    auto = trial_bootstrap_ci(lab, sc, **kw)
    pct = trial_bootstrap_ci(lab, sc, method="percentile", **kw)
    assert auto.method == "percentile" and auto.details["method_reason"] == EER_REASON
    assert tuple(auto.confidence_interval) == tuple(pct.confidence_interval)
    bca = trial_bootstrap_ci(lab, sc, method="bca", **kw)
    assert tuple(bca.confidence_interval) != tuple(auto.confidence_interval)
    auc = trial_bootstrap_ci(lab, sc, metric="roc_auc", **kw)
    assert auc.method == "bca" and auc.details["method_reason"] == AUTO_BCA_REASON
