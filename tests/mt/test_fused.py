"""The fast paths of the MT commands give the numbers of the plain ones.

* :class:`mlci.metrics.ExactSums` skips its all-zero piece columns (integer statistics):
  the same sums bit for bit; :meth:`ExactSums.side_by_side` gives each part's sums;
* :class:`mlci.metrics.mt.CorpusKernel` scores its shifted sums in one call: the same
  forward differences bit for bit as one call per column;
* :class:`mlci.metrics.joint.JointAdditive` (a comparison's fused forms): the same
  replicate values bit for bit, and the standard errors of every system and difference
  equal to the engine's generic ``(b, m, n)`` gradient path to rounding.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mlci
from mlci.comparison.common import ContrastKernel, JointKernel
from mlci.engine.linearize import Linearization
from mlci.engine.nested import plan_for_conditions
from mlci.metrics import AdditiveKernel, ExactSums, get_kernel, metric_params
from mlci.metrics.joint import joint_additive
from mlci.mt import synthetic_corpus

sacrebleu = pytest.importorskip("sacrebleu")
from mlci.mt import system_statistics  # noqa: E402


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(300, qualities=(0.56, 0.55, 0.5), rng=4)


def _loop_sums(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """ExactSums as before: the product with all three pieces of every column."""
    e = ExactSums(values)
    s = w @ e.pieces
    d, step = e.d, 2.0**-21
    out = ((s[:, 2 * d :] * step + s[:, d : 2 * d]) * step + s[:, :d]) * step
    return out * e.scale


@pytest.mark.parametrize("kind", ["counts", "large", "fractions"])
def test_exact_sums_skip_zero_pieces_same_bits(kind):
    rng = np.random.default_rng(0)
    values = {
        "counts": rng.integers(0, 60, (500, 10)).astype(float),  # one live piece
        "large": rng.integers(0, 2**40, (500, 3)).astype(float),  # two or three pieces
        "fractions": rng.normal(size=(500, 4)),
    }[kind]
    w = rng.multinomial(500, np.full(500, 1 / 500), size=40).astype(float)
    e = ExactSums(values)
    if kind == "counts":
        assert e._live is not None and len(e._live) == 10  # pieces 2 and 3 skipped
    np.testing.assert_array_equal(e(w), _loop_sums(values, w))
    np.testing.assert_array_equal(e(w[0]), _loop_sums(values, w[:1])[0])


def test_exact_sums_side_by_side_equals_each_part():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 50, (30, 4)).astype(float)
    b = rng.normal(size=(20, 3))
    rows_a, rows_b = rng.integers(0, 30, 70), rng.integers(0, 20, 70)
    rows_a[:30], rows_b[:20] = np.arange(30), np.arange(20)  # every atom in a joint atom
    joint = ExactSums.side_by_side([(ExactSums(a), rows_a), (ExactSums(b), rows_b)])
    w = rng.integers(0, 4, (25, 70)).astype(float)
    both = joint(w)
    wa = np.zeros((25, 30))
    wb = np.zeros((25, 20))
    for k in range(70):
        wa[:, rows_a[k]] += w[:, k]
        wb[:, rows_b[k]] += w[:, k]
    np.testing.assert_array_equal(both[:, :4], ExactSums(a)(wa))
    np.testing.assert_array_equal(both[:, 4:], ExactSums(b)(wb))


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_corpus_kernel_differences_equal_one_call_per_column(corpus, metric):
    st = system_statistics(corpus.systems, corpus.references, metric=metric)["sys0"]
    kernel = get_kernel(metric, (st,), {})
    rng = np.random.default_rng(2)
    w = rng.multinomial(len(st), np.full(len(st), 1 / len(st)), size=30).astype(float)
    s = kernel._sums(w)
    values = kernel.g(s)
    total = w.sum(axis=1, keepdims=True)
    # AdditiveKernel's loop (one call of g per column) and the kernel's own steps
    np.testing.assert_array_equal(
        kernel._sum_gradient(s, total, values),
        AdditiveKernel._sum_gradient(kernel, s, total, values),
    )
    h = 1e-7 * np.maximum(np.abs(s), 1.0)
    loop = np.empty_like(s)
    for j in range(s.shape[1]):
        shifted = s.copy()
        shifted[:, j] += h[:, j]
        loop[:, j] = (kernel.g(shifted) - values) / h[:, j]
    # the values and the differences from one call of g on the sums and their shifted
    # copies: the numbers of separate calls (a score depends on its row only)
    v1, grad = kernel._values_gradient(s)
    np.testing.assert_array_equal(v1, values)
    np.testing.assert_array_equal(grad, loop)


def _contrast(stats: dict[str, np.ndarray], metric: str) -> ContrastKernel:
    kernels = [get_kernel(metric, data, {}) for data in stats.values()]
    jk = JointKernel(kernels, metric)
    return ContrastKernel(jk, np.array([0, 0, 1]), np.array([1, 2, 2]))


def _plan(conditions, n_resamples):
    """A one-stage plan over the fixture's 300 segments (or its documents)."""
    return plan_for_conditions(
        300,
        conditions=conditions,
        strata=None,
        two_stage=False,
        weights="multinomial",
        n_resamples=n_resamples,
        rng=np.random.SeedSequence(5),
    )


