"""The glossary (docs/glossary.md) enforced over every public signature.

Modelled on scikit-learn's ``sklearn/tests/test_public_functions.py``: one test per rule,
run over every callable reachable from ``mlci.__all__`` (the functions, the constructors
of the classes that are not plain records, and every public method).  The rules, also
listed in docs/glossary.md ("What a test enforces"):

* **documented**: every parameter is documented in the numpydoc ``Parameters`` (or
  ``Other Parameters``) section of its function (for a class: of the class docstring).
  Together with the glossary's terms this is the vocabulary: a name is either a glossary
  term or a per-function name that its docstring explains.
* **forbidden spellings**: a glossary concept is never spelled another way (``rng`` not
  ``random_state``/``seed``; ``conditions`` not ``cluster``/``clusters``/``groups``;
  ``confidence_level`` not ``level``/``cl``/``conf_level``; ``n_resamples`` not
  ``n_boot``/``n_bootstrap``; a test's ``variant`` not ``test``/``design``); ``alpha`` only
  for a significance level.
* **defaults**: ``confidence_level`` 0.95; ``alternative`` "two-sided" with the three
  values "two-sided", "less", "greater"; ``n_resamples`` 1000 (a permutation p-value:
  9999, :data:`N_RESAMPLES_DEFAULTS`); ``method`` "auto" (a
  bootstrap interval) or None (a protocol's recommended method, a result's own).
* **strata and stratify**: a function that takes both refuses both at once.
* **one option, one spelling**: the same option of sibling functions has one name.

A departure that exists today is listed in :data:`KNOWN` with the issue that tracks it, so
that the tests fail on any *new* departure; a KNOWN entry that no longer applies fails
:func:`test_known_departures_still_exist` (delete it).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mlci

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"

#: other spellings of a glossary term -> the term
FORBIDDEN = {
    "random_state": "rng",
    "seed": "rng",
    "random_seed": "rng",
    "cluster": "conditions",
    "clusters": "conditions",
    "cluster_ids": "conditions",
    "groups": "conditions",
    "level": "confidence_level",
    "cl": "confidence_level",
    "conf_level": "confidence_level",
    "confidence": "confidence_level",
    "ci_level": "confidence_level",
    "n_boot": "n_resamples",
    "n_boots": "n_resamples",
    "n_bootstrap": "n_resamples",
    "n_bootstrap_samples": "n_resamples",
    "n_replicates": "n_resamples",
    "test": "variant",
    "design": "variant",
}

#: a forbidden spelling that means something else where it is used (not a departure)
OTHER_MEANING = {
    # the subgroups whose metrics are compared (fairness), not resampled units
    ("metric_by_group", "groups"),
    ("GroupScores.from_labels", "groups"),
    ("GroupResult", "groups"),
}

#: `alpha` that is not a test's level, on purpose
ALPHA_ELSEWHERE = {
    # the drop-in for confidence_intervals.evaluate_with_conf_int keeps its signature
    # (alpha in percent)
    "evaluate_with_conf_int",
}

#: interval methods whose default is their own (analytic intervals, a planning function)
ANALYTIC_METHOD_DEFAULTS = {
    ("proportion_ci", "wilson"),
    ("proportion_diff_ci", "newcombe"),
    ("paired_proportion_diff_ci", "newcombe"),
    ("sample_size_proportion", "wilson"),
}

#: `n_resamples` defaults other than 1000, each for a statistical reason (docs/glossary.md)
N_RESAMPLES_DEFAULTS = {
    # a Monte Carlo p-value (1 + k) / (1 + B): with B = 9999, alpha (B + 1) is a whole
    # number for alpha = 0.05, 0.01, 0.001 (the test is exact at those levels; Davison &
    # Hinkley 1997, sec. 4.2.5), the grid of p-values is 1e-4 and the Monte Carlo sd of a
    # p-value near 0.05 is 0.0022 (0.0069 with the interval default
    # B = 1000, at which alpha (B + 1) is not whole): a p-value is read at a tail
    # probability, an interval's 2.5% quantile is not.  scipy.stats.permutation_test's
    # default is 9999 too.
    ("permutation_test", 9999),
}

#: options of sibling functions that must be spelled alike: (function, parameter) pairs
SAME_OPTION = [
    # the minimum (calibrated) variant of a verification cost
    (("dcf_ci", "kind"), ("cllr_ci", "kind")),
]

#: departures that exist today, each tracked by issue 23 ("the glossary is not enforced");
#: key (rule, function, parameter), value: why it is listed
KNOWN: dict[tuple[str, str, str], str] = {
    # --- forbidden spellings
    # --- method defaults: "auto" for a bootstrap interval (issue 23: bca x8, percentile x4)
    # the bca defaults are "auto" now (wt-defaults, issue 20 item 4: they resolve to BCa
    # in mlci.engine.auto); roc_band/roc_with_ci keep 'percentile' (docs/guide.md,
    # section 2); metric_by_group and trial_bootstrap_ci are "auto" (BCa) since wt-auto2
    ("method-default", "roc_band", "method"): "issue 23: 'percentile'",
    ("method-default", "roc_with_ci", "method"): "issue 23: 'percentile'",
    ("method-default", "cross_val_compare", "method"): "issue 23: 'corrected' (protocols: None)",
    # one signature for a bootstrap (1000 replicates) and a randomization test (9999
    # swaps, as ranx): None takes the variant's default (issue 24)
    ("n_resamples-default", "ir_compare", "n_resamples"): "issue 24: 1000 or 9999 by variant",
}


# ----------------------------------------------------------------------------- the API
@dataclasses.dataclass(frozen=True)
class Signature:
    """One public callable: its name, parameters and docstring."""

    name: str
    parameters: tuple[inspect.Parameter, ...]
    doc: str
    record: bool  # a dataclass or named tuple: its fields are documented as Attributes

    def parameter(self, name: str) -> inspect.Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)


def _signature(name: str, obj: Any, doc: str | None, record: bool = False) -> Signature:
    # `**deprecated`: old spellings still accepted with a FutureWarning, on purpose absent
    # from the docs (the rules apply to the names users are told to write)
    params = tuple(
        p
        for p in inspect.signature(obj).parameters.values()
        if p.name not in ("self", "cls")
        and not (p.kind is inspect.Parameter.VAR_KEYWORD and p.name == "deprecated")
    )
    return Signature(name, params, inspect.cleandoc(doc or ""), record)


def _public() -> Iterator[Signature]:
    seen: set[str] = set()
    for name in mlci.__all__:
        obj = getattr(mlci, name)
        if not inspect.isclass(obj):
            yield _signature(name, obj, obj.__doc__)
            continue
        if issubclass(obj, BaseException):
            continue
        record = dataclasses.is_dataclass(obj) or issubclass(obj, tuple)
        yield _signature(name, obj, obj.__doc__, record)
        for attr in dir(obj):
            if attr.startswith("_"):
                continue
            raw = inspect.getattr_static(obj, attr)
            func = raw.__func__ if isinstance(raw, classmethod | staticmethod) else raw
            if not inspect.isfunction(func) or not func.__module__.startswith("mlci"):
                continue
            qual = func.__qualname__
            if qual in seen or "<locals>" in qual:
                continue
            seen.add(qual)
            yield _signature(qual, func, func.__doc__)


SIGNATURES = sorted(_public(), key=lambda s: s.name)


# ------------------------------------------------------------------------ the docstrings
def parameter_entries(doc: str) -> dict[str, str]:
    """Name -> text (type line and description) of every numpydoc ``Parameters`` and
    ``Other Parameters`` entry; ``a, b : type`` documents both names."""
    lines = doc.splitlines()
    out: dict[str, str] = {}
    section = None
    names: list[str] = []
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            section = line.strip()
            names = []
            continue
        if re.fullmatch(r"-{3,}", line.strip()) or section not in (
            "Parameters",
            "Other Parameters",
        ):
            continue
        if line and not line[0].isspace():
            head, _, kind = line.partition(" : ")
            # a list of names may wrap: ``a, b, c,`` then ``d, e`` on the next line
            wrapped = names and lines[i - 1].rstrip().endswith(",")
            new = [n.strip().lstrip("*") for n in head.split(",")]
            new = [n for n in new if re.fullmatch(r"\w+", n)]
            names = [*names, *new] if wrapped else new
            for n in names:
                out[n] = kind
        else:
            for n in names:
                out[n] += " " + line.strip()
    return out


def glossary_terms() -> set[str]:
    """The names of the glossary's tables (the backticked names of the first column)."""
    terms: set[str] = set()
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            terms.update(re.findall(r"`(\w+)`", first))
    return terms


