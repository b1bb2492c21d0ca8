"""The engine knobs that never change a result, settable once for a block of code.

``batch``, ``n_jobs``, ``max_memory`` and ``progress`` decide how fast the bootstrap
engine runs, how much memory it takes and whether a progress bar is drawn; a seed gives
the same replicates (bit for bit) whatever they are.  They are not arguments of the
drivers (issue 23: the signatures keep what changes a result); they are set here.
Modelled on scikit-learn's ``config_context``:

* :func:`config_context` sets them for a ``with`` block (nestable; the previous values
  come back at the end of the block, also on an exception);
* :func:`set_config` sets them until changed again, :func:`get_config` reads them;
* :func:`knobs_in_config` decorates a driver: for one deprecation cycle it still accepts
  them as keywords (``bootstrap_ci(..., batch=64)``), with a FutureWarning naming
  :func:`config_context`, and runs the call inside ``config_context(batch=64)``.

The configuration is per thread (a :class:`contextvars.ContextVar`): a thread, or an
asyncio task, that changes it does not change it for the others, and a new thread starts
from the defaults.  The engine reads it in the thread that calls the driver.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from types import MappingProxyType
from typing import Any, ParamSpec, TypeVar

import numpy as np

from .deprecation import moved_keywords
from .validation import check_flag, check_positive_int

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "check_n_jobs",
    "config_context",
    "configured_progress",
    "engine_config",
    "get_config",
    "knobs_in_config",
    "set_config",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: the knobs, in the order of :func:`set_config`
KNOBS = ("batch", "n_jobs", "max_memory", "progress")


class _DefaultMemory(int):
    """The default ``max_memory`` of a driver's signature: an ``int`` (512 MiB) that the
    engine reads as "not given", so that the configured value applies."""


#: default bound on the engine's working memory (bytes), shared by all threads; as a
#: driver's default it stands for "not given" (the configured value applies)
DEFAULT_MAX_MEMORY: int = _DefaultMemory(512 * 2**20)

#: the knobs and their defaults (``max_memory`` as a plain int)
_DEFAULTS: MappingProxyType[str, Any] = MappingProxyType(
    {"batch": None, "n_jobs": None, "max_memory": int(DEFAULT_MAX_MEMORY), "progress": False}
)
_CONFIG: contextvars.ContextVar[MappingProxyType[str, Any]] = contextvars.ContextVar(
    "mlci_config", default=_DEFAULTS
)


class _Unchanged:
    """The default of :func:`set_config`'s arguments: leave that knob as it is."""

    def __repr__(self) -> str:
        return "<unchanged>"


_UNCHANGED: Any = _Unchanged()


def check_n_jobs(n_jobs: Any) -> int | None:
    """``None`` (all cores, up to 8), ``-1`` (the same) or an integer >= 1.

    Examples
    --------
    >>> check_n_jobs(2), check_n_jobs(None)
    (2, None)
    >>> check_n_jobs(0)
    Traceback (most recent call last):
    ...
    ValueError: `n_jobs` must be an integer >= 1 (or -1 for all cores); got 0.
    """
    if n_jobs is None or (n_jobs == -1 and not isinstance(n_jobs, bool)):
        return n_jobs
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer):
        raise TypeError(f"`n_jobs` must be an integer >= 1 (or -1 for all cores); got {n_jobs!r}.")
    if n_jobs < 1:
        raise ValueError(f"`n_jobs` must be an integer >= 1 (or -1 for all cores); got {n_jobs}.")
    return int(n_jobs)


def _check(name: str, value: Any) -> Any:
    """One knob validated (the messages name the knob)."""
    if name == "batch":
        return None if value is None else check_positive_int("batch", value)
    if name == "n_jobs":
        return check_n_jobs(value)
    if name == "max_memory":
        if value is None:
            return int(DEFAULT_MAX_MEMORY)
        return check_positive_int("max_memory", value, minimum=1 << 16)
    return check_flag("progress", value)


def get_config() -> dict[str, Any]:
    """The engine knobs in force (a copy: changing it changes nothing).

    Returns
    -------
    dict
        ``batch`` (int or None: sized from ``max_memory``), ``n_jobs`` (int or None: all
        cores up to 8), ``max_memory`` (bytes, default 512 MiB), ``progress`` (bool).

    Examples
    --------
    >>> import mlci
    >>> mlci.get_config()["max_memory"] == 512 * 2**20
    True
    """
    return dict(_CONFIG.get())


def _updated(batch: Any, n_jobs: Any, max_memory: Any, progress: Any) -> MappingProxyType[str, Any]:
    config = dict(_CONFIG.get())
    given = {"batch": batch, "n_jobs": n_jobs, "max_memory": max_memory, "progress": progress}
    for name, value in given.items():
        if value is not _UNCHANGED:
            config[name] = _check(name, value)
    return MappingProxyType(config)


