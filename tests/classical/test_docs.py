"""The code blocks of docs/classical.md run and print what the page says."""

from __future__ import annotations

import doctest
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).parents[2] / "docs" / "classical.md"


def test_classical_md_code_blocks_run():
    pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    text = DOC.read_text(encoding="utf-8")
    source = "\n".join(re.findall(r"```python\n(.*?)```", text, flags=re.S))
    test = doctest.DocTestParser().get_doctest(source, {}, DOC.name, str(DOC), 0)
    failures: list[str] = []

    class Collect(doctest.DocTestRunner):
        def report_failure(self, out, test, example, got):
            failures.append(f"line {example.lineno}: {example.source.strip()}\n  got: {got}")

        def report_unexpected_exception(self, out, test, example, exc_info):
            failures.append(f"line {example.lineno}: {example.source.strip()}\n  {exc_info[1]!r}")

    runner = Collect(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=lambda s: None)
    assert result.attempted > 40
    assert not failures, "\n".join(failures)
