"""scipy.special's compiled functions without importing the scipy.special package.

The quantiles and p-values of mlci's intervals and tests are scipy.special's ufuncs
(``ndtr``, ``ndtri``, ``stdtr``, ``stdtrit``, ``logit``, ``expit``, ``betaincinv``): what
``scipy.stats.norm`` and ``scipy.stats.t`` evaluate, to the last bit.  Importing
``scipy.special`` costs 0.10-0.14 s of CPU: its package loads scipy's array-API layer,
which walks numpy's whole namespace (``numpy.f2py``, ``numpy.testing``, ...), while the
ufuncs themselves live in its compiled module ``scipy.special._ufuncs`` (with the C++
functions of ``scipy.special._ufuncs_cxx``), which loads in about 0.01 s.  That is
a fifth of ``mlci mt compare``'s budget against sacreBLEU's plain scoring (issue 24,
docs/mt.md).

:func:`special_function` returns the very object that ``scipy.special`` exports under
the name: from the package when it is loaded, otherwise from the compiled module alone,
loaded under its own name with a placeholder package around it for the moment of its
loading.  A later ``import scipy.special`` finds that module in ``sys.modules`` and
exports the same ufuncs, with the same names as a plain import (its submodules loaded
meanwhile become its attributes then: :class:`_Submodules`;
tests/intervals/test_special.py).  Where the compiled module
cannot be loaded alone (another layout of scipy, another thread in the process), the
package is imported as usual.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
import types
from typing import Any

__all__ = ["SPECIAL_FUNCTIONS", "special_function"]

#: the functions served (ufuncs of ``scipy.special._ufuncs`` that scipy.special exports
#: as they are for numpy arrays)
SPECIAL_FUNCTIONS = frozenset({"ndtr", "ndtri", "stdtr", "stdtrit", "logit", "expit", "betaincinv"})

_PACKAGE = "scipy.special"
#: the compiled modules to load, in order: the C++ functions, then the ufuncs over them
_COMPILED = ("_ufuncs_cxx", "_ufuncs")


class _Placeholder(types.ModuleType):
    """The package's name in ``sys.modules`` while its compiled module loads alone."""


class _Submodules:
    """Finder (``sys.meta_path``) of the package's own later import, after its compiled
    modules loaded alone: the package is found as usual, and its submodules already in
    ``sys.modules`` become its attributes before it runs, as a plain import leaves them
    (the import system sets a parent's attribute only when it loads the child).  Then
    the finder removes itself."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != _PACKAGE:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            for full, sub in list(sys.modules.items()):
                parent, _, child = full.rpartition(".")
                if parent == _PACKAGE:
                    setattr(module, child, sub)
            run(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def special_function(name: str) -> Any:
    """The ufunc ``scipy.special.<name>``, without importing scipy.special's package.

    Parameters
    ----------
    name : str
        One of :data:`SPECIAL_FUNCTIONS`.

    Returns
    -------
    numpy.ufunc
        The object ``scipy.special`` exports under ``name``.

    Examples
    --------
    >>> stdtrit = special_function("stdtrit")
    >>> round(float(stdtrit(10, 0.975)), 6)  # scipy.stats.t.ppf(0.975, 10)
    2.228139
    """
    if name not in SPECIAL_FUNCTIONS:
        raise ValueError(f"`name` must be one of {sorted(SPECIAL_FUNCTIONS)}; got {name!r}.")
    package = sys.modules.get(_PACKAGE)
    if package is None or isinstance(package, _Placeholder):
        compiled = sys.modules.get(f"{_PACKAGE}._ufuncs") or _load_compiled()
        if compiled is not None:
            return getattr(compiled, name)
    return getattr(importlib.import_module(_PACKAGE), name)


def _load_compiled() -> Any:
    """``scipy.special._ufuncs`` loaded alone, or None (then the package is imported).

    Only while this is the process's one thread: nothing else imports meanwhile, so
    nothing else sees the placeholder package.  The modules that the compiled ones import
    through it (``scipy.special._special_ufuncs``, ...) stay loaded, as the package would
    load them.
    """
    if threading.active_count() != 1 or _PACKAGE in sys.modules:
        return None
    try:
        import scipy  # the package's own start (about 0.01 s), which its modules import
    except ImportError:
        return None
    where = [os.path.join(p, "special") for p in scipy.__path__]
    placeholder = _Placeholder(_PACKAGE)
    placeholder.__path__ = where
    sys.modules[_PACKAGE] = placeholder
    # the module being loaded (the ones before it are whole)
    loading: types.ModuleType | None = None
    try:
        for module_name in _COMPILED:
            full = f"{_PACKAGE}.{module_name}"
            spec = importlib.machinery.PathFinder.find_spec(full, where)
            if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
                return None
            module = importlib.util.module_from_spec(spec)
            loading = sys.modules[full] = module
            spec.loader.exec_module(module)
            loading = None
    except Exception:  # another scipy: the package's own import decides
        if loading is not None and sys.modules.get(loading.__name__) is loading:
            del sys.modules[loading.__name__]
        return None
    finally:
        if sys.modules.get(_PACKAGE) is placeholder:
            del sys.modules[_PACKAGE]
    compiled = sys.modules[f"{_PACKAGE}._ufuncs"]
    sys.meta_path.insert(0, _Submodules())
    if not all(hasattr(compiled, name) for name in SPECIAL_FUNCTIONS):  # pragma: no cover
        return None
    return compiled