def _data(corpus, metric):
    if metric in ("bleu", "chrf"):
        st = system_statistics(corpus.systems, corpus.references, metric=metric)
        return {k: (v,) for k, v in st.items()}
    rng = np.random.default_rng(3)  # mse of three regressors, tied values (shared atoms)
    y = rng.integers(0, 5, 300).astype(float)
    return {k: (y, y + rng.integers(-2, 3, 300)) for k in ("a", "b", "c")}


@pytest.mark.parametrize("metric", ["bleu", "chrf", "mse"])
@pytest.mark.parametrize("documents", [False, True])
def test_joint_fused_forms_equal_generic_gradient(corpus, metric, documents):
    kernel = _contrast(_data(corpus, metric), metric)
    assert kernel._fused is not None
    plan = _plan(corpus.documents if documents else None, 300)
    lin = Linearization(kernel, plan)

    def run(evaluate, smp, shape, per_row):
        return mlci.engine.bootstrap.run_replicates(evaluate, smp, shape, bytes_per_row=per_row)

    v1, se1, _ = lin.run(run, fused=True)
    v2, se2, _ = lin.run(run, fused=False)
    assert v1.shape == se1.shape == (300, 6)
    np.testing.assert_array_equal(v1, v2)  # the replicates, bit for bit
    np.testing.assert_allclose(se1, se2, rtol=1e-12, atol=0)
    # and the values are the systems' own kernels' on their own atoms
    w = np.random.default_rng(6).multinomial(300, np.full(300, 1 / 300), size=5)
    w_joint = np.zeros((5, kernel.m))
    for r in range(5):
        np.add.at(w_joint[r], kernel.keys, w[r])
    np.testing.assert_array_equal(
        kernel.evaluate(w_joint),
        np.concatenate(
            [v := kernel.joint.evaluate(w_joint), v[:, kernel.ia] - v[:, kernel.ib]], axis=1
        ),
    )


@pytest.mark.parametrize("second", [{}, {"smooth_method": "floor"}])
def test_joint_systems_scored_in_one_call_equal_each_kernel(corpus, second):
    # JointAdditive scores the systems' values and shifted sums in one call of g when
    # their score functions agree (score_key), else each with its own: the same numbers
    # as each kernel's own values and gradient, bit for bit
    st = system_statistics(corpus.systems, corpus.references)
    ka = get_kernel("bleu", (st["sys0"],), {})
    kb = get_kernel("bleu", (st["sys1"],), second)
    assert (ka.score_key == kb.score_key) == (not second)
    rows = [np.arange(ka.m) % ka.m, np.arange(ka.m) % kb.m]
    joint = joint_additive([ka, kb], rows, [0], [1])
    rng = np.random.default_rng(7)
    w = rng.multinomial(ka.m, np.full(ka.m, 1 / ka.m), size=25).astype(float)
    total = w.sum(axis=1, keepdims=True)
    parts = joint._systems(joint.sums(w), total)
    for k, (part, values, grad) in zip([ka, kb], parts, strict=True):
        np.testing.assert_array_equal(values, k.g(part))
        np.testing.assert_array_equal(grad, AdditiveKernel._sum_gradient(k, part, total, values))


def test_joint_additive_only_for_plain_scalar_additive_kernels(corpus):
    st = system_statistics(corpus.systems, corpus.references)
    bleu = get_kernel("bleu", (st["sys0"],), {})
    y = np.array([0, 1, 1, 0] * 75)
    acc = get_kernel("accuracy", (y, y), metric_params("accuracy", None, "default", None))
    rows = [np.zeros(3, dtype=int)] * 2
    assert joint_additive([bleu, bleu], rows, [0], [1]) is not None
    assert joint_additive([bleu, acc], rows, [0], [1]) is None  # not additive


def test_compare_replicates_are_those_of_the_plain_replicate_loop(corpus):
    # the default (studentized systems through the fused forms) and the percentile
    # interval (the engine's plain replicate loop over the joint kernel): the same values
    st = system_statistics(corpus.systems, corpus.references)
    res = mlci.compare(None, st, metric="bleu", rng=0, n_resamples=400)
    assert res.systems["sys0"].method == "studentized"
    fused = mlci.compare(None, st, metric="bleu", rng=0, n_resamples=400, method="percentile")
    # the replicate values (percentile: no linearization) are the same draws, same values
    for name in st:
        np.testing.assert_array_equal(
            res.systems[name].bootstrap_distribution, fused.systems[name].bootstrap_distribution
        )


