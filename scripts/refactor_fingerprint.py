"""Fingerprint of results across moved code: run before and after a refactoring, compare.

Prints one md5 per result (its repr and its warnings): compare, Scores intervals (both
labellings, lazy, Poisson, subsampled, smoothed, a user's function), metric_by_group and
bootstrap_ci of several metrics and methods, iid, over conditions, strata, two-stage,
Poisson, nested.  From helper split's check (session 10), extended by split2.

    PYTHONPATH=src python scripts/refactor_fingerprint.py > before.txt
    (move code)
    PYTHONPATH=src python scripts/refactor_fingerprint.py | diff before.txt -
"""

# ruff: noqa: B023
# (each lambda is called at once, inside rec, with the loop's values)
import hashlib

import numpy as np
from fingerprint_record import recorder

import mlci
from mlci.scores.curves import auc_ci, operating_point_ci, partial_auc, roc_band, roc_with_ci
from mlci.scores.verification import cllr_ci, dcf_ci, eer_ci

out = {}
rec = recorder(out)

g = np.random.default_rng(1)
n = 300
y = g.integers(0, 2, n)
cond = g.integers(0, 30, n)
a = np.where(g.random(n) < 0.9, y, 1 - y)
b = np.where(g.random(n) < 0.8, y, 1 - y)
c = np.where(g.random(n) < 0.97, y, 1 - y)
s1 = y + g.normal(0, 1, n)
s2 = y + g.normal(0, 1.3, n)
for m in ("accuracy", "f1", "balanced_accuracy", "mcc"):
    for meth in ("auto", "bca", "percentile", "studentized", "t"):
        rec(
            ("cmp", m, meth),
            lambda: mlci.compare(
                y, {"A": a, "B": b, "C": c}, metric=m, method=meth, rng=0, n_resamples=200
            ),
        )
        rec(
            ("cmpc", m, meth),
            lambda: mlci.compare(
                y,
                {"A": a, "B": b, "C": c},
                metric=m,
                method=meth,
                rng=0,
                n_resamples=200,
                conditions=cond,
            ),
        )
