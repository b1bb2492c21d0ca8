"""``score_analysis.group_scores`` on mlci.GroupScores (renamed arguments only)."""

from __future__ import annotations

import numpy as np

import mlci

from .scores import _METHODS, DEFAULT_BOOTSTRAP_CONFIG, _Counts, _label, _sample_args


def groupwise(metric):
    # score-analysis's groupwise(metric)(scores, **kw) is mlci's scores.group_metric(metric, **kw)
    def fn(scores, **kwargs):
        return scores.group_metric(metric, **kwargs)

    return fn


class GroupScores(_Counts, mlci.GroupScores):
    def __init__(
        self,
        pos,
        neg,
        *,
        pos_groups,
        neg_groups,
        score_class="pos",
        equal_class="pos",
        group_names=None,
        is_sorted=False,
    ):
        super().__init__(
            pos,
            neg,
            pos_groups=pos_groups,
            neg_groups=neg_groups,
            score_class=_label(score_class),
            equal_class=_label(equal_class),
            group_names=group_names,
        )

    @classmethod
    def from_labels(
        cls,
        labels,
        scores,
        groups,
        *,
        pos_label=1,
        score_class="pos",
        equal_class="pos",
        is_sorted=False,
    ):
        return super().from_labels(
            labels,
            scores,
            groups,
            pos_label=pos_label,
            score_class=_label(score_class),
            equal_class=_label(equal_class),
        )

    def bootstrap_sample(self, config=DEFAULT_BOOTSTRAP_CONFIG):
        return super().bootstrap_sample(
            **_sample_args(config, by_group=config.stratified_sampling == "by_group")
        )

    def bootstrap_ci(self, metric, alpha=0.05, config=DEFAULT_BOOTSTRAP_CONFIG, **kwargs):
        if not (isinstance(metric, str) and metric.startswith("group_")):
            raise NotImplementedError("shim: only group_<metric> names are mapped")
        res = self.metric_ci(
            metric[len("group_") :],
            confidence_level=1 - alpha,
            n_resamples=config.nb_samples,
            method=_METHODS.get(config.bootstrap_method, config.bootstrap_method),
            stratify=config.stratified_sampling in ("by_label", "by_group"),
            **kwargs,
        )
        rows = [r for r in res.rows() if r["group"] != "(overall)"]
        return np.array([[r["low"], r["high"]] for r in rows])
