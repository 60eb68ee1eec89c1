"""The offline coach's intent classifier: which action a message asks for, read by a small linear model
over the message's words and character n-grams, so that a typo, a dictated sentence or an unseen way of
saying a request still lands on its intent.

The model is an averaged multiclass perceptron over sparse features (`features`): word unigrams and
bigrams, character 3- and 4-grams inside each word (what survives a typo: 'squtas' shares 'squ' and
'tas' with 'squats'), the message's first word and whether it is a question. Digits are one symbol ('3x10'
and '4x8' read alike). It is trained by `scripts/train_intents.py` from the phrasings in
`scripts/intent_corpus/training.txt` and shipped as integer weights in `data/intent_model.json`: nothing is
downloaded or trained at run time, and the same corpus always gives the same file. Its accuracy is measured
on `scripts/intent_corpus/held_out.txt`, phrasings written separately from the training ones
(docs/testing.md#the-offline-coachs-intent-classifier).

A message the model knows too little of (few of its features were ever seen, or no intent scores well)
is left to the caller's fallback: an answer when it is a question, else a clarifying question."""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

MODEL_FILE = "intent_model.json"
FEATURE_VERSION = 1
"""Bumped when `features` changes: a model trained on other features is refused at load."""

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")
_TOKEN = re.compile(r"[a-z#]+(?:'[a-z]+)?|[?%]")
MIN_KNOWN_SHARE = 0.25
"""At least this share of a message's features must be ones the model was trained on."""
MIN_MARGIN = 0.0
"""The best intent must beat the runner-up by more than this (score units: see `Prediction`)."""


def normalise(text: str) -> str:
    """Lower case, one kind of apostrophe, every number one symbol ('#'), one space between words."""
    folded = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower()
    return " ".join(_DIGITS.sub("#", folded).split())


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalise(text))


def features(text: str) -> list[str]:
    """The sparse features of a message, each once, in a stable order."""
    words = tokens(text)
    found: dict[str, None] = {}
    if words:
        found[f"first:{words[0]}"] = None
    if text.strip().endswith("?"):
        found["ends:?"] = None
    for word in words:
        found[f"w:{word}"] = None
        padded = f"<{word}>"
        if len(word) > 2:
            for n in (3, 4):
                for start in range(len(padded) - n + 1):
                    found[f"c:{padded[start : start + n]}"] = None
    for first, second in itertools.pairwise(words):
        found[f"b:{first} {second}"] = None
    return list(found)


@dataclass(frozen=True)
class Prediction:
    """The best intent for a message, with how sure the model is: `score` and `margin` (best minus
    runner-up) in the model's weight units divided by the message's feature count; `known` is the share
    of the message's features the model has weights for."""

    intent: str
    score: float
    margin: float
    known: float
    ranked: tuple[tuple[str, float], ...]
    """Every intent with a score, best first."""

    @property
    def confident(self) -> bool:
        return self.known >= MIN_KNOWN_SHARE and self.margin > MIN_MARGIN and self.score > 0


class IntentModel:
    """The shipped weights: feature -> [(intent index, weight)], integers."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("feature_version") != FEATURE_VERSION:
            built = data.get("feature_version")
            raise ValueError(f"intent model built for features v{built}, these are v{FEATURE_VERSION}")
        self.intents: tuple[str, ...] = tuple(data["intents"])
        self.weights: dict[str, list[list[int]]] = data["weights"]

    def scores(self, text: str) -> tuple[list[float], float, int]:
        """Per-intent scores, the share of known features, and the feature count."""
        feats = features(text)
        totals = [0.0] * len(self.intents)
        known = 0
        for feature in feats:
            row = self.weights.get(feature)
            if row is None:
                continue
            known += 1
            for index, weight in row:
                totals[index] += weight
        count = max(1, len(feats))
        return [t / count for t in totals], known / count, count

    def predict(self, text: str) -> Prediction:
        totals, known, _ = self.scores(text)
        ranked = sorted(zip(self.intents, totals, strict=True), key=lambda kv: (-kv[1], kv[0]))
        best, score = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
        return Prediction(best, score, score - runner_up, known, tuple(ranked))


@cache
def shipped_model() -> IntentModel:
    """The model shipped with the package (read once per process)."""
    raw = resources.files("trainer.offline").joinpath("data", MODEL_FILE).read_text(encoding="utf-8")
    return IntentModel(json.loads(raw))


def predict(text: str) -> Prediction:
    return shipped_model().predict(text)
