"""Plain-text segment files as sacreBLEU reads them: one segment a line.

sacreBLEU opens a file as UTF-8 with ``newline="\\n"`` (a ``\\r`` is no line break),
transparently gunzips a ``.gz`` file, and strips trailing whitespace from every line
(``line.rstrip()``); :func:`read_segments` does the same, so the statistics of mlci and of
``sacrebleu REF -i HYP`` come from the same strings.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from typing import Any

__all__ = ["read_segments", "read_systems"]


def _path(name: str, path: Any) -> str:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"`{name}` must be a path to a text file; got {type(path).__name__}.")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"`{name}`: no such file {path!r}.")
    return path


def read_segments(path: Any, *, name: str = "path") -> list[str]:
    """The segments of a plain-text file, one a line, as sacreBLEU reads them.

    Parameters
    ----------
    path : str or PathLike
        A UTF-8 text file (``.gz``: gzip-compressed).
    name : str
        How the file is named in error messages.

    Returns
    -------
    list of str
        Every line without its trailing whitespace.

    Examples
    --------
    >>> import tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "hyp.txt")
    >>> with open(f, "w", encoding="utf-8") as fh:
    ...     _ = fh.write("a cat  \\nthe dog\\n")
    >>> read_segments(f)
    ['a cat', 'the dog']
    """
    path = _path(name, path)
    opener: Any = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, mode="rt", encoding="utf-8", newline="\n") as fh:
            lines = [line.rstrip() for line in fh]
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"`{name}`: {path!r} is not UTF-8 text (byte {exc.start} of a line cannot be "
            "decoded); convert it, e.g. with iconv."
        ) from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"`{name}`: {path!r} cannot be read ({exc}).") from None
    if not lines:
        raise ValueError(f"`{name}`: {path!r} is empty; one segment a line is expected.")
    return lines


def read_systems(paths: Sequence[Any], *, name: str = "systems") -> dict[str, list[str]]:
    """Every file of ``paths`` as :func:`read_segments`, keyed by its path as given (as
    sacreBLEU names systems), the files checked to have the same number of lines."""
    if isinstance(paths, str | os.PathLike) or not isinstance(paths, Sequence) or not paths:
        raise TypeError(f"`{name}` must be a non-empty list of file paths.")
    out: dict[str, list[str]] = {}
    for p in paths:
        key = os.fspath(p) if isinstance(p, str | os.PathLike) else p
        if key in out:
            raise ValueError(f"`{name}`: {key!r} is given twice.")
        out[key] = read_segments(p, name=name)
    sizes = {k: len(v) for k, v in out.items()}
    if len(set(sizes.values())) > 1:
        raise ValueError(
            f"`{name}`: the files have different numbers of lines ({sizes}); every "
            "system must translate the same segments."
        )
    return out
