"""Fingerprint of ConfusionMatrix.bootstrap_ci and agreement_ci (session 11, review11):
127 calls (binary, 3-class and clustered confusion matrices; agreement over items, raters
and both, every method, two levels), each interval, its details' keys and the sum of its
replicates.  Prints the count and a sha256 and writes every line to the file named.

    PYTHONPATH=src python scripts/fingerprint_options_call.py /tmp/before.txt
"""

import hashlib
import sys
import warnings

import numpy as np

import mlci
from mlci.scores.confusion import ConfusionMatrix

warnings.simplefilter("ignore")
out = []


def rec(tag, r):
    out.append(
        repr(
            (
                tag,
                r.method,
                r.estimate if np.ndim(r.estimate) == 0 else np.asarray(r.estimate).tolist(),
                np.asarray(r.confidence_interval.low).tolist(),
                np.asarray(r.confidence_interval.high).tolist(),
                r.confidence_level,
                r.alternative,
                sorted(r.details.keys()),
                float(np.sum(r.bootstrap_distribution))
                if getattr(r, "bootstrap_distribution", None) is not None
                else None,
            )
        )
    )


g = np.random.default_rng(3)
y = g.integers(0, 2, 400)
a = np.where(g.random(400) < 0.85, y, 1 - y)
cm = ConfusionMatrix(matrix=[[90, 10], [30, 870]], binary=True)
cms = ConfusionMatrix(y, a)
for metric in ("tpr", "accuracy", "f1", "mcc", "balanced_accuracy", "fpr"):
    for method in ("auto", "percentile", "bca"):
        for lv, alt in ((0.95, "two-sided"), (0.9, "less")):
            rec(
                ("cm", metric, method, lv, alt),
                cm.bootstrap_ci(
                    metric,
                    rng=1,
                    n_resamples=300,
                    method=method,
                    confidence_level=lv,
                    alternative=alt,
                ),
            )
rec(("cm-fbeta",), cm.bootstrap_ci("fbeta", metric_kwargs={"beta": 2.0}, rng=2, n_resamples=300))
if cms is not None:
    cond = np.arange(400) % 20
    for metric in ("accuracy", "f1", "tpr"):
        for method in ("auto", "bca", "studentized"):
            try:
                rec(
                    ("cms", metric, method),
                    cms.bootstrap_ci(
                        metric, rng=0, n_resamples=300, method=method, conditions=cond
                    ),
                )
            except Exception as e:
                out.append(repr(("cms-err", metric, method, type(e).__name__, str(e)[:80])))
# 3 classes
y3 = g.integers(0, 3, 300)
a3 = np.where(g.random(300) < 0.7, y3, g.integers(0, 3, 300))
c3 = ConfusionMatrix(y3, a3)
for metric, av in (("f1", "macro"), ("accuracy", None), ("cohen_kappa", None)):
    try:
        rec(("c3", metric, av), c3.bootstrap_ci(metric, average=av, rng=5, n_resamples=300))
    except Exception as e:
        out.append(repr(("c3-err", metric, type(e).__name__, str(e)[:80])))
# agreement
R = g.integers(1, 4, size=(40, 9)).astype(float)
mask = g.random(R.shape) < 0.7
R = np.where(mask, np.repeat(g.integers(1, 4, 40), 9).reshape(40, 9), R)
R4 = R[:, :4]
for metric in ("krippendorff_alpha", "fleiss_kappa"):
    for resample in ("items", "raters", "both"):
        for method in ("auto", "bca", "percentile"):
            for lv, alt in ((0.95, "two-sided"), (0.9, "greater")):
                for RR in (R, R4):
                    try:
                        rec(
                            ("agr", metric, resample, method, lv, alt, RR.shape),
                            mlci.agreement_ci(
                                RR,
                                metric=metric,
                                resample=resample,
                                method=method,
                                confidence_level=lv,
                                alternative=alt,
                                rng=4,
                                n_resamples=200,
                            ),
                        )
                    except Exception as e:
                        out.append(
                            repr(("agr-err", metric, resample, method, type(e).__name__, str(e)))
                        )
for lvl in ("ordinal", "interval"):
    rec(("agr-lvl", lvl), mlci.agreement_ci(R, level_of_measurement=lvl, rng=0, n_resamples=200))
for method in ("studentized", "t"):
    try:
        mlci.agreement_ci(R, resample="raters", method=method, rng=0, n_resamples=200)
    except Exception as e:
        out.append(repr(("agr-err2", method, type(e).__name__, str(e))))
    rec(
        ("agr-items", method),
        mlci.agreement_ci(R, metric="fleiss_kappa", method=method, rng=0, n_resamples=200),
    )
txt = "\n".join(out)
print(len(out), "calls; sha256", hashlib.sha256(txt.encode()).hexdigest())
open(sys.argv[1], "w").write(txt + "\n")
