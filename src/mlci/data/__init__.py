"""The bundled example data: a simulated emotion-classification test set.

1501 utterances by 40 speakers (8 to 142 utterances each, 84 recording sessions), four
emotions, a classifier's decision and per-class scores, a binary ``is_angry`` /
``score_angry`` pair for ranking metrics and ``num_words`` / ``wer`` for a word-weighted
WER.  Speakers differ in class mix, in how well the classifier does on them and in WER,
so samples of one speaker are correlated.  It was made by
``scripts/make_example_data.py`` (see ``docs/example_data.md``).

Examples
--------
>>> import mlci
>>> from mlci.data import load_example
>>> d = load_example(as_frame=False)
>>> len(d["label"]), len(set(d["speaker"]))
(1501, 40)
>>> res = mlci.bootstrap_ci(d["label"], d["pred"], metric="accuracy",
...                         conditions=d["speaker"], rng=0)
>>> round(res.estimate, 3)
0.667
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from ..io import read_table

__all__ = [
    "EXAMPLE_FILE",
    "FLEISS1971_CATEGORIES",
    "FLEISS1971_FILE",
    "LLM_EXAMPLE_FILE",
    "SCLITE_CSRNAB_FILE",
    "SUMMEVAL_ASPECTS",
    "SUMMEVAL_SYSTEMS",
    "WMT17_SYSTEMS",
    "example_path",
    "ir_example_paths",
    "llm_example_path",
    "load_example",
    "load_fleiss1971",
    "load_sclite_csrnab",
    "load_summeval",
    "mt_example_paths",
    "read_table",
    "wmt17_en_de_paths",
]

#: file name of the bundled example inside this package
EXAMPLE_FILE = "emotion_example.csv"
#: the language-model example log (long format), made by scripts/make_llm_example.py
LLM_EXAMPLE_FILE = "llm_example.csv"


def example_path() -> Path:
    """Path of the bundled example CSV file.

    Examples
    --------
    >>> example_path().name
    'emotion_example.csv'
    """
    return Path(str(resources.files(__name__).joinpath(EXAMPLE_FILE)))


def llm_example_path() -> Path:
    """Path of the bundled language-model evaluation log (see docs/llm.md).

    Three models, two tasks (reading: questions grouped by passage; arithmetic: by
    template), each question answered three times; columns ``model, task, item, repeat,
    score, group``.

    Examples
    --------
    >>> llm_example_path().name
    'llm_example.csv'
    """
    return Path(str(resources.files(__name__).joinpath(LLM_EXAMPLE_FILE)))


def ir_example_paths() -> dict[str, Any]:
    """Paths of the bundled IR example (synthetic, made by ``scripts/make_ir_example.py``;
    see docs/ir.md): TREC qrels of 50 queries and three runs.

    Examples
    --------
    >>> p = ir_example_paths()
    >>> p["qrels"].name, sorted(p["runs"])
    ('qrels.txt', ['bm25', 'dense', 'hybrid'])
    """
    base = Path(str(resources.files(__name__).joinpath("ir_example")))
    return {
        "qrels": base / "qrels.txt",
        "runs": {name: base / f"{name}.run" for name in ("bm25", "dense", "hybrid")},
    }


def mt_example_paths() -> dict[str, Any]:
    """Paths of the bundled MT example (synthetic, made by ``scripts/make_mt_example.py``;
    see docs/mt.md): two reference files, two systems and the document of every segment.

    Examples
    --------
    >>> p = mt_example_paths()
    >>> [r.name for r in p["refs"]], sorted(p["systems"])
    (['ref1.txt', 'ref2.txt'], ['system_a', 'system_b'])
    """
    base = Path(str(resources.files(__name__).joinpath("mt_example")))
    return {
        "refs": [base / "ref1.txt", base / "ref2.txt"],
        "systems": {s: base / f"{s}.txt" for s in ("system_a", "system_b")},
        "documents": base / "docids.txt",
    }


#: the WMT17 English-German submissions bundled (see :func:`wmt17_en_de_paths`)
WMT17_SYSTEMS = ("uedin-nmt", "online-B", "LMU-nmt-reranked")


def wmt17_en_de_paths() -> dict[str, Any]:
    """Paths of the bundled real MT example: WMT17 English-German, reference and 3 systems.

    Real data: the first 1,500 of the 3,004 segments of the WMT17 news test set
    (newstest2017, English to German), its reference translation and the primary
    submissions of three systems of the WMT17 news translation task (Bojar et al. 2017,
    "Findings of the 2017 Conference on Machine Translation"): ``uedin-nmt`` (the best by
    BLEU), ``online-B`` (an online system) and ``LMU-nmt-reranked``.  Extracted by
    ``scripts/make_wmt17_example.py`` from ``test/wmt17_en_de_systems.pkl.bz2`` of
    sacreBLEU's source distribution on PyPI (2.6.0), the file sacreBLEU's own paired
    tests read; source, licence and terms in ``src/mlci/data/README.md``.  The files hold
    no document ids.  One segment a line, gzip-compressed; read them with
    :func:`mlci.mt.read_segments` (sacreBLEU reads ``.gz`` files too).

    Returns
    -------
    dict
        ``"refs"``: a list with the reference file; ``"systems"``: system name -> file.

    Examples
    --------
    >>> p = wmt17_en_de_paths()
    >>> [r.name for r in p["refs"]], list(p["systems"])
    (['ref.de.gz'], ['uedin-nmt', 'online-B', 'LMU-nmt-reranked'])
    """
    base = Path(str(resources.files(__name__).joinpath("wmt17_en_de")))
    return {
        "refs": [base / "ref.de.gz"],
        "systems": {s: base / f"{s}.de.gz" for s in WMT17_SYSTEMS},
    }


#: Fleiss (1971): 30 patients, 6 psychiatric diagnoses each (see :func:`load_fleiss1971`)
FLEISS1971_FILE = "fleiss1971_diagnoses.csv"
#: the categories of :func:`load_fleiss1971`, by code (Fleiss 1971, Table 1)
FLEISS1971_CATEGORIES = {
    1: "depression",
    2: "personality disorder",
    3: "schizophrenia",
    4: "neurosis",
    5: "other",
}


def load_fleiss1971() -> Any:
    """Fleiss' (1971) psychiatric diagnoses: 30 patients, each diagnosed by 6 psychiatrists.

    Real data, published in J. L. Fleiss (1971), "Measuring nominal scale agreement among
    many raters", *Psychological Bulletin* 76(5), 378-382, Table 1 (the number of the six
    psychiatrists who put each patient into each of five categories; codes in
    :data:`FLEISS1971_CATEGORIES`); the same table as the ``diagnoses`` data of R's
    ``irr`` package and statsmodels' tests.  The six psychiatrists differ from patient to
    patient (43 in all), so a column is not a rater: resample patients, not columns.
    Published kappa 0.430 (R ``irr::kappam.fleiss``: 0.4302445).

    Returns
    -------
    ndarray of int, shape (30, 6)
        One row per patient, the six diagnoses (codes 1-5) in ascending order.

    Examples
    --------
    >>> import mlci
    >>> d = load_fleiss1971()
    >>> d.shape
    (30, 6)
    >>> round(float(mlci.agreement_ci(d, metric="fleiss_kappa", rng=0).estimate), 7)
    0.4302445
    """
    import numpy as np

    cols = read_table(Path(str(resources.files(__name__).joinpath(FLEISS1971_FILE))))
    return np.column_stack([np.asarray(cols[f"diagnosis_{k}"], dtype=int) for k in range(1, 7)])


def load_example(as_frame: bool | None = None) -> Any:
    """Load the bundled example test set.

    Parameters
    ----------
    as_frame : bool or None, default None
        True: a pandas DataFrame (pandas required); False: a dict of numpy arrays (a
        :class:`mlci.io.Table`); None: a DataFrame if pandas is installed, else the dict.

    Returns
    -------
    pandas.DataFrame or mlci.io.Table (a dict of str -> ndarray)
        Columns ``utterance, speaker, session, label, pred, pred_baseline, score_neutral,
        score_happy, score_sad, score_angry, is_angry, num_words, wer``.

    Examples
    --------
    >>> d = load_example(as_frame=False)
    >>> sorted(set(d["label"].tolist()))
    ['angry', 'happy', 'neutral', 'sad']
    """
    cols = read_table(example_path())
    if as_frame is False:
        return cols
    try:
        import pandas as pd
    except ImportError:
        if as_frame:
            raise ImportError(
                "`as_frame=True` needs pandas: pip install pandas (or use as_frame=False)."
            ) from None
        return cols
    return pd.DataFrame(cols)


#: SummEval's 16 systems, in the order of :func:`load_summeval`'s rows (Fabbri et al. 2021)
SUMMEVAL_SYSTEMS = (
    "M0", "M1", "M2", "M5", "M8", "M9", "M10", "M11",
    "M12", "M13", "M14", "M15", "M17", "M20", "M22", "M23",
)  # fmt: skip
#: the four aspects SummEval's experts rated (1-5), keys of :func:`load_summeval`'s ``"human"``
SUMMEVAL_ASPECTS = ("coherence", "consistency", "fluency", "relevance")


def load_summeval() -> dict[str, Any]:
    """SummEval's expert judgements: 16 summarization systems on 100 CNN/DailyMail articles.

    Real data (Fabbri et al. 2021, "SummEval: Re-evaluating Summarization Evaluation",
    *TACL* 9): every system's summary of every article, the mean of three experts'
    ratings (1-5) of its coherence, consistency, fluency and relevance, and the article's
    11 reference summaries (the original CNN/DailyMail highlights first, then the 10
    written for SummEval).  Texts are tokenized as SummEval's (``"team 's"``).  The
    source articles are not included.  Extracted by ``scripts/make_summeval_example.py``
    from ``SUM/SummEval/data.pkl`` of the repository neulab/BARTScore (Apache-2.0);
    source, licences and terms in ``src/mlci/data/README.md``, worked example in
    docs/correlations.md.

    Returns
    -------
    dict
        ``"systems"``: :data:`SUMMEVAL_SYSTEMS`; ``"doc_ids"``: the 100 article ids
        (sorted); ``"human"``: aspect -> float array of shape (16, 100), systems by
        articles, the input of :func:`mlci.correlation_ci`; ``"summaries"``: 16 lists
        of 100 strings (``summaries[i][j]``: system ``i`` on article ``j``);
        ``"references"``: 100 lists of 11 strings.

    Examples
    --------
    >>> d = load_summeval()
    >>> d["human"]["relevance"].shape, len(d["summaries"][0]), len(d["references"][0])
    ((16, 100), 100, 11)
    >>> d["systems"][7], d["doc_ids"][59]
    ('M11', 'dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2')
    >>> [round(float(d["human"][a][7, 59]), 4) for a in SUMMEVAL_ASPECTS]
    [1.3333, 1.0, 3.0, 1.6667]
    """
    import numpy as np

    base = Path(str(resources.files(__name__).joinpath("summeval")))
    rows = read_table(base / "summaries.csv.gz", engine="python")
    n_sys, n_doc = len(SUMMEVAL_SYSTEMS), len(rows["doc_id"]) // len(SUMMEVAL_SYSTEMS)
    # the file lists each article's 16 summaries together, systems in SUMMEVAL_SYSTEMS order
    doc_ids = [str(x) for x in rows["doc_id"][::n_sys]]
    if tuple(rows["system"][:n_sys]) != SUMMEVAL_SYSTEMS or n_sys * n_doc != len(rows["doc_id"]):
        raise RuntimeError(f"{base}/summaries.csv.gz is not the file mlci ships: reinstall mlci")
    refs = read_table(base / "references.csv.gz", engine="python")
    references: dict[str, list[str]] = {doc: [] for doc in doc_ids}
    for doc, text in zip(refs["doc_id"], refs["reference"], strict=True):
        references[str(doc)].append(str(text))
    summaries = np.asarray(rows["summary"], dtype=object).reshape(n_doc, n_sys).T
    return {
        "systems": SUMMEVAL_SYSTEMS,
        "doc_ids": doc_ids,
        "human": {
            a: np.asarray(rows[a], dtype=float).reshape(n_doc, n_sys).T.copy()
            for a in SUMMEVAL_ASPECTS
        },
        "summaries": [[str(x) for x in row] for row in summaries],
        "references": [references[doc] for doc in doc_ids],
    }


#: 51 utterances of real ASR output with sclite's error counts (see :func:`load_sclite_csrnab`)
SCLITE_CSRNAB_FILE = "sclite_csrnab.csv"


def load_sclite_csrnab() -> Any:
    """Real speech-recognition output with NIST sclite's per-utterance error counts.

    51 utterances of three speakers (``4t0``, ``4t1``, ``4t2``) of the ARPA CSR North
    American Business News (NAB) read-speech data: reference transcripts, a recognizer's
    hypotheses, and the counts of sclite's own alignment of the two (SCTK's regression
    test ``test1``, ``sclite -i wsj``; case-insensitive, with the references'
    alternations ``{ A / B }``).  From the test data of NIST's Scoring Toolkit (SCTK),
    extracted by ``scripts/make_sclite_example.py``; source and licence in
    ``src/mlci/data/README.md``, worked example in docs/mt.md.

    Returns
    -------
    mlci.io.Table (a dict of str -> ndarray)
        Columns ``utterance, speaker, words, substitutions, deletions, insertions,
        errors, reference, hypothesis``; ``words`` are the reference words of sclite's
        alignment, ``errors`` = substitutions + deletions + insertions.

    Examples
    --------
    >>> d = load_sclite_csrnab()
    >>> len(d["utterance"]), sorted(set(d["speaker"].tolist()))
    (51, ['4t0', '4t1', '4t2'])
    >>> int(d["errors"].sum()), int(d["words"].sum())   # sclite: 169 errors, 1406 words, 12.0%
    (169, 1406)
    """
    return read_table(Path(str(resources.files(__name__).joinpath(SCLITE_CSRNAB_FILE))))
