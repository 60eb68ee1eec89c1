"""The offline coach's one intent table: every intent row names its handler and the topics whose data
it needs, every topic the initializer can load is named by a row, and a row decides both readings."""

from __future__ import annotations

import pytest
from trainer.offline.intents import BY_NAME, INTENTS, TOPICS, classify, topics_of
from trainer.offline.selector import decide


def test_every_topic_is_named_by_an_intent_and_every_named_topic_is_listed() -> None:
    named = {topic for row in INTENTS for topic in row.topics}
    assert named == set(TOPICS)


def test_rows_of_one_intent_share_its_handler_and_label() -> None:
    for row in INTENTS:
        first = BY_NAME[row.name]
        assert (row.act, row.label, row.expand) == (first.act, first.label, first.expand), row.name


def test_a_message_no_row_recognises_is_clarified() -> None:
    assert INTENTS[-1].name == "clarify"
    assert classify("") == ["clarify"]
    assert classify("purple") == ["clarify"]


@pytest.mark.parametrize(
    ("message", "intents", "tasks"),
    [
        (
            "my knee hurts, give me a leg workout",
            ["preference", "workout"],
            {"workout generation", "injury/recovery"},
        ),
        ("swap the lunges, my knee hurts", ["preference", "swap"], {"injury/recovery", "current workout"}),
        ("what can I do instead of dips?", ["exercise_info"], {"exercise alternatives", "current workout"}),
        ("show my stats for this week", ["stats"], {"statistics"}),
    ],
)
def test_one_message_read_both_ways(message: str, intents: list[str], tasks: set[str]) -> None:
    assert classify(message) == intents
    assert {topic.task for topic in topics_of(message)} == tasks
    reasoning = decide(message, []).reasoning
    assert all(task in reasoning for task in tasks)


@pytest.mark.parametrize(
    ("message", "intents"),
    [
        ("give me an arms workout and log 15 squats from earlier", ["log", "workout"]),
        ("legs today please, I did upper yesterday", ["workout"]),
        ("log 20 pushups I did this morning", ["log"]),
    ],
)
def test_a_log_said_alongside_a_request_is_done_first(message: str, intents: list[str]) -> None:
    """A log with its sets joins a combined request (before the workout is built, so it cannot mark
    the new workout's exercise done); a past session named without sets does not."""
    assert classify(message) == intents