# --------------------------------------------------------------------------- the rules
def _violations() -> dict[tuple[str, str, str], str]:
    """Every departure from the static rules: (rule, function, parameter) -> what."""
    found: dict[tuple[str, str, str], str] = {}
    for sig in SIGNATURES:
        entries = parameter_entries(sig.doc)
        for p in sig.parameters:
            key = (sig.name, p.name)
            if p.name in FORBIDDEN and key not in OTHER_MEANING:
                found[("forbidden", *key)] = f"spelled {p.name!r}: use {FORBIDDEN[p.name]!r}"
            if not sig.record and p.name not in entries:
                found[("documented", *key)] = "no entry in the docstring's Parameters"
            if p.name == "alpha" and sig.name not in ALPHA_ELSEWHERE:
                text = entries.get("alpha", "").lower()
                if "interval" in text or "confidence" in text:
                    found[("alpha", *key)] = "`alpha` is a test's significance level only"
            if p.default is inspect.Parameter.empty or sig.record:
                continue
            if p.name == "confidence_level" and p.default not in (0.95, None):
                found[("confidence_level-default", *key)] = f"default {p.default!r}"
            if p.name == "alternative" and p.default not in ("two-sided", None):
                found[("alternative-default", *key)] = f"default {p.default!r}"
            if (
                p.name == "n_resamples"
                and p.default != 1000
                and (sig.name, p.default) not in N_RESAMPLES_DEFAULTS
            ):
                found[("n_resamples-default", *key)] = f"default {p.default!r}"
            if (
                p.name == "method"
                and p.default not in ("auto", None)
                and (sig.name, p.default) not in ANALYTIC_METHOD_DEFAULTS
            ):
                found[("method-default", *key)] = f"default {p.default!r}"
        # None for confidence_level/alternative: only in `.interval` ("the result's own")
        for name in ("confidence_level", "alternative"):
            p = sig.parameter(name)
            if sig.record or p is None or sig.name.endswith(".interval"):
                continue
            if p.default is None:
                found[(f"{name}-default", sig.name, name)] = "default None"
    by_name = {s.name: s for s in SIGNATURES}
    for (fa, pa), (fb, pb) in SAME_OPTION:
        if by_name[fa].parameter(pa) is not None and by_name[fb].parameter(pb) is not None:
            if pa != pb:
                found[("same-option", fa, pa)] = f"{fa}({pa}=) vs {fb}({pb}=)"
    return found