rec(
    ("cmp", "auc"),
    lambda: mlci.compare(y, {"A": s1, "B": s2}, metric="roc_auc", rng=0, n_resamples=200),
)
rec(
    ("cmpc", "auc"),
    lambda: mlci.compare(
        y, {"A": s1, "B": s2}, metric="roc_auc", rng=0, n_resamples=200, conditions=cond
    ),
)
rec(
    ("cmp", "ref", "maxt"),
    lambda: mlci.compare(
        y,
        {"A": a, "B": b, "C": c},
        metric="accuracy",
        reference="A",
        correction="maxt",
        rng=0,
        n_resamples=200,
        margin=0.05,
    ),
)
rec(
    ("cmp", "mean"),
    lambda: mlci.compare(None, {"A": s1, "B": s2}, metric="mean", rng=0, n_resamples=200),
)
rec(
    ("cmp", "few"),
    lambda: mlci.compare(y[:40], {"A": a[:40], "B": c[:40]}, metric="f1", rng=0, n_resamples=200),
)
yy = np.r_[np.ones(25), np.zeros(200)]
sa = np.r_[g.normal(3, 1, 25), g.normal(0, 1, 200)]
sb = np.r_[g.normal(2.5, 1, 25), g.normal(0, 1, 200)]
rec(
    ("cmp", "edgeauc"),
    lambda: mlci.compare(yy, {"A": sa, "B": sb}, metric="roc_auc", rng=0, n_resamples=200),
)
rec(
    ("cmp", "ece"),
    lambda: mlci.compare(
        y,
        {"A": 1 / (1 + np.exp(-s1)), "B": 1 / (1 + np.exp(-s2))},
        metric="ece",
        rng=0,
        n_resamples=200,
    ),
)
sc = mlci.Scores.from_labels(y, s1)
sc0 = mlci.Scores.from_labels(y, s1, pos_label=0)
for label, S in (("s", sc), ("s0", sc0)):
    for meth in ("auto", "bca", "percentile"):
        rec((label, "auc", meth), lambda: auc_ci(S, rng=0, n_resamples=200, method=meth))
        rec(
            (label, "pauc", meth),
            lambda: auc_ci(S, rng=0, n_resamples=200, method=meth, max_fpr=0.3, mcclish=True),
        )
        rec(
            (label, "op", meth),
            lambda: operating_point_ci(
                S, "fnr", at=[0.05, 0.2], rng=0, n_resamples=200, method=meth
            ),
        )
        rec(
            (label, "opc", meth),
            lambda: operating_point_ci(
                S, "tpr", at=0.1, rng=0, n_resamples=200, method=meth, conditions=cond
            ),
        )
        rec((label, "eer", meth), lambda: eer_ci(S, rng=0, n_resamples=200, method=meth))
        rec(
            (label, "eerc", meth),
            lambda: eer_ci(S, rng=0, n_resamples=200, method=meth, conditions=cond),
        )
        rec((label, "dcf", meth), lambda: dcf_ci(S, 0.1, rng=0, n_resamples=200, method=meth))
        rec(
            (label, "lazy"),
            lambda: S.bootstrap_ci(
                "eer", rng=0, n_resamples=200, resampling=mlci.Resampling(algorithm="lazy")
            ),
        )
        rec(
            (label, "lazyst"),
            lambda: S.bootstrap_ci(
                "fnr_at_fpr",
                at=0.1,
                rng=0,
                n_resamples=200,
                resampling=mlci.Resampling(algorithm="lazy", stratify=True),
            ),
        )
        rec(
            (label, "lazyp"),
            lambda: S.bootstrap_ci(
                "eer",
                rng=0,
                n_resamples=200,
                resampling=mlci.Resampling(algorithm="lazy", weights="poisson"),
            ),
        )
        rec((label, "sub"), lambda: S.bootstrap_ci("eer", rng=0, n_resamples=200, subsample=0.5))
        rec(
            (label, "smooth"), lambda: S.bootstrap_ci("auc", rng=0, n_resamples=100, smoothing=True)
        )
        rec((label, "fn"), lambda: S.bootstrap_ci(lambda s: s.auc(), rng=0, n_resamples=100))
        rec(
            (label, "prec"),
            lambda: S.bootstrap_ci(
                "precision",
                threshold=0.5,
                rng=0,
                n_resamples=200,
                conditions=cond,
                method="percentile",
            ),
        )
        rec((label, "pauc"), lambda: partial_auc(S, 0.4))
        rec(
            (label, "band"),
            lambda: roc_band(
                S, np.linspace(0.1, 0.5, 5), rng=0, n_resamples=200, simultaneous=True
            ),
        )
        rec((label, "rwci"), lambda: roc_with_ci(S, rng=0, n_resamples=100))
        rec((label, "cllr"), lambda: cllr_ci(S, rng=0, n_resamples=200))
        rec((label, "sample"), lambda: S.bootstrap_sample(rng=3).auc())
        rec((label, "sample2"), lambda: S.bootstrap_sample(rng=3, weights="poisson").auc())
grp = g.integers(0, 4, n)
for pl in (None, 0):
    for m in ("auc", "eer", "fnr_at_fpr"):
        kw = {"at": 0.1} if m == "fnr_at_fpr" else {}
        rec(
            ("grp", pl, m),
            lambda: mlci.metric_by_group(
                y, s1, groups=grp, metric=m, pos_label=pl, rng=0, n_resamples=200, **kw
            ),
        )
