"""Information retrieval: intervals and paired tests of ranking measures over queries.

* :mod:`~mlci.ir.readers`: :func:`read_run`, :func:`read_qrels` (TREC formats, validated
  line by line);
* :mod:`~mlci.ir.measures`: :func:`per_query`, every query's nDCG@k, MAP, MRR, P@k,
  recall@k... computed by ir_measures (trec_eval's code);
* :mod:`~mlci.ir.api`: :func:`ir_ci` (queries as the unit) and :func:`ir_compare`
  (paired bootstrap, paired t, randomization test; corrections over pairs);
* the ``mlci ir ci`` and ``mlci ir compare`` subcommands are in :mod:`mlci.cli.ir`.

See docs/ir.md.
"""

from .api import IRComparison, ir_ci, ir_compare
from .measures import QueryValues, measure_name, per_query
from .readers import read_qrels, read_run

__all__ = [
    "IRComparison",
    "QueryValues",
    "ir_ci",
    "ir_compare",
    "measure_name",
    "per_query",
    "read_qrels",
    "read_run",
]
