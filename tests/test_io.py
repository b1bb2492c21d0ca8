"""mlci.io: the columnar (pyarrow) and the standard-library readers give the same columns
and the same one-line errors, naming the file, the column and the line."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from mlci.io import read_table

pytest.importorskip("pyarrow")

ENGINES = ["pyarrow", "python"]


def _same(a, b):
    assert list(a) == list(b)
    for k in a:
        assert a[k].dtype == b[k].dtype, (k, a[k].dtype, b[k].dtype)
        assert a[k].tolist() == b[k].tolist() or (
            a[k].dtype.kind == "f" and np.array_equal(a[k], b[k], equal_nan=True)
        ), k


TRICKY = (
    "y,score,group,flag,id\n"
    "1,0.5,a,true,1\n"
    " NA ,0.25,b,False,2\n"
    "\n"  # a blank line: skipped, the line numbers still right
    "0,,null,true,3\n"
    '1,0.75,"c, d",false,4\n'
    "0,1e-3,N/A,TRUE,5\n"
)


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_engines_agree_on_a_tricky_file(tmp_path, suffix):
    f = tmp_path / f"t{suffix}"
    data = TRICKY.encode()
    f.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    a, b = read_table(f, engine="pyarrow"), read_table(f, engine="python")
    _same(a, b)
    assert a["y"].tolist() == [1, None, 0, 1, 0]  # " NA " is missing in both
    assert np.isnan(a["score"][2]) and a["group"].tolist() == ["a", "b", None, "c, d", None]
    assert a["flag"].dtype == bool and a["id"].dtype == np.int64
    assert a.where([2, 3]) == b.where([2, 3]) == "lines 5, 6"


def test_quoted_line_breaks_and_gzip_without_its_suffix(tmp_path):
    f = tmp_path / "nl.csv"
    f.write_text('y,text\n1,"two\nlines"\n0,one\n')
    for engine in ENGINES:
        t = read_table(f, engine=engine)
        assert t["text"].tolist() == ["two\nlines", "one"] and t.where([1]) == "line 4"
    g = tmp_path / "zipped.csv"
    g.write_bytes(gzip.compress(TRICKY.encode()))
    _same(read_table(g, engine="pyarrow"), read_table(g, engine="python"))


def test_only_the_columns_asked_for(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text(TRICKY)
    for engine in ENGINES:
        t = read_table(f, ["id", "score", "nope"], engine=engine)
        assert list(t) == ["score", "id"] and t.all_columns == ["y", "score", "group", "flag", "id"]
        assert list(read_table(f, ["nope"], engine=engine)) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_decimal_commas_in_semicolon_files(tmp_path, engine):
    f = tmp_path / "eu.csv"
    f.write_text("y;s;name\n1;0,5;a\n0;0,25;b\n1;1;c\n")
    t = read_table(f, engine=engine)
    assert t["s"].tolist() == [0.5, 0.25, 1.0] and t["name"].tolist() == ["a", "b", "c"]


@pytest.mark.parametrize("engine", ENGINES)
def test_bom_and_utf16(tmp_path, engine):
    f = tmp_path / "bom.csv"
    f.write_bytes("\ufeffy,p\n1,1\n0,1\n".encode())
    assert list(read_table(f, engine=engine)) == ["y", "p"]
    g = tmp_path / "u16.csv"
    g.write_bytes("y\tp\n1\t1\n0\t1\n".encode("utf-16"))
    assert read_table(g, engine=engine)["p"].tolist() == [1, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_latin1_is_one_line_naming_file_and_line(tmp_path, engine):
    f = tmp_path / "latin.csv"
    f.write_bytes("y,name\n1,ok\n0,caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.csv is not UTF-8 text \(byte 0xe9 on line 3"):
        read_table(f, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_ragged_row_names_file_and_line(tmp_path, engine):
    f = tmp_path / "ragged.csv"
    f.write_text("y,p,q\n1,1,0\n0,1\n1,0,0\n")
    with pytest.raises(ValueError, match=r"ragged\.csv, line 3: 2 fields but the header has 3"):
        read_table(f, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_json_lines(tmp_path, engine):
    f = tmp_path / "t.jsonl"
    rows = [
        {"y": 1, "s": 0.5, "g": "a"},
        {"y": None, "s": 0.1, "g": "b"},
        {"y": 0, "s": 1, "g": "a"},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    t = read_table(f, engine=engine)
    assert t["y"].tolist() == [1, None, 0] and t["s"].tolist() == [0.5, 0.1, 1.0]
    assert t.where([1]) == "line 2"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"y": 1}\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl, line 2: a JSON Lines table needs one obj"):
        read_table(bad, engine=engine)


def test_bad_engine_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="`engine`"):
        read_table(tmp_path / "x.csv", engine="duckdb")
    with pytest.raises(FileNotFoundError, match="No such file"):
        read_table(tmp_path / "x.csv")


def test_cli_without_pyarrow_reads_with_the_standard_library(tmp_path, capsys, monkeypatch):
    # `pip install .` without the files extra: the README's first command still works
    import mlci.io
    from mlci.cli import main

    monkeypatch.setattr(mlci.io, "_pyarrow", lambda: None)
    f = tmp_path / "t.csv"
    f.write_text(TRICKY)
    code = main(["ci", str(f), "--label", "y", "--score", "score", "--metric", "roc_auc"])
    _, err = capsys.readouterr()
    assert code == 2 and "column 'y' (--label) has 1 missing value" in err and "line 3" in err
    code = main(["ci", "--example", "--metric", "accuracy", "-B", "50", "--seed", "0"])
    assert code == 0 and "accuracy" in capsys.readouterr().out


def test_engines_agree_on_a_file_of_many_blocks(tmp_path):
    # pyarrow reads in blocks of 1 MiB, each with its own dictionary of the text labels
    # (unified through the distinct values); a block whose only label is missing, numbers
    # in a text-looking column and missing cells must come out as the standard library's
    rng = np.random.default_rng(3)
    n = 120_000
    labels = np.array(["happy", "sad", "NA", "angry"], dtype="<U8")[
        rng.choice(4, n, p=[0.5, 0.3, 0.01, 0.19])
    ]
    labels[-3000:] = "neutral"  # a value that only the last block holds
    lines = [f"{i},{lab},{lab if i % 5 else 'sad'},{i % 7}\n" for i, lab in enumerate(labels)]
    f = tmp_path / "big.csv"
    f.write_text("id,label,pred,small\n" + "".join(lines))
    cols = ["label", "pred", "small"]
    a, b = read_table(f, cols, engine="pyarrow"), read_table(f, cols, engine="python")
    _same(a, b)
    assert a["label"].dtype == object and a["label"][-1] == "neutral"
    assert a["small"].dtype == np.int64


def test_parquet_read_column_by_column_like_csv(tmp_path):
    # issue 25: Parquet is read one column at a time, text as dictionary codes, into the
    # arrays the CSV reader gives (the same values and dtypes), only the columns asked for
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from mlci.inputs.encoding import fast_unique

    rng = np.random.default_rng(0)
    n = 500
    df = pd.DataFrame(
        {
            "speaker": np.char.add("spk", rng.integers(0, 7, n).astype(str)),
            "label": rng.integers(0, 2, n),
            "score": rng.normal(size=n),
            "code": rng.integers(0, 3, n).astype(str),  # text that looks numeric
        }
    )
    df.to_csv(tmp_path / "x.csv", index=False)
    df.to_parquet(tmp_path / "x.parquet", index=False)
    pq = read_table(tmp_path / "x.parquet", ["speaker", "label", "score"])
    csv_ = read_table(tmp_path / "x.csv", ["speaker", "label", "score"])
    assert list(pq) == ["speaker", "label", "score"]
    assert pq.all_columns == ["speaker", "label", "score", "code"]
    for name in pq:
        assert pq[name].dtype == csv_[name].dtype, name
        np.testing.assert_array_equal(pq[name], csv_[name])
    # the text column is a take of its few values: read-only, its encoding known
    assert not pq["speaker"].flags.writeable
    u, inv = fast_unique(pq["speaker"])
    assert u.tolist() == sorted(set(df["speaker"])) and np.array_equal(u[inv], df["speaker"])
    # Parquet's text stays text (never parsed as numbers, unlike a CSV cell)
    whole = read_table(tmp_path / "x.parquet")
    assert whole["code"].dtype.kind == "U" and whole["code"].tolist() == df["code"].tolist()
    # nulls in text: None in an object array, as before
    df.loc[[3, 9], "speaker"] = None
    df.to_parquet(tmp_path / "n.parquet", index=False)
    got = read_table(tmp_path / "n.parquet", ["speaker"])["speaker"]
    assert got.dtype == object and got[3] is None and got[9] is None
    assert got[0] == df["speaker"][0]


def test_parquet_bad_input(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really parquet")
    with pytest.raises(ValueError, match=r"bad\.parquet could not be read as Parquet"):
        read_table(bad)
    pd.DataFrame({"a": np.array([], dtype=float)}).to_parquet(tmp_path / "e.parquet")
    with pytest.raises(ValueError, match=r"e\.parquet has no rows"):
        read_table(tmp_path / "e.parquet")


def _group_file(tmp_path, n=600, seed=1):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "speaker": np.char.add("spk", rng.integers(0, 9, n).astype(str)),
            "session": rng.integers(100, 140, n),
            "gap": np.where(np.arange(n) % 50 == 7, None, "x" + (np.arange(n) % 3).astype(str)),
            "label": rng.integers(0, 2, n),
            "score": np.round(rng.normal(size=n), 2),
        }
    )
    df.to_csv(tmp_path / "g.csv", index=False)
    df.to_parquet(tmp_path / "g.parquet", index=False)
    with open(tmp_path / "g.jsonl", "w") as fh:
        for rec in df.to_dict(orient="records"):
            fh.write(json.dumps(rec) + "\n")
    return df


@pytest.mark.parametrize(
    ("name", "engine"),
    [("g.parquet", "auto"), ("g.csv", "pyarrow"), ("g.csv", "python"), ("g.jsonl", "auto")],
)
def test_codes_of_grouping_columns(tmp_path, name, engine):
    # issue 25: columns named in codes= come as integer codes into their sorted distinct
    # values (Table.categories), the values' grouping and order exactly; dictionary text
    # (Parquet, pyarrow's CSV) straight from the file's codes
    df = _group_file(tmp_path)
    plain = read_table(tmp_path / name, engine=engine)
    t = read_table(tmp_path / name, engine=engine, codes=["speaker", "session", "gap", "nope"])
    assert list(t) == list(plain)
    for col in ("speaker", "session"):
        codes, cats = t[col], t.categories[col]
        assert codes.dtype.kind in "iu" and codes.dtype.itemsize == 1  # 9 and 40 values
        assert cats.tolist() == sorted(set(plain[col].tolist()))
        assert np.array_equal(cats[codes], plain[col])
        assert cats.dtype == plain[col].dtype
    assert t.categories["speaker"].tolist() == sorted(set(df["speaker"]))
    # a column with a missing cell comes as usual (the input gate names the rows)
    assert "gap" not in t.categories and t["gap"].dtype == object
    assert t["gap"].tolist() == plain["gap"].tolist()
    for col in ("label", "score"):  # not asked for: unchanged
        assert t[col].dtype == plain[col].dtype and np.array_equal(t[col], plain[col])
    assert "nope" not in t and set(t.categories) == {"speaker", "session"}


def test_codes_hold_no_string_per_row(tmp_path):
    # the point of codes=: a text column is never held as one string per row (5e6 rows
    # of 7-character labels: 134 MiB of text; the codes are 10 MiB)
    import tracemalloc

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    n = 300_000
    rng = np.random.default_rng(0)
    text = np.char.add("speaker_", rng.integers(0, 3000, n).astype(str))
    pq.write_table(pa.table({"speaker": text, "y": rng.integers(0, 2, n)}), tmp_path / "s.pq")
    tracemalloc.start()
    t = read_table(tmp_path / "s.pq", ["speaker"], codes=["speaker"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert t["speaker"].dtype == np.uint16
    assert np.array_equal(t.categories["speaker"][t["speaker"]], text)
    assert peak < text.nbytes / 4, (peak, text.nbytes)  # (the int32 codes: 1/12 of it)


def test_codes_bad_input(tmp_path):
    _group_file(tmp_path, n=50)
    with pytest.raises(TypeError, match="`codes` must be a collection of column names"):
        read_table(tmp_path / "g.csv", codes="speaker")
    with pytest.raises(TypeError, match="`codes`"):
        read_table(tmp_path / "g.parquet", codes=[1])


@pytest.mark.parametrize(
    "metric",
    [["--pred", "pred", "--metric", "accuracy"], ["--score", "score", "--metric", "roc_auc"]],
)
def test_cli_parquet_and_csv_give_the_same_numbers(tmp_path, capsys, metric):
    # issue 25: the same data from Parquet and from CSV, conditions and strata read as
    # codes: the same intervals, bit for bit, as the API's on the text labels
    pd = pytest.importorskip("pandas")
    import mlci
    from mlci.cli import main

    rng = np.random.default_rng(3)
    n = 3000
    score = np.round(rng.normal(size=n), 3)
    y = (score + rng.normal(size=n) > 0).astype(int)
    df = pd.DataFrame(
        {
            "speaker": np.char.add("s", rng.integers(0, 60, n).astype(str)),
            "site": np.where(rng.random(n) < 0.5, "north", "south"),
            "label": y,
            "pred": (score > 0).astype(int),
            "score": score,
        }
    )
    df.to_csv(tmp_path / "d.csv", index=False)
    df.to_parquet(tmp_path / "d.parquet", index=False)
    for strata in ([], ["--strata", "site"]):
        out = []
        for f in ("d.csv", "d.parquet"):
            argv = ["ci", str(tmp_path / f), "--label", "label", *metric, *strata]
            argv += ["--condition", "speaker", "-B", "300", "--seed", "4", "--format", "json"]
            assert main(argv) == 0
            res = json.loads(capsys.readouterr().out)[0]
            assert res.pop("source").endswith(f)
            out.append(res)
        assert out[0] == out[1]
        data = df["pred"] if metric[0] == "--pred" else df["score"]
        api = mlci.bootstrap_ci(
            df["label"].to_numpy(),
            data.to_numpy(),
            metric=metric[-1],
            conditions=df["speaker"].to_numpy(),
            strata=df["site"].to_numpy() if strata else None,
            n_resamples=300,
            rng=4,
        )
        assert out[0]["estimate"] == api.estimate
        assert out[0]["method"] == api.method
        low, high = api.confidence_interval
        assert (out[0]["confidence_interval"]["low"], out[0]["confidence_interval"]["high"]) == (
            low,
            high,
        )
