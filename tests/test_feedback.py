"""Progress bar (stderr, terminals only) and warnings at the caller's line."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import mlci
from mlci.cli import main
from mlci.exceptions import DegenerateIntervalWarning, FewConditionsWarning
from mlci.feedback import Progress, progress_bar


@pytest.fixture(autouse=True)
def _not_in_ci(monkeypatch):
    # the bar is silent under CI=...; these tests draw it on purpose
    monkeypatch.delenv("CI", raising=False)


def test_warnings_point_at_the_callers_line():
    y = np.arange(100) % 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # no error at all: a bootstrap distribution without spread (Wilson, auto's choice
        # here, gives an honest interval instead)
        mlci.bootstrap_ci(y, y, metric="accuracy", n_resamples=50, rng=0, method="bca")
        mlci.bootstrap_ci(y, y, metric="accuracy", conditions=np.arange(100) % 3,
                          n_resamples=50, rng=0)  # fmt: skip
    kinds = {w.category for w in caught}
    assert {DegenerateIntervalWarning, FewConditionsWarning} <= kinds
    assert all(w.filename == __file__ for w in caught), [(w.filename, w.lineno) for w in caught]


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_bar_only_on_a_terminal_and_after_the_delay():
    y = np.arange(300) % 2
    p = np.where(np.arange(300) % 5 == 0, 1 - y, y)
    pipe, tty = io.StringIO(), _Terminal()
    with progress_bar(stream=pipe, delay=0) as bar:
        mlci.bootstrap_ci(y, p, metric="accuracy", n_resamples=300, rng=0)
    assert bar.done == bar.total == 300 and pipe.getvalue() == ""  # silent in a pipe
    with progress_bar(stream=tty, delay=3600) as bar:  # a short run: nothing drawn
        mlci.bootstrap_ci(y, p, metric="accuracy", n_resamples=300, rng=0)
    assert tty.getvalue() == ""
    with progress_bar(stream=tty, delay=0) as bar:
        mlci.bootstrap_ci(y, p, metric="accuracy", n_resamples=300, rng=0)
        mlci.bootstrap_ci(y, p, metric="mcc", n_resamples=200, rng=0)
    assert bar.done == bar.total == 500 and "500/500" in tty.getvalue()
    with progress_bar(enabled=False) as nothing:
        assert nothing is None and mlci.feedback.current_progress() is None


def test_cli_bar_on_stderr_unless_quiet(monkeypatch, capsys):
    monkeypatch.setenv("MLCI_PROGRESS_DELAY", "0")
    monkeypatch.setattr(Progress, "enabled", property(lambda self: True))
    argv = ["ci", "--example", "--metric", "accuracy", "-B", "200", "--seed", "0"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "200/200" in err and "200/200" not in out
    assert main([*argv, "--quiet"]) == 0
    assert "200/200" not in capsys.readouterr().err


@pytest.mark.parametrize("delay", [0.0, 5.0])
def test_progress_counts_across_threads(delay):
    bar = Progress(delay=delay, stream=io.StringIO(), force=True)
    bar.add_total(10)
    for _ in range(10):
        bar.update(1)
    assert bar.done == 10
    bar.close()


def _progress(call):
    """``call`` with a ``progress`` argument set through :func:`mlci.config_context` (the
    drivers take no ``progress`` argument; issue 23)."""

    def run(progress=None, **kw):
        if progress is None:
            return call(**kw)
        with mlci.config_context(progress=progress):
            return call(**kw)

    return run


def _drivers():
    """A small call of each kind of driver, with ``progress`` set in the config."""
    rng = np.random.default_rng(0)
    y = np.arange(200) % 2
    s_a, s_b = y + rng.normal(0, 1, 200), y + rng.normal(0, 1.2, 200)
    p = np.where(np.arange(200) % 7 == 0, 1 - y, y)
    sc = mlci.Scores.from_labels(y, s_a)
    calls = {
        "bootstrap_ci": lambda **kw: mlci.bootstrap_ci(y, p, metric="accuracy", rng=0, **kw),
        "compare": lambda **kw: mlci.compare(
            y, {"a": s_a, "b": s_b}, metric="roc_auc", rng=0, **kw
        ),
        "permutation_test": lambda **kw: mlci.permutation_test(
            y, s_a, s_b, metric="roc_auc", rng=0, **kw
        ),
        "Scores.bootstrap_ci": lambda **kw: sc.bootstrap_ci("eer", rng=0, **kw),
        "eer_ci": lambda **kw: mlci.eer_ci(sc, rng=0, **kw),
    }
    return {name: _progress(call) for name, call in calls.items()}


@pytest.mark.parametrize("name", list(_drivers()))
def test_progress_true_draws_one_bar_and_false_is_silent(name, monkeypatch):
    run = _drivers()[name]
    monkeypatch.setenv("MLCI_PROGRESS_DELAY", "0")
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    run(n_resamples=300, progress=True)
    drawn = tty.getvalue()
    assert "/" in drawn and ("300" in drawn or "600" in drawn), drawn  # replicates counted
    assert mlci.feedback.current_progress() is None  # the bar is closed after the call
    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    run(n_resamples=300)  # default: no bar
    assert quiet.getvalue() == ""


def test_progress_is_silent_in_pipes_and_ci(monkeypatch):
    run = _drivers()["bootstrap_ci"]
    monkeypatch.setenv("MLCI_PROGRESS_DELAY", "0")
    pipe = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", pipe)
    run(n_resamples=300, progress=True)
    assert pipe.getvalue() == ""
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    monkeypatch.setenv("CI", "true")
    run(n_resamples=300, progress=True)
    assert tty.getvalue() == ""


def test_progress_inside_a_bar_adds_to_it_and_is_checked():
    run = _drivers()["bootstrap_ci"]
    with progress_bar(stream=io.StringIO(), delay=0, force=True) as bar:
        run(n_resamples=300, progress=True)
        run(n_resamples=200)
    assert bar.done == bar.total == 500
    with pytest.raises(TypeError, match="`progress` must be True or False"):
        run(n_resamples=300, progress="yes")


def _protocol_drivers():
    """The drivers that fit models: their fits (and runs) are counted on the bar."""
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)

    def train_and_predict(idx, seed):
        return GaussianNB().fit(X[idx], y[idx]).predict(X[:40])

    calls = {
        # (call, the units on the bar, how many)
        "cross_val_ci": (
            lambda **kw: mlci.cross_val_ci(GaussianNB(), X, y, n_repeats=2, rng=0, **kw),
            "fit",
            10,
        ),
        "cross_val_compare": (
            lambda **kw: mlci.cross_val_compare(
                GaussianNB(), GaussianNB(), X, y, cv=5, n_repeats=2, rng=0, **kw
            ),
            "fit",
            2 * 10,  # two estimators on the same 2 x 5 folds
        ),
        "bootstrap632_ci": (
            lambda **kw: mlci.bootstrap632_ci(
                GaussianNB(), X, y, variant="oob", n_bootstraps=20, rng=0, **kw
            ),
            "fit",
            21,
        ),
        # 3 training runs, then the test-set bootstrap's replicates on the same bar
        "evaluate_method": (
            lambda **kw: mlci.evaluate_method(
                train_and_predict,
                80,
                y[:40],
                metric="accuracy",
                seeds=3,
                n_resamples=200,
                rng=0,
                **kw,
            ),
            "step",
            3 + 200,
        ),
    }
    return {name: (_progress(call), unit, n) for name, (call, unit, n) in calls.items()}


@pytest.mark.parametrize("name", list(_protocol_drivers()))
def test_protocols_count_their_fits_on_one_bar(name, monkeypatch):
    run, unit, total = _protocol_drivers()[name]
    monkeypatch.setenv("MLCI_PROGRESS_DELAY", "0")
    with progress_bar(stream=io.StringIO(), delay=0, force=True) as bar:
        run()  # progress off inside an outer bar: counted on it
    assert (bar.done, bar.total, bar.unit) == (total, total, unit)
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    run(progress=True)
    assert f"{total}/{total}" in tty.getvalue()
    assert mlci.feedback.current_progress() is None
    pipe = io.StringIO()  # not a terminal: nothing, not even a plain line per fit
    monkeypatch.setattr("sys.stderr", pipe)
    run(progress=True)
    assert pipe.getvalue() == ""
    with pytest.raises(TypeError, match="`progress` must be True or False"):
        run(progress="yes")


def test_reading_and_reduction_counted_on_the_bar(tmp_path):
    # issue 25: a file's read (Parquet: a column at a time) and the engine's passes of a
    # reduction advance the same bar as the replicates; silent without a terminal
    import io as io_

    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from mlci.feedback import progress_bar
    from mlci.io import read_table

    df = pd.DataFrame({"y": np.arange(400) % 2, "p": (np.arange(400) % 3 == 0).astype(int)})
    df.to_parquet(tmp_path / "x.parquet")
    df.to_csv(tmp_path / "x.csv", index=False)
    out = io_.StringIO()
    with progress_bar(stream=out, delay=0, force=True) as bar:
        read_table(tmp_path / "x.parquet", ["y", "p"])
        assert (bar.done, bar.total, bar.unit) == (2, 2, "column")
        read_table(tmp_path / "x.csv", ["y"])  # a new kind of work: a fresh bar
        assert (bar.done, bar.total, bar.unit) == (1, 1, "file")
        mlci.bootstrap_ci(df["y"], df["p"], metric="accuracy", n_resamples=50, rng=0)
        assert (bar.done, bar.total, bar.unit) == (50, 50, "replicate")
    assert "2/2" in out.getvalue() and "50/50" in out.getvalue()
    pytest.importorskip("duckdb")
    with progress_bar(stream=io_.StringIO(), delay=0, force=True) as bar:
        t = mlci.reduce_table(str(tmp_path / "x.parquet"), "y", "p", metric="accuracy")
        assert bar.done == bar.total >= 1 and bar.units == ["pass"]
        t.bootstrap_ci(n_resamples=50, rng=0)
        assert bar.done == bar.total == 50
    # not a terminal: nothing drawn
    quiet = io_.StringIO()
    with progress_bar(stream=quiet, delay=0) as bar:
        read_table(tmp_path / "x.parquet")
    assert bar.done == 2 and quiet.getvalue() == ""