def set_config(
    batch: Any = _UNCHANGED,
    n_jobs: Any = _UNCHANGED,
    max_memory: Any = _UNCHANGED,
    progress: Any = _UNCHANGED,
) -> None:
    """Set the engine knobs (for this thread) until they are set again.

    An argument left out leaves its knob unchanged; ``None`` sets ``batch`` or ``n_jobs``
    back to automatic and ``max_memory`` back to 512 MiB.  None of them changes a result.

    Parameters
    ----------
    batch : int or None
        Replicates per chunk (None: sized from ``max_memory``; rounded to whole random
        blocks, so it never changes the replicates).
    n_jobs : int or None
        Threads of the bootstrap engine (None or -1: all cores, up to 8).
    max_memory : int or None
        Bound on the engine's working memory in bytes (at least 65536; None: 512 MiB).
    progress : bool
        Draw a progress bar on stderr during long runs (see :mod:`mlci.feedback`).

    Examples
    --------
    >>> import mlci
    >>> mlci.set_config(n_jobs=1)
    >>> mlci.get_config()["n_jobs"]
    1
    >>> mlci.set_config(n_jobs=None)
    >>> mlci.set_config(batch=0)
    Traceback (most recent call last):
    ...
    ValueError: `batch` must be an integer >= 1; got 0.
    """
    _CONFIG.set(_updated(batch, n_jobs, max_memory, progress))


@contextlib.contextmanager
def config_context(
    *,
    batch: Any = _UNCHANGED,
    n_jobs: Any = _UNCHANGED,
    max_memory: Any = _UNCHANGED,
    progress: Any = _UNCHANGED,
) -> Iterator[None]:
    """Set the engine knobs for the ``with`` block (nestable; restored on exit).

    Parameters
    ----------
    batch, n_jobs, max_memory, progress
        As in :func:`set_config`; left out, a knob keeps its current value.  The values
        are checked on entry.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> y = np.arange(200) % 2
    >>> p = np.where(np.arange(200) % 7 == 0, 1 - y, y)
    >>> a = mlci.bootstrap_ci(y, p, metric="accuracy", n_resamples=500, rng=0)
    >>> with mlci.config_context(n_jobs=1, batch=64):
    ...     b = mlci.bootstrap_ci(y, p, metric="accuracy", n_resamples=500, rng=0)
    ...     mlci.get_config()["batch"]
    64
    >>> a.confidence_interval == b.confidence_interval  # never changes a result
    True
    >>> mlci.get_config()["batch"] is None
    True
    """
    token = _CONFIG.set(_updated(batch, n_jobs, max_memory, progress))
    try:
        yield
    finally:
        _CONFIG.reset(token)


def engine_config(
    batch: Any = None, n_jobs: Any = None, max_memory: Any = None
) -> tuple[int | None, int | None, int]:
    """A driver's ``batch``, ``n_jobs``, ``max_memory`` with the configured values where
    not given (None; ``max_memory`` at :data:`DEFAULT_MAX_MEMORY`), validated.

    Examples
    --------
    >>> with config_context(batch=32):
    ...     engine_config(None, 2, DEFAULT_MAX_MEMORY)
    (32, 2, 536870912)
    """
    config = _CONFIG.get()
    if batch is None:
        batch = config["batch"]
    if n_jobs is None:
        n_jobs = config["n_jobs"]
    if max_memory is None or isinstance(max_memory, _DefaultMemory):
        max_memory = config["max_memory"]
    return _check("batch", batch), _check("n_jobs", n_jobs), _check("max_memory", max_memory)


def configured_progress(progress: Any) -> bool:
    """A driver's ``progress`` (None: the configured value), checked."""
    return check_flag("progress", _CONFIG.get()["progress"] if progress is None else progress)


def _not_given(name: str, value: Any) -> bool:
    """A knob keyword that meant "the configured value" in the old signatures (None, or
    ``max_memory`` at its default): it sets nothing."""
    if name == "max_memory":
        return value is None or isinstance(value, _DefaultMemory)
    return value is None


def _in_config(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], given: dict[str, Any]
) -> Any:
    knobs = {k: v for k, v in given.items() if not _not_given(k, v)}
    with config_context(**knobs):
        return func(*args, **kwargs)


def _knobs_message(name: str, given: dict[str, Any]) -> str:
    keys = ", ".join(f"{k}=..." for k in given)
    return (
        f"{name}({keys}) is deprecated and will be removed: the engine knobs never change "
        f"a result; set them with `with mlci.config_context({keys}):` around the call (or "
        "mlci.set_config)."
    )


def knobs_in_config(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator: the engine knobs, no longer arguments of ``func``, still accepted as
    keywords for one deprecation cycle (through :func:`~mlci.inputs.moved_keywords`).

    A call with ``batch=``, ``n_jobs=``, ``max_memory=`` or ``progress=`` warns (a
    FutureWarning at the caller's line, naming :func:`mlci.config_context`) and runs
    ``func`` inside ``config_context(...)`` of the values given, which is what the
    keywords did (they never change a result).  A value that meant "the configured one"
    (None, or ``max_memory`` at its old default) sets nothing.  The signature users see
    (``inspect.signature``, type checkers: the decorator keeps ``func``'s parameter
    types) is ``func``'s, without the knobs.

    Examples
    --------
    >>> import warnings
    >>> @knobs_in_config
    ... def driver(x, *, rng=None):
    ...     return get_config()["batch"]
    >>> driver(1)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     driver(1, batch=64)
    64
    >>> print(caught[0].category.__name__, caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    FutureWarning driver(batch=...) is deprecated and will be removed: the engine knobs
    never change a result; set them with `with mlci.config_context(batch=...):` around the
    call (or mlci.set_config).
    >>> import inspect
    >>> str(inspect.signature(driver))
    '(x, *, rng=None)'
    """
    return moved_keywords(KNOBS, _knobs_message, _in_config)(func)
