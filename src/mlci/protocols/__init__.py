"""Evaluation protocols with intervals whose target is stated: cross-validation
(k-fold, stratified, grouped, repeated, leave-one-out, repeated random splits, nested
cross-validation after Bates, Hastie & Tibshirani 2024), the bootstrap estimators of
prediction error (out-of-bag, .632, .632+) and out-of-bag evaluation of fitted ensembles.
"""

from .crossval import CV_METHODS, CVResult, cross_val_ci

__all__ = ["CV_METHODS", "CVResult", "cross_val_ci"]
