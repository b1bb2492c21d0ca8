"""The code blocks of README.md and docs/*.md run as tests.

For every file, the ```python blocks run in order in one namespace shared by the file's
blocks (so a block may use what an earlier block of the same file defined):

* a block written in doctest style (its first line starts with ``>>>``) is run by the
  standard library's doctest, with ``ELLIPSIS | NORMALIZE_WHITESPACE``: what the block
  shows after a ``>>>`` line must be what the code prints;
* any other python block is executed as a script.

``text``, ``bash``, ``console`` ... blocks are not run.  Warnings are errors here as in the
rest of the suite: a block whose code legitimately warns must catch the warning itself
(``with warnings.catch_warnings(): ...``).  Blocks run in a temporary directory, with
matplotlib's Agg backend.

A file listed in :data:`PENDING` is skipped: another branch is rewriting it, and the lead
removes it from the set once that branch is merged.
"""

from __future__ import annotations

import doctest
import re
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # matplotlib is optional: blocks that plot then fail and say so
    plt = None

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Files whose blocks cannot all run yet because another branch changes them at the same
# time (paths relative to the repository root).  Remove an entry once it is merged.
PENDING: set[str] = set()

PYTHON_LANGUAGES = {"python", "py", "pycon"}
OPTIONFLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, first code line (1-based) and text."""

    language: str
    lineno: int
    source: str

    @property
    def is_doctest(self) -> bool:
        first = next((ln.strip() for ln in self.source.splitlines() if ln.strip()), "")
        return first == ">>>" or first.startswith(">>> ")


def code_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order (CommonMark fences).

    The indentation of the opening fence (blocks inside list items) is removed from the
    block's lines.

    Examples
    --------
    >>> md = "x\\n```python\\na = 1\\n```\\n\\n  ```text\\n  b\\n  ```\\n"
    >>> [(b.language, b.lineno, b.source) for b in code_blocks(md)]
    [('python', 3, 'a = 1\\n'), ('text', 7, 'b\\n')]
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if m is None or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        language = (m["info"].split() or [""])[0].lower()
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            line = lines[j]
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            j += 1
        blocks.append(Block(language, i + 2, "".join(ln + "\n" for ln in body)))
        i = j + 1
    return blocks


def _python_blocks(path: Path) -> list[Block]:
    blocks = code_blocks(path.read_text(encoding="utf-8"))
    return [b for b in blocks if b.language in PYTHON_LANGUAGES]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _run_file(path: Path, rel: str) -> None:
    """Run the python blocks of one file in one shared namespace; fail naming the block."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(verbose=False, optionflags=OPTIONFLAGS)
    for block in _python_blocks(path):
        where = f"{rel}, block at line {block.lineno}"
        if block.is_doctest:
            test = parser.get_doctest(block.source, {}, where, str(path), block.lineno - 1)
            test.globs = namespace  # share names across the file's blocks
            report: list[str] = []
            result = runner.run(test, out=report.append, clear_globs=False)
            if result.failed:
                pytest.fail(f"{where}: doctest failed\n" + "".join(report), pytrace=False)
        else:
            # pad with blank lines so that tracebacks give the line number in the file
            code = compile("\n" * (block.lineno - 1) + block.source, str(path), "exec")
            error = None
            try:
                exec(code, namespace)
            except Exception as exc:
                # the traceback from the block's own frame down, without this function's
                tb = exc.__traceback__.tb_next if exc.__traceback__ else None
                error = "".join(traceback.format_exception(type(exc), exc, tb))
            if error is not None:
                pytest.fail(f"{where}: raised\n{error}", pytrace=False)


@pytest.mark.parametrize("path", DOC_FILES, ids=_rel)
def test_doc_code_blocks_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rel = _rel(path)
    if rel in PENDING:
        pytest.skip(f"{rel} is being changed on another branch (PENDING in tests/test_docs.py)")
    monkeypatch.chdir(tmp_path)
    try:
        _run_file(path, rel)
    finally:
        if plt is not None:
            plt.close("all")


def test_pending_files_exist() -> None:
    # a stale entry would silently skip nothing; keep the set in step with docs/
    assert PENDING <= {_rel(p) for p in DOC_FILES}


def test_doctest_blocks_are_checked(tmp_path: Path) -> None:
    # the runner really compares the output, shares names across blocks and names the block
    md = tmp_path / "x.md"
    md.write_text(
        "```python\n>>> a = 2\n```\n\n```python\nb = a + 1\n```\n\n"
        "```python\n>>> print(b)\n4\n```\n",
        encoding="utf-8",
    )
    blocks = _python_blocks(md)
    assert [b.is_doctest for b in blocks] == [True, False, True]
    with pytest.raises(pytest.fail.Exception, match=r"x\.md, block at line 10"):
        _run_file(md, "x.md")
