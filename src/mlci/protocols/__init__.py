"""Evaluation protocols with intervals whose target is stated: cross-validation
(k-fold, stratified, grouped, repeated, leave-one-out, repeated random splits, nested
cross-validation after Bates, Hastie & Tibshirani 2024), the bootstrap estimators of
prediction error (out-of-bag, .632, .632+) and out-of-bag evaluation of fitted ensembles.
"""

from .bootstrap632 import BOOTSTRAP_VARIANTS, BootstrapErrorResult, bootstrap632_ci
from .crossval import CV_METHODS, CVResult, cross_val_ci, cross_val_compare
from .oob import oob_ci

__all__ = [
    "BOOTSTRAP_VARIANTS",
    "CV_METHODS",
    "BootstrapErrorResult",
    "CVResult",
    "bootstrap632_ci",
    "cross_val_ci",
    "cross_val_compare",
    "oob_ci",
]