VIOLATIONS = _violations()


def _new(rule: str) -> list[str]:
    return [
        f"{func}({param}=): {what}"
        for (r, func, param), what in sorted(VIOLATIONS.items())
        if r == rule and (r, func, param) not in KNOWN
    ]


def test_the_api_is_collected() -> None:
    names = {s.name for s in SIGNATURES}
    assert {"bootstrap_ci", "Scores", "Scores.bootstrap_ci", "BootstrapResult.interval"} <= names
    assert len(SIGNATURES) > 150


def test_the_glossary_names_its_terms() -> None:
    terms = glossary_terms()
    assert {"rng", "confidence_level", "alternative", "method", "conditions", "strata"} <= terms
    assert not terms & set(FORBIDDEN), "a forbidden spelling is a glossary term"


@pytest.mark.parametrize(
    "rule",
    [
        "documented",
        "forbidden",
        "alpha",
        "confidence_level-default",
        "alternative-default",
        "n_resamples-default",
        "method-default",
        "same-option",
    ],
)
def test_no_new_departure(rule: str) -> None:
    new = _new(rule)
    assert not new, f"{rule}: departures from docs/glossary.md:\n" + "\n".join(new)


def test_every_parameter_is_a_glossary_term_or_documented() -> None:
    """The vocabulary: a name is a glossary term or explained by its own docstring."""
    terms = glossary_terms()
    off = [
        f"{s.name}({p.name}=)"
        for s in SIGNATURES
        if not s.record
        for p in s.parameters
        if p.name not in terms
        and p.name not in parameter_entries(s.doc)
        and ("documented", s.name, p.name) not in KNOWN
    ]
    assert not off, "parameters outside the vocabulary:\n" + "\n".join(off)


