"""Standard errors by linearization, on the original data and on every replicate.

The studentized (bootstrap-t) interval needs, for every replicate, the metric *and* an
estimate of its standard error computed from that replicate alone; the ``t`` and
``wilson`` intervals need the standard error of the estimate.  mlci computes both by
the delta method over the resampled units, on the same sufficient statistics the
bootstrap already uses:

* the metric is a function ``f(S)`` of atom totals ``S = sum_c u_c t_c`` (``u_c``: how
  often unit ``c`` is drawn, ``t_c``: its atom counts; a unit is a sample, or a whole
  condition);
* every built-in metric is scale-free, ``f(lambda S) = f(S)``, so the influence of unit
  ``c`` is ``z_c = grad f(S) . t_c`` and its values average to zero (Euler);
* the variance of a replicate is the cluster-robust (CR1) one,
  ``C / (C - 1) * sum_c u_c (z_c - z)^2`` over the ``C`` units: for a proportion over
  conditions it is the classical ratio estimator ``C/(C-1) sum_c (k_c - p n_c)^2 / N^2``;
  for the AUC the influence values are DeLong's placement values;
* the variance of the estimate itself is the bias-reduced CR2 one (Bell & McCaffrey
  2002): ``sum_c z_c^2 / (1 - n_c / N)``, equal to CR1 when the conditions have equal
  sizes and larger for unequal ones (for a proportion, the closed form of
  :func:`mlci.engine.cr2.cr2_variance` from the conditions' numerator and denominator
  counts, the one the LLM estimands use too: clubSandwich's CR2 to rounding), with
  Kish's effective number of conditions minus one as the t reference's degrees of
  freedom (for a proportion, Imbens & Kolesar's 2016 degrees of freedom under a
  random-effects working model, at most Kish's: :func:`random_effects_df`).

Per replicate this costs one gradient (closed form, or ``m`` extra kernel evaluations for
kernels with at most 64 atoms) and, with conditions, one product of the gradient with
the (condition x atom) count table, which gives every condition's sum of influence
values (the replicates draw the conditions' counts ``u`` and expand them to atoms as the
plan's sampler does).  Kernels may offer fused forms, used when present:
``influence_moments(w)`` (the metric with ``sum w g`` and ``sum w g^2``, no (b, m)
gradient: the AUC's placement values from two cumulative sums) for independent samples,
and ``whole_units(...)`` for whole conditions (the AUC as a quadratic form of the
conditions' draw counts, ``u' M u``, with the conditions' pair matrix ``M`` built once:
a replicate costs two products with a C x C matrix and no pass over the atoms).
:class:`Linearization` builds the cells and the gradient at the data once for the method
choice, the estimate's standard error and the replicates.  The replicates are drawn from
the same random streams as :func:`mlci.engine.bootstrap.run_bootstrap`: the metric values
are identical, bit for bit, to those of every other interval method with the same seed.

References: Efron & Tibshirani (1993), ch. 12 and 21 (bootstrap-t, delta method);
Hall (1992), *The Bootstrap and Edgeworth Expansion*, sec. 3.5; Cameron & Miller (2015),
"A practitioner's guide to cluster-robust inference" (CR1, t(C-1)); DeLong, DeLong &
Clarke-Pearson (1988).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import FunctionKernel, Kernel
from .cr2 import cr2_variance, ratio_influence
from .dominant_condition import bounded_df
from .sampler import Sampler, UnitDraws, issparse

__all__ = [
    "Linearization",
    "Linearized",
    "icc_anova",
    "proportion_df",
    "proportion_totals",
    "random_effects_df",
]


@dataclass(frozen=True)
class Linearized:
    """The linearized standard error of an estimate and what it rests on.

    Attributes
    ----------
    standard_error : ndarray, shape S
    n_units : int
        Independent units (samples, or conditions).
    df : float
        Degrees of freedom of the t reference: ``n - 1`` for independent samples,
        Kish's effective number of conditions ``N^2 / sum n_c^2`` minus one with
        conditions (``C - 1`` when they are of equal size); for a proportion over
        conditions :func:`proportion_df` (Imbens & Kolesar 2016, at most Kish's).
    design_effect : float or None
        For a proportion: the variance over the binomial variance of its denominator
        (1 for independent samples); None otherwise.
    effective_n : float or None
        For a proportion: its denominator divided by the design effect.
    standard_error_cr1 : ndarray or None
        The CR1 standard error, ``G/(G-1) sum_c z_c^2`` over the ``G`` units (R survey's
        linearization; ``standard_error`` itself for independent samples).
    """

    standard_error: np.ndarray
    n_units: int
    df: float
    design_effect: float | None = None
    effective_n: float | None = None
    standard_error_cr1: np.ndarray | None = None


#: samples checked at once when finding each atom's unit (temporaries of 8 MiB)
_CHECK_CHUNK = 1 << 20


def _unit_of_atoms(keys: np.ndarray, unit: np.ndarray, m: int) -> np.ndarray | None:
    """The unit of every atom when every atom has samples and all of them lie in one
    unit (e.g. distinct scores); else None.  No per-sample temporary beyond a chunk."""
    atom_unit = np.full(m, -1, dtype=np.intp)
    atom_unit[keys] = unit
    if atom_unit.min() < 0:
        return None
    for i in range(0, len(keys), _CHECK_CHUNK):
        j = i + _CHECK_CHUNK
        if not np.array_equal(atom_unit[keys[i:j]], unit[i:j]):
            return None
    return atom_unit


class _Units:
    """The design's units as (unit, atom) cells, sorted by unit (then atom).

    Holds no per-sample array: the cells (``cell_atom``, ``starts``; ``cell_unit`` and
    ``cell_count`` computed when asked, as ``keys``, each sample's cell, and ``agg``, the
    cells-to-atoms map, which only the unfused paths use) are found with one per-sample
    temporary, or none when every atom lies in one unit (distinct scores: the cells are
    the atoms sorted by unit, a stable sort of the atoms' units).

    Parameters
    ----------
    kernel : Kernel
    plan : ResamplingPlan
    counts : ndarray, shape (m,), optional
        The atoms' numbers of samples, when the caller has them.
    """

    def __init__(self, kernel: Kernel, plan: Any, counts: np.ndarray | None = None) -> None:
        m = kernel.m
        self.m = m
        if plan.unit_of_sample is None:
            self.iid = True
            self.n_units = plan.n_samples
            return
        self.iid = False
        self._keys = kernel.keys
        self._unit = unit = np.asarray(plan.unit_of_sample)
        self.n_units = n_units = int(plan.n_units)
        self.unit_size = np.bincount(unit, minlength=n_units).astype(float)
        self._cell_count: np.ndarray | None = None
        # with every atom in one unit: each atom's count, None when all are 1
        self._atom_count: np.ndarray | None = None
        self._cell_unit: np.ndarray | None = None
        span = n_units * m
        atom_unit = None
        if span > 8 * len(self._keys) + 1_000_000:
            atom_unit = _unit_of_atoms(self._keys, unit, m)
        if atom_unit is not None:
            # every atom in one unit: the cells are the atoms, ordered by unit and, within
            # a unit, by atom (a stable sort; a radix sort for up to 65,536 units)
            small = np.min_scalar_type(max(n_units - 1, 0))
            order = np.argsort(atom_unit.astype(small), kind="stable")
            # int32 below 2^31 atoms: the cells are gathered from only once per estimate
            self.cell_atom = order.astype(np.int32) if m < 2**31 else order
            del order
            per_unit = np.bincount(atom_unit, minlength=n_units)
            del atom_unit  # a replicate's sampler holds the same map (unit_sums)
            if counts is None:
                counts = np.bincount(self._keys, minlength=m)
            if not (counts == 1).all():
                self._atom_count = np.asarray(counts, dtype=float)
        else:
            cell = np.multiply(unit, m, dtype=np.int64)
            cell += self._keys
            if span <= 8 * len(cell) + 1_000_000:  # present cells by counting: O(n + span)
                count = np.bincount(cell, minlength=span)
                del cell
                cells = np.flatnonzero(count)
                cell_count = count[cells]
            else:
                cells, cell_count = np.unique(cell, return_counts=True)
                del cell
            self.cell_atom = (cells % m).astype(np.intp, copy=False)
            self._cell_unit = (cells // m).astype(np.intp, copy=False)
            self._cell_count = cell_count.astype(float)
            per_unit = np.bincount(self._cell_unit, minlength=n_units)
        n_cells = len(self.cell_atom)
        self.n_cells = n_cells
        # where each unit's cells begin (reduceat's segments; every unit has samples)
        self.starts = np.cumsum(per_unit) - per_unit
        self._per_unit = per_unit
        self._table: Any = None  # (unit x atom) counts, built by unit_sums
        self._atom_of: Any = None  # (unit, count) of every atom, when each is in one unit
        # every atom inside one condition (e.g. distinct scores): the cells are the atoms
        # in another order, and a replicate's cell counts are a gather of its atom counts
        self.bijective = n_cells == m
        self._agg: Any = None

    @property
    def cell_unit(self) -> np.ndarray:
        """The unit of every cell (intp, ascending)."""
        if self._cell_unit is not None:
            return self._cell_unit
        return np.repeat(np.arange(self.n_units, dtype=np.intp), self._per_unit)

    @property
    def cell_count(self) -> np.ndarray:
        """The number of samples in every cell (float)."""
        if self._cell_count is not None:
            return self._cell_count
        if self._atom_count is None:
            return np.ones(self.n_cells)
        return self._atom_count[self.cell_atom]

    @property
    def keys(self) -> np.ndarray:
        """The cell of every sample (intp; for the unfused paths)."""
        cells = self.cell_unit.astype(np.int64) * self.m + self.cell_atom
        cell = self._unit.astype(np.int64) * self.m + self._keys
        return np.searchsorted(cells, cell).astype(np.intp, copy=False)

    @property
    def agg(self) -> Any:
        """The (cells -> atoms) aggregation of a replicate's cell counts (None when the
        cells are the atoms)."""
        if self.bijective or self._agg is not None:
            return self._agg
        n_cells, m = self.n_cells, self.m
        rows = np.arange(n_cells)
        if n_cells * m <= 4_000_000:
            agg = np.zeros((n_cells, m))
            agg[rows, self.cell_atom] = 1.0
        else:
            from scipy import sparse  # here: 0.11 s to import

            agg = sparse.csr_matrix((np.ones(n_cells), (rows, self.cell_atom)), shape=(n_cells, m))
        self._agg = agg
        return agg

    @property
    def table(self) -> Any:
        """The (unit x atom) counts: dense when small, else sparse (built once)."""
        table = self._table
        if table is None:
            # built whole before it is published: replicate threads share this object,
            # and a thread must never see a table that another one is still filling
            shape = (self.n_units, self.m)
            if self.n_units * self.m <= 4_000_000:
                table = np.zeros(shape)
                table[self.cell_unit, self.cell_atom] = self.cell_count
            else:
                from scipy import sparse

                table = sparse.csr_matrix(
                    (self.cell_count, (self.cell_unit, self.cell_atom)), shape=shape
                )
            self._table = table
        return table

    def unit_sums(self, grad: np.ndarray, atom_unit: np.ndarray | None = None) -> np.ndarray:
        """Sum of ``grad`` (b, m, *S) over one copy of every unit's samples: (b, C, *S).

        ``atom_unit``: the unit of every atom, when the caller holds it (a sampler's;
        used when every atom lies in one unit, instead of a copy of its own).
        """
        b, m = grad.shape[:2]
        rest = grad.shape[2:]
        sparse_table = self.n_units * self.m > 4_000_000
        if sparse_table and not rest and self.bijective:
            # every atom in one unit (e.g. distinct scores): one scatter-add per row, the
            # sparse product's sums in its order (atoms ascending within a unit), bit for
            # bit, without its transposed copy of the (b, m) array or the table itself
            unit, count = self._unit_map(atom_unit)
            out = np.empty((b, self.n_units))
            for r in range(b):
                row = grad[r] if count is None else grad[r] * count
                out[r] = np.bincount(unit, weights=row, minlength=self.n_units)
            return out
        table = self.table
        if not issparse(table):
            return np.moveaxis(np.tensordot(grad, table, axes=([1], [1])), -1, 1)
        flat = np.ascontiguousarray(np.moveaxis(grad, 1, 0).reshape(m, -1))
        return np.moveaxis(np.asarray(table @ flat).reshape((self.n_units, b, *rest)), 0, 1)

    def _unit_map(self, atom_unit: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """(unit, count or None when all 1) of every atom, cells being the atoms."""
        if self._atom_of is None:
            if self._cell_count is None:
                count = self._atom_count
            else:
                count = np.empty(self.m)
                count[self.cell_atom] = self._cell_count
                count = None if (count == 1.0).all() else count
            self._atom_of = (None, count)
        count = self._atom_of[1]
        if atom_unit is not None and atom_unit.shape != (self.m,):
            atom_unit = None
        if atom_unit is None:
            if self._atom_of[0] is None:
                unit = np.empty(self.m, dtype=np.intp)
                unit[self.cell_atom] = self.cell_unit
                self._atom_of = (unit, count)
            atom_unit = self._atom_of[0]
        return atom_unit, count

    def atoms(self, w_cells: np.ndarray) -> np.ndarray:
        agg = self.agg
        if issparse(agg):
            return np.asarray((agg.T @ w_cells.T).T)
        return w_cells @ agg


def _unit_totals(units: _Units, grad: np.ndarray, w_cells: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(y, drawn)``: every unit's summed influence ``y_c = u_c (g . t_c)`` (b, C, *S) and
    how often it was drawn (b, C, 1...), from the cells' weights (conditions only)."""
    extra = grad.ndim - 2
    contrib = np.take(grad, units.cell_atom, axis=1)
    if not (w_cells == 1.0).all():  # (x * 1 is x: no pass for cells of one sample each)
        contrib *= w_cells.reshape(w_cells.shape + (1,) * extra)
    y = np.add.reduceat(contrib, units.starts, axis=1)
    del contrib
    drawn = np.add.reduceat(w_cells, units.starts, axis=1) / units.unit_size
    return y, drawn.reshape(drawn.shape + (1,) * extra)


def _variance(
    units: _Units,
    w: np.ndarray,
    grad: np.ndarray,
    w_cells: Any,
    cr2: bool = False,
    totals: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """CR1 variance of each replicate from its weights and the metric's gradient; with
    ``cr2`` (the original data only) the bias-reduced CR2 one (module docstring).
    ``totals``: :func:`_unit_totals` of the same arguments, when the caller has them."""
    extra = grad.ndim - 2
    c = units.n_units
    if c < 2:  # one sample (or condition): no spread between units to estimate
        return np.full((w.shape[0], *grad.shape[2:]), np.nan)
    if units.iid:
        wk = w.reshape(w.shape + (1,) * extra)
        total = w.sum(axis=1).reshape((-1,) + (1,) * extra)
        mean = (wk * grad).sum(axis=1) / total
        ss = (wk * grad**2).sum(axis=1) - total * mean**2
        return c / (c - 1) * ss
    # y_c = sum over the unit's cells of w_cell * g_atom = u_c * (g . t_c)
    y, drawn = _unit_totals(units, grad, w_cells) if totals is None else totals
    total = drawn.sum(axis=1)
    mean = y.sum(axis=1) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = np.where(drawn > 0, y**2 / np.where(drawn > 0, drawn, 1.0), 0.0).sum(axis=1)
    if cr2:
        # Bell & McCaffrey (2002): each unit's squared influence over 1 - h_c, with the
        # leverage h_c = n_c / N of the unit in the mean (equal sizes: C / (C - 1), CR1)
        lev = units.unit_size / units.unit_size.sum()
        lev = lev.reshape((1, -1) + (1,) * extra)
        resid = y - drawn * mean[:, None]
        return (resid**2 / (1.0 - lev)).sum(axis=1)
    ss = ss - total * mean**2
    return c / (c - 1) * ss


def _gradient(kernel: Kernel, w: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``kernel.gradient``, called only where the linearization applies (see
    :attr:`Linearization.unsupported`), so never None here."""
    grad = kernel.gradient(w, values)
    if grad is None:
        raise RuntimeError(f"The metric {kernel.name!r} has no gradient to linearize.")
    return grad


def _se(var: np.ndarray) -> np.ndarray:
    return np.sqrt(np.maximum(var, 0.0))


class Linearization:
    """The linearization of one metric kernel under one resampling plan, built once.

    The choice of method (:attr:`unsupported`), the estimate's standard error
    (:meth:`estimate`) and the replicates' (:meth:`run`) share what they need: the
    metric and its gradient on the data, and the design's (unit, atom) cells, each
    computed on first use and only once.

    Parameters
    ----------
    kernel : Kernel
    plan : ResamplingPlan
    counts : ndarray, shape (m,), optional
        The atoms' numbers of samples, when the caller has them.
    keep_data : bool, default False
        Keep the metric and its gradient on the data after :meth:`estimate` (until
        :meth:`release`), for a caller that reads them again.
    """

    def __init__(
        self,
        kernel: Kernel,
        plan: Any,
        counts: np.ndarray | None = None,
        *,
        keep_data: bool = False,
    ) -> None:
        self.kernel = kernel
        self.plan = plan
        self.keep_data = keep_data
        self._units: _Units | None = None
        self._counts = counts
        self._data: tuple[np.ndarray, np.ndarray, Any] | None = None
        self._reason: list[str | None] = []
        self._estimate: Linearized | None = None

    @property
    def counts(self) -> np.ndarray:
        """The atoms' numbers of samples, shape (m,) (the caller's, when given)."""
        if self._counts is None:
            kernel = self.kernel
            self._counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
        return self._counts

    @property
    def units(self) -> _Units:
        """The design's units as (unit, atom) cells."""
        if self._units is None:
            self._units = _Units(self.kernel, self.plan, self.counts)
        return self._units

    def at_data(self) -> tuple[np.ndarray, np.ndarray, Any]:
        """``(counts, value, gradient)`` on the original data, counts of shape (1, m)."""
        if self._data is None:
            kernel = self.kernel
            counts = self.counts[None, :]
            value = kernel.evaluate(counts)
            self._data = (counts, value, kernel.gradient(counts, value))
        return self._data

    @property
    def unsupported(self) -> str | None:
        """Why the linearized standard error is unavailable for this metric and design
        (None: it is available)."""
        if not self._reason:
            self._reason.append(self._support())
        return self._reason[0]

    def _support(self) -> str | None:
        kernel, plan = self.kernel, self.plan
        if isinstance(kernel, FunctionKernel) or getattr(kernel, "is_function", False):
            return "a user-defined metric has no derivative"
        if getattr(plan, "scheme", "").startswith("nested") or not hasattr(plan, "unit_of_sample"):
            return "nested conditions are resampled (no linearization over nested levels yet)"
        if plan.two_stage:
            return "two-stage resampling (the linearization assumes whole conditions)"
        if plan.poisson:
            return "Poisson weights (the linearization assumes multinomial resampling)"
        if plan.stratum_of_sample is not None:
            return "strata (the linearization does not model stratified resampling yet)"
        counts, value, grad = self.at_data()
        if grad is None:
            return f"the metric has {kernel.m} atoms and no closed-form derivative"
        if getattr(kernel, "scale_free", False):
            return None  # (declared a function of proportions: no check to evaluate)
        with np.errstate(all="ignore"):
            doubled = kernel.evaluate(2.0 * counts)
        if not np.allclose(doubled, value, rtol=1e-9, atol=1e-12, equal_nan=True):
            return "the metric is not a function of proportions (it changes with the sample size)"
        return None

    def estimate(self) -> Linearized:
        """The linearized standard error of the estimate (see the module docstring).

        Computed once; the gradient at the data (an array of the atoms' size) is then let
        go: the replicates do not need it.
        """
        if self._estimate is None:
            self._estimate = self._linearized()
            if not self.keep_data:
                self.release()
        return self._estimate

    def release(self) -> None:
        """Let go of the metric and its gradient on the data (an array of the atoms'
        size), which :meth:`estimate` keeps when the linearization was made with
        ``keep_data=True`` (for a caller that reads :meth:`at_data` again, e.g.
        :func:`mlci.engine.skewness.linearized_shape`); recomputed if asked again."""
        self._data = None
        self._counts = None

    def _linearized(self) -> Linearized:
        kernel = self.kernel
        units = self.units
        counts, _, grad = self.at_data()
        cells: Any
        if units.iid:
            cells = None
        else:
            cells = units.cell_count[None, :]
        # the units' totals once, for CR2 and CR1
        totals = None if units.iid or units.n_units < 2 else _unit_totals(units, grad, cells)
        se = _se(_variance(units, counts, grad, cells, cr2=not units.iid, totals=totals))[0]
        # CR1, G/(G-1) sum z^2: R survey's linearization (variant="survey")
        se_cr1 = se if units.iid else _se(_variance(units, counts, grad, cells, totals=totals))[0]
        del totals
        if not units.iid and kernel.proportion is not None and np.ndim(se) == 0:
            # a proportion over conditions: the closed form from the conditions' counts
            # (mlci.engine.cr2, exact), not the numerical gradient's (~1e-7 off)
            k_c, n_c = proportion_totals(units, cells[0], kernel.proportion)
            se = np.sqrt(max(cr2_variance(k_c, n_c), 0.0))
            g = units.n_units
            z = ratio_influence(k_c, n_c)[0]
            se_cr1 = np.sqrt(g / (g - 1) * float(np.sum(z**2)))
        deff = eff = None
        if kernel.proportion is not None and np.ndim(se) == 0:
            num, den = kernel.proportion
            k, n = float(counts[0, num].sum()), float(counts[0, den].sum())
            p = k / n
            if units.iid or not (0 < p < 1 and se > 0):
                # independent samples; or no variation to estimate a design effect from (a
                # proportion of 0 or 1): the nominal sample size (design effect 1)
                deff, eff = 1.0, n
            else:
                deff = float(se**2 / (p * (1 - p) / n))
                eff = n / deff
        if units.iid:
            df = float(max(units.n_units - 1, 1))
        else:
            # unequal conditions carry less information than as many equal ones: Kish's
            # effective number of conditions, N^2 / sum n_c^2 (MacKinnon & Webb 2017)
            sizes = units.unit_size
            df = float(max(sizes.sum() ** 2 / np.sum(sizes**2) - 1.0, 1.0))
            if kernel.proportion is not None and np.ndim(se) == 0:
                df = proportion_df(units, cells[0], kernel.proportion, df)
        return Linearized(
            standard_error=np.asarray(se, dtype=float),
            n_units=units.n_units,
            df=df,
            design_effect=deff,
            effective_n=eff,
            standard_error_cr1=np.asarray(se_cr1, dtype=float),
        )

    def run(
        self, run: Any, sampler: Sampler | None = None, *, fused: bool = True
    ) -> tuple[np.ndarray, np.ndarray, Sampler]:
        """Every replicate's metric and linearized standard error.

        ``run(evaluate, sampler, shape, bytes_per_row)`` is the engine's replicate loop
        (:func:`mlci.engine.bootstrap.run_replicates` with the caller's options bound).
        ``sampler``: the plan's sampler over the kernel's atoms, if the caller has one.
        ``fused``: use the kernel's fused forms when it has them (the AUC's moments of
        its placement values, its unit pair matrix); False computes the (b, m) gradient
        of every replicate (the same numbers to rounding, for tests).  Returns
        ``(values, standard_errors, sampler)``, each of shape (B, *S); the values equal
        those of the plain replicate loop with the same seed.
        """
        kernel, plan = self.kernel, self.plan
        units = self.units
        shape = kernel.shape
        c = units.n_units
        evaluate: Callable[[np.ndarray], np.ndarray]

        def atom_sampler() -> Sampler:
            if sampler is not None:
                return sampler
            return plan.weights_for(kernel.keys, kernel.m, atom_rank=kernel.atom_rank)

        moments = getattr(kernel, "influence_moments", None) if fused else None
        whole = getattr(kernel, "whole_units", None) if fused else None
        placements = getattr(kernel, "placements", None) if fused else None
        if units.iid and moments is not None:
            smp = atom_sampler()

            def evaluate(w: np.ndarray) -> np.ndarray:
                values, s1, s2 = moments(w)  # each (b, *S)
                total = w.sum(axis=1).reshape((-1,) + (1,) * len(shape))
                with np.errstate(invalid="ignore", divide="ignore"):
                    var = c / (c - 1) * (s2 - s1**2 / total)
                return np.stack([values, _se(var)], axis=1)

            per_row = 8.0 * kernel.m * (kernel.work_factor + 1.0)
        elif fused and not units.iid:
            # whole units: draw the units' counts u (b, C); the influence of unit c in a
            # replicate is u_c * inner_c, inner_c the gradient summed over one copy of it
            pairs = None
            if whole is not None:  # (values (b, *S), inner (b, C, *S)), or None
                pairs = whole(units.cell_unit, units.cell_atom, units.cell_count, c)
            if pairs is not None:
                # any atom sampler of the plan draws the same unit counts (same blocks)
                base = sampler or plan.weights_for(plan.unit_of_sample, plan.n_units)
                smp = UnitDraws(base, plan.n_units)
                unit_eval = pairs
                per_row = 8.0 * 8 * c
            elif placements is not None and shape == ():
                # the AUC's placement values (integer cumulative sums, the negatives' one
                # shared with the AUC) turned into the gradient in place: the same numbers
                # as kernel.gradient, bit for bit, without its float passes and copies
                atoms = atom_sampler()
                smp = UnitDraws(atoms, plan.n_units)
                m_neg = kernel.m_neg  # type: ignore[attr-defined]
                # the sampler's unit of every atom (the same atoms: the kernel's keys),
                # instead of a second copy of it
                same_atoms = getattr(atoms, "keys", None) is kernel.keys
                unit_map = getattr(atoms, "atom_unit", None) if same_atoms else None

                def unit_eval(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                    w = atoms.atoms_of_units(u)  # type: ignore[attr-defined]
                    values, v, n_neg, n_pos = placements(w)
                    a = values[:, None]
                    with np.errstate(invalid="ignore", divide="ignore"):
                        for part, n_other, n_own in (
                            (v[:, :m_neg], n_pos, n_neg),
                            (v[:, m_neg:], n_neg, n_pos),
                        ):
                            part /= n_other[:, None]
                            part -= a
                            part /= n_own[:, None]
                    return values, units.unit_sums(v, unit_map)

                per_row = 8.0 * (kernel.m * (kernel.work_factor + 2.0) + 6.0 * c)
            else:
                atoms = atom_sampler()
                smp = UnitDraws(atoms, plan.n_units)

                def unit_eval(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                    w = atoms.atoms_of_units(u)  # type: ignore[attr-defined]
                    values = kernel.evaluate(w)
                    grad = _gradient(kernel, w, values)
                    return values, units.unit_sums(grad)

                size = int(np.prod(shape, dtype=int))
                per_row = 8.0 * (kernel.m * (kernel.work_factor + 3.0 * size) + 6.0 * c * size)

            def evaluate(u: np.ndarray) -> np.ndarray:
                values, inner = unit_eval(u)
                uk = u.reshape(u.shape + (1,) * (inner.ndim - 2))
                total = u.sum(axis=1).reshape((-1,) + (1,) * (inner.ndim - 2))
                with np.errstate(invalid="ignore", divide="ignore"):
                    y = uk * inner
                    mean = y.sum(axis=1) / total
                    ss = np.where(uk > 0, y * inner, 0.0).sum(axis=1)
                    var = c / (c - 1) * (ss - total * mean**2)
                return np.stack([values, _se(var)], axis=1)

        elif units.iid:
            smp = atom_sampler()

            def evaluate(w: np.ndarray) -> np.ndarray:
                values = kernel.evaluate(w)
                grad = _gradient(kernel, w, values)
                with np.errstate(invalid="ignore"):
                    return np.stack([values, _se(_variance(units, w, grad, None))], axis=1)

            per_row = 8.0 * kernel.m * (kernel.work_factor + 2.0 + np.prod(shape, dtype=int))
        elif units.bijective:
            smp = atom_sampler()

            def evaluate(w: np.ndarray) -> np.ndarray:
                values = kernel.evaluate(w)
                grad = _gradient(kernel, w, values)
                w_cells = np.take(w, units.cell_atom, axis=1)
                with np.errstate(invalid="ignore"):
                    return np.stack([values, _se(_variance(units, w, grad, w_cells))], axis=1)

            per_row = 8.0 * kernel.m * (kernel.work_factor + 4.0 + np.prod(shape, dtype=int))
        else:
            smp = plan.weights_for(units.keys, units.n_cells)

            def evaluate(w_cells: np.ndarray) -> np.ndarray:
                w = units.atoms(w_cells)
                values = kernel.evaluate(w)
                grad = _gradient(kernel, w, values)
                with np.errstate(invalid="ignore"):
                    return np.stack([values, _se(_variance(units, w, grad, w_cells))], axis=1)

            per_row = 8.0 * (
                kernel.m * (kernel.work_factor + 2.0)
                + 3.0 * units.n_cells * np.prod(shape, dtype=int)
            )
        out = run(evaluate, smp, (2, *shape), per_row + smp.draw_bytes)
        return out[:, 0], out[:, 1], smp


# ------------------------------------------- degrees of freedom of a clustered proportion
def icc_anova(k: np.ndarray, n: np.ndarray) -> float:
    """ANOVA estimator of the intra-condition correlation of a binary outcome, in [0, 1).

    ``k[c]`` successes of ``n[c]`` trials in condition ``c`` (``n[c] >= 1``):
    ``(MSB - MSW) / (MSB + (n0 - 1) MSW)`` with ``n0 = (N - sum n_c^2 / N) / (C - 1)``
    (Fleiss 1981; among the estimators for binary data that Ridout, Demetrio & Firth
    1999 found to do well), truncated at 0.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    c, total = len(n), float(n.sum())
    if c < 2 or total <= c:
        return 0.0
    p = k.sum() / total
    msb = np.sum((k - n * p) ** 2 / n) / (c - 1)
    msw = np.sum(k - k**2 / n) / (total - c)
    n0 = (total - np.sum(n**2) / total) / (c - 1)
    den = msb + (n0 - 1.0) * msw
    if not den > 0:
        return 0.0
    return float(min(max((msb - msw) / den, 0.0), 1.0 - 1e-9))


def random_effects_df(sizes: np.ndarray, rho: float) -> float:
    """Imbens & Kolesar's (2016) degrees of freedom for the CR2 t statistic of a mean.

    The mean of ``N = sum n_c`` observations in ``C`` conditions (a regression on a
    constant), its CR2 variance (Bell & McCaffrey 2002) and the Satterthwaite
    approximation ``K = (sum lambda)^2 / sum lambda^2``, with ``lambda`` the eigenvalues
    of ``G' Omega G``: ``G``'s column ``c`` is ``(I - H)_c A_c X_c (X'X)^-1``, here
    ``(1_c - h_c 1) / (N sqrt(1 - h_c))`` with ``h_c = n_c / N``, and ``Omega`` the
    random-effects working model ``(1 - rho) I + rho * blockdiag(J_{n_c})`` (Imbens &
    Kolesar 2016, "K_IK").  ``rho = 0`` gives Bell & McCaffrey's ``K_BM``.
    Equal sizes give ``C - 1`` for every ``rho``; unequal sizes and a positive ``rho``
    give fewer.  ``rho = 0`` is R's ``clubSandwich::coef_test(lm(y ~ 1), vcov = "CR2",
    cluster = g, test = "Satterthwaite")`` df (1e-10, tests/r/test_r_cluster.py);
    clubSandwich's ``target =`` changes the CR2 adjustment too, so it does not give
    ``K_IK``, which that test computes in R from its definition.  (The engine's t
    reference for other metrics is Kish's effective conditions - 1.)
    """
    n = np.asarray(sizes, dtype=float)
    total = n.sum()
    h = n / total
    # N^2 G' Omega G = D^-1/2 M D^-1/2 = W, with D = diag(1 - h) and
    # M = (1 - rho) N (diag(h) - h h') + rho A'A, A[e, c] = 1_e' (1_c - h_c 1)
    #   = diag((1 - rho) n + rho n^2) + beta h h' - rho (q h' + h q'),
    # q = n^2, beta = rho sum(n^2) - (1 - rho) N: a diagonal plus a rank-2 matrix, so
    # sum(lambda) = tr W and sum(lambda^2) = tr W^2 cost O(C) (no C x C matrix)
    d = 1.0 / (1.0 - h)
    lam_diag = ((1.0 - rho) * n + rho * n**2) * d
    u, v = h * np.sqrt(d), n**2 * np.sqrt(d)
    beta = rho * np.sum(n**2) - (1.0 - rho) * total
    b = np.array([[beta, -rho], [-rho, 0.0]])
    uv = np.stack([u, v])
    gram = uv @ uv.T
    tr_w = lam_diag.sum() + np.trace(b @ gram)
    tr_lowrank = np.trace(b @ (uv * lam_diag) @ uv.T)  # tr(diag L)
    tr_w2 = np.sum(lam_diag**2) + 2.0 * tr_lowrank + np.trace(b @ gram @ b @ gram)
    return float(tr_w**2 / tr_w2)


def proportion_totals(
    units: Any, cell_counts: np.ndarray, proportion: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator counts ``(k_c, n_c)`` of a proportion in every unit."""
    atom = units.cell_atom
    num, den = (np.isin(np.arange(units.m), np.flatnonzero(np.asarray(x))) for x in proportion)
    if not all(np.asarray(x).dtype == bool for x in proportion):  # atom indices
        num, den = (np.isin(np.arange(units.m), x) for x in proportion)
    k = np.add.reduceat(cell_counts * num[atom], units.starts)
    n = np.add.reduceat(cell_counts * den[atom], units.starts)
    return k, n


def proportion_df(units: Any, cell_counts: np.ndarray, proportion: Any, kish: float) -> float:
    """The t reference's degrees of freedom for a proportion over conditions.

    :func:`random_effects_df` over the conditions with a non-empty denominator, with
    their denominators as sizes and the ICC estimated by :func:`icc_anova`; at most
    ``kish`` (the effective conditions minus one), ``kish`` where it is below 2 (one
    dominant condition: :func:`mlci.engine.dominant_condition.bounded_df`), at least 1.
    """
    k, n = proportion_totals(units, cell_counts, proportion)
    k, n = k[n > 0], n[n > 0]
    if len(n) < 2:
        return kish
    # below 2 (one dominant condition) Kish's: engine/dominant_condition.py
    return bounded_df(random_effects_df(n, icc_anova(k, n)), kish)
