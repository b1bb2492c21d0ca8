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
    "WMT17_SYSTEMS",
    "example_path",
    "ir_example_paths",
    "llm_example_path",
    "load_example",
    "load_fleiss1971",
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