def test_alternative_takes_the_three_values() -> None:
    """Every ``alternative`` entry names the three values (or refers to a function that
    does), and the one validator accepts exactly those."""
    from mlci.inputs import check_alternative

    for value in ("two-sided", "less", "greater"):
        assert check_alternative(value) == value
    with pytest.raises(ValueError, match="two-sided"):
        check_alternative("two_sided")
    bad = []
    for s in SIGNATURES:
        entry = parameter_entries(s.doc).get("alternative")
        if entry is None or s.parameter("alternative") is None:
            continue
        refers = re.search(r"\b[Aa]s in\b|:(?:func|meth):", entry)
        if not refers and not all(v in entry for v in ('"two-sided"', '"less"', '"greater"')):
            bad.append(f"{s.name}: {entry[:80]}")
    assert not bad, "`alternative` entries without the three values:\n" + "\n".join(bad)


# ------------------------------------------------------------------ strata and stratify
def _stratify_calls() -> dict[str, Callable[..., Any]]:
    """A call of every public function taking both ``strata`` and ``stratify``."""
    y = np.tile([0, 1], 30)
    s = np.linspace(0, 1, 60) + 0.3 * y
    p = (s > 0.6).astype(int)
    sc = mlci.Scores.from_labels(y, s)
    return {
        "bootstrap_ci": lambda **kw: mlci.bootstrap_ci(y, p, metric="accuracy", **kw),
        # reduce_ci offers no stratify at all (its Resampling field is weights only)
        "reduce_ci": lambda strata, **kw: mlci.reduce_ci(
            {"y": y, "p": p, "s": strata}, "y", "p", metric="accuracy", strata="s", **kw
        ),
        "compare": lambda **kw: mlci.compare(y, {"a": p, "b": 1 - p}, metric="accuracy", **kw),
        "ConfusionMatrix.bootstrap_ci": lambda **kw: mlci.ConfusionMatrix(y, p).bootstrap_ci(
            "accuracy", **kw
        ),
        "Scores.bootstrap_ci": lambda **kw: sc.bootstrap_ci("auc", **kw),
        "auc_ci": lambda **kw: mlci.auc_ci(sc, **kw),
        "cllr_ci": lambda **kw: mlci.cllr_ci(sc, **kw),
        "dcf_ci": lambda **kw: mlci.dcf_ci(sc, 0.5, **kw),
        "eer_ci": lambda **kw: mlci.eer_ci(sc, **kw),
        "operating_point_ci": lambda **kw: mlci.operating_point_ci(sc, "fnr", at=0.2, **kw),
        "roc_band": lambda **kw: mlci.roc_band(sc, **kw),
        "roc_with_ci": lambda **kw: mlci.roc_with_ci(sc, fpr=[0.2], **kw),
        "metric_by_group": lambda **kw: mlci.metric_by_group(
            y, s, groups=np.repeat([0, 1], 30), threshold=0.6, **kw
        ),
    }


def _combines_silently(call: Callable[..., Any], name: str) -> bool:
    strata = np.repeat([0, 1, 2], 20)
    # stratify is a field of mlci.Resampling where the function takes `resampling`
    takes = {s.name: s for s in SIGNATURES}[name].parameter("resampling") is not None
    design = {"resampling": mlci.Resampling(stratify=True)} if takes else {"stratify": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only whether both are refused matters here
        try:
            call(**design, strata=strata, n_resamples=200, rng=0)
        except ValueError as exc:
            assert "strat" in str(exc), f"refused, but not for strata/stratify: {exc}"
            return False
    return True


def _both() -> list[str]:
    return [
        s.name
        for s in SIGNATURES
        if s.parameter("strata") is not None
        and (s.parameter("stratify") is not None or s.parameter("resampling") is not None)
        and s.name != "Resampling"
    ]


def test_strata_with_stratify_is_refused() -> None:
    calls = _stratify_calls()
    missing = [name for name in _both() if name not in calls]
    assert not missing, f"add a call to _stratify_calls() for {missing}"
    new = [
        name
        for name in _both()
        if ("strata+stratify", name, "stratify") not in KNOWN
        and _combines_silently(calls[name], name)
    ]
    assert not new, f"`strata=` with `stratify=True` combined silently by {new}"


# ------------------------------------------------------------------------- KNOWN itself
def test_known_departures_still_exist() -> None:
    """A KNOWN entry that no longer applies (the departure was fixed): delete it."""
    calls = _stratify_calls()
    both = set(_both())
    stale = []
    for key in KNOWN:
        rule, func, _ = key
        if rule == "strata+stratify":
            if func not in both or not _combines_silently(calls[func], func):
                stale.append(key)
        elif key not in VIOLATIONS:
            stale.append(key)
    assert not stale, "fixed: remove from KNOWN in tests/test_glossary.py:\n" + "\n".join(
        map(str, stale)
    )
