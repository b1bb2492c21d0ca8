"""The input gate: every public function takes its data and options through here.

* :func:`gather` reads aligned per-sample arguments from numpy, lists, pandas, polars or
  pyarrow (or columns of a table given as ``data=``), applies the one missing-value
  policy (refuse, or drop with ``dropna=True`` and report) and returns arrays of one
  native type;
* :mod:`~mlci.inputs.labels` checks class labels once (one type, a shared vocabulary,
  the one positive-label rule, binary where a metric needs it);
* :mod:`~mlci.inputs.options` validates the options every driver shares (the vocabulary
  of ``docs/glossary.md``);
* :mod:`~mlci.inputs.config` holds the engine knobs that never change a result
  (:func:`mlci.config_context`);
* :mod:`~mlci.inputs.validation` holds the scalar checks;
* :mod:`~mlci.inputs.docstrings` writes the shared options' documentation once;
* :mod:`~mlci.inputs.deprecation` keeps an old spelling working (one FutureWarning helper).

After the gate, no algorithm checks its inputs again.
"""

from .arrays import (
    TEXT_MISSING,
    ArgSpec,
    Gathered,
    column,
    dictionary_codes,
    gather,
    gather_design,
    is_nested,
    missing_mask,
    native_values,
    rows_text,
)
from .config import (
    DEFAULT_MAX_MEMORY,
    check_n_jobs,
    config_context,
    configured_progress,
    engine_config,
    get_config,
    knobs_in_config,
    set_config,
)
from .deprecation import (
    caller_stacklevel,
    moved_keywords,
    old_call,
    renamed,
    renamed_keyword,
    warn_at_caller,
)
from .docstrings import ENTRIES, fill_doc, fill_text
from .encoding import encoded_take, fast_unique, unique_inverse
from .labels import (
    binary_target,
    check_label_pair,
    encode_label_pair,
    encode_labels,
    positive_label,
)
from .methods import AUTO_LABELS, check_method
from .options import (
    AUTO_BCA_REASON,
    DISTRIBUTION_METHODS,
    INTERVAL_METHODS,
    BootstrapOptions,
    EngineOptions,
    bootstrap_options,
    engine_options,
)
from .resampling import (
    RESAMPLING_FIELDS,
    Resampling,
    check_resampling,
    check_smoothing,
    check_subsample,
    resampling_keywords,
)
from .validation import (
    ALTERNATIVES,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_flag,
    check_nonnegative,
    check_positive_int,
    check_rng_seed,
    check_strata_stratify,
    confidence_levels,
    show_values,
)
from .weights import FrequencyWeights, frequency_weights

__all__ = [
    "ALTERNATIVES",
    "AUTO_BCA_REASON",
    "AUTO_LABELS",
    "DEFAULT_MAX_MEMORY",
    "DISTRIBUTION_METHODS",
    "ENTRIES",
    "INTERVAL_METHODS",
    "RESAMPLING_FIELDS",
    "TEXT_MISSING",
    "ArgSpec",
    "BootstrapOptions",
    "EngineOptions",
    "FrequencyWeights",
    "Gathered",
    "Resampling",
    "binary_target",
    "bootstrap_options",
    "caller_stacklevel",
    "check_alternative",
    "check_choice",
    "check_confidence_level",
    "check_flag",
    "check_label_pair",
    "check_method",
    "check_n_jobs",
    "check_nonnegative",
    "check_positive_int",
    "check_resampling",
    "check_rng_seed",
    "check_smoothing",
    "check_strata_stratify",
    "check_subsample",
    "column",
    "confidence_levels",
    "config_context",
    "configured_progress",
    "dictionary_codes",
    "encode_label_pair",
    "encode_labels",
    "encoded_take",
    "engine_config",
    "engine_options",
    "fast_unique",
    "fill_doc",
    "fill_text",
    "frequency_weights",
    "gather",
    "gather_design",
    "get_config",
    "is_nested",
    "knobs_in_config",
    "missing_mask",
    "moved_keywords",
    "native_values",
    "old_call",
    "positive_label",
    "renamed",
    "renamed_keyword",
    "resampling_keywords",
    "rows_text",
    "set_config",
    "show_values",
    "unique_inverse",
    "warn_at_caller",
]
