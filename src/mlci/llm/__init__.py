"""Language-model evaluations: read the harness logs, resample the right unit, compare.

* :mod:`~mlci.llm.log`: the long table (:class:`EvalLog`: model, task, item, repeat,
  score and condition columns) and :func:`eval_log` to build it from arrays;
* :mod:`~mlci.llm.readers`: :func:`read_eval_logs` (lm-evaluation-harness
  ``--log_samples``, inspect-ai eval logs, a generic long CSV/JSONL/Parquet);
* :mod:`~mlci.llm.estimands`: :func:`llm_ci` (mean or pass@k, micro or macro, clustered,
  repeats averaged or nested; bootstrap or analytic CR1);
* :mod:`~mlci.llm.proportion`: the default interval of 0/1 answers (the engine's
  proportion rule: Wilson, the logit t; Tango and MOVER for pairs);
* :mod:`~mlci.llm.compare`: :func:`llm_compare` (paired differences on shared items,
  adjusted p-values, a leaderboard with rank intervals);
* :mod:`~mlci.llm.planning`: :func:`llm_sample_size` (items and repeats for a power);
* the ``mlci llm`` subcommands are in :mod:`mlci.cli.llm`, with the other subcommands.

See docs/llm.md.
"""
