"""Extract the bundled meta-evaluation example (src/mlci/data/summeval/) from SummEval.

SummEval (Fabbri et al. 2021, "SummEval: Re-evaluating Summarization Evaluation", TACL 9)
collected expert judgements of 16 summarization systems' outputs on 100 CNN/DailyMail
test articles: three experts rated every summary's coherence, consistency, fluency and
relevance on a 1-5 scale; each article has 11 reference summaries (the original
CNN/DailyMail highlights and 10 written for SummEval).  The GitHub repository
neulab/BARTScore (Apache-2.0; Yuan, Neubig & Liu 2021, "BARTScore") ships these in one
file, ``SUM/SummEval/data.pkl`` (commit 248f511cb34ae3753fc81f7d7a945de5bfe33458,
sha256 below): for each article its source text, references and the 16 system summaries
with the three experts' mean rating of each aspect.  This script keeps everything but
the source articles and writes two gzip-compressed CSV files with no time stamp, so
they are reproducible byte for byte:

* ``summaries.csv.gz``: ``doc_id, system, coherence, consistency, fluency, relevance,
  summary``, 1,600 rows, articles sorted by id and, within one, the systems in the
  order M0, M1, ... M23 (the summaries of one article side by side compress well);
* ``references.csv.gz``: ``doc_id, ref_index, reference``, 1,100 rows (index 0 is the
  original CNN/DailyMail highlights, as in the pickle).

The ratings are written with ``repr`` (the shortest string that reads back as the same
float), so the loaded values are the pickle's exactly.

Run (with the file taken from a snapshot of neulab/BARTScore at that commit)::

    git -C BARTScore show 248f511cb34ae3753fc81f7d7a945de5bfe33458:SUM/SummEval/data.pkl > data.pkl
    python scripts/make_summeval_example.py data.pkl
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import pickle
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "summeval"
SHA256 = "008f1639a3352f0248cac88b74ff431c27287a027a888902ef425a26005f0acf"
ASPECTS = ("coherence", "consistency", "fluency", "relevance")


def _write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as fh:
        fh.write(text.getvalue().encode("utf-8"))
    path.write_bytes(buf.getvalue())


def main(pickle_path: str) -> None:
    raw = Path(pickle_path).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        raise SystemExit(f"{pickle_path}: sha256 {digest}, expected {SHA256}")
    data = pickle.loads(raw)  # BARTScore's SUM/SummEval/data.pkl: plain dicts and strings
    doc_ids = sorted(data)
    systems = sorted({s for d in data.values() for s in d["sys_summs"]}, key=lambda s: int(s[1:]))
    if len(doc_ids) != 100 or len(systems) != 16:
        raise SystemExit(f"expected 100 articles x 16 systems, got {len(doc_ids)} x {len(systems)}")
    summaries = []
    for doc in doc_ids:  # an article's 16 summaries side by side: they share much text
        for system in systems:
            entry = data[doc]["sys_summs"][system]
            text = entry["sys_summ"]
            if "\n" in text or text != text.strip():
                raise SystemExit(f"{doc}/{system}: summary with a line break or outer spaces")
            scores = [repr(float(entry["scores"][a])) for a in ASPECTS]
            summaries.append([doc, system, *scores, text])
    references = []
    for doc in doc_ids:
        refs = data[doc]["ref_summs"]
        if len(refs) != 11 or refs[0] != data[doc]["ref_summ"]:
            raise SystemExit(f"{doc}: expected 11 references, the first the original one")
        references.extend([doc, str(k), r] for k, r in enumerate(refs))
    OUT.mkdir(parents=True, exist_ok=True)
    _write(OUT / "summaries.csv.gz", ["doc_id", "system", *ASPECTS, "summary"], summaries)
    _write(OUT / "references.csv.gz", ["doc_id", "ref_index", "reference"], references)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/make_summeval_example.py data.pkl")
    main(sys.argv[1])
