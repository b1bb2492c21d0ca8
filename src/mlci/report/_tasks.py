"""The report's computations on a few threads (issue 25: the report at a million samples).

:class:`Tasks` runs the report's independent calls (the paired comparison, each system's
metrics, curve bands and calibration metrics, the groups) on ``workers`` threads while
the calling thread draws the figures (matplotlib's pyplot stays in one thread).  numpy
releases the GIL in the heavy loops, so two calls run on two cores, including the parts
of a call that the engine does not spread over threads itself (building a metric's
kernel: sorting the scores, finding the atoms).

No number depends on the threads: every call seeds its own generator from the report's
``seed`` as it did one after the other, and the engine's results never depend on its
``n_jobs`` or ``max_memory``.  Each task runs in a copy of the caller's context (the
configuration of :func:`mlci.config_context` and the progress bar), with the engine's
``n_jobs`` and ``max_memory`` split between the workers (:func:`report_workers`), so
that the report uses the configured threads and working memory in all.

Warnings: Python (before 3.14) keeps one set of warning filters for the process, so
the library's ``warnings.catch_warnings`` blocks (a band ignoring the no-spread warning
of its fixed ends, the paired comparison recording its finish step's warnings, the
calibration table recording its flags) would act on each other's threads.  While the
tasks run, :class:`_ThreadWarnings` gives every thread its own filters and records (the
same code, the same warnings as one call after the other); warnings outside any block
go where they went before (the caller's filters and ``showwarning``).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from types import TracebackType
from typing import Any

from ..engine.replicate_loop import single_threaded_blas
from ..inputs.config import config_context, get_config

__all__ = ["Tasks", "report_workers"]

_LOCAL = threading.local()


def report_workers(n_tasks: int) -> tuple[int, int]:
    """Threads for the report's tasks and each task's engine ``n_jobs``: the engine's
    ``n_jobs`` (:func:`mlci.get_config`; None: the machine's cores, up to 8) as workers,
    at most one per task, each task's engine on one thread; with one worker, the calls
    one after the other in the calling thread, the engine on all its threads."""
    import os

    n_jobs = get_config()["n_jobs"]
    if n_jobs is None or n_jobs == -1:
        n_jobs = max(1, min(os.cpu_count() or 1, 8))
    workers = max(1, min(int(n_jobs), n_tasks))
    return workers, (1 if workers > 1 else int(n_jobs))


class Tasks:
    """Run functions on ``workers`` threads, within a memory budget; each returns a
    :class:`~concurrent.futures.Future`.

    A worker takes the first waiting task (in the order given) whose memory estimate
    fits in what the running tasks leave of ``budget`` bytes (a task runs alone when it
    needs more than the whole budget), so that large tasks do not run side by side.
    ``n_jobs`` and the engine's ``max_memory`` (split between the workers) hold inside
    every task.  With one worker every call runs at once in the calling thread, as the
    report ran before (:meth:`submit` returns a finished future).

    Examples
    --------
    >>> with Tasks(2, n_jobs=1) as tasks:
    ...     a = tasks.submit(sum, [1, 2, 3])
    ...     b = tasks.submit(max, [1, 2, 3], memory=10)
    ...     a.result(), b.result()
    (6, 3)
    """

    def __init__(self, workers: int, n_jobs: int = 1, budget: float = float("inf")) -> None:
        self.workers = max(1, int(workers))
        self.n_jobs = max(1, int(n_jobs))
        self.budget = float(budget)
        config = get_config()
        # each worker's engine within its share of the configured working memory
        self._memory = max(int(config["max_memory"]) // self.workers, 1 << 16)
        self._stack = contextlib.ExitStack()
        self._cond = threading.Condition()
        self._waiting: list[tuple[Future[Any], Callable[[], Any], float]] = []
        self._held = 0.0
        self._running = 0
        self._closing = False
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Tasks:
        if self.workers == 1:  # the calls one after the other, in this thread
            return self
        # one BLAS thread each, as the engine's own threads have (an idle BLAS thread
        # spins: with two tasks' BLAS pools on 2 cores the report took 2.4x the CPU)
        self._stack.enter_context(single_threaded_blas())
        self._stack.enter_context(_routed_warnings())
        for i in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"mlci-report-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with self._cond:
            if exc_type is not None:  # on an error the waiting tasks are dropped
                for fut, _, _ in self._waiting:
                    fut.cancel()
                self._waiting.clear()
            self._closing = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join()
        self._threads.clear()
        self._stack.__exit__(exc_type, exc, tb)

    def submit(
        self, fn: Callable[..., Any], *args: Any, memory: float = 0.0, **kwargs: Any
    ) -> Future[Any]:
        """``fn(*args, **kwargs)`` on a worker, in a copy of this thread's context;
        ``memory``: an estimate of the bytes it holds at its peak."""
        if self.workers == 1:
            fut: Future[Any] = Future()
            fut.set_running_or_notify_cancel()
            try:
                fut.set_result(fn(*args, **kwargs))
            except Exception as exc:  # (handed to the caller, as from a worker)
                fut.set_exception(exc)
            return fut
        assert self._threads, "Tasks.submit outside its `with` block"
        context = contextvars.copy_context()
        max_memory, n_jobs = self._memory, self.n_jobs

        def call() -> Any:
            with config_context(max_memory=max_memory, n_jobs=n_jobs):
                return fn(*args, **kwargs)

        fut = Future()
        with self._cond:
            self._waiting.append((fut, lambda: context.run(call), float(memory)))
            self._cond.notify_all()
        return fut

    def _take(self) -> tuple[Future[Any], Callable[[], Any], float] | None:
        """The first waiting task that fits in the budget (under the lock)."""
        for i, (_, _, memory) in enumerate(self._waiting):
            if self._running == 0 or self._held + memory <= self.budget:
                return self._waiting.pop(i)
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                while (item := self._take()) is None:
                    if self._closing and not self._waiting:
                        return
                    self._cond.wait()
                fut, call, memory = item
                self._held += memory
                self._running += 1
            try:
                if fut.set_running_or_notify_cancel():
                    try:
                        fut.set_result(call())
                    except BaseException as exc:  # (handed to the caller)
                        fut.set_exception(exc)
            finally:
                with self._cond:
                    self._held -= memory
                    self._running -= 1
                    self._cond.notify_all()


class _ThreadWarnings:
    """Warnings per thread while the tasks run (Python < 3.14 keeps one set of filters
    and one ``showwarning`` for the whole process, so a ``catch_warnings`` block of one
    thread, such as a band's "no reason to warn about its fixed ends", would change what
    the other threads' warnings do; issue 25).

    While installed, ``warnings.catch_warnings``, ``simplefilter`` and ``filterwarnings``
    act on the calling thread's own stack of filters (each block starts from a copy of
    the enclosing one; a thread outside any block uses the filters in force before);
    the process's filters let every warning through to :meth:`show`, which applies the
    thread's filters as ``warnings.warn_explicit`` does (``error`` raises in the thread
    that warned; ``default``, ``module`` and ``once`` say a warning once per place) and
    hands it to the innermost recording block of that thread, else to the
    ``showwarning`` in force before.
    """

    def __init__(self) -> None:
        self.before = list(warnings.filters)
        self.show_before = warnings.showwarning
        self.local = threading.local()
        self.seen: set[tuple[str, type[Warning], str, int]] = set()
        self.lock = threading.Lock()

    def stack(self) -> list[tuple[list[Any], list[warnings.WarningMessage] | None]]:
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack

    def filters(self) -> list[Any]:
        stack = self.stack()
        return stack[-1][0] if stack else self.before

    def add(self, item: tuple[Any, ...], append: bool) -> None:
        filters = self.filters()
        if not append:
            if item in filters:
                filters.remove(item)
            filters.insert(0, item)
        elif item not in filters:
            filters.append(item)

    def show(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        text = str(message)
        module = filename[:-3] if filename[-3:].lower() == ".py" else filename
        action = "default"
        for act, msg, cat, mod, ln in self.filters():
            if (
                (msg is None or msg.match(text))
                and issubclass(category, cat)
                and (mod is None or mod.match(module))
                and (ln == 0 or lineno == ln)
            ):
                action = act
                break
        if action == "ignore":
            return
        if action == "error":
            raise message if isinstance(message, Warning) else category(text)
        if action != "always":
            key = (text, category, "" if action == "once" else filename, lineno)
            with self.lock:
                if key in self.seen:
                    return
                self.seen.add(key)
        for _, log in reversed(self.stack()):
            if log is not None:
                log.append(warnings.WarningMessage(message, category, filename, lineno, file, line))
                return
        self.show_before(message, category, filename, lineno, file, line)

    def catch_warnings(self) -> Any:
        shared = self

        class catch_warnings:  # (stands in for warnings.catch_warnings)
            def __init__(
                self,
                *,
                record: bool = False,
                module: Any = None,
                action: str | None = None,
                category: type[Warning] = Warning,
                lineno: int = 0,
                append: bool = False,
            ) -> None:
                self._record = record
                self._filter = None if action is None else (action, category, lineno, append)

            def __enter__(self) -> list[warnings.WarningMessage] | None:
                log: list[warnings.WarningMessage] | None = [] if self._record else None
                shared.stack().append((list(shared.filters()), log))
                if self._filter is not None:
                    action, category, lineno, append = self._filter
                    shared.add((action, None, category, None, lineno), append)
                return log

            def __exit__(self, *exc: object) -> None:
                shared.stack().pop()

        return catch_warnings

    def simplefilter(
        self, action: str, category: type[Warning] = Warning, lineno: int = 0, append: bool = False
    ) -> None:
        self.add((action, None, category, None, lineno), append)

    def filterwarnings(
        self,
        action: str,
        message: str = "",
        category: type[Warning] = Warning,
        module: str = "",
        lineno: int = 0,
        append: bool = False,
    ) -> None:
        import re

        msg = re.compile(message, re.I) if message else None
        mod = re.compile(module) if module else None
        self.add((action, msg, category, mod, lineno), append)


@contextlib.contextmanager
def _routed_warnings() -> Iterator[None]:
    """:class:`_ThreadWarnings` installed for the block; the process's warnings as they
    were afterwards."""
    shared = _ThreadWarnings()
    names = ("catch_warnings", "simplefilter", "filterwarnings", "showwarning")
    saved = {name: getattr(warnings, name) for name in names}
    with saved["catch_warnings"]():
        saved["simplefilter"]("always")  # every warning reaches shared.show
        warnings.catch_warnings = shared.catch_warnings()  # type: ignore[misc]
        warnings.simplefilter = shared.simplefilter  # type: ignore[assignment]
        warnings.filterwarnings = shared.filterwarnings
        warnings.showwarning = shared.show
        try:
            yield
        finally:
            for name, value in saved.items():
                setattr(warnings, name, value)
