"""``score_analysis.group_scores``: mlci has metric_by_group, not a GroupScores class."""


def groupwise(metric):
    raise NotImplementedError("mlci.metric_by_group is a function, not a GroupScores class")


class GroupScores:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("mlci.metric_by_group is a function, not a GroupScores class")
