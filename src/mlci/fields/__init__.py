"""Drivers of the evaluation fields that fit in one module each (see docs/glossary.md).

* :mod:`~mlci.fields.agreement`: :func:`~mlci.agreement_ci`, inter-rater agreement
  (Krippendorff's alpha, Fleiss' kappa) with intervals over items, raters or both;
* :mod:`~mlci.fields.correlations`: :func:`~mlci.correlation_ci`,
  :func:`~mlci.compare_correlations`, :func:`~mlci.williams_test`, a metric's correlation
  with human scores (system, item or global level);
* :mod:`~mlci.fields.attenuation`: how much item noise attenuates a system-level
  correlation (the reliabilities of the systems' means; :func:`~mlci.correlation_ci`'s
  ``details["attenuation"]`` and its ``AttenuatedCorrelationWarning``).

Their kernels are in :mod:`mlci.metrics` (``agreement``, ``correlation``), their commands
in :mod:`mlci.cli.fields`.  The fields with readers and commands of their own have a
package each: :mod:`mlci.llm`, :mod:`mlci.mt`, :mod:`mlci.ir`.
"""
