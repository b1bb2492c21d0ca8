"""What the comparison drivers share: the input gate for paired outputs, metric options,
and the joint atoms that let one replicate draw serve every system.

Each public function of :mod:`mlci.comparison` takes its per-sample data through
:func:`gather_paired` (once, at the top), then builds the metric kernels and runs the
engine; nothing below checks the data again.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.nested import is_nested
from ..engine.replicate_loop import run_replicates, single_threaded_blas
from ..engine.sampler import Sampler, UnitDraws
from ..inputs import ArgSpec, EngineOptions, check_flag, check_label_pair, gather
from ..metrics import METRICS, FunctionKernel, Kernel, RocAucKernel, get_kernel, unique_rows
from ..metrics.classification import CONFUSION_METRICS
from ..metrics.joint import joint_additive

__all__ = [
    "Aggregator",
    "ContrastKernel",
    "JointAtoms",
    "JointKernel",
    "PairedData",
    "check_metric",
    "gather_paired",
    "kernel_data",
    "metric_name",
    "run_joint",
    "top_level",
]

#: metrics whose first per-sample array is not called ``y_true`` in the docs
_FIRST_ARG = {"weighted_mean": "the per-sample weights (e.g. word counts)"}


# --------------------------------------------------------------------------- metric options
def metric_name(metric: Any) -> str:
    """The name a result reports for ``metric`` (a built-in name, or the function's name)."""
    return metric if isinstance(metric, str) else getattr(metric, "__name__", "metric")


def check_metric(metric: Any) -> str | Callable[..., Any]:
    """``metric`` if it is a callable or a known metric name; a clear error otherwise."""
    if callable(metric):
        return metric
    if not isinstance(metric, str):
        raise TypeError(
            f"`metric` must be a metric name (str) or a callable; got {type(metric).__name__}."
        )
    if _key(metric) not in METRICS:
        get_kernel(metric, (), {})  # raises the registry's "Unknown metric" error
    return metric


def _key(name: str) -> str:
    return name.lower().replace("-", "_")


def kernel_data(y_true: np.ndarray | None, output: np.ndarray) -> tuple[np.ndarray, ...]:
    """The per-sample arrays a metric takes: ``(output,)`` or ``(y_true, output)``."""
    return (output,) if y_true is None else (y_true, output)


# --------------------------------------------------------------------------- the input gate
@dataclass(frozen=True)
class PairedData:
    """Validated per-sample data of a comparison (see :func:`gather_paired`).

    Attributes
    ----------
    y_true : ndarray or None
    outputs : dict of str -> ndarray
        Every system's (or run's) outputs, keyed by the argument's name in messages.
    conditions : ndarray, list of ndarray, or None
        One level, or nested levels (top first).
    strata : ndarray or None
    n_samples : int
        Samples kept.
    n_dropped : int
        Samples dropped for a missing value (``dropna=True``).
    sample_weight : ndarray or None
        Per-sample weights (validated by the kernels, :func:`mlci.metrics.get_kernel`).
    """

    y_true: np.ndarray | None
    outputs: dict[str, np.ndarray]
    conditions: Any
    strata: np.ndarray | None
    n_samples: int
    n_dropped: int
    sample_weight: np.ndarray | None = None


def _specs(metric: Any) -> tuple[ArgSpec | None, ArgSpec, bool, int]:
    """How ``y_true`` and the outputs are read for ``metric``: (y_true spec, output spec,
    decision metric?, number of per-sample arrays the metric takes, or 0 if free)."""
    if callable(metric):
        return ArgSpec("any", (1, 2)), ArgSpec("any", (1, 2)), False, 0
    key = _key(metric)
    info = METRICS[key]
    if info.inputs == ("y_true", "y_pred"):
        if key in CONFUSION_METRICS:
            return ArgSpec("labels"), ArgSpec("labels"), True, 2
        return ArgSpec("numbers"), ArgSpec("numbers"), False, 2  # regression
    if info.inputs == ("y_true", "y_score"):
        return ArgSpec("labels"), ArgSpec("scores", (1, 2)), False, 2
    if len(info.inputs) == 1:
        return None, info.kinds[0] if info.kinds else ArgSpec("numbers"), False, 1
    return ArgSpec("numbers"), ArgSpec("numbers"), False, 2  # weighted_mean: weights, values


def gather_paired(
    y_true: Any,
    outputs: Mapping[str, Any],
    *,
    metric: Any,
    conditions: Any = None,
    strata: Any = None,
    dropna: bool = False,
    min_samples: int = 2,
    y_name: str = "y_true",
    sample_weight: Any = None,
) -> PairedData:
    """The input gate of the comparison drivers: every per-sample argument, checked together.

    Parameters
    ----------
    y_true : array-like or None
    outputs : mapping of str -> array-like
        The systems' outputs, keyed by how messages name them (``"y_pred_a"``,
        ``"systems['A']"``, ``"runs[0]"``).
    metric : str or callable
        Chooses how the arrays are read: class labels (decision metrics, whose labels
        and outputs must also be of one type and share a value), scores, numbers, or as
        given (a callable).
    conditions : array-like, or a list of them (nested levels, top first), optional
    strata : array-like, optional
    dropna : bool
        Drop the samples with a missing value in any argument (else: an error naming it).
    min_samples : int
        Fewest samples accepted.
    y_name : str
        How the caller names ``y_true`` (``"y_test"`` in :func:`mlci.evaluate_method`).
    sample_weight : array-like, optional
        Per-sample weights, aligned with the samples (dropped with them).

    Returns
    -------
    PairedData
    """
    check_flag("dropna", dropna)
    metric = check_metric(metric)
    t_spec, o_spec, decision, n_inputs = _specs(metric)
    name = metric_name(metric)
    if n_inputs == 1 and y_true is not None:
        raise ValueError(
            f"The metric {name!r} takes one per-sample array (each system's values); pass "
            f"`{y_name}=None`."
        )
    if n_inputs == 2 and y_true is None:
        what = _FIRST_ARG.get(_key(name), "the true labels (or targets)")
        raise ValueError(
            f"The metric {name!r} needs `{y_name}`: {what}, aligned with every system's outputs."
        )
    specs: dict[str, ArgSpec] = {}
    values: dict[str, Any] = {}
    if y_true is not None:
        specs[y_name] = t_spec if t_spec is not None else ArgSpec("any")
        values[y_name] = y_true
    for key, value in outputs.items():
        if value is None:
            raise ValueError(f"`{key}` is required; got None.")
        specs[key] = o_spec
        values[key] = value
    nested = is_nested(conditions)
    levels: list[str] = []
    if nested:
        levels = [f"conditions[{i}]" for i in range(len(conditions))]
        for lv, arr in zip(levels, conditions, strict=True):
            specs[lv] = ArgSpec("groups")
            values[lv] = arr
    elif conditions is not None:
        specs["conditions"] = ArgSpec("groups")
        values["conditions"] = conditions
    if strata is not None:
        specs["strata"] = ArgSpec("groups")
        values["strata"] = strata
    if sample_weight is not None:
        specs["sample_weight"] = ArgSpec("numbers")
        values["sample_weight"] = sample_weight
    got = gather(specs, values, dropna=bool(dropna))
    if got.n_samples < min_samples:
        first = next(iter(specs))
        raise ValueError(
            f"`{first}` has {got.n_samples} sample(s) after the checks; at least "
            f"{min_samples} are needed (ideally dozens)."
        )
    y = got[y_name] if y_true is not None else None
    outs = {key: got[key] for key in outputs}
    if decision and y is not None:
        for key, out in outs.items():
            check_label_pair(y, out, names=(y_name, key))
    conds: Any
    if nested:
        conds = [got[lv] for lv in levels]
    else:
        conds = got["conditions"] if conditions is not None else None
    return PairedData(
        y_true=y,
        outputs=outs,
        conditions=conds,
        strata=got["strata"] if strata is not None else None,
        n_samples=got.n_samples,
        n_dropped=got.n_dropped,
        sample_weight=got["sample_weight"] if sample_weight is not None else None,
    )


def top_level(conditions: Any) -> np.ndarray | None:
    """The top level of (possibly nested) conditions."""
    if conditions is None:
        return None
    return conditions[0] if isinstance(conditions, list) else conditions


# --------------------------------------------------------------------------- joint atoms
class Aggregator:
    """Sums the columns of joint-atom counts (b, m_joint) into one kernel's atoms (b, m_s)."""

    def __init__(self, atom_of_joint: np.ndarray, m_s: int) -> None:
        m = len(atom_of_joint)
        self.m_s = m_s
        self.atom_of_joint = np.asarray(atom_of_joint, dtype=np.intp)
        self.identity = m == m_s and np.array_equal(atom_of_joint, np.arange(m))
        self.mat: Any = None
        if not self.identity and m * m_s <= 4_000_000:
            mat = np.zeros((m, m_s))
            mat[np.arange(m), atom_of_joint] = 1.0
            self.mat = mat

    def __call__(self, w: np.ndarray) -> np.ndarray:
        if self.identity:
            return w
        if self.mat is not None:
            return w @ self.mat
        # large: one bincount, every kernel atom's sum over its joint atoms in their order,
        # the additions of scipy.sparse's product with the 0/1 matrix (csc_matvecs) bit
        # for bit, without importing scipy.sparse (0.1 s, a tenth of `mlci mt compare`)
        b = w.shape[0]
        keys = self.atom_of_joint + (np.arange(b, dtype=np.intp) * self.m_s)[:, None]
        return np.bincount(keys.ravel(), weights=w.ravel(), minlength=b * self.m_s).reshape(
            b, self.m_s
        )


class JointAtoms:
    """Joint atoms of several kernels over the same samples.

    ``keys[i]`` is the joint atom of sample ``i``; ``parts[s](W)`` turns joint counts into
    kernel ``s``'s atom counts.
    """

    def __init__(self, kernels: Sequence[Kernel]) -> None:
        ms = [int(k.m) for k in kernels]
        found = _first_determines(kernels)
        if found is not None:
            # the first kernel's atom tells every other kernel's (e.g. distinct scores):
            # the joint atoms are its atoms, in its order, which is np.unique(axis=0)'s
            # (the rows sorted by their distinct first column), without a sort
            rows, inv = found
        else:
            # np.unique(axis=0)'s rows, order and inverse, without its sort of the rows
            # (5 roc_auc kernels over 1e6 samples: 1.28 s)
            rows, inv = unique_rows(
                np.column_stack([np.asarray(k.keys, np.int64) for k in kernels])
            )
        self.keys = inv
        self.m = len(rows)
        self.parts = [Aggregator(rows[:, s], ms[s]) for s in range(len(kernels))]


def _first_determines(kernels: Sequence[Kernel]) -> tuple[np.ndarray, np.ndarray] | None:
    """``(rows, inverse)`` of the kernels' atom keys side by side when every atom of the
    first kernel has samples and its samples share their atom in every other kernel
    (O(n) a kernel): row ``a`` is the atoms of first-kernel atom ``a``, the inverse the
    first kernel's keys.  None otherwise."""
    first = np.asarray(kernels[0].keys, dtype=np.intp)
    m0 = int(kernels[0].m)
    if len(first) == 0 or int(first.min()) < 0 or int(first.max()) >= m0:
        return None
    seen = np.zeros(m0, dtype=bool)
    seen[first] = True
    if not seen.all():
        return None
    del seen
    rows = np.empty((m0, len(kernels)), dtype=np.int64)
    rows[:, 0] = np.arange(m0)
    for s, k in enumerate(kernels[1:], start=1):
        keys = np.asarray(k.keys, dtype=np.int64)
        col = rows[:, s]
        col[first] = keys
        if not np.array_equal(col[first], keys):
            return None
    return rows, first


def _is_permutation(x: np.ndarray) -> bool:
    """Whether ``x`` holds every integer of ``[0, len(x))`` once."""
    n = len(x)
    return n == 0 or (
        int(x.min()) >= 0 and int(x.max()) < n and bool(np.bincount(x, minlength=n).all())
    )


class JointKernel(Kernel):
    """Several kernels of one metric on the same samples, as one kernel over their joint
    atoms: its value is the vector of every kernel's value, so one replicate draw (and
    one jackknife) serves every system.

    Attributes
    ----------
    kernels : list of Kernel
    is_function : bool
        True when a kernel calls a user function (the engine then runs without threads).
    """

    def __init__(self, kernels: Sequence[Kernel], name: str) -> None:
        self.kernels = list(kernels)
        joint = JointAtoms(self.kernels)
        self.joint = joint
        self.keys = joint.keys
        self.m = joint.m
        self.shape = (len(self.kernels),)
        self.name = name
        # the widest range of the systems': a mean of 0/1 values is in (0, 1) while the
        # same metric of another system's values may not be (issue 20)
        self.bounds = (min(k.bounds[0] for k in kernels), max(k.bounds[1] for k in kernels))
        self.is_function = any(isinstance(k, FunctionKernel) for k in self.kernels)
        self._atom_rank: list[np.ndarray | None] = []  # found when first asked
        # the aggregation holds two (b, m) arrays besides every kernel's own work
        self.work_factor = (2.0 * joint.m + sum(k.m * k.work_factor for k in self.kernels)) / max(
            joint.m, 1
        )

    @property
    def atom_rank(self) -> np.ndarray | None:  # type: ignore[override]
        """The joint atoms by the first kernel's atom rank, then the second's... (None
        unless every kernel has one).  Found on first use: only the draws that go through
        the samples (independent samples, the grouped jackknife) read it, not a
        replicate of whole conditions (a 5-key lexsort of 1e6 joint atoms: 0.5 s)."""
        if not self._atom_rank:
            self._atom_rank.append(self._rank())
        return self._atom_rank[0]

    def _rank(self) -> np.ndarray | None:
        ranks = [k.atom_rank for k in self.kernels if k.atom_rank is not None]
        if len(ranks) != len(self.kernels):
            return None
        parts = self.joint.parts
        cols = [r[p.atom_of_joint] for r, p in zip(ranks, parts, strict=True)]
        first = np.asarray(cols[0], dtype=np.intp)
        if self.m == self.kernels[0].m and _is_permutation(first):
            # every joint atom its own first-kernel atom (e.g. distinct scores): the
            # first kernel's ranks are the order, with no tie for the others to break
            return first
        by_rank = np.lexsort(cols[::-1])
        rank = np.empty(self.m, dtype=np.intp)
        rank[by_rank] = np.arange(self.m)
        return rank

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        return np.stack(
            [k.evaluate(part(w)) for k, part in zip(self.kernels, self.joint.parts, strict=True)],
            axis=1,
        )

    def gradient(
        self, w: np.ndarray, values: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray | None:
        """Every system's derivative with respect to the joint atoms: (b, m_joint, n_systems).

        ``out``: an array of that shape to write it into (e.g. the first columns of a
        wider one)."""
        w = np.asarray(w, dtype=float)
        if out is None:
            out = np.empty((w.shape[0], self.m, len(self.kernels)))
        for s, (k, part) in enumerate(zip(self.kernels, self.joint.parts, strict=True)):
            g = k.gradient(part(w), values[:, s])
            if g is None:
                return None
            out[:, :, s] = np.take(g, part.atom_of_joint, axis=1)
        return out

    def errors_hint(self) -> str:
        """The first errors a user function raised on replicates, for the engine's messages."""
        errs = [e for k in self.kernels for e in getattr(k, "errors", [])][:3]
        return f"First errors raised by the metric: {'; '.join(errs)}." if errs else ""


class ContrastKernel(Kernel):
    """Every system's metric and the differences ``a - b`` of the given pairs, as one kernel
    (value of shape ``(n_systems + n_pairs,)``), so that the linearized methods get the
    standard error of every system and every difference from one pass.

    For ROC AUC systems it carries ``whole_units`` (the systems' unit pair matrices) and
    ``scale_free = True`` (a function of proportions, which the linearization then does
    not check at doubled counts)."""

    def __init__(self, joint: JointKernel, ia: np.ndarray, ib: np.ndarray) -> None:
        self.joint = joint
        self.ia, self.ib = np.asarray(ia), np.asarray(ib)
        self.keys, self.m, self.name = joint.keys, joint.m, joint.name
        self.shape = (len(joint.kernels) + len(self.ia),)
        self.work_factor = joint.work_factor
        self.is_function = joint.is_function
        # additive metrics (corpus BLEU/chrF, WER, means): the linearization's fused forms,
        # every system's and difference's standard error without a (b, m, n) gradient
        fused = joint_additive(
            joint.kernels, [p.atom_of_joint for p in joint.joint.parts], self.ia, self.ib
        )
        self._fused = fused
        if fused is not None:
            self.influence_moments = fused.influence_moments
            self.whole_units = fused.whole_units
            self.whole_unit_values = fused.whole_unit_values
        elif all(isinstance(k, RocAucKernel) for k in joint.kernels):
            # every system's own whole-units form (the AUC's unit pair matrix), composed:
            # over conditions a replicate costs products with n_units x n_units matrices,
            # not the (b, m, n_systems + n_pairs) gradient over the joint atoms (issue 25)
            self.whole_units = self._whole_units  # type: ignore[assignment]
            # AUCs and their differences are functions of proportions: a linearization
            # needs no check of the kernel at doubled counts (Linearization.unsupported)
            self.scale_free = True

    @property
    def atom_rank(self) -> np.ndarray | None:  # type: ignore[override]
        """The joint kernel's (:attr:`JointKernel.atom_rank`, found on first use)."""
        return self.joint.atom_rank

    def systems_only(self) -> ContrastKernel | None:
        """This kernel without the differences' columns, for a linearization whose
        replicates' standard errors are read for the systems only (a comparison whose
        differences take the t interval); None unless the kernels are fused additive
        ones, whose columns are computed apart (the systems' numbers bit for bit)."""
        if self._fused is None:
            return None
        out = copy.copy(self)
        out.ia, out.ib = self.ia[:0], self.ib[:0]
        out.shape = (len(self.joint.kernels),)
        out._fused = fused = self._fused.without_pairs()
        out.influence_moments = fused.influence_moments
        out.whole_units = fused.whole_units
        out.whole_unit_values = fused.whole_unit_values
        return out

    def _whole_units(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
        """Every system's ``whole_units`` on its own atoms of the joint cells, and the
        pairs' differences (linear: the difference of the systems' unit influences); None
        when one system has none (the engine then takes the gradient path)."""
        parts = self.joint.joint.parts
        forms = []
        for k, part in zip(self.joint.kernels, parts, strict=True):
            own = np.take(part.atom_of_joint, cell_atom)
            f = k.whole_units(cell_unit, own, cell_count, n_units)  # type: ignore[attr-defined]
            if f is None:
                return None
            forms.append(f)
        ia, ib = self.ia, self.ib

        def evaluate(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            done = [f(u) for f in forms]
            values = np.stack([v for v, _ in done], axis=1)  # (b, n_systems)
            inner = np.stack([g for _, g in done], axis=2)  # (b, n_units, n_systems)
            values = np.concatenate([values, values[:, ia] - values[:, ib]], axis=1)
            inner = np.concatenate([inner, inner[:, :, ia] - inner[:, :, ib]], axis=2)
            return values, inner

        return evaluate

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        if self._fused is not None:  # one product for every system, the same values
            return self._fused.values(w)
        v = self.joint.evaluate(w)
        return np.concatenate([v, v[:, self.ia] - v[:, self.ib]], axis=1)

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        n_sys = len(self.joint.kernels)
        w = np.asarray(w, dtype=float)
        out = np.empty((w.shape[0], self.m, n_sys + len(self.ia)))
        if self.joint.gradient(w, values[:, :n_sys], out=out[:, :, :n_sys]) is None:
            return None
        # each difference's column from its systems' (the same subtractions as on whole
        # arrays, without their gathered copies: 0.3 -> 0.05 s at 1e6 atoms, 10 pairs)
        for k, (a, c) in enumerate(zip(self.ia, self.ib, strict=True)):
            np.subtract(out[:, :, a], out[:, :, c], out=out[:, :, n_sys + k])
        return out


def run_unit_values(
    contrast: ContrastKernel, units: Any, plan: Any, engine: EngineOptions
) -> np.ndarray | None:
    """Every system's and difference's value on every replicate of whole units
    (conditions), ``(n_resamples, n_systems + n_pairs)``, from the units' sums of the
    statistics (:meth:`~mlci.metrics.joint.JointAdditive.whole_unit_values`): a
    replicate costs ``n_units * d``, not the joint atoms' ``m``.  None when the kernels
    have no such form.  ``units``: the linearization's units (one-stage whole units).

    The replicates are those of :func:`run_joint` bit for bit (the same seed's unit
    counts, as the linearization's whole-units path draws them; exact sums), without
    the gradients that path computes for the studentized interval."""
    form = getattr(contrast, "whole_unit_values", None)
    if form is None or units.iid:
        return None
    c = int(units.n_units)
    evaluate = form(units.cell_unit, units.cell_atom, units.cell_count, c)
    smp = UnitDraws(plan.weights_for(plan.unit_of_sample, plan.n_units), plan.n_units)
    with single_threaded_blas(True):
        return run_replicates(
            evaluate,
            smp,
            contrast.shape,
            bytes_per_row=8.0 * 4 * c + smp.draw_bytes,
            batch=engine.batch,
            n_jobs=engine.n_jobs,
            max_memory=engine.max_memory,
            threads=True,
        )


def run_joint(kernel: JointKernel, sampler: Sampler, engine: EngineOptions) -> np.ndarray:
    """Every system's value on every replicate, ``(n_resamples, n_systems)``: the engine's
    replicate loop over the joint atoms (one BLAS thread inside the engine's threads, as
    the aggregation is a small matrix product per chunk)."""
    with single_threaded_blas(not kernel.is_function):
        return run_replicates(
            kernel.evaluate,
            sampler,
            kernel.shape,
            bytes_per_row=8.0 * kernel.m * kernel.work_factor + sampler.draw_bytes,
            batch=engine.batch,
            n_jobs=engine.n_jobs,
            max_memory=engine.max_memory,
            threads=not kernel.is_function,
        )
