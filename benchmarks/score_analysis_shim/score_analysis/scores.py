"""``score_analysis.scores`` on mlci.Scores (renamed arguments only)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

import mlci


class BinaryLabel(Enum):
    pos = "pos"
    neg = "neg"

    def __eq__(self, other: object) -> bool:
        return self.value == getattr(other, "value", other)

    def __hash__(self) -> int:
        return hash(self.value)


def _label(x: Any) -> str:
    return getattr(x, "value", x)


@dataclass
class BootstrapConfig:
    nb_samples: int = 1_000
    bootstrap_method: str = "bca"
    sampling_method: Any = "dynamic"
    stratified_sampling: Any = None
    smoothing: bool = False
    ratio: Any = None


DEFAULT_BOOTSTRAP_CONFIG = BootstrapConfig()
_METHODS = {"quantile": "percentile", "bc": "bc", "bca": "bca"}
# score-analysis's sampling methods under mlci's names (weights= of the bootstrap)
_WEIGHTS = {"replacement": "multinomial", "dynamic": "multinomial", "single_pass": "poisson"}


def _sample_args(config, **extra):
    """bootstrap_sample's arguments: sampling_method -> weights= (or sampler= for a
    callable, subsample= for "proportion" with a ratio), stratified_sampling -> stratify=,
    smoothing -> smoothing=."""
    sampling = config.sampling_method
    if callable(sampling):
        return {"sampler": sampling, **extra}
    if config.smoothing:
        extra["smoothing"] = True
    strat = config.stratified_sampling
    if sampling == "proportion" and config.ratio is not None:
        # score-analysis's "proportion" draws the ratio of each class without replacement
        return {"subsample": config.ratio, "stratify": True, **extra}
    return {
        "weights": _WEIGHTS.get(sampling, sampling),
        # None / "by_label" / "by_group" (by_group= in extra); anything else goes through as
        # it is, for mlci to refuse
        "stratify": strat == "by_label" if strat in (None, "by_label", "by_group") else strat,
        **extra,
    }


def _ci_args(config):
    """bootstrap_ci's sampling arguments (as _sample_args)."""
    sampling = config.sampling_method
    if callable(sampling):
        return {"sampler": sampling, "stratify": None}
    out = {"stratify": config.stratified_sampling == "by_label"}
    if config.smoothing:
        out["smoothing"] = True
    if sampling == "proportion":
        out["subsample"] = config.ratio
        out["stratify"] = True
    elif sampling == "single_pass":
        out["weights"] = "poisson"
    return out


class _Counts:
    """score-analysis's sample counts, from mlci's n_pos/n_neg/n_easy_*."""

    @property
    def nb_easy_pos(self):
        return self.n_easy_pos

    @property
    def nb_easy_neg(self):
        return self.n_easy_neg

    @property
    def nb_hard_pos(self):
        return self.n_pos - self.n_easy_pos

    @property
    def nb_hard_neg(self):
        return self.n_neg - self.n_easy_neg

    @property
    def nb_all_pos(self):
        return self.n_pos

    @property
    def nb_all_neg(self):
        return self.n_neg

    @property
    def nb_all_samples(self):
        return self.n_pos + self.n_neg

    @property
    def nb_easy_samples(self):
        return self.n_easy_pos + self.n_easy_neg

    @property
    def nb_hard_samples(self):
        return self.nb_all_samples - self.nb_easy_samples


