"""The public-API matrix's command line (tests/_public_api.py): every option of every
subcommand (walked from :func:`mlci.cli.build_parser`) with bad values: exit status 2 and
one line on stderr naming the option or column."""

from __future__ import annotations

import argparse
import re
from typing import Any

import pytest

import mlci
import mlci.cli
from _helpers import run_cli as _cli
from _public_api import PUBLIC_API_MARKS

pytestmark = PUBLIC_API_MARKS


# ----------------------------------------------------------------------------------------
# the command line: every option of every subcommand
# ----------------------------------------------------------------------------------------
#: a valid command per subcommand; a case appends its arguments (the last value of an
#: option wins) or, for FILE, replaces the input
_COMPARE = ["--systems", "pred,pred_baseline", "--metric", "accuracy"]
CLI_BASE = {
    "ci": ["ci", "--example", "--metric", "accuracy", "-B", "20", "--seed", "0"],
    "compare": ["compare", "--example", *_COMPARE, "-B", "20", "--seed", "0"],
    "scores": ["scores", "--example", "-B", "20", "--seed", "0"],
    "datasets": ["datasets", "{ds_file}"],
    "agreement": ["agreement", "{ds_file}", "--item-column", "dataset", "-B", "20", "--seed", "0"],
    "correlate": [
        "correlate",
        "{meta_file}",
        *("--system", "system", "--item", "item", "--human", "human", "--metric-score", "m1"),
        *("-B", "20", "--seed", "0"),
    ],
    "report": [
        "report",
        "--example",
        "--label",
        "is_angry",
        "--score",
        "score_angry",
        "-o",
        "{out_file}",
        "-B",
        "20",
        "--seed",
        "0",
        "--method",
        "percentile",
        "--quiet",
    ],
    "metrics": ["metrics"],
    "example": ["example"],
    "llm ci": ["llm", "ci", "--example", "--condition", "group", "-B", "20", "--seed", "0"],
    "llm compare": ["llm", "compare", "--example", "--condition", "group", "-B20", "--seed", "0"],
    "llm plan": ["llm", "plan", "--example", "--models", "model-a,model-b", "--difference", "0.05"],
}
#: a datasets x methods table (for `mlci datasets`), the report's output file
DS_FILE, OUT_FILE = "{ds_file}", "{out_file}"
DS_TEXT = "dataset,a,b,c\nd1,0.9,0.8,0.7\nd2,0.85,0.8,0.75\nd3,0.7,0.72,0.6\nd4,0.9,0.85,0.8\n"
#: a systems x items table in long form (for `mlci correlate`): 25 systems x 3 items
META_FILE = "{meta_file}"
META_TEXT = "system,item,human,m1,m2\n" + "".join(
    f"s{s},i{i},{(s * 7 + i * 3) % 11},{(s * 5 + i) % 13},{(s * 3 + i * 2) % 7}\n"
    for s in range(25)
    for i in range(3)
)
#: the output options every subcommand but metrics/example has: option -> cases
_OUTPUT_CASES = {
    "--format": [(["--format", "xml"], "--format: invalid choice")],
    "--json": [(["--json=yes"], "--json")],
    "--digits": [(["--digits", "x"], "--digits"), (["--digits", "99"], "--digits")],
    "--quiet": [(["--quiet=yes"], "--quiet")],
    "--plot": [(["--plot", "out.txt"], "--plot out.txt: give a file name ending in")],
}
#: the bootstrap's own options, every resampling subcommand: option -> cases
_RESAMPLING_CASES = {
    "--n-resamples": [(["-B", "x"], "--n-resamples"), (["-B", "0"], "--n-resamples")],
    "--seed": [(["--seed", "x"], "--seed"), (["--seed", "-1"], "--seed")],
}
_ALTERNATIVE_CASES = {
    "--alternative": [(["--alternative", "one-sided"], "--alternative: invalid choice")]
}


def _levels(*values: str) -> dict[str, list[tuple[list[str], str]]]:
    """``--confidence-level`` given each of ``values``: an error naming the option."""
    return {
        "--confidence-level": [(["--confidence-level", v], "--confidence-level") for v in values]
    }


#: stands for a file holding a missing label (read without --dropna), or no file
NA_FILE, NO_FILE = "{na_file}", "{no_file}"
_ROC = ["--metric", "roc_auc", "--label", "is_angry"]

