"""The bundled real data of the correlation and WER examples, checked against their sources.

* ``mlci.data.load_sclite_csrnab()``: 51 utterances of NIST SCTK's sclite test data with
  sclite's per-utterance counts (``base/test1.pra``); their totals must be sclite's own
  summary of the same run (``base/test1.sys``), and every utterance's error count an
  independently computed word edit distance.
* ``mlci.data.load_summeval()``: SummEval's expert judgements (16 systems x 100 articles);
  mlci's correlations on them must be scipy's, and the values docs/correlations.md shows.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from scipy import stats

import mlci
from mlci.data import (
    SUMMEVAL_ASPECTS,
    SUMMEVAL_SYSTEMS,
    load_sclite_csrnab,
    load_summeval,
)

# ----------------------------------------------------------------------------------------
# sclite (WER)
# ----------------------------------------------------------------------------------------


def _edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Levenshtein distance between two word lists (unit costs), written out here."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i]
        for j, h in enumerate(hyp, 1):
            cur.append(min(prev[j - 1] + (r != h), prev[j] + 1, cur[j - 1] + 1))
        prev = cur
    return prev[-1]


def _alternatives(ref: str) -> list[list[str]]:
    """Every reading of a trn reference with sclite's alternations ``{ A / B }`` (``@``:
    no word), case-folded as ``sclite -i wsj``."""
    parts = re.split(r"(\{[^}]*\})", ref.lower())
    options = []
    for part in parts:
        if part.startswith("{"):
            options.append([[] if a.strip() == "@" else a.split() for a in part[1:-1].split("/")])
        else:
            options.append([part.split()])
    return [list(itertools.chain.from_iterable(c)) for c in itertools.product(*options)]


def test_sclite_totals_are_sclites_summary():
    # SCTK (usnistgov/SCTK 9688a26), src/sclite/testdata/base/test1.sys, the count table
    # of `sclite -r csrnab.ref -h csrnab.hyp -i wsj`: speaker, # Snt, # Wrd, Sub, Del,
    # Ins, Err
    sys_table = {
        "4t0": (15, 458, 64, 9, 12, 85),
        "4t1": (21, 544, 32, 3, 4, 39),
        "4t2": (15, 404, 35, 0, 10, 45),
    }
    d = load_sclite_csrnab()
    assert len(d["utterance"]) == 51
    assert (d["errors"] == d["substitutions"] + d["deletions"] + d["insertions"]).all()
    for spk, (snt, wrd, sub, dele, ins, err) in sys_table.items():
        m = d["speaker"] == spk
        got = (m.sum(), d["words"][m].sum(), d["substitutions"][m].sum())
        got += (d["deletions"][m].sum(), d["insertions"][m].sum(), d["errors"][m].sum())
        assert tuple(int(x) for x in got) == (snt, wrd, sub, dele, ins, err)
    res = mlci.bootstrap_ci(d["words"], d["errors"], metric="wer", n_resamples=200, rng=0)
    assert res.estimate == pytest.approx(169 / 1406, abs=1e-15)  # test1.sys: Sum 169 / 1406
    assert round(100 * res.estimate, 1) == 12.0  # test1.sys: Err 12.0


def test_sclite_counts_are_edit_distances():
    # Independent of sclite: the minimum number of word edits between the case-folded
    # transcripts, over the readings of the reference's alternations.  sclite minimises
    # a weighted cost (substitution 4, insertion and deletion 3), so its error count could
    # exceed the unit-cost distance; on these 51 utterances it never does, and the
    # reading it chose has as many words as its alignment's reference.
    d = load_sclite_csrnab()
    n_alternations = 0
    for ref, hyp, words, errors in zip(
        d["reference"], d["hypothesis"], d["words"], d["errors"], strict=True
    ):
        readings = _alternatives(str(ref))
        n_alternations += len(readings) > 1
        h = str(hyp).lower().split()
        best = min(_edit_distance(r, h) for r in readings)
        assert best == errors
        assert any(len(r) == words and _edit_distance(r, h) == errors for r in readings)
    assert n_alternations == 6


# ----------------------------------------------------------------------------------------
# SummEval (correlations)
# ----------------------------------------------------------------------------------------


def test_summeval_extract():
    d = load_summeval()
    assert d["systems"] == SUMMEVAL_SYSTEMS and len(d["doc_ids"]) == 100
    assert d["doc_ids"] == sorted(d["doc_ids"]) and len(set(d["doc_ids"])) == 100
    assert all(len(row) == 100 for row in d["summaries"]) and len(d["summaries"]) == 16
    assert all(len(refs) == 11 for refs in d["references"])
    for a in SUMMEVAL_ASPECTS:
        h = d["human"][a]
        assert h.shape == (16, 100)
        # the mean of three experts' 1-5 ratings: a multiple of 1/3
        assert np.allclose(3 * h, np.round(3 * h), atol=1e-12)
        assert h.min() >= 1 and h.max() <= 5
    # Independent copies of SummEval's annotations (found by code search in public
    # repositories' scripts, not BARTScore's pickle):
    # * a record of SummEval's own file (model_annotations.aligned.jsonl): M1 on
    #   dm-test-8764fb95..., the three experts' ratings coherence 2, 2, 3; consistency
    #   5, 5, 5; fluency 5, 5, 5; relevance 2, 4, 2, and its first reference "Andros
    #   Townsend an 83rd minute sub in Tottenham's draw with Burnley. ..." (untokenized);
    # * a record in UniEval's format (reproduce/data/summarization/summeval.json of
    #   maszhongming/UniEval): M11 on the same article, 1.3333333333333333, 1.0, 3.0,
    #   1.6666666666666667, summary "Paul merson was brought on ... arsenal news news .";
    # * a listing of expert means: M8 on it 1.67, 3.00, 4.67, 2.33; M20 on
    #   dm-test-f26d8400... 4.67, 5.00, 5.00, 4.00.
    j = d["doc_ids"].index("dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2")
    cell = {s: [d["human"][a][SUMMEVAL_SYSTEMS.index(s), j] for a in SUMMEVAL_ASPECTS]
            for s in ("M1", "M8", "M11")}  # fmt: skip
    assert cell["M1"] == pytest.approx([7 / 3, 5.0, 5.0, 8 / 3], abs=1e-15)
    assert cell["M11"] == [4 / 3, 1.0, 3.0, 5 / 3]
    assert np.round(cell["M8"], 2).tolist() == [1.67, 3.0, 4.67, 2.33]
    j20 = d["doc_ids"].index("dm-test-f26d8400ae49b90d109c165d0f44b8f6ca253c08")
    m20 = [d["human"][a][SUMMEVAL_SYSTEMS.index("M20"), j20] for a in SUMMEVAL_ASPECTS]
    assert np.round(m20, 2).tolist() == [4.67, 5.0, 5.0, 4.0]
    i = SUMMEVAL_SYSTEMS.index("M11")
    assert d["summaries"][i][j].startswith("Paul merson was brought on with only seven")
    assert d["summaries"][i][j].endswith("Click here for all the latest arsenal news news .")
    assert d["references"][j][0].startswith("Andros Townsend an 83rd minute sub in Tottenham 's")
    # system means of relevance, computed from BARTScore's data.pkl itself (numpy mean of
    # the pickle's 100 floats) when the extract was made
    means = d["human"]["relevance"].mean(axis=1)
    assert means[0] == pytest.approx(4.136666666666667, abs=1e-12)  # M0 (LEAD-3)
    assert means[-1] == pytest.approx(4.26, abs=1e-12)  # M23 (PEGASUS)


def _sentence_scores(name: str) -> np.ndarray:
    """sacreBLEU's sentence ``chrf`` or ``bleu`` of every summary against the article's
    original reference, (16 systems, 100 articles), as docs/correlations.md computes them."""
    sacrebleu = pytest.importorskip("sacrebleu")
    metric = {"chrf": sacrebleu.sentence_chrf, "bleu": sacrebleu.sentence_bleu}[name]
    d = load_summeval()
    refs = [r[0] for r in d["references"]]
    return np.array(
        [[metric(s, [r]).score for s, r in zip(row, refs, strict=True)] for row in d["summaries"]]
    )


@pytest.fixture(scope="module")
def summeval_scores():
    return _sentence_scores("chrf"), load_summeval()["human"]["relevance"]


@pytest.mark.parametrize("coefficient", ["kendall_tau", "spearman", "pearson"])
def test_summeval_correlations_are_scipys(summeval_scores, coefficient):
    chrf, human = summeval_scores
    scipy_corr = {
        "kendall_tau": stats.kendalltau,
        "spearman": stats.spearmanr,
        "pearson": stats.pearsonr,
    }[coefficient]
    expected = {
        "system": scipy_corr(chrf.mean(axis=1), human.mean(axis=1))[0],
        "global": scipy_corr(chrf.ravel(), human.ravel())[0],
        # mean over articles of the correlation across the 16 systems
        "item": np.mean([scipy_corr(chrf[:, j], human[:, j])[0] for j in range(100)]),
    }
    for level, value in expected.items():
        res = mlci.correlation_ci(
            chrf,
            human,
            coefficient=coefficient,
            correlation_level=level,
            resample="items",
            n_resamples=50,
            rng=0,
        )
        assert res.estimate == pytest.approx(value, abs=1e-12), level
    # the values docs/correlations.md shows (Kendall's tau-b of chrF with relevance)
    if coefficient == "kendall_tau":
        assert round(expected["system"], 3) == 0.517
        assert round(expected["item"], 3) == 0.204
        assert round(expected["global"], 3) == 0.230


def test_summeval_williams_is_steigers_formula(summeval_scores):
    # Williams' t in Steiger's (1980, eq. 7) form, written out here from the three
    # Pearson correlations of the 16 system means (scipy.stats.pearsonr): docs/correlations.md
    # shows estimate 0.161, p 0.3446 for chrF vs BLEU against relevance
    chrf, human = summeval_scores
    bleu = _sentence_scores("bleu")
    a, b, z = chrf.mean(axis=1), bleu.mean(axis=1), human.mean(axis=1)
    r12, r13, r23 = stats.pearsonr(a, z)[0], stats.pearsonr(b, z)[0], stats.pearsonr(a, b)[0]
    n = 16
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    t /= np.sqrt(2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3)
    p = 2 * stats.t.sf(abs(t), n - 3)
    res = mlci.compare_correlations(
        chrf, bleu, human, correlation_level="system", coefficient="pearson", variant="williams"
    )
    assert res.estimate == pytest.approx(r12 - r13, abs=1e-12)
    assert res.statistic == pytest.approx(t, abs=1e-10)
    assert res.pvalue == pytest.approx(p, abs=1e-12)
    assert (round(res.estimate, 3), round(res.pvalue, 4)) == (0.161, 0.3446)


def test_compare_correlations_global_pearson_with_repeated_cells():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 25))
    y = x + rng.normal(size=(12, 25))
    x[1], y[1] = x[0], y[0]  # system 1's cells repeat system 0's
    other = x + rng.normal(size=x.shape)
    # found on SummEval (identical summaries repeat chrF and BLEU): the global Pearson
    # kernel merges repeated cells, and compare_correlations evaluated it on one weight per
    # cell (a matmul size mismatch); the correlations are scipy's on the flat cells
    from scipy import stats

    res = mlci.compare_correlations(
        x, other, y, correlation_level="global", coefficient="pearson", variant="williams"
    )
    d = res.details
    np.testing.assert_allclose(d["correlation_a"], stats.pearsonr(x.ravel(), y.ravel())[0], 1e-12)
    np.testing.assert_allclose(
        d["correlation_b"], stats.pearsonr(other.ravel(), y.ravel())[0], 1e-12
    )
    np.testing.assert_allclose(
        d["correlation_ab"], stats.pearsonr(x.ravel(), other.ravel())[0], 1e-12
    )
    perm = mlci.compare_correlations(
        x, other, y, correlation_level="global", coefficient="pearson", n_resamples=200, rng=0
    )
    np.testing.assert_allclose(perm.statistic, d["correlation_a"] - d["correlation_b"], rtol=1e-10)


def test_shipped_files_are_what_the_scripts_write():
    # sha256 of the output of scripts/make_summeval_example.py (on BARTScore's data.pkl at
    # 248f511c) and scripts/make_sclite_example.py (on SCTK at 9688a26), as run when the
    # files were added; the scripts check the sha256 of their inputs, so rerunning them
    # on those inputs must give these bytes again
    import hashlib
    from importlib import resources

    expected = {
        "summeval/summaries.csv.gz": "7c60100c707f099f16e6b6a06cc68e27"
        "8fc006946f13351d1b7ae6d95c83023e",
        "summeval/references.csv.gz": "9de6bfbe36a3715c1f081366e1d90e5d"
        "26f2d22514070e96587bc95d8e051a89",
        "sclite_csrnab.csv": "fa4a0a90d297c41d5ca53516cbe2f8148604e7628efc5d0e8626c8cbe569d8e8",
    }
    base = resources.files("mlci.data")
    for name, sha in expected.items():
        assert hashlib.sha256(base.joinpath(name).read_bytes()).hexdigest() == sha, name
