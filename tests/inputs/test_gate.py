"""The input gate: arrays from every library, the missing-value policy, labels, options."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from mlci.inputs import (
    ArgSpec,
    binary_target,
    bootstrap_options,
    check_confidence_level,
    check_label_pair,
    column,
    gather,
    gather_design,
    missing_mask,
    native_values,
    positive_label,
)

LABELS = {"y_true": ArgSpec("labels"), "y_pred": ArgSpec("labels")}


@pytest.mark.parametrize(
    "value",
    [
        np.array([0, 1, None], dtype=object),
        np.array([0.0, 1.0, np.nan]),
        [0, 1, None],
        ["a", "b", float("nan")],
        pd.Series(["a", "b", None]),
        pd.Series([0, 1, None], dtype="Int64"),
        pd.Series(["a", "b", pd.NA], dtype="string"),
        pd.Series(pd.Categorical(["a", "b", None])),
        pl.Series(["a", "b", None]),
        pl.Series([0, 1, None]),
        pl.Series([0.0, 1.0, float("nan")]),
        pa.array(["a", "b", None]),
        pa.chunked_array([[0, 1], [None]]),
    ],
    ids=lambda v: type(v).__module__.split(".")[0] + "-" + type(v).__name__,
)
def test_every_library_missing_value_is_refused_or_dropped(value):
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value\(s\).* at row 2"):
        gather(LABELS, {"y_true": value, "y_pred": [0, 1, 1]})
    g = gather(LABELS, {"y_true": value, "y_pred": [0, 1, 1]}, dropna=True)
    assert g.n_dropped == 1 and g.n_samples == 2
    assert g["y_pred"].tolist() == [0, 1]
    assert g.kept.tolist() == [0, 1]


def test_missing_values_in_several_arguments_are_dropped_jointly():
    g = gather(
        LABELS,
        {"y_true": [0, None, 1, 1], "y_pred": [1, 0, np.nan, 1]},
        dropna=True,
    )
    assert g["y_true"].tolist() == [0, 1] and g["y_pred"].tolist() == [1, 1]
    assert g.n_dropped == 2
    with pytest.raises(ValueError, match=r"`y_pred` too"):
        gather(LABELS, {"y_true": [0, None, 1, 1], "y_pred": [1, 0, np.nan, 1]})


def test_all_missing_is_an_error_even_with_dropna():
    with pytest.raises(ValueError, match="Every sample has a missing value"):
        gather(LABELS, {"y_true": [None, None], "y_pred": [0, 1]}, dropna=True)


def test_object_arrays_become_one_native_type():
    assert native_values(np.array([1, 0], dtype=object), "y").dtype.kind == "i"
    assert native_values(np.array([1, 0.5], dtype=object), "y").dtype.kind == "f"
    assert native_values(np.array([True, False], dtype=object), "y").dtype == bool
    assert native_values(np.array(["a", "b"], dtype=object), "y").dtype.kind == "U"
    with pytest.raises(TypeError, match=r"`y` mixes strings and numbers"):
        native_values(np.array([0, "yes"], dtype=object), "y")
    with pytest.raises(TypeError, match=r"`y` holds values of type dict"):
        native_values(np.array([{}, {}], dtype=object), "y")


def test_object_labels_with_nan_give_one_class_each():
    # np.unique on an object array with NaN returns duplicate classes (issue 8): after the
    # gate the labels are ints and encode to exactly two classes
    y = np.array([0, 1] * 100, dtype=object)
    y[5] = np.nan
    g = gather({"y_true": ArgSpec("labels")}, {"y_true": y}, dropna=True)
    assert g["y_true"].dtype.kind == "i" and sorted(set(g["y_true"].tolist())) == [0, 1]


def test_missing_mask_kinds():
    assert missing_mask(np.array(["a", "NA"])).tolist() == [False, False]  # a real string
    assert missing_mask(np.array(["2020-01-01", "NaT"], dtype="datetime64[D]")).tolist() == [
        False,
        True,
    ]
    assert missing_mask(np.array([[1.0, np.nan], [0.0, 1.0]])).tolist() == [True, False]


def test_lengths_scalars_dimensions_and_empty():
    with pytest.raises(ValueError, match=r"`y_pred` has 2 samples but `y_true` has 3"):
        gather(LABELS, {"y_true": [0, 1, 1], "y_pred": [0, 1]})
    with pytest.raises(ValueError, match=r"`y_true` must be an array with one entry"):
        gather(LABELS, {"y_true": 1, "y_pred": [0]})
    with pytest.raises(ValueError, match=r"`y_true` must be 1-d"):
        gather(LABELS, {"y_true": [[0, 1]], "y_pred": [[0, 1]]})
    with pytest.raises(ValueError, match=r"`y_true` is empty"):
        gather(LABELS, {"y_true": [], "y_pred": []})
    with pytest.raises(ValueError, match=r"`y_score` contains 1 infinite"):
        column("y_score", [0.1, np.inf], "numbers")
    assert column("y_score", [0.1, np.inf], "scores")[1] == np.inf
    with pytest.raises(TypeError, match=r"`y_score` must hold numbers"):
        column("y_score", ["a", "b"], "numbers")


def test_columns_of_a_table():
    frames = [
        pd.DataFrame({"label": [0, 1, 1], "pred": [0, 1, 0]}),
        pl.DataFrame({"label": [0, 1, 1], "pred": [0, 1, 0]}),
        pa.table({"label": [0, 1, 1], "pred": [0, 1, 0]}),
    ]
    for frame in frames:
        g = gather(LABELS, {"y_true": "label", "y_pred": "pred"}, data=frame)
        assert g["y_true"].tolist() == [0, 1, 1] and g["y_pred"].tolist() == [0, 1, 0]
        with pytest.raises(ValueError, match=r"`y_pred`='nope' is not a column of `data`"):
            gather(LABELS, {"y_true": "label", "y_pred": "nope"}, data=frame)


def test_design_takes_part_in_the_missing_value_policy():
    with pytest.raises(ValueError, match=r"`conditions` has 1 missing value"):
        gather_design(
            LABELS, {"y_true": [0, 1, 1], "y_pred": [0, 1, 0]}, conditions=["a", None, "b"]
        )
    g, cond, strata = gather_design(
        LABELS,
        {"y_true": [0, 1, 1], "y_pred": [0, 1, 0]},
        conditions=[pd.Series(["a", "a", "b"]), ["x", None, "y"]],
        strata=[0, 0, 1],
        dropna=True,
    )
    assert g.n_dropped == 1 and [c.tolist() for c in cond] == [["a", "b"], ["x", "y"]]
    assert strata.tolist() == [0, 1]


def test_label_pair_checks():
    with pytest.raises(TypeError, match=r"`y_true` holds numbers.*`y_pred` holds strings"):
        check_label_pair(np.array([0, 1]), np.array(["no", "yes"]))
    with pytest.raises(ValueError, match=r"share no value"):
        check_label_pair(np.array(["pos", "neg"]), np.array(["positive", "negative"]))
    check_label_pair(np.array([1, 1]), np.array([0, 0]))  # a constant system: allowed


def test_positive_label_rule():
    assert positive_label(np.array([0, 1]), None) == 1
    assert positive_label(np.array([-1, 1]), None) == 1
    assert positive_label(np.array([False, True]), None) is True
    with pytest.raises(ValueError, match=r"`pos_label` is not specified"):
        positive_label(np.array(["a", "b"]), None)
    with pytest.raises(ValueError, match=r"`pos_label`='c' is not among the values"):
        positive_label(np.array(["a", "b"]), "c")
    with pytest.raises(ValueError, match=r"needs binary labels.*`y_true == 'c'`"):
        binary_target(np.array(["a", "b", "c"]), "c", metric="roc_auc")


def test_options():
    assert bootstrap_options().method == "bca"
    with pytest.raises(ValueError, match=r"use 0.95 instead of 95"):
        check_confidence_level(95)
    # issue 8: 1.5 used to be read as a percentage and suggested 0.015
    with pytest.raises(ValueError, match=r"strictly between 0 and 1") as err:
        check_confidence_level(1.5)
    assert "0.015" not in str(err.value)
    for bad, pattern in [
        ({"alternative": "one-sided"}, "`alternative`"),
        ({"method": "jackknife"}, "`method`"),
        ({"n_resamples": 1}, "`n_resamples`"),
        ({"batch": 0}, "`batch`"),
        ({"n_jobs": 0}, "`n_jobs`"),
        ({"n_jobs": 1.5}, "`n_jobs`"),
        ({"max_memory": 10}, "`max_memory`"),
        ({"rng": "x"}, "`rng`"),
    ]:
        with pytest.raises((ValueError, TypeError), match=pattern):
            bootstrap_options(**bad)


def test_required_arguments_and_the_dropna_flag():
    # None means "not given" unless the argument is required; then it is named
    specs = {"y_true": ArgSpec("labels"), "y_score": ArgSpec("scores", required=True)}
    with pytest.raises(ValueError, match="`y_score` is required; got None"):
        gather(specs, {"y_true": [0, 1], "y_score": None})
    assert gather(specs, {"y_true": None, "y_score": [0.1, 0.2]})["y_true"] is None
    # a truthy string was taken as dropna=True
    with pytest.raises(TypeError, match="`dropna` must be True or False; got 'yes'"):
        gather(specs, {"y_true": [0, 1], "y_score": [0.1, 0.2]}, dropna="yes")
    assert gather(specs, {"y_true": [0, None], "y_score": [0.1, 0.2]}, dropna=np.True_).n_dropped


def test_a_ragged_sequence_is_named():
    # before: numpy's "setting an array element with a sequence. The requested array has
    # an inhomogeneous shape..." (e.g. nested conditions with a level given as None)
    with pytest.raises(ValueError, match=r"`conditions` must be an array .* got a ragged"):
        gather({"conditions": ArgSpec("groups")}, {"conditions": [np.arange(4), None]})
    with pytest.raises(ValueError, match=r"`y_true` must be an array .* got a ragged"):
        gather(LABELS, {"y_true": [[0, 1], [1]], "y_pred": [0, 1]})


def test_label_pair_of_different_lengths():
    # check_label_pair also compares a data set with a list of classes (ConfusionMatrix)
    check_label_pair(np.array([0, 1, 1]), np.array([1, 0]))
    with pytest.raises(ValueError, match="share no value"):
        check_label_pair(np.array([0, 1, 1]), np.array([2, 3]))


# ------------------------------------------------------------ categorical fast path
def _categoricals(values, categories=None):
    """The same labels as a pandas, polars and pyarrow categorical (None = missing)."""
    cats = categories or sorted({v for v in values if v is not None})
    return {
        "pandas": pd.Series(pd.Categorical(values, categories=cats)),
        "polars": pl.Series(values, dtype=pl.Enum(cats)),
        "polars-categorical": pl.Series(values, dtype=pl.Categorical),
        "pyarrow": pa.array(values).dictionary_encode(),
        "pyarrow-chunks": pa.chunked_array(
            [pa.array(values[:2]).dictionary_encode(), pa.array(values[2:]).dictionary_encode()]
        ),
    }


@pytest.mark.parametrize("lib", list(_categoricals(["a", "b", "c"])))
def test_categorical_inputs_equal_plain_ones_with_the_same_policy(lib):
    # the fast path (codes and categories, no Python object per row) gives what the
    # plain strings give: the same values, the same missing rows in the error, and the
    # same rows dropped
    values = ["sad", "happy", None, "sad", "angry", "happy"]
    cat = _categoricals(values)[lib]
    plain = np.array(values, dtype=object)
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value\(s\).* at row 2"):
        gather(LABELS, {"y_true": cat, "y_pred": ["sad"] * 6})
    g = gather(LABELS, {"y_true": cat, "y_pred": ["sad"] * 6}, dropna=True)
    ref = gather(LABELS, {"y_true": plain, "y_pred": ["sad"] * 6}, dropna=True)
    assert g["y_true"].dtype.kind == "U"
    np.testing.assert_array_equal(g["y_true"], ref["y_true"])
    np.testing.assert_array_equal(g.kept, ref.kept)
    # a categorical of decisions against numeric labels is still refused
    with pytest.raises(TypeError, match="holds numbers"):
        check_label_pair(
            np.array([0, 1, 1]), gather(LABELS, {"y_true": cat}, dropna=True)["y_true"][:3]
        )


def test_categoricals_mixing_types_are_refused_and_unused_categories_ignored():
    mixed = pd.Series(pd.Categorical([0, "yes", 0]))
    with pytest.raises(TypeError, match=r"`y_true` mixes strings and numbers"):
        gather(LABELS, {"y_true": mixed})
    with pytest.raises(TypeError, match=r"`y_true` mixes strings and numbers"):
        gather(LABELS, {"y_true": pd.Series([0, "yes", 0])})  # named (was ``)
    # a category no row takes does not decide the type
    unused = pd.Series(pd.Categorical([1, 0, 1], categories=[0, 1, "spare"]))
    assert gather(LABELS, {"y_true": unused})["y_true"].tolist() == [1, 0, 1]
    ints = pd.Series(pd.Categorical([1, 0, None]))
    assert gather(LABELS, {"y_true": ints}, dropna=True)["y_true"].dtype.kind == "i"


def test_dictionary_codes_unify_chunks():
    from mlci.inputs import dictionary_codes

    a = pa.chunked_array(
        [
            pa.array(["b", "a", None, "zz"]).dictionary_encode().slice(0, 3),
            pa.array(["a", "c"]).dictionary_encode(),
        ]
    )
    words, codes = dictionary_codes(a)
    assert [words[c] if c >= 0 else None for c in codes] == a.to_pylist()
    assert "zz" not in words  # only the values some row takes


@pytest.mark.parametrize("n", [10, 5000, 200_000])
@pytest.mark.parametrize("k", [1, 3, 40, 3000])
def test_text_factorisation_equals_numpy_unique(n, k):
    # reference: np.unique (the sort); the hashing path must give exactly the same
    # classes and codes, collisions included (3000 values in 2^16 buckets collide)
    from mlci.inputs import fast_unique

    rng = np.random.default_rng(n + k)
    words = np.array([f"w{i}" * (1 + i % 3) for i in range(k)] + ["", "é", "中文"])
    a = words[rng.integers(0, len(words), n)]
    u, inv = fast_unique(a)
    u_ref, inv_ref = np.unique(a, return_inverse=True)
    assert u.dtype == u_ref.dtype and inv.dtype == np.intp
    np.testing.assert_array_equal(u, u_ref)
    np.testing.assert_array_equal(inv, inv_ref.reshape(-1))


def test_object_columns_of_strings_and_none():
    # the type-set path of missing_mask and native_values (what the file reader gives)
    col = np.array(["a", None, "b", "a"], dtype=object)
    assert missing_mask(col).tolist() == [False, True, False, False]
    g = gather(LABELS, {"y_true": col}, dropna=True)
    assert g["y_true"].tolist() == ["a", "b", "a"] and g["y_true"].dtype.kind == "U"
    assert missing_mask(np.array([1, 2.5, np.nan], dtype=object)).tolist() == [False, False, True]


def test_encoded_take_gives_numpy_uniques_and_cannot_go_stale():
    from mlci.inputs import encoded_take, fast_unique

    cats = np.array(["sad", "angry", "happy", "angry"])  # a repeated category shares a code
    codes = np.array([0, 2, 2, 3, 1, 0])
    v = encoded_take(cats, codes)
    assert v.tolist() == cats[codes].tolist()
    u, inv = fast_unique(v)
    u_ref, inv_ref = np.unique(cats[codes], return_inverse=True)  # reference: numpy
    np.testing.assert_array_equal(u, u_ref)
    np.testing.assert_array_equal(inv, inv_ref)
    with pytest.raises(ValueError, match="read-only"):
        v[0] = "happy"  # the remembered encoding cannot go stale
    w = v.copy()
    w[0] = "zzz"
    assert fast_unique(w)[0].tolist() == ["angry", "happy", "sad", "zzz"]
    # what the gate returns for a categorical is such an array
    g = gather(LABELS, {"y_true": pd.Series(pd.Categorical(["b", "a", "b"]))})
    assert not g["y_true"].flags.writeable and fast_unique(g["y_true"])[1].tolist() == [1, 0, 1]
