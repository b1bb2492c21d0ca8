"""What the score-analysis drivers share: the resampling design.

* :func:`design_arrays` reads ``conditions=`` (flat, or nested: a list of levels) and
  ``strata=`` through the input gate, in the sample order of the object that holds the
  samples (a :class:`~mlci.Scores`, a :class:`~mlci.ConfusionMatrix`, a table);
* :func:`strata_codes` combines several stratifications (the class, the group, the
  user's ``strata``) into one;

The BCa jackknife of drivers that run :func:`~mlci.engine.bootstrap.run_replicates` and
:func:`~mlci.engine.bootstrap.finish_bootstrap` themselves (joint statistics, the lazy
sampler, the trial sampler) is the engine's :func:`~mlci.engine.bootstrap.jackknife_values`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning
from ..feedback import warn
from ..inputs import ArgSpec, gather, is_nested, unique_inverse

__all__ = [
    "Design",
    "check_stratify_nested",
    "design_arrays",
    "strata_codes",
    "warn_strata_class_mix",
]


@dataclass(frozen=True)
class Design:
    """``conditions`` and ``strata`` read through the gate, aligned with the samples kept.

    Attributes
    ----------
    conditions : ndarray, list of ndarray, or None
        One array (flat conditions) or one per level, top first (nested conditions).
    strata : ndarray or None
    kept : ndarray of int or None
        Positions (in the holder's sample order) of the samples kept; None: all of them.
    n_dropped : int
        Samples dropped here because ``conditions`` or ``strata`` had a missing value.
    """

    conditions: Any = None
    strata: np.ndarray | None = None
    kept: np.ndarray | None = None
    n_dropped: int = 0

    @property
    def nested(self) -> bool:
        return isinstance(self.conditions, list)


def design_arrays(
    conditions: Any,
    strata: Any,
    *,
    n_samples: int,
    dropna: bool,
    input_kept: np.ndarray | None = None,
    n_input: int | None = None,
    holder: str = "the scores",
) -> Design:
    """Read ``conditions`` and ``strata`` (one entry per sample) through the input gate.

    Parameters
    ----------
    conditions : array-like, list of array-like (nested levels, top first), or None
    strata : array-like or None
    n_samples : int
        Samples of the holder (in its sample order).
    dropna : bool
        Drop the samples with a missing condition or stratum instead of refusing them.
    input_kept, n_input : optional
        When the holder itself dropped samples with a missing value (``dropna=True`` at
        construction): the positions of its samples among the ``n_input`` given ones.
        The arrays may then have either ``n_samples`` or ``n_input`` entries.
    holder : str
        How messages name the holder.

    Returns
    -------
    Design
    """
    specs: dict[str, ArgSpec] = {}
    values: dict[str, Any] = {}
    nested = is_nested(conditions)
    if nested:
        for i, level in enumerate(conditions):
            specs[f"conditions[{i}]"] = ArgSpec("groups")
            values[f"conditions[{i}]"] = level
    elif conditions is not None:
        specs["conditions"] = ArgSpec("groups")
        values["conditions"] = conditions
    if strata is not None:
        specs["strata"] = ArgSpec("groups")
        values["strata"] = strata
    if not specs:
        return Design()
    g = gather(specs, values, dropna=dropna)
    n_given = g.n_samples + g.n_dropped
    rows = np.arange(g.n_samples) if g.kept is None else g.kept  # positions in the arrays
    if n_given == n_samples:
        kept = None if g.kept is None else g.kept
        take = None
    elif input_kept is not None and n_given == n_input:
        # arrays in the order of the data given to the holder, which dropped some samples
        loc = np.minimum(np.searchsorted(rows, input_kept), len(rows) - 1)
        found = rows[loc] == input_kept
        kept = None if found.all() else np.flatnonzero(found)
        take = loc[found]
    else:
        first = next(iter(specs))
        dropped = (
            f" ({n_input - n_samples} of the {n_input} given were dropped for a missing value)"
            if input_kept is not None and n_input is not None
            else ""
        )
        raise ValueError(
            f"`{first}` has {n_given} entries but {holder} hold {n_samples} samples{dropped}; "
            "it needs one entry per sample, in the samples' order."
        )
    arrays = {k: (v if take is None else v[take]) for k, v in g.arrays.items()}
    if nested:
        cond: Any = [arrays[f"conditions[{i}]"] for i in range(len(conditions))]
    else:
        cond = arrays.get("conditions")
    n_dropped = 0 if kept is None else n_samples - len(kept)
    return Design(conditions=cond, strata=arrays.get("strata"), kept=kept, n_dropped=n_dropped)


def check_stratify_nested(stratify: Any, design: Design, what: str = "the labels") -> None:
    """``stratify=True`` asks for strata, which nested conditions do not support."""
    if stratify and design.nested:
        raise ValueError(
            f"`stratify=True` (strata = {what}) is not available with nested `conditions` "
            "(a list of levels): pass `stratify=False`, or a single level of conditions."
        )


def strata_codes(*arrays: np.ndarray | None) -> np.ndarray | None:
    """One stratum code per sample for the combination of several stratifications.

    Examples
    --------
    >>> strata_codes(np.array([0, 1, 1, 0]), np.array(["a", "a", "b", "b"])).tolist()
    [0, 2, 3, 1]
    >>> strata_codes(None, None) is None
    True
    """
    parts = [unique_inverse(np.asarray(a)) for a in arrays if a is not None]
    if not parts:
        return None
    code = parts[0].astype(np.int64)
    for p in parts[1:]:
        code = code * (int(p.max()) + 1) + p
    return unique_inverse(code)


#: the class mix differs between the user's strata below this p-value (Pearson's
#: chi-square test of class x stratum): :func:`warn_strata_class_mix` warns
STRATA_MIX_P = 0.01


def warn_strata_class_mix(positive: np.ndarray, strata: np.ndarray) -> str | None:
    """Warn (:class:`~mlci.exceptions.FewConditionsWarning`) and return the message where
    the positives' share differs between the user's ``strata`` (Pearson's chi-square test
    of independence, p below :data:`STRATA_MIX_P`) while the classes are also stratified
    (``stratify`` left on): every replicate then keeps each stratum's class counts, and the
    interval is conditional on that mix.  Where the mix is random in the design (sites
    whose prevalence varies by chance) and the strata's scores differ, the pooled
    statistic moves with the mix and the conditional interval is too narrow for it: the
    score drivers' search, seed 14, #13 (``eer_ci`` over 4 sites of prevalence
    0.02-0.07): 0.890 of 300 test sets, 0.917 with ``stratify=False``; #37 (``auc_ci``, 2
    sites): 0.880 and 0.913.  Else None.

    Examples
    --------
    >>> import warnings
    >>> pos = np.r_[np.ones(60), np.zeros(940), np.ones(10), np.zeros(990)].astype(bool)
    >>> site = np.repeat([0, 1], 1000)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_strata_class_mix(pos, site)
    >>> text.split(":")[0], w[0].category.__name__
    ('The positives make up 1.0%-6.0% of the strata', 'FewConditionsWarning')
    >>> warn_strata_class_mix(pos, np.tile([0, 1], 1000)) is None
    True
    """
    from scipy.stats import chi2_contingency

    positive = np.asarray(positive, dtype=bool)
    codes = unique_inverse(np.asarray(strata))
    n_strata = int(codes.max()) + 1 if codes.size else 0
    table = np.stack(
        [np.bincount(codes[positive], minlength=n_strata),
         np.bincount(codes[~positive], minlength=n_strata)]
    )  # fmt: skip
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or np.any(table.sum(axis=1) == 0):
        return None
    p = float(chi2_contingency(table, correction=False)[1])
    if not p < STRATA_MIX_P:
        return None
    share = table[0] / table.sum(axis=0)
    text = (
        f"The positives make up {share.min():.1%}-{share.max():.1%} of the strata: with "
        "strata= and the classes stratified (the default), every replicate keeps each "
        "stratum's number of positives and negatives, so the interval is conditional on "
        "this class mix. If the mix is random in your design (sites whose prevalence varies "
        "by chance), pass resampling=mlci.Resampling(stratify=False): in mlci's search "
        "(docs/validation.md, seed 14's score drivers, #13: an EER over 4 sites of "
        "prevalence 0.02-0.07) the conditional interval covered the population's EER 0.890 "
        "of 300 test sets, without the class stratification 0.917"
    )
    warn(text, FewConditionsWarning)
    return text