class Scores(_Counts, mlci.Scores):
    def __init__(
        self,
        pos,
        neg,
        *,
        nb_easy_pos=0,
        nb_easy_neg=0,
        score_class="pos",
        equal_class="pos",
        is_sorted=False,
    ):
        super().__init__(
            pos,
            neg,
            n_easy_pos=nb_easy_pos,
            n_easy_neg=nb_easy_neg,
            score_class=_label(score_class),
            equal_class=_label(equal_class),
        )

    @classmethod
    def from_labels(
        cls,
        labels,
        scores,
        *,
        pos_label=1,
        nb_easy_pos=0,
        nb_easy_neg=0,
        score_class="pos",
        equal_class="pos",
    ):
        sc = mlci.Scores.from_labels(
            labels,
            scores,
            pos_label=pos_label,
            score_class=_label(score_class),
            equal_class=_label(equal_class),
        )
        out = cls(
            sc.pos,
            sc.neg,
            nb_easy_pos=nb_easy_pos,
            nb_easy_neg=nb_easy_neg,
            score_class=score_class,
            equal_class=equal_class,
        )
        return out

    # score-analysis's counts
    @property
    def hard_pos_ratio(self):
        return self.nb_hard_pos / self.n_pos

    @property
    def hard_neg_ratio(self):
        return self.nb_hard_neg / self.n_neg

    @property
    def easy_pos_ratio(self):
        return self.n_easy_pos / self.n_pos

    @property
    def easy_neg_ratio(self):
        return self.n_easy_neg / self.n_neg

    @property
    def easy_ratio(self):
        return self.nb_easy_samples / self.nb_all_samples

    @property
    def hard_ratio(self):
        return self.nb_hard_samples / self.nb_all_samples

    # method= is interpolation= in mlci
    def threshold_at_tpr(self, tpr, *, method="linear"):
        return super().threshold_at_tpr(tpr, interpolation=method)

    def threshold_at_fnr(self, fnr, *, method="linear"):
        return super().threshold_at_fnr(fnr, interpolation=method)

    def threshold_at_tnr(self, tnr, *, method="linear"):
        return super().threshold_at_tnr(tnr, interpolation=method)

    def threshold_at_fpr(self, fpr, *, method="linear"):
        return super().threshold_at_fpr(fpr, interpolation=method)

    def threshold_at_topr(self, topr, *, method="linear"):
        return super().threshold_at_topr(topr, interpolation=method)

    def threshold_at_tonr(self, tonr, *, method="linear"):
        return super().threshold_at_tonr(tonr, interpolation=method)

    threshold_at_tar = threshold_at_tpr
    threshold_at_frr = threshold_at_fnr
    threshold_at_trr = threshold_at_tnr
    threshold_at_far = threshold_at_fpr
    threshold_at_acceptance_rate = threshold_at_topr
    threshold_at_rejection_rate = threshold_at_tonr

    def threshold_at_metric(self, target, metric, points=None):
        if not isinstance(metric, str):
            fn = metric
            metric = lambda s, t: fn(s, t)  # noqa: E731
        return super().threshold_at_metric(target, metric, points=points)

    def eer(self):
        e = mlci.Scores.eer(self)
        return e.threshold, e.eer  # score-analysis returns (threshold, eer)

    def bootstrap_sample(self, config=DEFAULT_BOOTSTRAP_CONFIG):
        return super().bootstrap_sample(**_sample_args(config))

    def _ci(self, metric, alpha, config, kwargs):
        if isinstance(metric, str):
            metric = getattr(type(self), metric)  # as score-analysis: the method of the class
        return super().bootstrap_ci(
            metric,
            metric_kwargs=kwargs or None,
            confidence_level=1 - alpha,
            n_resamples=config.nb_samples,
            method=_METHODS.get(config.bootstrap_method, config.bootstrap_method),
            **_ci_args(config),
        )

    def bootstrap_metric(self, metric, config=DEFAULT_BOOTSTRAP_CONFIG, **kwargs):
        return self._ci(metric, 0.05, config, kwargs).bootstrap_distribution

    def bootstrap_ci(self, metric, alpha=0.05, config=DEFAULT_BOOTSTRAP_CONFIG, **kwargs):
        res = self._ci(metric, alpha, config, kwargs)
        return np.stack(
            [np.asarray(res.confidence_interval.low), np.asarray(res.confidence_interval.high)],
            axis=-1,
        )


def pointwise_cm(labels, scores, threshold, *, pos_label=1, score_class="pos", equal_class="pos"):
    return mlci.pointwise_cm(
        labels,
        scores,
        threshold,
        pos_label=pos_label,
        score_class=_label(score_class),
        equal_class=_label(equal_class),
    )
