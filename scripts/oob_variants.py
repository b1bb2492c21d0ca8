"""The out-of-bag interval variants tried for oob_ci (docs/validation.md, "Out-of-bag
predictions of a forest"), on the data of the protocols study's OOB cells.

``variants CELL --reps N``: per data set a 50-tree forest (as in the study) and its
truth on the study's fresh sample; the plain out-of-bag estimate, its extrapolation to
all trees in ``1/k`` and in ``1/sqrt(k)`` (mlci.protocols.oob.oob_extrapolation), and
the standard errors: the test-set one, the trees' bootstrap (oob_member_bootstrap),
Efron's (1992) jackknife-after-bootstrap and Efron & Tibshirani's (1997) delta method
on the per-tree losses (mlci.protocols.bootstrap632.oob_standard_error; for the MSE on
the linearised per-tree loss).  Prints bias and spread against the fitted forest's
metric, the mean standard errors and the normal intervals' coverage.

``curve --reps N``: the error of a vote of ``k`` trees, ``k`` = 2 ... 50: the forest's own
trees on fresh data against ``k`` of each sample's out-of-bag trees.

    PYTHONPATH=src python scripts/oob_variants.py variants oob-rf-acc-n200 --reps 200
    PYTHONPATH=src python scripts/oob_variants.py curve --reps 60
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
import zlib
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import protocols_study as ps  # noqa: E402

from mlci.protocols.bootstrap632 import oob_standard_error  # noqa: E402
from mlci.protocols.oob import (  # noqa: E402
    oob_extrapolation,
    oob_member_bootstrap,
    tree_predictions,
)


def _loss(y, mean, reg):
    """Per-sample loss of mean predictions (..., n[, 2])."""
    if reg:
        return (y - mean) ** 2
    return (np.argmax(mean, axis=-1) != y).astype(float)


def _jackknife_after_bootstrap(p, oob, y, reg):
    """Efron (1992): the out-of-bag loss without sample j, from the trees that leave
    out both i and j, for every j at once (n x n)."""
    o = oob.astype(float)
    q = p if reg else p[..., 1]
    num, den = (o * q).T @ o, o.T @ o
    with np.errstate(invalid="ignore", divide="ignore"):
        f = num / den
    lm = (y[:, None] - f) ** 2 if reg else ((f > 0.5).astype(int) != y[:, None]).astype(float)
    lm[den == 0] = np.nan
    np.fill_diagonal(lm, np.nan)
    theta = np.nanmean(lm, axis=0)
    n = len(y)
    return float(np.sqrt((n - 1) / n * np.sum((theta - theta.mean()) ** 2)))


def variants(cell_name, reps, n_trees):
    from sklearn.base import clone

    cell = next(c for c in ps.CELLS if c.name == cell_name)
    reg = cell.metric == "mse"
    f = ps.fresh(cell)
    rows = []
    for i in range(reps):
        data_ss, fit_ss = np.random.SeedSequence([zlib.crc32(cell.name.encode()), i, 7]).spawn(2)
        s = ps.draw(cell.dist, np.random.default_rng(data_ss), cell.n)
        g = np.random.default_rng(fit_ss)
        model = clone(ps.learner(cell.learner)).set_params(
            n_estimators=n_trees, random_state=int(g.integers(2**31 - 1))
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a sample without out-of-bag trees
            model.fit(s.x, s.y)
        truth = ps.true_metric(cell, model, f)
        truth = truth if reg else 1 - truth  # error rate
        p, counts = tree_predictions(model, s.x)
        keep = (counts == 0).any(axis=0)
        p, counts, y = p[:, keep], counts[:, keep], s.y[keep]
        oob = counts == 0
        mean = np.einsum("bn,bn...->n...", oob, p) / oob.sum(0).reshape((-1,) + (1,) * (p.ndim - 2))
        loss = _loss(y, mean, reg)

        def score(m, y=y):
            return _loss(y, m, reg).mean(axis=-1)

        row = {"truth": truth, "oob": loss.mean(), "se_test": loss.std(ddof=1) / np.sqrt(len(y))}
        for power in (1.0, 0.5):
            row[f"extrap_p{power}"] = oob_extrapolation(p, oob, score, power=power, rng=g)[0]
        row["se_trees"] = np.std(oob_member_bootstrap(p, oob, score, rng=g), ddof=1)
        row["se_jab"] = _jackknife_after_bootstrap(p, oob, y, reg)
        if reg:  # linearised per-tree loss: its out-of-bag mean is the loss of the mean
            per_tree = loss - 2 * (y - mean) * (p - mean)
        else:  # the per-tree 0/1 loss (the statistic Err1 of the trees, not the vote)
            per_tree = _loss(y, p, reg)
        _, se_dm, se_dm_adj = oob_standard_error(counts, np.where(oob, per_tree, 0.0))
        row["se_delta"], row["se_delta_adj"] = se_dm, se_dm_adj
        rows.append(row)
    a = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
    t = a["truth"]
    what = "MSE" if reg else "error rate"
    print(f"{cell_name}, {n_trees} trees, {reps} data sets ({what})")
    print(f"  mean truth {t.mean():.4f}")
    for k in ("oob", "extrap_p1.0", "extrap_p0.5"):
        e = a[k]
        print(
            f"  {k:12s} bias {np.mean(e - t):+.4f} ± {np.std(e - t) / np.sqrt(reps):.4f}"
            f"   sd(estimate - truth) {np.std(e - t, ddof=1):.4f}"
        )
    for k in ("se_test", "se_trees", "se_jab", "se_delta", "se_delta_adj"):
        print(f"  mean {k:13s} {np.nanmean(a[k]):.4f}  (undefined in {np.isnan(a[k]).mean():.2f})")
    combined = np.hypot(a["se_test"], a["se_trees"])
    best = "extrap_p0.5" if not reg else "extrap_p1.0"
    for est in ("oob", best):
        for name, se in (("se_test", a["se_test"]), ("se_test+se_trees", combined)):
            cov = np.mean(np.abs(a[est] - t) <= 1.959964 * se)
            print(f"  coverage of the forest: {est} ± z·{name}: {cov:.3f}")


def curve(reps):
    from sklearn.ensemble import RandomForestClassifier

    cell = next(c for c in ps.CELLS if c.name == "oob-rf-acc-n200")
    f = ps.fresh(cell)
    fx, ft = f.x[:5000], f.truth[:5000]
    ks = [2, 3, 4, 6, 9, 12, 50]
    res_t, res_o = [], []
    for i in range(reps):
        g = np.random.default_rng([5, i])
        s = ps.draw(cell.dist, g, 200)
        m = RandomForestClassifier(50, min_samples_leaf=2, random_state=i).fit(s.x, s.y)
        pf = np.array([t.predict_proba(fx)[:, 1] for t in m.estimators_])
        p, counts = tree_predictions(m, s.x)
        p, oob = p[..., 1], counts == 0
        rt, ro = [], []
        for k in ks:
            et, eo = [], []
            for _ in range(10 if k < 50 else 1):
                fm = pf[g.permutation(50)[:k]].mean(0)
                et.append(np.mean(np.where(fm > 0.5, 1 - ft, ft)))
                if k < 50:
                    key = np.where(oob, g.random(oob.shape), np.inf)
                    chosen = oob & (key.argsort(0).argsort(0) < k)
                    ok = oob.sum(0) >= k
                    fo = (chosen * p).sum(0)[ok] / k
                    eo.append(np.mean((fo > 0.5) != s.y[ok]))
            rt.append(np.mean(et))
            ro.append(np.mean(eo) if eo else np.nan)
        res_t.append(rt)
        res_o.append(ro)
    res_t, res_o = np.array(res_t), np.array(res_o)
    print(f"error of a vote of k trees, {reps} data sets (n = 200, 50-tree forests)")
    print("  k                        ", ks)
    print("  forest's trees, fresh x  ", res_t.mean(0).round(4).tolist())
    print("  out-of-bag trees         ", np.round(res_o[:, :-1].mean(0), 4).tolist())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["variants", "curve"])
    ap.add_argument("cell", nargs="?", default="oob-rf-acc-n200")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--trees", type=int, default=50)
    a = ap.parse_args(argv)
    if a.what == "variants":
        variants(a.cell, a.reps, a.trees)
    else:
        curve(a.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
