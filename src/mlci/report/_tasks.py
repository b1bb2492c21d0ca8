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
``max_memory`` split between the workers, so that the report's working memory stays
within the configured bound.

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
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any

from ..inputs.config import config_context, get_config

__all__ = ["Tasks", "recording", "report_workers"]

_LOCAL = threading.local()


def report_workers(n_tasks: int) -> int:
    """Threads for the report's tasks: the engine's ``n_jobs`` (:func:`mlci.get_config`;
    None: the machine's cores, up to 8), at most one per task."""
    import os

    n_jobs = get_config()["n_jobs"]
    if n_jobs is None or n_jobs == -1:
        n_jobs = max(1, min(os.cpu_count() or 1, 8))
    return max(1, min(int(n_jobs), n_tasks))


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
    """Run functions on ``workers`` threads; each returns a :class:`Future`.

    Examples
    --------
    >>> with Tasks(2) as tasks:
    ...     a = tasks.submit(sum, [1, 2, 3])
    ...     a.result()
    6
    """

    def __init__(self, workers: int, always: tuple[type[Warning], ...] = ()) -> None:
        self.workers = max(1, int(workers))
        self._always = always
        config = get_config()
        # each worker's engine within its share of the configured working memory
        self._memory = max(int(config["max_memory"]) // self.workers, 1 << 16)
        self._pool: ThreadPoolExecutor | None = None
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Tasks:
        self._stack.enter_context(_routed_warnings(self._always))
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="mlci-report")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # on an error, the tasks not yet started are dropped (the running ones finish)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=exc_type is not None)
            self._pool = None
        self._stack.__exit__(exc_type, exc, tb)

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
        """``fn(*args, **kwargs)`` on a worker, in a copy of this thread's context."""
        assert self._pool is not None, "Tasks.submit outside its `with` block"
        context = contextvars.copy_context()
        memory = self._memory

        def call() -> Any:
            with config_context(max_memory=memory):
                return fn(*args, **kwargs)

        return self._pool.submit(context.run, call)


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
