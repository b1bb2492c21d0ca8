"""Data larger than memory: reduce inside a data engine, resample locally.

mlci's bootstrap works on sufficient statistics: a replicate is a vector of counts over
*atoms* (see :mod:`mlci.engine.resampling`).  This package computes the atom table
inside the engine that holds the data (DuckDB, embedded, for files and SQL; Spark; Dask;
polars), through one dataframe-agnostic layer (narwhals), and feeds the small table to
the existing engine:

* :mod:`.sources`: files, globs, SQL, relations and frames, opened lazily in their engine;
* :mod:`.reduction`: the reductions (row counts, per-condition sums, score histograms);
* :mod:`.quantise`: score bins for ranking metrics and the error bound they certify;
* :mod:`.table`: :class:`AtomTable`, :func:`reduce_table`, :func:`reduce_ci`;
* :mod:`.samples`: a table's counts laid out as samples again, so that ``method="auto"``
  resolves as in memory (:func:`mlci.bootstrap_ci`'s method and interval);
* :mod:`.command`: what ``mlci ci --engine`` calls.
"""

from .sources import ENGINES, open_source
from .table import RANKING, AtomTable, reduce_ci, reduce_table

__all__ = ["ENGINES", "RANKING", "AtomTable", "open_source", "reduce_ci", "reduce_table"]