# bootstrap_ci: metrics x methods, iid / conditions / strata / two-stage / poisson
yc = np.where(g.random(n) < 0.85, y, 1 - y)
reg_t = g.normal(0, 1, n)
reg_p = reg_t + g.normal(0, 0.5, n)
strata = g.integers(0, 3, n)
for m in ("accuracy", "f1", "balanced_accuracy", "mcc", "precision", "recall"):
    for meth in ("auto", "bca", "percentile", "studentized", "basic"):
        rec(
            ("bci", m, meth),
            lambda: mlci.bootstrap_ci(y, yc, metric=m, method=meth, rng=0, n_resamples=200),
        )
        rec(
            ("bcic", m, meth),
            lambda: mlci.bootstrap_ci(
                y, yc, metric=m, method=meth, rng=0, n_resamples=200, conditions=cond
            ),
        )
    rec(
        ("bcis", m),
        lambda: mlci.bootstrap_ci(y, yc, metric=m, rng=0, n_resamples=200, strata=strata),
    )
    rec(
        ("bci2s", m),
        lambda: mlci.bootstrap_ci(
            y,
            yc,
            metric=m,
            rng=0,
            n_resamples=200,
            conditions=cond,
            resampling=mlci.Resampling(two_stage=True),
        ),
    )
    rec(
        ("bcip", m),
        lambda: mlci.bootstrap_ci(
            y, yc, metric=m, rng=0, n_resamples=200, resampling=mlci.Resampling(weights="poisson")
        ),
    )
for m in ("roc_auc", "average_precision", "log_loss", "brier"):
    p = 1 / (1 + np.exp(-s1))
    for meth in ("auto", "bca", "percentile"):
        rec(
            ("bci", m, meth),
            lambda: mlci.bootstrap_ci(y, p, metric=m, method=meth, rng=0, n_resamples=200),
        )
        rec(
            ("bcic", m, meth),
            lambda: mlci.bootstrap_ci(
                y, p, metric=m, method=meth, rng=0, n_resamples=200, conditions=cond
            ),
        )
for m in ("mae", "rmse", "r2"):
    for meth in ("auto", "bca", "t"):
        rec(
            ("bci", m, meth),
            lambda: mlci.bootstrap_ci(reg_t, reg_p, metric=m, method=meth, rng=0, n_resamples=200),
        )
        rec(
            ("bcic", m, meth),
            lambda: mlci.bootstrap_ci(
                reg_t, reg_p, metric=m, method=meth, rng=0, n_resamples=200, conditions=cond
            ),
        )
rec(
    ("bci", "nested"),
    lambda: mlci.bootstrap_ci(
        y, yc, metric="accuracy", rng=0, n_resamples=200, conditions=[cond, strata]
    ),
)
rec(
    ("bci", "fn"),
    lambda: mlci.bootstrap_ci(
        y, yc, metric=lambda a, b: float(np.mean(a == b)), rng=0, n_resamples=100
    ),
)
rec(
    ("bci", "multi"),
    lambda: mlci.bootstrap_ci(
        y, yc, metric="accuracy", rng=0, n_resamples=200, confidence_level=[0.9, 0.95]
    ),
)
rec(
    ("bci", "batch"),
    lambda: mlci.bootstrap_ci(y, yc, metric="f1", rng=0, n_resamples=300, batch=7, n_jobs=2),
)
rec(
    ("bci", "jk"),
    lambda: mlci.bootstrap_ci(
        y, yc, metric="f1", rng=0, n_resamples=200, conditions=cond, method="bca"
    ),
)
for m in ("accuracy", "f1"):
    rec(
        ("grpcm", m),
        lambda: mlci.metric_by_group(
            y, yc, groups=grp, metric=m, threshold=0.5, rng=0, n_resamples=200
        ),
    )
    rec(
        ("grpcmc", m),
        lambda: mlci.metric_by_group(
            y, yc, groups=grp, metric=m, threshold=0.5, rng=0, n_resamples=200, conditions=cond
        ),
    )
rec(
    ("grpres",),
    lambda: (lambda r: (r.rows(), repr(r)))(
        mlci.metric_by_group(
            y, yc, groups=grp, metric="accuracy", threshold=0.5, rng=0, n_resamples=200
        )
    ),
)
for k, v in sorted(out.items(), key=repr):
    print(
        k,
        hashlib.md5(repr(v).encode()).hexdigest(),
        "ERR" if "ERR" in v[0][:12] else "",
        v[0][:150] if "ERR" in v[0][:12] else "",
    )
