"""The bundled example data and the table reader."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from _scripts import load_script
from mlci.data import example_path, load_example, read_table
from mlci.inputs import TEXT_MISSING, missing_mask
from mlci.io import Table, convert_column

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_example_data.py"


def _load_script():
    return load_script(SCRIPT.name)


@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the source tree")
def test_shipped_file_is_what_the_script_writes(tmp_path):
    mod = _load_script()
    out = tmp_path / "x.csv"
    mod.main(["--out", str(out)])
    assert out.read_bytes() == example_path().read_bytes(), (
        "src/mlci/data/emotion_example.csv is not what scripts/make_example_data.py writes; "
        "rerun the script (or numpy changed a random stream)"
    )


def test_example_shape_and_structure():
    d = load_example(as_frame=False)
    n = len(d["label"])
    assert 1400 <= n <= 1600
    assert all(len(v) == n for v in d.values())
    assert set(d["label"].tolist()) == {"neutral", "happy", "sad", "angry"}
    assert set(d["pred"].tolist()) <= set(d["label"].tolist())
    speakers, sizes = np.unique(d["speaker"], return_counts=True)
    assert len(speakers) == 40 and sizes.min() < sizes.max() / 5  # unequal speakers
    assert len(np.unique(d["utterance"])) == n
    scores = np.column_stack([d[f"score_{e}"] for e in ("neutral", "happy", "sad", "angry")])
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, atol=3e-4)
    assert d["is_angry"].dtype.kind == "i"
    np.testing.assert_array_equal(d["is_angry"], (d["label"] == "angry").astype(int))
    assert d["num_words"].dtype.kind == "i" and d["num_words"].min() > 0
    assert ((d["wer"] >= 0) & (d["wer"] <= 1)).all()


def test_example_has_speaker_effects():
    # speakers' accuracies vary far more than binomial noise alone would allow
    d = load_example(as_frame=False)
    correct = (d["label"] == d["pred"]).astype(float)
    _, inv, sizes = np.unique(d["speaker"], return_inverse=True, return_counts=True)
    acc = np.bincount(inv, weights=correct) / sizes
    p = correct.mean()
    chi2 = np.sum(sizes * (acc - p) ** 2) / (p * (1 - p))
    assert chi2 > 2 * (len(sizes) - 1)


def test_load_example_frame():
    pd = pytest.importorskip("pandas")
    df = load_example()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns)[:5] == ["utterance", "speaker", "session", "label", "pred"]


def test_convert_column_types():
    assert convert_column(["1", "2", "-3"]).dtype == np.int64
    out = convert_column(["1", "2.5", ""])
    assert out.dtype == float and np.isnan(out[2])
    # missing ints stay ints: an object array with None, so dropping the row gives ints back
    ints = convert_column(["1", "", "3"])
    assert ints.dtype == object and ints.tolist() == [1, None, 3]
    assert convert_column(["TRUE", "false"]).dtype == bool
    s = convert_column(["a", "1"])
    assert s.dtype.kind == "U" and s.tolist() == ["a", "1"]
    assert convert_column(["007", "1"]).tolist() == [7, 1]


def test_read_tsv_and_semicolon(tmp_path):
    p = tmp_path / "x.tsv"
    p.write_text("y\tp\n0\t1\n1\t1\n")
    cols = read_table(p)
    assert cols["y"].tolist() == [0, 1] and cols["p"].tolist() == [1, 1]
    q = tmp_path / "x.csv"
    q.write_text("y;p\nA;B\nB;B\n")
    assert read_table(q)["y"].tolist() == ["A", "B"]


def test_read_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="No such file"):
        read_table(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3\n")
    with pytest.raises(ValueError, match="line 3: 1 fields but the header has 2"):
        read_table(bad)
    dup = tmp_path / "dup.csv"
    dup.write_text("a,a\n1,2\n")
    with pytest.raises(ValueError, match="duplicated column"):
        read_table(dup)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty"):
        read_table(empty)
    head = tmp_path / "head.csv"
    head.write_text("a,b\n")
    with pytest.raises(ValueError, match="no rows"):
        read_table(head)
    with pytest.raises(ValueError, match="directory"):
        read_table(tmp_path)


def test_read_parquet_roundtrip(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    d = load_example(as_frame=False)
    table = pa.table({k: d[k] for k in ("label", "pred", "is_angry", "score_angry")})
    p = tmp_path / "x.parquet"
    pq.write_table(table, p)
    back = read_table(p)
    assert back["label"].tolist() == d["label"].tolist()
    np.testing.assert_array_equal(back["is_angry"], d["is_angry"])
    np.testing.assert_array_equal(back["score_angry"], d["score_angry"])


def test_parquet_without_pyarrow(tmp_path, monkeypatch):
    p = tmp_path / "x.parquet"
    p.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ValueError, match=r"needs pyarrow.*pip install pyarrow"):
        read_table(p)


@pytest.mark.parametrize(
    "spelling", ["", "NA", "nan", "NaN", "null", "NULL", " None ", "n/a", "#N/A"]
)
@pytest.mark.parametrize(
    ("present", "kind"),
    [(["pos", "neg"], str), (["0", "1"], int), (["true", "false"], bool), (["0.5", "1.5"], float)],
)
def test_missing_spellings_are_missing_in_every_column_type(spelling, present, kind):
    # issue 8: "NA"/"null"/"" in a *text* column were kept as an ordinary class
    out = convert_column([present[0], spelling, present[1]])
    assert missing_mask(out).tolist() == [False, True, False]
    kept = out[~missing_mask(out)]
    assert all(isinstance(v, kind) for v in kept.tolist())
    assert spelling.strip().lower() in TEXT_MISSING


def test_missing_only_and_no_missing_types():
    assert convert_column(["", "NA"]).tolist() == [None, None]
    assert convert_column(["pos", "neg"]).dtype.kind == "U"  # no missing: native dtypes
    assert convert_column(["1", "0"]).dtype == np.int64
    # "NA" is missing, but text that only contains it is an ordinary value
    assert convert_column(["NAB", "NA"]).tolist() == ["NAB", None]


def test_ids_with_underscores_stay_text():
    # Python's int("1_2") is 12: speaker "1_2" must not merge with speaker "12"
    assert convert_column(["1_2", "12"]).tolist() == ["1_2", "12"]


def test_decimal_commas():
    assert convert_column(["0,5", "1", "-2,25"], decimal_comma=True).tolist() == [0.5, 1.0, -2.25]
    assert convert_column(["0,5", "1"]).tolist() == ["0,5", "1"]  # only when asked
    # a column mixing a decimal point and a decimal comma is not guessed
    assert convert_column(["0,5", "0.5"], decimal_comma=True).dtype.kind == "U"


def test_semicolon_file_with_decimal_commas(tmp_path):
    p = tmp_path / "eu.csv"
    p.write_text("y;score;spk\n1;0,9;a\n0;0,25;b\n1;NA;a\n", encoding="utf-8")
    t = read_table(p)
    assert t["score"][:2].tolist() == [0.9, 0.25] and np.isnan(t["score"][2])
    assert t["spk"].tolist() == ["a", "b", "a"]


def test_table_knows_file_lines(tmp_path):
    p = tmp_path / "x.csv"
    # a blank line and a quoted field over two lines: rows start on lines 2, 4 and 6
    p.write_text('y,note\n1,a\n\n0,"two\nlines"\n1,c\n')
    t = read_table(p)
    assert isinstance(t, Table) and t.n_rows == 3
    assert t.lines.tolist() == [2, 4, 6]
    assert t.where([0]) == "line 2" and t.where([1, 2]) == "lines 4, 6"
    assert t.where([0, 1, 2], limit=2) == "lines 2, 4, ..."


def test_encodings(tmp_path):
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbfy,p\n0,1\n")
    assert list(read_table(bom)) == ["y", "p"]  # not '\ufeffy'
    utf16 = tmp_path / "u16.csv"
    utf16.write_text("y\tp\nangry\thappy\n", encoding="utf-16")  # Excel's Unicode text
    assert read_table(utf16)["y"].tolist() == ["angry"]
    latin = tmp_path / "latin.csv"
    latin.write_bytes("y,p\nx,x\ncafé,thé\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.csv is not UTF-8 text \(byte 0xe9 on line 3"):
        read_table(latin)
    with pytest.raises(ValueError, match="re-encode it as UTF-8"):
        read_table(latin)


def test_ragged_rows_name_the_line_after_multiline_fields(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text('a,b\n"x\ny",1\n1,2,3\n')
    with pytest.raises(ValueError, match=r"r\.csv, line 4: 3 fields but the header has 2"):
        read_table(p)


def test_parquet_nulls_are_missing(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    p = tmp_path / "n.parquet"
    pq.write_table(
        pa.table(
            {
                "y": pa.array([1, None, 0]),
                "s": pa.array([0.5, 0.2, None]),
                "g": pa.array(["a", None, "b"]),
                "ok": pa.array(["u", "v", "w"]),
                "b": pa.array([True, None, False]),
            }
        ),
        p,
    )
    t = read_table(p)
    assert t["y"].tolist() == [1, None, 0]  # ints stay ints
    assert np.isnan(t["s"][2])
    assert t["g"].tolist() == ["a", None, "b"] and t["b"].tolist() == [True, None, False]
    assert t["ok"].dtype.kind == "U"
    assert t.lines is None and t.where([1]) == "row 2"
    # Parquet content is recognised whatever the file is called
    q = tmp_path / "really_parquet.csv"
    q.write_bytes(p.read_bytes())
    assert read_table(q)["y"].tolist() == [1, None, 0]


def test_bad_parquet_file(tmp_path):
    pytest.importorskip("pyarrow")
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"PAR1 not really")
    with pytest.raises(ValueError, match="could not be read as Parquet"):
        read_table(p)


def test_fleiss1971_is_the_published_table():
    # Fleiss (1971), Table 1, as statsmodels' tests (test_inter_rater.py `diagnoses`) and
    # R's irr::diagnoses hold it; kappa 0.4302445 is R's irr::kappam.fleiss(diagnoses)
    # (recorded in statsmodels' test_fleiss_kappa_irr), 0.430 in the paper
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    import mlci
    from mlci.data import FLEISS1971_CATEGORIES, load_fleiss1971

    d = load_fleiss1971()
    assert d.shape == (30, 6) and set(np.unique(d)) == set(FLEISS1971_CATEGORIES)
    assert (np.diff(d, axis=1) >= 0).all()  # the diagnoses of a patient in ascending order
    counts = aggregate_raters(d)[0]
    # p_j of Table 1: .144 .144 .167 .306 .239 (of 30 x 6 = 180 diagnoses)
    assert counts.sum(axis=0).tolist() == [26, 26, 30, 55, 43]
    assert fleiss_kappa(counts) == pytest.approx(0.4302445, abs=1e-7)
    res = mlci.agreement_ci(d, metric="fleiss_kappa", n_resamples=200, rng=0)
    assert res.estimate == pytest.approx(fleiss_kappa(counts), abs=1e-12)


def test_wmt17_extract_is_sacrebleus_test_data():
    # The first 1,500 segments of newstest2017 en-de (reference and three WMT17
    # submissions) from sacreBLEU 2.6.0's sdist, test/wmt17_en_de_systems.pkl.bz2.  The
    # reference scores: sacrebleu.corpus_bleu / corpus_chrf (2.6.0) on the pickle's own
    # strings, first 1,500 segments, computed when the extract was made.
    sacrebleu = pytest.importorskip("sacrebleu")
    from mlci.data import WMT17_SYSTEMS, wmt17_en_de_paths
    from mlci.mt import read_segments

    p = wmt17_en_de_paths()
    assert tuple(p["systems"]) == WMT17_SYSTEMS
    refs = [read_segments(r) for r in p["refs"]]
    assert len(refs) == 1 and len(refs[0]) == 1500
    bleu = {"uedin-nmt": 28.81286960653194, "online-B": 27.74274436059842}
    bleu["LMU-nmt-reranked"] = 27.17283142635967
    for name, path in p["systems"].items():
        hyp = read_segments(path)
        assert len(hyp) == 1500 and all(s == s.rstrip() for s in hyp)
        assert sacrebleu.corpus_bleu(hyp, refs).score == pytest.approx(bleu[name], abs=1e-12)
    chrf = sacrebleu.corpus_chrf(read_segments(p["systems"]["uedin-nmt"]), refs).score
    assert chrf == pytest.approx(57.60428012592895, abs=1e-12)
