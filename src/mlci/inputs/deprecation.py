"""Old spellings kept working for a while: the one place that renames a keyword.

Every rename of a public parameter (docs/glossary.md: one concept, one spelling) keeps the
old spelling as a deprecated alias, through :func:`renamed`, a decorator, or
:func:`renamed_keyword` for a function that gathers its old keywords in ``**deprecated``.
Both warn with a :class:`FutureWarning` (shown to users by default, unlike
``DeprecationWarning``) attributed to the caller's line, through
:func:`warn_at_caller`, which :func:`mlci.feedback.warn` also uses.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "caller_stacklevel",
    "moved_keywords",
    "old_call",
    "renamed",
    "renamed_keyword",
    "warn_at_caller",
]

_F = TypeVar("_F", bound=Callable[..., Any])
_P = ParamSpec("_P")
_R = TypeVar("_R")

#: the mlci package: frames inside it are not the caller's
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def caller_stacklevel() -> int:
    """The ``stacklevel`` that a function calling this one passes to ``warnings.warn``
    so that the warning names the first frame outside the mlci package.

    Examples
    --------
    >>> caller_stacklevel() >= 1
    True
    """
    frame: FrameType | None = sys._getframe(2)  # the caller of our caller
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        _PACKAGE_DIR + os.sep
    ):
        frame = frame.f_back
        level += 1
    return level


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` at the first caller outside the mlci package (its file and line).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_at_caller("careful")
    >>> caught[0].filename.endswith("deprecation.py")  # this doctest runs inside mlci
    False
    """
    warnings.warn(message, category, stacklevel=caller_stacklevel())


def _deprecated(old: str, new: str) -> None:
    warn_at_caller(
        f"`{old}` is deprecated and will be removed; it is spelled `{new}` now (docs/glossary.md).",
        FutureWarning,
    )


def renamed_keyword(given: dict[str, Any], old: str, new: str, value: Any, default: Any) -> Any:
    """The value of the keyword ``new``, also accepted under its deprecated spelling ``old``
    (a FutureWarning at the caller's line); any other keyword in ``given`` (a function's
    ``**deprecated``) is a TypeError.

    Examples
    --------
    >>> renamed_keyword({}, "clusters", "conditions", ["p"], ())
    ['p']
    """
    extra = sorted(set(given) - {old})
    if extra:
        raise TypeError(f"unexpected keyword argument {extra[0]!r}.")
    if old not in given:
        return value
    if value is not default and not (isinstance(value, tuple) and not value):
        raise TypeError(f"Give `{new}` only; `{old}` is its deprecated spelling.")
    _deprecated(old, new)
    return given[old]


def renamed(**old_to_new: str | tuple[str, Callable[[Any], Any]]) -> Callable[[_F], _F]:
    """Decorator: the keywords ``old=`` are accepted as deprecated spellings of ``new=``.

    The signature users see (``inspect.signature``, the API reference) has the new names
    only; a call with an old name warns (FutureWarning, at the caller's line) and is passed
    on under the new name; both names at once is a TypeError.  ``old=(new, convert)``
    also converts the value (an option whose values changed with its name, e.g.
    ``minimum=True`` -> ``kind="min"``).

    Examples
    --------
    >>> import warnings
    >>> @renamed(test="variant")
    ... def f(*, variant="a"):
    ...     return variant
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(test="b")
    'b'
    >>> str(caught[0].message)
    '`test` is deprecated and will be removed; it is spelled `variant` now (docs/glossary.md).'
    """

    def decorate(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, target in old_to_new.items():
                if old in kwargs:
                    new, convert = (target, None) if isinstance(target, str) else target
                    if new in kwargs:
                        raise TypeError(
                            f"{func.__name__}(): give `{new}` only; `{old}` is its "
                            "deprecated spelling."
                        )
                    _deprecated(old, new)
                    value = kwargs.pop(old)
                    kwargs[new] = value if convert is None else convert(value)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def old_call(
    recognise: Callable[
        [tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]] | None
    ],
    message: str,
) -> Callable[[_F], _F]:
    """Decorator: a call in an old form (positional order) still works, with a warning.

    ``recognise(args, kwargs)`` returns the call rewritten in the new form when it is an
    old one, else None; an old call warns ``message`` (FutureWarning, at the caller's
    line).  For a parameter only renamed, use :func:`renamed`.

    Examples
    --------
    >>> import warnings
    >>> @old_call(lambda a, k: ((a[1], a[0]), k) if len(a) == 2 and isinstance(a[0], str)
    ...           else None, "f(b, a) is deprecated: call f(a, b).")
    ... def f(a, b):
    ...     return a, b
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f("b", 1)
    (1, 'b')
    >>> f(1, "b"), str(caught[0].message)
    ((1, 'b'), 'f(b, a) is deprecated: call f(a, b).')
    """

    def decorate(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            new = recognise(args, kwargs)
            if new is not None:
                warn_at_caller(message, FutureWarning)
                args, kwargs = new
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def moved_keywords(
    names: tuple[str, ...],
    message: Callable[[str, dict[str, Any]], str],
    call: Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any], dict[str, Any]], Any],
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorator: keywords that left a function's signature for another home (issue 23:
    the engine knobs went to :func:`mlci.config_context`, the resampling details to
    :class:`mlci.Resampling`) are still accepted for one deprecation cycle.

    A call that gives any of ``names`` warns ``message(function_name, given)`` (a
    FutureWarning at the caller's line) and returns ``call(func, args, kwargs, given)``,
    the old keywords taken out of ``kwargs`` into ``given``.  The decorated function
    keeps its signature (``inspect.signature``) and, for type checkers, its parameter
    types (``ParamSpec``): the old keywords are not in it.

    Examples
    --------
    >>> import inspect, warnings
    >>> def into_options(func, args, kwargs, given):
    ...     return func(*args, options={**kwargs.pop("options", {}), **given}, **kwargs)
    >>> @moved_keywords(("fast",), lambda f, g: f"{f}(fast=) moved into `options`.",
    ...                 into_options)
    ... def f(x, *, options=None):
    ...     return options
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(1, fast=True)
    {'fast': True}
    >>> str(caught[0].message), str(inspect.signature(f))
    ('f(fast=) moved into `options`.', '(x, *, options=None)')
    """

    def decorate(func: Callable[_P, _R]) -> Callable[_P, _R]:
        name = getattr(func, "__qualname__", getattr(func, "__name__", "the function"))

        @functools.wraps(func)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if not any(k in kwargs for k in names):
                return func(*args, **kwargs)
            given = {k: kwargs.pop(k) for k in names if k in kwargs}
            warn_at_caller(message(name, given), FutureWarning)
            result: _R = call(func, args, dict(kwargs), given)
            return result

        return wrapper

    return decorate
