"""food_tasks.stats.metrics.group_max: the lmms-eval group aggregation for best-of-templates numbers."""

from food_tasks.stats.metrics import group_max


def test_group_max_is_the_best_subtask_and_ignores_sizes():
    assert group_max([29.03, 33.75, 26.05], [403, 403, 403]) == 33.75
    assert group_max([10.0, 90.0], [1000, 1], weight_by_size=True) == 90.0
    assert group_max([], []) == 0.0
