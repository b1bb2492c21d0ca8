"""The API reference (docs/api/*.md, rendered by mkdocstrings) covers the public API.

Every name of ``mlci.__all__`` has its ``::: mlci.<module>.<name>`` directive on one page,
at the module that defines it (``mlci._SOURCE``), and in the overview table; nothing
else is documented there.  The site itself is built in CI (``mkdocs build --strict``).
"""

from __future__ import annotations

import re
from pathlib import Path

import mlci

API = Path(__file__).resolve().parents[1] / "docs" / "api"
_DIRECTIVE = re.compile(r"^::: (mlci\.[\w.]+)$", re.MULTILINE)


def _directives() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for page in sorted(API.glob("*.md")):
        for path in _DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            found.setdefault(path, []).append(page.name)
    return found


def test_every_public_name_is_documented_once_where_it_is_defined() -> None:
    found = _directives()
    expected = {f"mlci.{mlci._SOURCE[name]}.{name}" for name in mlci.__all__}
    missing = sorted(expected - set(found))
    assert not missing, f"public names without a page in docs/api/: {missing}"
    extra = sorted(set(found) - expected)
    assert not extra, f"docs/api/ documents names outside mlci.__all__: {extra}"
    twice = {path: pages for path, pages in found.items() if len(pages) > 1}
    assert not twice, f"documented on several pages: {twice}"


def test_the_overview_lists_every_public_name() -> None:
    table = (API / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| \[`(\w+)`\]", table, re.MULTILINE))
    assert listed == set(mlci.__all__)
    found = _directives()
    for name in mlci.__all__:
        path = f"mlci.{mlci._SOURCE[name]}.{name}"
        (page,) = found[path]
        assert f"]({page}#{path})" in table, f"{name}: overview link is not {page}#{path}"
