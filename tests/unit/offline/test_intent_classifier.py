"""The offline coach's intent classifier: the shipped model is the training script's output for the
corpus (same corpus, same file), and it reads phrasings it never saw well enough: held-out accuracy
above a floor overall and for every intent, and the coach's reading (rules for red flags and bare
answers, then the model) no worse than the model alone."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from trainer.offline.classifier import IntentModel, features, normalise, shipped_model
from trainer.offline.intents import BY_NAME, main_action

from scripts.train_intents import HELD_OUT, TRAINING, Example, dumps, evaluate, load_examples, train

OVERALL_FLOOR = 0.85
"""Held-out accuracy is 91.3% (the model alone) and 91.3% (the coach's reading) with the corpus of this
commit; a retrain after adding phrasings moves each by a point or two, so the floor leaves room."""
PER_INTENT_FLOOR = 0.4
"""Of the coach's reading. The weakest is 'answer' (open questions about training in general, which
share their words with the actions: 4 to 6 of 10); most intents are at 80% or more."""
MIN_TRAINING_PHRASINGS = 30


def test_the_shipped_model_is_a_retrain_of_the_corpus() -> None:
    shipped = (
        resources.files("trainer.offline").joinpath("data", "intent_model.json").read_text(encoding="utf-8")
    )
    assert dumps(train(load_examples(TRAINING))) == shipped


def test_two_more_training_phrasings_move_few_held_out_readings() -> None:
    """Training to a margin (scripts/train_intents.py MARGIN) leaves room on both sides of each boundary:
    two phrasings more moved 47 of the 461 held-out readings without it, 18 with it."""
    more = [
        Example("wrapped up the squats, every set as written", "log"),
        Example("hit every set on the rows just like it said", "log"),
    ]
    retrained = IntentModel(train(load_examples(TRAINING) + more))
    held_out = load_examples(HELD_OUT)
    moved = [
        e.text for e in held_out if retrained.predict(e.text).intent != shipped_model().predict(e.text).intent
    ]
    assert len(moved) <= len(held_out) // 20, moved


def test_training_twice_gives_the_same_weights() -> None:
    examples = load_examples(TRAINING)[::7]
    assert train(examples) == train(list(examples))


def test_every_intent_has_enough_training_phrasings_and_a_handler() -> None:
    counts: dict[str, int] = {}
    for example in load_examples(TRAINING):
        counts[example.intent] = counts.get(example.intent, 0) + 1
    assert {name: n for name, n in counts.items() if n < MIN_TRAINING_PHRASINGS} == {}
    assert set(counts) <= set(BY_NAME)
    assert set(shipped_model().intents) == set(counts)


def test_no_held_out_phrasing_is_in_the_training_corpus() -> None:
    trained = {normalise(e.text) for e in load_examples(TRAINING)}
    assert [e.text for e in load_examples(HELD_OUT) if normalise(e.text) in trained] == []


def test_held_out_accuracy_is_above_the_floor_overall_and_per_intent() -> None:
    assert evaluate(shipped_model(), load_examples(HELD_OUT)).accuracy >= OVERALL_FLOOR
    report = evaluate(shipped_model(), load_examples(HELD_OUT), main_action)
    assert report.accuracy >= OVERALL_FLOOR, "\n".join(report.lines())
    weak = {
        intent: right / n for intent, (right, n) in report.per_intent.items() if right / n < PER_INTENT_FLOOR
    }
    assert weak == {}, "\n".join(report.lines())


def test_the_coachs_reading_is_as_good_as_the_model_alone_on_held_out_phrasings() -> None:
    held_out = load_examples(HELD_OUT)
    model_alone = evaluate(shipped_model(), held_out)
    coach = evaluate(shipped_model(), held_out, main_action)
    assert coach.accuracy >= model_alone.accuracy - 0.01, "\n".join(coach.lines())


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("squtas 3x10 at 60kg done", "log"),  # a typo
        ("log three sets of ten on the bench at sixty kilos", "log"),  # dictated
        ("swap the lunges for something else", "swap"),
        ("what did I do last week", "stats"),
    ],
)
def test_unseen_ways_of_saying_a_request_land_on_its_intent(message: str, intent: str) -> None:
    assert shipped_model().predict(message).intent == intent


def test_typos_share_most_character_ngrams_with_the_word() -> None:
    typo = {f for f in features("squtas") if f.startswith("c:")}
    word = {f for f in features("squats") if f.startswith("c:")}
    assert len(typo & word) >= 3


def test_numbers_read_alike_whatever_their_value() -> None:
    assert features("3x10 at 60 kg") == features("4x8 at 72.5 kg")


def test_a_model_built_for_other_features_is_refused() -> None:
    data = json.loads(json.dumps({"feature_version": 0, "intents": ["log"], "weights": {}}))
    with pytest.raises(ValueError, match="features"):
        IntentModel(data)


def test_a_message_the_model_knows_nothing_of_is_not_read_confidently() -> None:
    assert not shipped_model().predict("zxqv plorf").confident
