"""Evaluation protocols with intervals whose target is stated: cross-validation
(k-fold, stratified, grouped, repeated, leave-one-out, repeated random splits, nested
cross-validation after Bates, Hastie & Tibshirani 2024), the bootstrap estimators of
prediction error (out-of-bag, .632, .632+), out-of-bag evaluation of fitted ensembles, and
learning methods compared: two estimators by cross-validation (:func:`cross_val_compare`;
the tests on tables of fold scores, 5×2cv, corrected resampled t, in :mod:`.cv_tests`),
two methods over several training runs (:mod:`.learners`: :func:`compare_methods`,
:func:`evaluate_method`, :func:`pooled_ci`).
"""

from .bootstrap632 import BOOTSTRAP_VARIANTS, BootstrapErrorResult, bootstrap632_ci
from .crossval import CV_METHODS, CVResult, cross_val_ci, cross_val_compare
from .learners import PooledResult, compare_methods, evaluate_method, pooled_ci
from .oob import oob_ci

__all__ = [
    "BOOTSTRAP_VARIANTS",
    "CV_METHODS",
    "BootstrapErrorResult",
    "CVResult",
    "PooledResult",
    "bootstrap632_ci",
    "compare_methods",
    "cross_val_ci",
    "cross_val_compare",
    "evaluate_method",
    "oob_ci",
    "pooled_ci",
]
