"""Extract the bundled real MT example (src/mlci/data/wmt17_en_de/) from sacreBLEU's sdist.

sacreBLEU's source distribution on PyPI (``sacrebleu-2.6.0.tar.gz``, Apache-2.0) ships
``test/wmt17_en_de_systems.pkl.bz2``: the WMT17 English-German news test set
(newstest2017, 3,004 segments), its reference translation and 16 systems' primary
submissions, which its own paired-significance tests read.  This script keeps the first
1,500 segments of the reference and of three systems (``uedin-nmt``, the best by BLEU,
``online-B`` and ``LMU-nmt-reranked``), one segment a line, trailing whitespace
stripped (as sacreBLEU reads files), gzip-compressed with no time stamp so the files are
reproducible byte for byte.

Run::

    pip download --no-deps --no-binary :all: sacrebleu==2.6.0 -d /tmp/sb
    python scripts/make_wmt17_example.py /tmp/sb/sacrebleu-2.6.0.tar.gz
"""

from __future__ import annotations

import bz2
import gzip
import io
import pickle
import sys
import tarfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "wmt17_en_de"
MEMBER = "sacrebleu-2.6.0/test/wmt17_en_de_systems.pkl.bz2"
N_SEGMENTS = 1500
#: file stem -> the system's name in sacreBLEU's file (WMT17 submission ids)
SYSTEMS = {
    "uedin-nmt": "newstest2017.uedin-nmt.4722.en-de",
    "online-B": "newstest2017.online-B.0.en-de",
    "LMU-nmt-reranked": "newstest2017.LMU-nmt-reranked.4934.en-de",
}


def _write(path: Path, segments: list[str]) -> None:
    text = "".join(s.rstrip() + "\n" for s in segments).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as fh:
        fh.write(text)
    path.write_bytes(buf.getvalue())


def main(sdist: str) -> None:
    with tarfile.open(sdist) as tar:
        member = tar.extractfile(MEMBER)
        if member is None:
            raise SystemExit(f"{sdist} has no {MEMBER}")
        # the pickle is sacreBLEU's own test data: a list of (name, segments) pairs
        data = dict(pickle.loads(bz2.decompress(member.read())))
    reference = data["reference"][0]
    OUT.mkdir(parents=True, exist_ok=True)
    _write(OUT / "ref.de.gz", reference[:N_SEGMENTS])
    for stem, name in SYSTEMS.items():
        segments = data[name]
        if len(segments) != len(reference):
            raise SystemExit(f"{name}: {len(segments)} segments, reference {len(reference)}")
        _write(OUT / f"{stem}.de.gz", segments[:N_SEGMENTS])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/make_wmt17_example.py sacrebleu-2.6.0.tar.gz")
    main(sys.argv[1])
