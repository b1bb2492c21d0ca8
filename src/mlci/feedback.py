"""Feedback while mlci works: a progress bar for long runs, warnings at the caller's line.

* :func:`progress_bar` is a context manager: every bootstrap run inside it (the engine's
  one replicate loop, :func:`mlci.engine.bootstrap.run_replicates`) advances one bar on
  stderr.  The bar appears only once the work has taken about 2 seconds, only when
  stderr is a terminal (never in pipes, files or CI logs) and disappears when done; it
  uses tqdm when installed (``pip install tqdm``), else a plain one-line bar.  The
  ``mlci`` command runs inside one (``--quiet`` turns it off); in Python::

      with mlci.feedback.progress_bar():
          res = mlci.bootstrap_ci(y, p, metric="roc_auc", n_resamples=100_000)

* Every long-running driver (:func:`mlci.bootstrap_ci`, :func:`mlci.compare`,
  :func:`mlci.permutation_test`, the score intervals, ...) takes ``progress=`` (default
  False): True draws that same bar for the whole call, through
  :func:`reports_progress`, the one place where the argument is read and checked.  Inside
  a bar already shown (the CLI's, an outer driver's) it adds to that one.

* The bar is never drawn when stderr is not a terminal, nor when the ``CI`` environment
  variable is set (continuous-integration logs); ``MLCI_PROGRESS_DELAY`` sets the delay
  in seconds (default 2).

* Reading a file and an engine's passes over the data (out-of-core reductions) are
  counted on the same bar (:func:`working`): a Parquet file a column at a time, a CSV
  file as one step, each engine query as one pass.

* :func:`warn` issues a warning attributed to the first frame outside mlci, so that
  Python shows the user's line (``script.py:12``), not a line inside mlci.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from .inputs.config import configured_progress
from .inputs.deprecation import warn_at_caller as warn

__all__ = [
    "Progress",
    "counting",
    "current_progress",
    "progress_bar",
    "reports_progress",
    "warn",
    "working",
]

_F = TypeVar("_F", bound=Callable[..., Any])

_ACTIVE: contextvars.ContextVar[Progress | None] = contextvars.ContextVar(
    "mlci_progress", default=None
)


#: the units of :func:`working` (reading, reduction): once done, other work starts a fresh bar
_READING = frozenset({"file", "column", "pass"})


class Progress:
    """Counts units of work done (bootstrap replicates, model fits) against the total
    announced, and draws the bar.

    Parameters
    ----------
    delay : float
        Seconds of work before the bar appears (short runs stay silent).
    stream : file, optional
        Default: ``sys.stderr``.
    force : bool
        Draw even when ``stream`` is not a terminal (for tests).
    """

    def __init__(self, delay: float = 2.0, stream: Any = None, force: bool = False) -> None:
        self.delay = delay
        self.stream = sys.stderr if stream is None else stream
        self.force = force
        self.total = 0
        self.done = 0
        self.started = time.monotonic()
        self._bar: Any = None
        self._drawn = False
        self._lock = threading.Lock()
        self.units: list[str] = []

    @property
    def unit(self) -> str:
        """What the bar counts: ``"replicate"``, ``"fit"``, or ``"step"`` when a call
        announced more than one kind of work."""
        return self.units[0] if len(self.units) == 1 else ("step" if self.units else "replicate")

    @property
    def enabled(self) -> bool:
        """Whether the bar may be drawn: a terminal outside CI (or ``force``)."""
        if self.force:
            return True
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            return False
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def add_total(self, n: int, unit: str = "replicate") -> None:
        """Announce ``n`` more units of work (one bootstrap run's replicates, or a
        protocol's model fits: ``unit="fit"``)."""
        with self._lock:
            reading = self.units and set(self.units) <= _READING
            if reading and unit not in self.units and self.done >= self.total:
                # the work counted so far is over (a file read, an engine's passes): the
                # new kind of work starts a fresh bar ("200/200 replicates", not "203/203")
                if self._bar is not None:
                    self._bar.close()
                    self._bar = None
                self.total = self.done = 0
                self.units = []
            self.total += int(n)
            if unit not in self.units:
                self.units.append(unit)
            if self._bar is not None:
                self._bar.total = self.total
                self._bar.refresh()

    def update(self, n: int) -> None:
        """``n`` replicates done; draws the bar once the work has taken ``delay`` s."""
        with self._lock:
            self.done += int(n)
            if not self.enabled or time.monotonic() - self.started < self.delay:
                return
            if self._bar is None:
                self._bar = self._make_bar()
            self._bar.n = self.done
            self._bar.refresh()
            self._drawn = True

    def _make_bar(self) -> Any:
        try:
            from tqdm import tqdm
        except ImportError:
            return _PlainBar(self.total, self.stream, self.unit)
        return tqdm(total=self.total, file=self.stream, unit=self.unit, leave=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _PlainBar:
    """A one-line bar without tqdm: ``mlci: [#####.....]  52%  5200/10000 replicates``."""

    def __init__(self, total: int, stream: Any, unit: str = "replicate") -> None:
        self.total, self.n, self.stream, self.unit = total, 0, stream, unit

    def refresh(self) -> None:
        share = min(1.0, self.n / self.total) if self.total else 0.0
        filled = int(30 * share)
        self.stream.write(
            f"\rmlci: [{'#' * filled}{'.' * (30 - filled)}] {share:4.0%}  "
            f"{self.n}/{self.total} {self.unit}s"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r" + " " * 70 + "\r")
        self.stream.flush()


def current_progress() -> Progress | None:
    """The active :class:`Progress` (inside :func:`progress_bar`), else None."""
    return _ACTIVE.get()


def default_delay() -> float:
    """Seconds before a bar appears: ``MLCI_PROGRESS_DELAY``, else 2."""
    try:
        return max(0.0, float(os.environ.get("MLCI_PROGRESS_DELAY", "2")))
    except ValueError:
        return 2.0


@contextlib.contextmanager
def progress_bar(
    enabled: bool = True,
    *,
    delay: float | None = None,
    stream: Any = None,
    force: bool = False,
) -> Iterator[Progress | None]:
    """Show one progress bar on stderr for the bootstrap runs inside the block.

    Parameters
    ----------
    enabled : bool, default True
        False: no bar (``--quiet``).
    delay : float, optional
        Seconds before the bar appears: runs shorter than that show nothing.  Default:
        :func:`default_delay` (2, or ``MLCI_PROGRESS_DELAY``).
    stream : file, optional
        Default ``sys.stderr``.  Nothing is drawn unless it is a terminal.
    force : bool, default False
        Draw even when ``stream`` is not a terminal.

    Examples
    --------
    >>> import io, numpy as np, mlci
    >>> out = io.StringIO()
    >>> y = np.arange(200) % 2
    >>> p = np.where(np.arange(200) % 7 == 0, 1 - y, y)
    >>> with progress_bar(stream=out, delay=0, force=True) as bar:
    ...     res = mlci.bootstrap_ci(y, p, metric="accuracy", n_resamples=500, rng=0)
    >>> bar.done, bar.total
    (500, 500)
    >>> "500/500" in out.getvalue()
    True
    """
    if not enabled:
        yield None
        return
    bar = Progress(delay=default_delay() if delay is None else delay, stream=stream, force=force)
    token = _ACTIVE.set(bar)
    try:
        yield bar
    finally:
        _ACTIVE.reset(token)
        bar.close()


@contextlib.contextmanager
def counting(total: int, unit: str) -> Iterator[Callable[[int], None]]:
    """Count ``total`` units of work (model fits, runs) on the active progress bar.

    Yields ``advance(k)``, to call as work is done.  The units are added to the active
    bar (the one a :func:`reports_progress` driver opens for ``progress=True``, an outer
    driver's or the command line's); with none active ``advance`` does nothing.

    Examples
    --------
    >>> import io
    >>> with progress_bar(stream=io.StringIO(), delay=0, force=True) as bar:
    ...     with counting(4, "fit") as advance:
    ...         for _ in range(4):
    ...             advance(1)
    >>> bar.done, bar.total, bar.unit
    (4, 4, 'fit')
    """
    bar = current_progress()
    if bar is None:
        yield lambda k: None
        return
    bar.add_total(total, unit=unit)
    yield bar.update


@contextlib.contextmanager
def working(unit: str, n: int = 1) -> Iterator[None]:
    """Count one stretch of work that reports no progress of its own (a file's column
    read, an engine's pass over the data) on the active bar: ``n`` units announced on
    entry, done on exit, so that reading and reduction show on the same bar as the
    replicates (``"2/3 passes"``), under the same rules (after about 2 seconds, on a
    terminal only, never in CI).  With no bar active it does nothing.

    Examples
    --------
    >>> import io
    >>> with progress_bar(stream=io.StringIO(), delay=0, force=True) as bar:
    ...     with working("column"):
    ...         pass
    >>> bar.done, bar.total, bar.unit
    (1, 1, 'column')
    """
    bar = current_progress()
    if bar is None:
        yield
        return
    bar.add_total(n, unit=unit)
    try:
        yield
    finally:
        bar.update(n)


def reports_progress(func: _F) -> _F:
    """Give a driver its progress bar: one bar on stderr for the whole call.

    The bar is drawn when :func:`mlci.get_config`'s ``progress`` is True (set with
    :func:`mlci.config_context`; the drivers take no ``progress`` argument since issue 23)
    -- unless a bar is already shown (the command line's, or an outer driver's), which
    then counts this call's replicates too.  A function that declares
    ``progress: bool = False`` has it read from that argument instead (not given: the
    configured value), checked.  The bar follows :class:`Progress`: drawn after about 2
    seconds, only on a terminal, never in CI.

    Examples
    --------
    >>> @reports_progress
    ... def driver(x, *, progress=False):
    ...     return current_progress() is not None
    >>> driver(1), driver(1, progress=True)
    (False, True)
    >>> driver(1, progress="yes")
    Traceback (most recent call last):
    ...
    TypeError: `progress` must be True or False; got 'yes'.
    """
    signature = inspect.signature(func)
    if "progress" not in signature.parameters:
        # the knob is in the configuration only (mlci.config_context; a deprecated
        # `progress=` keyword is turned into it by mlci.inputs.knobs_in_config)

        @functools.wraps(func)
        def configured(*args: Any, **kwargs: Any) -> Any:
            if not configured_progress(None) or current_progress() is not None:
                return func(*args, **kwargs)
            with progress_bar():
                return func(*args, **kwargs)

        return configured  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            # not given (or None): the configured value (mlci.config_context)
            progress = signature.bind(*args, **kwargs).arguments.get("progress")
        except TypeError:  # a wrong call: let the function itself say so
            return func(*args, **kwargs)
        if not configured_progress(progress) or current_progress() is not None:
            return func(*args, **kwargs)
        with progress_bar():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
