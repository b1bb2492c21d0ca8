"""The bundled example data and the table reader."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from mlci.data import example_path, load_example, read_table
from mlci.io import convert_column

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_example_data.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("make_example_data", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_example_data"] = mod
    spec.loader.exec_module(mod)
    return mod


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
    assert convert_column(["1", "", "3"]).dtype == float  # missing ints become NaN
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
    with pytest.raises(ValueError, match=r"needs pyarrow.*mlci\[parquet\]"):
        read_table(p)