#: subcommand -> option (FILE for the input file) -> [(arguments, text the error holds)]
CLI_CASES: dict[str, dict[str, list[tuple[list[str], str]]]] = {
    "ci": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--pred", "p"], "No such file"),
            ([NA_FILE, "--label", "y", "--pred", "p"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [(["--label", "nope"], "--label 'nope': no such column")],
        "--pred": [(["--pred", "nope"], "--pred 'nope': no such column")],
        "--score": [([*_ROC, "--score", "nope"], "--score 'nope': no such column")],
        "--value": [
            (["--metric", "mean", "--value", "nope"], "--value 'nope': no such column"),
            (["--metric", "mean", "--value", "label"], "column 'label' (--value) must hold num"),
        ],
        "--weight": [
            (
                ["--metric", "weighted_mean", "--value", "wer", "--weight", "nope"],
                "--weight 'nope'",
            ),
            (["--weight", "nope"], "--weight 'nope': no such column"),
            (["--weight", "label"], "column 'label' (--weight) must hold numbers"),
            (["--weight", "num_words", "--method", "wilson-cc"], "--weight with --method"),
        ],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--strata": [(["--strata", "nope"], "--strata 'nope': no such column")],
        "--metric": [
            (["--metric", "nope"], "--metric 'nope': unknown metric"),
            (["--metric", ","], "--metric: give at least one metric"),
        ],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "1.5", "0", "x"),
        **_ALTERNATIVE_CASES,
        "--two-stage": [
            (["--two-stage"], "--two-stage needs --condition"),
            (["--two-stage=yes"], "--two-stage"),
        ],
        "--pos-label": [([*_ROC, "--score", "score_angry", "--pos-label", "7"], "--pos-label 7")],
        "--average": [(["--average", "nope"], "--average: invalid choice")],
        "--beta": [
            (["--metric", "fbeta", "--average", "macro", "--beta", "-1"], "--beta"),
            (["--metric", "fbeta", "--average", "macro", "--beta", "x"], "--beta"),
        ],
        "--kappa-weights": [
            (["--metric", "cohen_kappa", "--kappa-weights", "cubic"], "--kappa-weights")
        ],
        **_OUTPUT_CASES,
        "--engine": [
            (["--engine", "nope"], "--engine: invalid choice"),
            (["--engine", "duckdb", "--two-stage", "--condition", "speaker"], "--two-stage"),
            ([NA_FILE, "--engine", "duckdb"], "either FILE or --example"),
            (["--engine", "duckdb", "--label", "nope"], "--label: no column 'nope'"),
        ],
        "--score-bins": [
            (["--score-bins", "1"], "--score-bins"),
            (["--score-bins", "x"], "--score-bins"),
            (["--score-bins", "64"], "--score-bins quantises scores inside DuckDB"),
        ],
        "--json": [(["--json=yes"], "--json")],
        "--digits": [(["--digits", "x"], "--digits"), (["--digits", "99"], "--digits")],
    },
    "compare": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--systems", "p,q"], "No such file"),
            ([NA_FILE, "--label", "y", "--systems", "p,q"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [(["--label", "nope"], "--label 'nope': no such column")],
        "--systems": [
            (["--systems", "pred,nope"], "--systems 'nope': no such column"),
            (["--systems", "pred"], "--systems: give at least two"),
        ],
        "--weight": [
            (["--weight", "nope"], "--weight 'nope': no such column"),
            (["--weight", "label"], "column 'label' (--weight) must hold numbers"),
            (["--weight", "num_words", "--test", "mcnemar"], "--weight needs --test bootstrap"),
        ],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--strata": [(["--strata", "nope"], "--strata 'nope': no such column")],
        "--metric": [(["--metric", "nope"], "--metric 'nope': unknown metric")],
        "--reference": [(["--reference", "nope"], "--reference 'nope'")],
        "--margin": [
            (["--margin", "x"], "--margin"),
            (["--margin", "-1"], "--margin must be a positive"),
            (["--margin", "0.05", "--test", "permutation"], "--margin needs --test"),
        ],
        "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "1.5", "0"),
        "--pos-label": [
            ([*_ROC, "--systems", "score_angry,score_sad", "--pos-label", "7"], "--pos-label 7")
        ],
        "--average": [
            (["--average", "nope"], "--average: invalid choice"),
            (["--metric", "f1"], "--average macro"),  # multiclass labels
        ],
        "--system-column": [
            (["--system-column", "nope"], "--systems (a wide table) or --system-column"),
            (["--systems", "", "--system-column", "speaker"], "missing: --sample-column"),
        ],
        "--sample-column": [
            (["--systems", "", "--sample-column", "utterance"], "missing: --system-column"),
        ],
        "--output-column": [
            (["--systems", "", "--output-column", "pred"], "missing: --system-column"),
        ],
        "--test": [
            (["--test", "wilcoxon"], "--test: invalid choice"),
            (["--test", "delong", "--metric", "f1"], "--test delong compares roc_auc"),
            (["--test", "mcnemar", "--condition", "speaker"], "--test mcnemar assumes independent"),
        ],
        "--variant": [
            (["--variant", "nope"], "--variant: invalid choice"),
            (["--variant", "exact"], "--variant is an option of --test mcnemar"),
        ],
        **_ALTERNATIVE_CASES,
        **_OUTPUT_CASES,
    },
    "scores": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--score", "p"], "No such file"),
            ([NA_FILE, "--label", "y", "--score", "p"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--max-fpr": [(["--max-fpr", "1.5"], "--max-fpr"), (["--max-fpr", "x"], "--max-fpr")],
        "--youden": [
            (["--youden=yes"], "--youden"),
            (["--youden", "--condition", "speaker"], "--youden resamples"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [
            (["--label", "nope"], "--label 'nope': no such column"),
            (["--label", "label"], "--label 'label'"),  # four classes: not binary
        ],
        "--score": [
            (["--score", "nope"], "--score 'nope': no such column"),
            (["--score", "label"], "column 'label' (--score) must hold numbers"),
        ],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--strata": [(["--strata", "nope"], "--strata 'nope': no such column")],
        "--group": [(["--group", "nope"], "--group 'nope': no such column")],
        "--weight": [
            (["--weight", "nope"], "--weight 'nope': no such column"),
            (["--weight", "is_angry"], "--weight 'is_angry' is zero on every negative"),
        ],
        "--p-target": [(["--p-target", "1.5"], "--p-target"), (["--p-target", "x"], "--p-target")],
        "--c-miss": [(["--c-miss", "-1"], "--c-miss")],
        "--c-fa": [(["--c-fa", "0"], "--c-fa")],
        "--llr": [(["--llr=yes"], "--llr")],
        "--threshold": [
            (["--threshold", "x"], "--threshold"),
            (["--threshold", "inf"], "--threshold"),
        ],
        "--at-fpr": [(["--at-fpr", "0"], "--at-fpr"), (["--at-fpr", "a"], "--at-fpr")],
        "--at-fnr": [(["--at-fnr", "1"], "--at-fnr")],
        "--group-metric": [
            (["--group", "session", "--group-metric", "fnr"], "--group-metric fnr is a rate"),
            (
                ["--group", "session", "--group-metric", "nope", "--threshold", "0.5"],
                "--group-metric",
            ),
        ],
        "--curve": [(["--curve", "lift"], "--curve: invalid choice")],
        "--pos-label": [(["--pos-label", "7"], "--pos-label 7")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "1.5"),
        **_ALTERNATIVE_CASES,
        **_OUTPUT_CASES,
    },
    "datasets": {
        "FILE": [
            ([NO_FILE], "No such file"),
            ([NA_FILE], "column 'y' (--methods) has 1 missing"),
        ],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--dataset-column": [(["--dataset-column", "nope"], "--dataset-column 'nope': no such")],
        "--methods": [
            (["--methods", "a"], "--methods: give at least two"),
            (["--methods", "a,nope"], "--methods 'nope': no such column"),
            (["--methods", "a,dataset"], "column 'dataset' (--methods) must hold numbers"),
        ],
        "--variant": [(["--variant", "f"], "--variant: invalid choice")],
        "--posthoc": [
            (["--posthoc", "tukey"], "--posthoc: invalid choice"),
            (["--posthoc", "holm"], "--posthoc holm compares every method to one: give --control"),
        ],
        "--control": [(["--posthoc", "holm", "--control", "z"], "--control 'z' is not among")],
        "--alpha": [(["--alpha", "5"], "--alpha"), (["--alpha", "x"], "--alpha")],
        "--lower-is-better": [(["--lower-is-better=yes"], "--lower-is-better")],
        **_OUTPUT_CASES,
    },
    "agreement": {
        "FILE": [
            ([NO_FILE], "No such file"),
            (
                [NA_FILE, "--item-column", "q", "--metric", "fleiss_kappa"],
                "--raters has 1 missing rating",
            ),
        ],
        "--raters": [
            (["--raters", "a"], "--raters: give at least two"),
            (["--raters", "a,nope"], "--raters 'nope': no such column"),
        ],
        "--item-column": [(["--item-column", "nope"], "--item-column 'nope': no such column")],
        "--metric": [(["--metric", "cohen"], "--metric: 'cohen'")],
        "--level": [(["--level", "nope"], "--level: invalid choice")],
        "--resample": [(["--resample", "nope"], "--resample: invalid choice")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "x"),
        **_ALTERNATIVE_CASES,
        **{k: v for k, v in _OUTPUT_CASES.items() if k != "--plot"},
    },
    "correlate": {
        "FILE": [
            ([NO_FILE], "No such file"),
            (
                [NA_FILE, "--system", "y", "--item", "p", "--human", "q", "--metric-score", "q"],
                "column 'y' (--system) has 1 missing",
            ),
        ],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--system": [(["--system", "nope"], "--system 'nope': no such column")],
        "--item": [
            (["--item", "nope"], "--item 'nope': no such column"),
            (["--item", "system"], "every (system, item) needs exactly one row"),
        ],
        "--human": [
            (["--human", "nope"], "--human 'nope': no such column"),
            (["--human", "system"], "column 'system' (--human) must hold numbers"),
        ],
        "--metric-score": [
            (["--metric-score", "nope"], "--metric-score 'nope': no such column"),
            (["--metric-score", ","], "--metric-score: give at least one"),
        ],
        "--coefficient": [(["--coefficient", "tau"], "--coefficient: invalid choice")],
        "--level": [(["--level", "summary"], "--level: invalid choice")],
        "--resample": [(["--resample", "inputs"], "--resample: invalid choice")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "x"),
        **_ALTERNATIVE_CASES,
        **{k: v for k, v in _OUTPUT_CASES.items() if k != "--plot"},
    },
    "report": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--score", "p"], "No such file"),
            ([NA_FILE, "--label", "y", "--score", "p"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [(["--label", "nope"], "--label 'nope': no such column")],
        "--score": [
            (["--score", "nope"], "--score 'nope': no such column"),
            (["--score", "label"], "column 'label' (--score) must hold numbers"),
        ],
        "--pred": [(["--pred", "pred"], "give the systems as --score COL,... (scores) or --pred")],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--group": [(["--group", "nope"], "--group 'nope': no such column")],
        "--pos-label": [(["--pos-label", "7"], "--pos-label 7")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "0"),
        "--output": [(["-o", "/nonexistent/r.html"], "--output /nonexistent/r.html: folder")],
        "--format": [(["--format", "pdf"], "--format: invalid choice")],
        "--quiet": [(["--quiet=yes"], "--quiet")],
    },
    "metrics": {
        "--json": [(["--json=yes"], "--json")],
        "--format": [(["--format", "csv"], "--format: invalid choice")],
    },
    "example": {
        "--path": [(["--path=yes"], "--path")],
        "--format": [(["--format", "xml"], "--format: invalid choice")],
    },
}

#: the options `mlci llm ci`, `compare` and `plan` share: reading the logs
_LLM_READING: dict[str, list[tuple[list[str], str]]] = {
    "PATHS": [
        ([NO_FILE], "no such file"),
        ([NA_FILE], "no column 'item'"),
        ([NA_FILE, "--example"], "either PATHS (log files or directories) or --example"),
    ],
    "--example": [(["--example=yes"], "--example")],
    "--format": [(["--format", "nope"], "--format: invalid choice")],
    "--metric": [(["--metric", "acc"], "no column 'acc'")],
    "--model": [(["--model", "x"], "duplicated row")],  # every file's rows as one model
    "--filter": [(["--filter", "x"], "--filter selects an lm-evaluation-harness filter")],
    "--condition": [(["--condition", "nope"], "no column 'nope'")],
    "--partial": [(["--partial=yes"], "--partial")],
    "--cluster": [(["--cluster", "nope"], "no column 'nope'")],  # the hidden former spelling
    "--models": [(["--models", "zz"], "--models names ['zz']")],
}
_LLM_ESTIMAND: dict[str, list[tuple[list[str], str]]] = {
    "--estimand": [(["--estimand", "nope"], "--estimand: invalid choice")],
    "--k": [(["--k", "0"], "--k must be"), (["--k", "x"], "--k"), (["--k", "2"], "--k applies")],
    "--repeats": [(["--repeats", "nope"], "--repeats: invalid choice")],
    "--aggregate": [(["--aggregate", "nope"], "--aggregate: invalid choice")],
    "--items": [(["--items", "nope"], "--items: invalid choice")],
    "--method": [(["--method", "nope"], "--method: invalid choice")],
    **_RESAMPLING_CASES,
    **_levels("95", "1.5", "x"),
    **_ALTERNATIVE_CASES,
    "--json": [(["--json=yes"], "--json")],
}
CLI_CASES["llm ci"] = {**_LLM_READING, **_LLM_ESTIMAND}
CLI_CASES["llm compare"] = {
    **_LLM_READING,
    **_LLM_ESTIMAND,
    "--reference": [(["--reference", "nope"], "--reference 'nope' is not among the models")],
    "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
}
CLI_CASES["llm plan"] = {
    **_LLM_READING,
    "--models": [
        (["--models", "zz,x"], "--models 'zz' is not a model"),
        (["--models", "model-a"], "two"),
    ],
    "--difference": [(["--difference", "0"], "--difference"), (["--difference", "x"], "--diff")],
    "--power": [(["--power", "1.5"], "--power")],
    "--alpha": [(["--alpha", "0"], "--alpha")],
    "--plan-repeats": [(["--plan-repeats", "0"], "--plan-repeats")],
    "--json": [(["--json=yes"], "--json")],
}


# `mlci mt` and `mlci ir` (corpus MT metrics, IR ranking): their bundled examples; the
# file options' own errors (missing file, bad line) are tested in tests/mt and tests/ir
CLI_BASE["mt ci"] = ["mt", "ci", "--example", "-B", "20", "--seed", "0"]
CLI_BASE["mt compare"] = ["mt", "compare", "--example", "-B", "20", "--seed", "0"]
CLI_BASE["ir ci"] = ["ir", "ci", "--example", "-B", "20", "--seed", "0"]
CLI_BASE["ir compare"] = ["ir", "compare", "--example", "-B", "20", "--seed", "0"]
_FAMILY_COMMON: dict[str, list[tuple[list[str], str]]] = {
    "--example": [(["--example=yes"], "--example")],
    **_RESAMPLING_CASES,
    **_levels("95"),
    "--method": [(["--method", "nope"], "--method: invalid choice")],
    **_OUTPUT_CASES,
}
del _FAMILY_COMMON["--plot"]
_MT_COMMON: dict[str, list[tuple[list[str], str]]] = {
    **_FAMILY_COMMON,
    "--refs": [(["-r", NA_FILE], "--example replaces --refs")],
    "--input": [(["-i", NA_FILE], "--example replaces --refs, --input")],
    "--documents": [(["--documents", NA_FILE], "--example replaces --refs, --input and --doc")],
    "--metric": [(["--metric", "ter"], "--metric must be bleu, chrf")],
    "--tokenize": [(["--tokenize", "zz"], "--tokenize 'zz' is not a sacreBLEU tokenizer")],
    "--lowercase": [(["--lowercase=yes"], "--lowercase")],
}
CLI_CASES["mt ci"] = dict(_MT_COMMON)
CLI_CASES["mt compare"] = {
    **_MT_COMMON,
    "--test": [(["--test", "wilcoxon"], "--test: invalid choice")],
    "--baseline": [(["--baseline", "zz"], "--baseline 'zz' is not one of the --input files")],
    "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
}
_IR_COMMON: dict[str, list[tuple[list[str], str]]] = {
    **_FAMILY_COMMON,
    "RUNS": [([NA_FILE], "--example replaces RUNS and --qrels")],
    "--qrels": [(["--qrels", NA_FILE], "--example replaces RUNS and --qrels")],
    "--measure": [(["--measure", "ndcg@x"], "--measure 'ndcg@x' is not a measure")],
    "--missing": [(["--missing", "skip"], "--missing: invalid choice")],
}
CLI_CASES["ir ci"] = dict(_IR_COMMON)
CLI_CASES["ir compare"] = {
    **_IR_COMMON,
    "--test": [(["--test", "wilcoxon"], "--test: invalid choice")],
    "--reference": [(["--reference", "zz"], "--reference 'zz' is not one of the runs")],
    "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
}
# counts per row (tests/test_cli_frequency_weights.py has the rest)
for _cmd in ("ci", "compare", "scores"):
    CLI_CASES[_cmd]["--frequency-weight"] = [
        (["--frequency-weight", "nope"], "--frequency-weight 'nope': no such column"),
        (["--frequency-weight", "wer"], "column 'wer' (--frequency-weight) must hold counts"),
    ]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    """Every (sub)subcommand's parser: ``"ci"``, ..., ``"llm ci"`` (nested ones flattened)."""

    def children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        sub = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return dict(sub[0].choices) if sub else {}

    out = {}
    for name, parser in children(mlci.cli.build_parser()).items():
        nested = children(parser)
        out.update({f"{name} {k}": v for k, v in nested.items()} if nested else {name: parser})
    return out


def _cli_options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The user's inputs of a subcommand: option (its long spelling) or FILE -> action."""
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        key = action.option_strings[-1] if action.option_strings else action.dest.upper()
        out[key] = action
    return out


def test_cli_matrix_covers_every_option():
    # a new subcommand or option joins CLI_CASES, or this fails
    subs = _subparsers()
    assert set(subs) == set(CLI_CASES), "subcommands without a CLI_CASES entry (or gone)"
    for name, parser in subs.items():
        options = set(_cli_options(parser))
        missing = sorted(options - set(CLI_CASES[name]))
        assert not missing, f"`mlci {name}` options with no bad value in CLI_CASES: {missing}"
        stale = sorted(set(CLI_CASES[name]) - options)
        assert not stale, f"CLI_CASES lists options `mlci {name}` does not have: {stale}"
        assert all(CLI_CASES[name].values()), f"an option of `mlci {name}` has no case"


@pytest.mark.parametrize("command", list(CLI_BASE))
def test_cli_base_commands_run(tmp_path, capsys, command):
    ds_file = tmp_path / "ds.csv"
    ds_file.write_text(DS_TEXT)
    meta_file = tmp_path / "meta.csv"
    meta_file.write_text(META_TEXT)
    paths = {
        DS_FILE: str(ds_file),
        META_FILE: str(meta_file),
        OUT_FILE: str(tmp_path / "report.html"),
    }
    code, _, err = _cli(capsys, [paths.get(a, a) for a in CLI_BASE[command]])
    assert code == 0, err


def _cli_cases() -> list[Any]:
    cases = []
    for command, options in CLI_CASES.items():
        for option, bad in options.items():
            for args, expect in bad:
                ident = f"{command}-{option}-{' '.join(args)}"
                cases.append(pytest.param(command, option, args, expect, id=ident))
    return cases


@pytest.mark.parametrize(("command", "option", "args", "expect"), _cli_cases())
def test_cli_bad_value_is_one_line_naming_it(tmp_path, capsys, command, option, args, expect):
    na_file = tmp_path / "na.csv"
    na_file.write_text("y,p,q\n0,0,0\n1,1,0\nNA,1,1\n0,0,1\n")
    ds_file = tmp_path / "ds.csv"
    ds_file.write_text(DS_TEXT)
    meta_file = tmp_path / "meta.csv"
    meta_file.write_text(META_TEXT)
    paths = {
        META_FILE: str(meta_file),
        NA_FILE: str(na_file),
        NO_FILE: str(tmp_path / "missing.csv"),
        DS_FILE: str(ds_file),
        OUT_FILE: str(tmp_path / "report.html"),
    }
    args = [paths.get(a, a) for a in args]
    base = [paths.get(a, a) for a in CLI_BASE[command]]
    if option in ("FILE", "PATHS"):  # the file instead of the example (unless the case adds it)
        base = [a for a in base if a not in ("--example", str(ds_file), str(meta_file))]
    code, out, err = _cli(capsys, [*base, *args])
    assert code == 2, f"exit status {code}: {err or out}"
    assert out == ""
    assert err.startswith("mlci: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert expect in err, err
    if paths[NO_FILE] in args:
        assert paths[NO_FILE] in err  # the file is named
    # never a Python argument in backticks (`y_true`), only options of this subcommand
    assert not re.search(r"`\w+`", err), err
    known = {s for a in _subparsers()[command]._actions for s in a.option_strings}
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", err))
    assert named <= known, f"options that `mlci {command}` does not have: {named - known}"
