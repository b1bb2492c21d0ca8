"""Bad inputs of every public function of mlci.mt and mlci.metrics.mt, the readers'
sacreBLEU conventions, WER, and documents as conditions."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

pytest.importorskip("sacrebleu")

import mlci
from mlci.metrics.mt import bleu_from_stats, chrf_from_stats
from mlci.mt import (
    mt_ci,
    mt_compare,
    paired_test,
    read_segments,
    read_systems,
    segment_statistics,
    synthetic_corpus,
    system_statistics,
)

C = synthetic_corpus(60, qualities=(0.6, 0.5), rng=0)
REFS = C.references


def test_read_segments_as_sacrebleu(tmp_path):
    f = tmp_path / "h.txt"
    # sacreBLEU opens with newline="\n": a lone \r is not a line break; rstrip() drops
    # trailing whitespace (and the \r of a CRLF line)
    f.write_bytes(b"a b  \r\nc\rd\n\n e\n")
    assert read_segments(f) == ["a b", "c\rd", "", " e"]
    g = tmp_path / "h.txt.gz"
    with gzip.open(g, "wt", encoding="utf-8") as fh:
        fh.write("x y\nz\n")
    assert read_segments(g) == ["x y", "z"]


def test_reader_errors(tmp_path):
    with pytest.raises(ValueError, match="`path`: no such file"):
        read_segments(tmp_path / "nope.txt")
    with pytest.raises(TypeError, match="`path` must be a path"):
        read_segments(5)
    e = tmp_path / "e.txt"
    e.write_text("")
    with pytest.raises(ValueError, match="is empty"):
        read_segments(e)
    b = tmp_path / "b.txt"
    b.write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_segments(b, name="references")
    a, c = tmp_path / "a.txt", tmp_path / "c.txt"
    a.write_text("1\n2\n")
    c.write_text("1\n")
    with pytest.raises(ValueError, match="different numbers of lines"):
        read_systems([a, c])
    with pytest.raises(ValueError, match="is given twice"):
        read_systems([a, a])
    with pytest.raises(TypeError, match="`systems` must be a non-empty list"):
        read_systems(str(a))


def test_statistics_bad_inputs():
    hyp = C.systems["sys0"]
    with pytest.raises(TypeError, match=r"`hypotheses` must be a list of strings.*got str"):
        segment_statistics("a b", REFS)
    with pytest.raises(ValueError, match="`hypotheses` is empty"):
        segment_statistics([], REFS)
    # a missing segment, as numpy, pandas or polars hold it, is named (issue 24)
    for missing in (None, float("nan")):
        with pytest.raises(ValueError, match="`hypotheses` has a missing value at segment 1"):
            segment_statistics(np.array(["a", missing], dtype=object), [["a", "b"]])
    with pytest.raises(ValueError, match="`references` has a missing value at segment 0"):
        segment_statistics(["a", "b"], [None, "b"])
    with pytest.raises(TypeError, match="`hypotheses` must hold strings; segment 1"):
        segment_statistics(["a", 3], [["a", "b"]])
    with pytest.raises(ValueError, match="`references` have 60 segments but `hypotheses` 59"):
        segment_statistics(hyp[:59], REFS)
    with pytest.raises(ValueError, match="different numbers of segments"):
        segment_statistics(hyp, [REFS[0], REFS[0][:5]])
    with pytest.raises(TypeError, match="`references` must be a list of reference streams"):
        segment_statistics(hyp, "ref")
    with pytest.raises(TypeError, match=r"`references\[0\]` must hold strings"):
        segment_statistics(["a"], [[3]])
    with pytest.raises(ValueError, match=r"`references\[0\]` has a missing value"):
        segment_statistics(["a"], [[None]])
    with pytest.raises(ValueError, match="`metric` must be one of"):
        segment_statistics(hyp, REFS, metric="ter")
    with pytest.raises(TypeError, match="`metric` must be one of"):
        segment_statistics(hyp, REFS, metric=None)
    with pytest.raises(ValueError, match="`smooth` do not apply to 'bleu'"):
        segment_statistics(hyp, REFS, metric_kwargs={"smooth": "exp"})
    with pytest.raises(TypeError, match="`metric_kwargs` must be a dict"):
        segment_statistics(hyp, REFS, metric_kwargs=["lowercase"])
    with pytest.raises(ValueError, match="`tokenize`='zz' is not a sacreBLEU tokenizer"):
        segment_statistics(hyp, REFS, metric_kwargs={"tokenize": "zz"})
    with pytest.raises(TypeError, match="`systems` must be a dict"):
        system_statistics(["a"], REFS)
    with pytest.raises(ValueError, match=r"different numbers of segments \(`systems\['a'\]` 60"):
        system_statistics({"a": hyp, "b": hyp[:3]}, REFS)


def test_score_functions_bad_inputs():
    with pytest.raises(ValueError, match="2 \\+ 2 \\* max_ngram_order columns"):
        bleu_from_stats([[1, 2, 3]])
    with pytest.raises(ValueError, match="`smooth_method` must be one of"):
        bleu_from_stats([[1] * 10], smooth_method="nist")
    with pytest.raises(ValueError, match="3 columns \\(hyp, ref, match\\) per n-gram order"):
        chrf_from_stats([[1, 2]])


def test_kernels_through_bootstrap_ci_bad_inputs():
    st = segment_statistics(C.systems["sys0"], REFS)
    with pytest.raises(ValueError, match="`stats` of 'bleu' must be non-negative counts"):
        mlci.bootstrap_ci(-st, metric="bleu")
    with pytest.raises(ValueError, match="`max_ngram_order`=3 does not match `stats`"):
        mlci.bootstrap_ci(st, metric="bleu", metric_kwargs={"max_ngram_order": 3})
    with pytest.raises(ValueError, match="must have 2 \\+ 2 \\* max_ngram_order columns"):
        mlci.bootstrap_ci(st[:, :5], metric="bleu")
    with pytest.raises(ValueError, match="`stats` must be 2-d"):
        mlci.bootstrap_ci(st[:, 0], metric="bleu")
    with pytest.raises(TypeError, match="`effective_order` must be True or False"):
        mlci.bootstrap_ci(st, metric="bleu", metric_kwargs={"effective_order": "yes"})
    cs = segment_statistics(C.systems["sys0"], REFS, metric="chrf")
    with pytest.raises(ValueError, match="`beta` must be a positive number"):
        mlci.bootstrap_ci(cs, metric="chrf", metric_kwargs={"beta": 0})
    with pytest.raises(ValueError, match="do not apply to metric 'chrf'"):
        mlci.bootstrap_ci(cs, metric="chrf", metric_kwargs={"tokenize": "13a"})


def test_wer_equals_weighted_mean_and_refuses_bad_counts():
    rng = np.random.default_rng(0)
    words = rng.integers(1, 30, 200)
    errors = rng.binomial(words, 0.2)
    spk = rng.integers(0, 20, 200)
    a = mlci.bootstrap_ci(words, errors, metric="wer", conditions=spk, rng=0, n_resamples=300)
    b = mlci.bootstrap_ci(
        words, errors / words, metric="weighted_mean", conditions=spk, rng=0, n_resamples=300
    )
    assert a.estimate == pytest.approx(errors.sum() / words.sum(), abs=1e-15)
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, rtol=1e-12)
    # an utterance with no reference word (only insertions) is allowed
    w0 = np.r_[words, 0]
    e0 = np.r_[errors, 2]
    r = mlci.bootstrap_ci(w0, e0, metric="wer", rng=0, n_resamples=100)
    assert r.estimate == pytest.approx(e0.sum() / w0.sum())
    with pytest.raises(ValueError, match="`errors` of 'wer' must be non-negative"):
        mlci.bootstrap_ci(words, -errors, metric="wer")
    with pytest.raises(ValueError, match="`words` of 'wer' sum to zero"):
        mlci.bootstrap_ci(0 * words, errors, metric="wer")
    cmp_ = mlci.compare(words, {"a": errors, "b": errors + 1}, metric="wer", rng=0, n_resamples=200)
    assert cmp_.ranking[0].system == "a"  # lower WER is better


def test_paired_test_bad_inputs():
    st = system_statistics(C.systems, REFS)
    with pytest.raises(ValueError, match="`variant` must be one of"):
        paired_test(st, variant="bootstrap")
    with pytest.raises(ValueError, match="at least two systems"):
        paired_test({"a": st["sys0"]})
    with pytest.raises(ValueError, match="`baseline`='x' is not among"):
        paired_test(st, baseline="x")
    with pytest.raises(ValueError, match=r"`stats`\['sys0'\] must be a 2-d array"):
        paired_test({"sys0": st["sys0"][:, 0], "sys1": st["sys1"]})
    with pytest.raises(ValueError, match="differ in shape"):
        paired_test({"sys0": st["sys0"], "sys1": st["sys1"][:5]})
    with pytest.raises(ValueError, match="`correction` must be one of"):
        paired_test(st, correction="sidak")
    with pytest.raises(TypeError, match="`n_resamples` must be an integer"):
        paired_test(st, n_resamples=1.5)
    with pytest.raises(TypeError, match="`rng` must be an int seed"):
        paired_test(st, rng="x")
    with pytest.raises(ValueError, match="`rng` must be a non-negative seed"):
        paired_test(st, rng=-1)
    with pytest.raises(ValueError, match="`conditions` must have one value per segment"):
        paired_test(st, conditions=np.zeros(3))
    with pytest.raises(ValueError, match="`conditions` has a single document"):
        paired_test(st, conditions=np.zeros(60))
    with pytest.raises(ValueError, match="`tokenize` do not change the score"):
        paired_test(st, metric_kwargs={"tokenize": "13a"})
    with pytest.raises(ValueError, match="`metric` must be 'bleu' or 'chrf'"):
        paired_test(st, metric="ter")


def test_mt_ci_and_compare_bad_inputs():
    with pytest.raises(ValueError, match="`variant` must be one of 'bootstrap'"):
        mt_compare(C.systems, REFS, variant="wilcoxon")
    with pytest.raises(ValueError, match="`n_resamples`"):
        mt_ci(C.systems["sys0"], REFS, n_resamples=0)
    with pytest.raises(ValueError, match="`conditions`"):
        mt_ci(C.systems["sys0"], REFS, conditions=np.zeros(5))
    with pytest.raises(ValueError, match="`baseline`='zz'"):
        mt_compare(C.systems, REFS, baseline="zz")


def test_documents_are_resampled_whole():
    """paired_test over documents equals the segment-level test on the documents' summed
    statistics (a document is the unit drawn or swapped)."""
    c = synthetic_corpus(150, qualities=(0.6, 0.5), segments_per_document=6, rng=2)
    st = system_statistics(c.systems, c.references)
    docs = c.documents
    summed = {
        k: np.array([v[docs == d].sum(axis=0) for d in np.unique(docs)]) for k, v in st.items()
    }
    for test in ("paired-bs", "paired-ar"):
        a = paired_test(st, variant=test, conditions=docs, n_resamples=400, rng=5)
        b = paired_test(summed, variant=test, n_resamples=400, rng=5)
        np.testing.assert_array_equal(a.pvalues[1:], b.pvalues[1:])
        assert a.details["n_conditions"] == len(np.unique(docs))
        np.testing.assert_allclose(a.scores, b.scores, rtol=0, atol=1e-12)
    res = mt_ci(c.systems["sys0"], c.references, conditions=docs, rng=0, n_resamples=200)
    assert res.n_conditions == len(np.unique(docs))


def test_paired_test_correction_and_rows():
    c = synthetic_corpus(60, qualities=(0.6, 0.5, 0.45), rng=1)
    st = system_statistics(c.systems, c.references)
    res = paired_test(st, correction="holm", n_resamples=200, rng=0, baseline="sys1")
    assert res.systems == ("sys1", "sys0", "sys2")
    np.testing.assert_allclose(res.pvalues_adjusted[1:], mlci.adjust_pvalues(res.pvalues[1:]))
    rows = res.rows()
    assert rows[0]["pvalue"] is None and rows[1]["system"] == "sys0"
    assert "sys0" in repr(res)
    assert res.to_json()