@pytest.mark.parametrize("metric", ["bleu", "chrf", "mse"])
def test_unit_values_equal_the_joint_replicate_loop(corpus, metric):
    # over documents, the values-only path from the documents' sums (auto's logit_t
    # systems and t differences read no replicate's standard error): the replicates of
    # the plain loop over the joint atoms, bit for bit
    from mlci.comparison.common import run_joint, run_unit_values
    from mlci.inputs import EngineOptions

    kernel = _contrast(_data(corpus, metric), metric)
    plan = _plan(corpus.documents, 300)
    lin = Linearization(kernel, plan)
    engine = EngineOptions()
    values = run_unit_values(kernel, lin.units, plan, engine)
    assert values is not None and values.shape == (300, 6)
    smp = plan.weights_for(kernel.joint.keys, kernel.joint.m, atom_rank=kernel.joint.atom_rank)
    plain = run_joint(kernel.joint, smp, engine)
    np.testing.assert_array_equal(values[:, :3], plain)
    np.testing.assert_array_equal(values[:, 3:], plain[:, kernel.ia] - plain[:, kernel.ib])
    # and those of the studentized path's whole units
    v_stud, _, _ = lin.run(
        lambda e, s, sh, pr: mlci.engine.bootstrap.run_replicates(e, s, sh, bytes_per_row=pr)
    )
    np.testing.assert_array_equal(values, v_stud)
    # independent samples: no such path (the caller keeps the joint loop)
    iid = _plan(None, 30)
    assert run_unit_values(kernel, Linearization(kernel, iid).units, iid, engine) is None


@pytest.mark.filterwarnings("ignore::mlci.exceptions.FewConditionsWarning")
def test_compare_over_documents_replicates_equal_across_methods(corpus):
    # auto over documents (logit_t systems, t differences: the values-only path), the
    # studentized interval (the whole units' gradients) and the percentile interval (the
    # plain loop over the joint atoms): the same replicates
    st = system_statistics(corpus.systems, corpus.references)
    kw = dict(metric="bleu", rng=0, n_resamples=300, conditions=corpus.documents)
    auto = mlci.compare(None, st, **kw)
    assert auto.systems["sys0"].method == "logit_t"
    assert auto.systems["sys0"].replicate_standard_errors is None
    for method in ("studentized", "percentile"):
        other = mlci.compare(None, st, method=method, **kw)
        for name in st:
            np.testing.assert_array_equal(
                auto.systems[name].bootstrap_distribution,
                other.systems[name].bootstrap_distribution,
            )
        for d1, d2 in zip(auto.differences, other.differences, strict=True):
            assert d1.standard_error == d2.standard_error  # the replicates' spread


@pytest.mark.filterwarnings("ignore::mlci.exceptions.FewConditionsWarning")
@pytest.mark.parametrize("metric", ["bleu", "mse"])
@pytest.mark.parametrize("documents", [False, True])
def test_t_differences_skip_their_replicate_standard_errors(corpus, metric, documents, monkeypatch):
    # studentized systems with t differences (auto; bleu over documents: logit_t systems
    # with method="studentized" systems would make the differences studentized too):
    # the systems' columns alone give the same replicates and standard errors bit for bit
    from mlci.comparison.common import ContrastKernel

    data = _data(corpus, metric)
    kw: dict = dict(metric=metric, rng=1, n_resamples=200)
    if documents:
        kw["conditions"] = corpus.documents
    if metric == "bleu":
        outputs = {k: v[0] for k, v in data.items()}
        y = None
    else:
        y = data["a"][0]
        outputs = {k: v[1] for k, v in data.items()}
    calls = []
    real = ContrastKernel.systems_only

    def spy(self):
        out = real(self)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(ContrastKernel, "systems_only", spy)
    fast = mlci.compare(y, outputs, **kw)
    monkeypatch.setattr(ContrastKernel, "systems_only", lambda self: None)
    full = mlci.compare(y, outputs, **kw)
    sys_methods = {r.method for r in fast.systems.values()}
    if "studentized" in sys_methods:
        assert calls == [True]
        assert {d.method for d in fast.differences} == {"t"}
    for name in outputs:
        a, b = fast.systems[name], full.systems[name]
        np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
        if a.replicate_standard_errors is None:
            assert b.replicate_standard_errors is None
        else:
            np.testing.assert_array_equal(a.replicate_standard_errors, b.replicate_standard_errors)
        assert a.confidence_interval == b.confidence_interval
    for d1, d2 in zip(fast.differences, full.differences, strict=True):
        np.testing.assert_equal(dataclasses.asdict(d1), dataclasses.asdict(d2))  # every bit
