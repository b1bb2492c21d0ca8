"""Extract the bundled real ASR example (src/mlci/data/sclite_csrnab.csv) from NIST's SCTK.

NIST's Scoring Toolkit (SCTK, GitHub repository usnistgov/SCTK, commit
9688a26882a688132a5e414cadcb4c19b6fffaba; NIST licence statement in its LICENSE.md)
tests its scorer ``sclite`` on real recognizer output: ``src/sclite/testdata/csrnab.ref``
and ``csrnab.hyp`` hold the reference transcripts and a speech recognizer's hypotheses
for 51 utterances of three speakers (4t0, 4t1, 4t2) of the ARPA CSR North American
Business News (NAB) read-speech data, in sclite's ``trn`` format (the
utterance id in parentheses at the end of the line; the references have six
alternations ``{ A / B }``).  ``src/sclite/testdata/base/test1.pra`` is sclite's own
alignment of the two files (``sclite -r csrnab.ref -h csrnab.hyp -i wsj -o all ...``,
the expected output of SCTK's regression test ``test1``), with every utterance's counts
of correct words, substitutions, deletions and insertions.

This script writes one CSV file, one row per utterance in the files' order, columns
``utterance, speaker, words, substitutions, deletions, insertions, errors, reference,
hypothesis``: the counts from sclite's alignment (``words`` = correct + substitutions +
deletions, the reference words; ``errors`` = substitutions + deletions + insertions) and
the two transcripts as the trn files have them (without the id).  Plain text, no time
stamp: reproducible byte for byte.

Run (with the four files taken from a snapshot of usnistgov/SCTK at that commit)::

    python scripts/make_sclite_example.py SCTK/
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "sclite_csrnab.csv"
#: path in SCTK -> sha256 of the file at commit 9688a26882a688132a5e414cadcb4c19b6fffaba
FILES = {
    "ref": (
        "src/sclite/testdata/csrnab.ref",
        "82fa3a4162b08e315a88d345500b40cef6561e4277575d0f596f1617f5cd7029",
    ),
    "hyp": (
        "src/sclite/testdata/csrnab.hyp",
        "25089171233fa8b7a0b35f4cc9e946cbc61f35f361098faf396c437ccbbcad78",
    ),
    "pra": (
        "src/sclite/testdata/base/test1.pra",
        "438cbd4cde11e474cb794c7d428bea6edfc09db100f1922c29a25673b4fc47b7",
    ),
}
COLUMNS = ["utterance", "speaker", "words", "substitutions", "deletions", "insertions"]
COLUMNS += ["errors", "reference", "hypothesis"]
_TRN = re.compile(r"^(.*?)\s*\(([^()]+)\)$")
_PRA = re.compile(r"^id: \((\S+)\)\nScores: \(#C #S #D #I\) (\d+) (\d+) (\d+) (\d+)$", re.M)


def _read(root: Path, key: str) -> str:
    rel, sha = FILES[key]
    raw = (root / rel).read_bytes()
    if hashlib.sha256(raw).hexdigest() != sha:
        raise SystemExit(f"{rel}: not the file of SCTK commit 9688a26 (sha256 differs)")
    return raw.decode("ascii")


def _trn(text: str) -> list[tuple[str, str]]:
    rows = []
    for line in text.splitlines():
        m = _TRN.match(line.strip())
        if m is None:
            raise SystemExit(f"not a trn line: {line!r}")
        rows.append((m.group(2).lower(), m.group(1)))  # sclite -i wsj: ids case-insensitive
    return rows


def main(sctk: str) -> None:
    root = Path(sctk)
    refs, hyps = _trn(_read(root, "ref")), _trn(_read(root, "hyp"))
    counts = {m[0]: tuple(int(x) for x in m[1:]) for m in _PRA.findall(_read(root, "pra"))}
    if [u for u, _ in refs] != [u for u, _ in hyps] or set(counts) != {u for u, _ in refs}:
        raise SystemExit("the reference, hypothesis and alignment files list different utterances")
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for (utt, ref), (_, hyp) in zip(refs, hyps, strict=True):
        c, s, d, i = counts[utt]
        writer.writerow([utt, utt[:3], c + s + d, s, d, i, s + d + i, ref, hyp])
    OUT.write_bytes(buf.getvalue().encode("ascii"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/make_sclite_example.py SCTK-directory")
    main(sys.argv[1])
