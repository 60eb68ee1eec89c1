"""What a statistics question asks, read from its words."""

from __future__ import annotations

import pytest
from trainer.domain.stats_questions import stats_kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("which lifts went up in the last 30 days?", "progress"),
        ("how am I progressing over the last 30 days", "progress"),
        ("what has increased this month?", "progress"),
        ("how many workouts did I do last week?", "count"),
        ("is my bench going up?", "trend"),
    ],
)
def test_the_kind_of_a_statistics_question(question: str, kind: str) -> None:
    assert stats_kind(question) == kind
