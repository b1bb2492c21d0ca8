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

Warnings: a task may record the warnings of its own calls (:func:`recording`, as
``warnings.catch_warnings(record=True)`` does for one thread); while the tasks run the
other threads' warnings go where they went before (the caller's filters and
``showwarning``).  The filters are the process's: a category that a recording task must
see every time is given to :class:`Tasks` (``always``).
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

from ..inputs.config import config_context, get_config

__all__ = ["Tasks", "recording", "report_workers"]

_LOCAL = threading.local()


def report_workers(n_tasks: int) -> tuple[int, int]:
    """Threads for the report's tasks and for each task's engine: the engine's ``n_jobs``
    (:func:`mlci.get_config`; None: the machine's cores, up to 8) shared between them,
    at most one worker per task (``(workers, n_jobs of each task)``)."""
    import os

    n_jobs = get_config()["n_jobs"]
    if n_jobs is None or n_jobs == -1:
        n_jobs = max(1, min(os.cpu_count() or 1, 8))
    workers = max(1, min(int(n_jobs), n_tasks))
    return workers, max(1, int(n_jobs) // workers)


@contextlib.contextmanager
def recording() -> Iterator[list[warnings.WarningMessage]]:
    """Record the warnings this thread issues in the block (not the other threads'),
    while :class:`Tasks` runs: the list of ``warnings.catch_warnings(record=True)``."""
    caught: list[warnings.WarningMessage] = []
    previous = getattr(_LOCAL, "log", None)
    _LOCAL.log = caught
    try:
        yield caught
    finally:
        _LOCAL.log = previous


class Tasks:
    """Run functions on ``workers`` threads, within a memory budget; each returns a
    :class:`~concurrent.futures.Future`.

    A worker takes the first waiting task (in the order given) whose memory estimate
    fits in what the running tasks leave of ``budget`` bytes (a task runs alone when it
    needs more than the whole budget), so that large tasks do not run side by side.
    ``n_jobs`` and the engine's ``max_memory`` (split between the workers) hold inside
    every task.

    Examples
    --------
    >>> with Tasks(2, n_jobs=1) as tasks:
    ...     a = tasks.submit(sum, [1, 2, 3])
    ...     b = tasks.submit(max, [1, 2, 3], memory=10)
    ...     a.result(), b.result()
    (6, 3)
    """

    def __init__(
        self,
        workers: int,
        n_jobs: int = 1,
        always: tuple[type[Warning], ...] = (),
        budget: float = float("inf"),
    ) -> None:
        self.workers = max(1, int(workers))
        self.n_jobs = max(1, int(n_jobs))
        self.budget = float(budget)
        self._always = always
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
        self._stack.enter_context(_routed_warnings(self._always))
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
        assert self._threads, "Tasks.submit outside its `with` block"
        context = contextvars.copy_context()
        max_memory, n_jobs = self._memory, self.n_jobs

        def call() -> Any:
            with config_context(max_memory=max_memory, n_jobs=n_jobs):
                return fn(*args, **kwargs)

        fut: Future[Any] = Future()
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


@contextlib.contextmanager
def _routed_warnings(always: tuple[type[Warning], ...]) -> Iterator[None]:
    """While the tasks run: a warning of a thread inside :func:`recording` goes to its
    list, any other to the ``showwarning`` in force before (the caller's); the categories
    ``always`` are issued every time (not once per place), in every thread."""
    with warnings.catch_warnings():
        for category in always:
            warnings.simplefilter("always", category)
        before = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: Any = None,
            line: str | None = None,
        ) -> None:
            log = getattr(_LOCAL, "log", None)
            if log is None:
                before(message, category, filename, lineno, file, line)
            else:
                log.append(warnings.WarningMessage(message, category, filename, lineno, file, line))

        warnings.showwarning = show
        yield
