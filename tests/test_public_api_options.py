"""The public-API matrix (tests/_public_api.py): every option of every public callable,
read from its signature, refuses bad values with an error from mlci naming it."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

from _public_api import (
    PUBLIC_API_MARKS,
    REGISTRY,
    Api,
    data_params,
    named,
    refused,
)

pytestmark = PUBLIC_API_MARKS


# ----------------------------------------------------------------------------------------
# options: read from the signature
# ----------------------------------------------------------------------------------------
#: bad values by option name, on top of the generic ones (see _option_values)
OPTION_BAD: dict[str, list[Any]] = {
    "confidence_level": [95, 1.5, 0],
    "alternative": ["one-sided"],
    "method": ["nope"],
    "rng": ["x", -1, 1.5],
    "n_resamples": [0, 2.5],
    "batch": [0, 2.5],
    "n_jobs": [0, 2.5],
    "max_memory": [10],
    "progress": [1, "yes"],
    "correction": ["nope"],
    "variant": ["nope"],
    "interpolation": ["nope"],
    "pos_label": [7],
    "average": ["nope"],
    "stratify": ["yes"],
    "resampling": [{"two_stage": True}, "poisson"],
    "subsample": [0, 1.5, "half"],
    "smoothing": [-1, "yes"],
    "higher_is_better": ["yes"],
    "metric_kwargs": [2],
    "threshold": ["0.5", np.nan],
    "thresholds": [["a"], [np.nan], []],
    "n_points": [1, 2.5, "3"],
    "rank": [0, 1.5, "2"],
    "rate": [1.5],
    "at": [1.5, "0.1"],
    "max_fpr": [1.5, 0],
    "grid": [[0.2, 1.5]],
    "p_target": [0, 1.5],
    "c_miss": [-1],
    "c_fa": [-1],
    "alpha": [0, -1],
    "names": ["abcd"],
    "control": ["zz"],
    "reference": ["Z"],
    "classes": ["01"],
    "normalize": ["nope"],
    "correlation": [1.5, np.nan],
    "auc_null": [1.5, np.nan],
    "width": [0],
    "power": [0, 1.5],
    "ratio": [0],
    "n_samples": [0],
    "n_train": [0],
    "n_test": [0],
    "n_chunks": [0, 2.5],
    "margin": [0, -0.1, "0.1", np.inf],
    "rope": [-0.1, "x"],
    "rho": [1.0, -0.5],
    "n_runs": [0, 4],
    "prior_strength": [0, -1],
    "criterion": ["nope"],
    "c_fn": [-1],
    "c_fp": [-1],
    "prevalence": [0, 1.5],
    "n_splits": [1],
    "n_repeats": [0],
    "n_train_resamples": [-1],
    "num_bootstraps": [0],
    "jackknife_groups": [1],
    "seeds": [[], "1"],
    "test_size": [0, 1.5],
    "cv": [1, "kfold"],
    "n_bootstraps": [5],
    "scoring": ["nope"],
    "speaker_of": [{}],
    "resample": ["nope"],
    "resample_levels": ["nope"],
    "scores": [[0.1, 0.9], None],  # the Scores object of the score functions
    "metric": [3],
    "conditions": ["x", ["nope"]],  # the LLM functions' column names (elsewhere: data)
    "models": ["A", ["zz"]],
    "model": [3],
    "filter": [3, "nope"],
    "repeats": [0, "x"],
    "difference": [0, 1.5],
    "k": [0],
    "engine": ["nope", "spark"],
    "score_bins": [1, 2.5],
    "max_rows": [0],
    "memory_limit": [3, " "],
    "temp_directory": [3],
    "sampler": [3],
    "fpr": [[1.5], "0.1"],
    "fnr": [[1.5], "0.1"],
    "y_axis": ["nope", "fpr"],  # the same rate as the default x_axis
    "group_names": ["zz", ["a"]],
    "estimate": [np.nan, "x"],
    "statistic": [3],
    "baseline": ["Z"],
    "measure": ["nope@10", 3],
    "missing": ["nope"],
    "bounds": [(1, 0), "x"],
}

#: parameters not varied here, and where they are tested instead
ELSEWHERE: dict[str, str] = {
    "data": "a column name not in `data`: the per-area matrices (tests/classical, scores)",
    "session_of": "tests/scores/test_trials.py",
    "samples2": "tests/test_compat.py (a second per-sample array of a user metric)",
    "X_train": "tests/comparison/test_inputs.py::test_methods_specific_inputs",
    "y_train": "tests/comparison/test_inputs.py::test_methods_specific_inputs",
    "X_test": "tests/comparison/test_inputs.py::test_methods_specific_inputs",
    "binary": "generic flag; the matrix= entry (a table) covers it in test_confusion",
    "paths": "tests/llm/test_llm_readers.py (missing files, directories without logs)",
    "log": "tests/llm (`log` must be an EvalLog)",
    "source": "tests/backends/test_duckdb.py (files, globs, SQL, frames: missing, empty, wrong)",
    "bootstrap_distribution": "tests/engine/test_custom.py (NaN marks an undefined replicate)",
    "ratings": "tests/test_agreement.py (NaN is a missing rating there, not a bad input)",
    "path": "tests/mt/test_mt_inputs.py, tests/ir/test_ir_inputs.py (bad files, line by line)",
    "run": "tests/ir/test_ir_inputs.py (a run: a TREC file or {qid: {docid: score}})",
    "runs": "tests/ir/test_ir_inputs.py (runs: a dict of runs)",
    "qrels": "tests/ir/test_ir_inputs.py (qrels: a TREC file or {qid: {docid: grade}})",
}


def _option_values(api: Api, param: inspect.Parameter) -> list[Any]:
    """Bad values of one option: by name, plus generic ones from its (good) value's type:
    a flag refuses "yes", a choice refuses "nope", a number refuses NaN and a string."""
    values = list(OPTION_BAD.get(param.name, []))
    current = api.good.get(param.name, param.default)
    if isinstance(current, bool | np.bool_):
        values.append("yes")
    elif isinstance(current, str):
        values.append("nope")
    elif isinstance(current, int | float) and param.name != "rng":
        values += [np.nan, "1"]
    out: list[Any] = []
    for v in values:  # unique, keeping order (NaN compares unequal to itself)
        if not any(v is u or (type(v) is type(u) and _same(v, u)) for u in out):
            out.append(v)
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except ValueError:
        return False


def _params(api: Api) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    sig = inspect.signature(api.fn)
    return [p for p in sig.parameters.values() if p.kind not in kinds and p.name != "self"]


def _option_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        data = data_params(api)
        for p in _params(api):
            if p.name in data:
                continue
            for bad in _option_values(api, p):
                cases.append(pytest.param(name, p.name, bad, id=f"{name}-{p.name}={bad!r}"))
    return cases


def test_every_parameter_is_classified():
    # a new parameter is data of some entry, gets a bad value here, or says where it is
    # tested: a new option never goes untested silently
    unclassified = []
    for name, api in REGISTRY.items():
        data = data_params(api)
        for p in _params(api):
            if p.name in data or p.name in ELSEWHERE or _option_values(api, p):
                continue
            unclassified.append(f"{name}({p.name})")
    assert not unclassified, f"parameters with no bad value in OPTION_BAD: {unclassified}"


@pytest.mark.parametrize(("name", "option", "bad"), _option_cases())
def test_bad_option_refused(name, option, bad):
    api = REGISTRY[name]
    # an unknown metric name is reported as "Unknown metric 'nope'" with the list of names
    pattern = named(option) + ("|Unknown metric" if option == "metric" else "")
    refused(lambda: api.run(**{option: bad}), pattern)
