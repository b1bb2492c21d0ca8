"""score-analysis's names on mlci: a shim that only renames (see ../README.md).

Every class and function here forwards to mlci, renaming arguments (``labels`` ->
``y_true``, ``method`` -> ``interpolation``, ``nb_easy_pos`` -> ``n_easy_pos``...).  Nothing
is computed here: a test that fails through this shim fails because mlci differs.
"""

from . import cm, metrics, roc_curve, scores  # noqa: F401
from .cm import ConfusionMatrix  # noqa: F401
from .group_scores import GroupScores, groupwise  # noqa: F401
from .roc_curve import ROC_CI_EXTRA_POINTS, ROCCurve, roc, roc_with_ci  # noqa: F401
from .scores import (  # noqa: F401
    DEFAULT_BOOTSTRAP_CONFIG,
    BinaryLabel,
    BootstrapConfig,
    Scores,
    pointwise_cm,
)
