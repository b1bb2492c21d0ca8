"""The interval layer: every confidence interval and every z/t quantile of mlci.

Below the results and the drivers (statsmodels' ``LikelihoodModelResults.conf_int`` is
the model): a driver computes an estimate and its spread, this layer turns them into an
interval.  :mod:`~mlci.intervals.formulas` holds the closed forms (``estimate ± q·se``
with a normal or Student-t quantile, one-sided ends at the metric's range);
:mod:`~mlci.intervals.bootstrap` the intervals read from a bootstrap distribution
(percentile, basic, normal, BC, BCa, studentized, Wilson with a design effect) and the
one dispatcher from a method name to its interval; :mod:`~mlci.intervals.variants` the
variants that reproduce R (``boot.ci``, ``svyciprop``).
"""
