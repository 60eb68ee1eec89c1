"""The words of a user's message, read the same way by the replies the code writes and by the offline
coach: numbers written as words, the words that can name an exercise, and the name (of several) a
message most likely means."""

from __future__ import annotations

import re
from collections.abc import Sequence

NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15,
                "twenty": 20, "thirty": 30}  # fmt: skip
STOPWORDS = frozenset(
    """a an the my i i've did do done just finished completed log logged record recorded of at with for and
    sets set reps rep x kg kgs kilos lbs lb pounds today this morning some please each to in on was were then
    had have from only sorry yesterday tonight evening afternoon earlier me also it is am went got""".split()  # noqa: SIM905
)
NOT_NAME_WORDS = frozenset(
    """exercise exercises workout session heaviest heavy heavier lightest ever next time use should weight
    stronger getting most trained train training lifted lift many much how what which my i am been week
    month year last this today yesterday best record personal progress going doing far have has do did
    get give me on for the a an of in at to is was with and or log logged go undo mistake by that not fix
    correct wrong actually program again fine better now you can""".split()  # noqa: SIM905
)
VERB_STEMS = {
    "benched": "bench", "squatted": "squat", "deadlifted": "deadlift", "pressed": "press", "curled": "curl",
    "rowed": "row", "ran": "run", "running": "run", "runs": "run", "jogged": "run", "cycled": "cycl",
    "cycling": "cycl", "swam": "swim", "swimming": "swim",
}  # fmt: skip


def words(text: str) -> list[str]:
    """The lower-case words and numbers of a text."""
    return re.findall(r"[a-z0-9]+", text.lower())


def stem(word: str) -> str:
    """A word without its plural 's' ('squats' -> 'squat'; 'press' stays)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def number(token: str) -> int | None:
    """'3' -> 3, 'three' -> 3; None when the token is no number."""
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token.lower())


def name_words(text: str) -> set[str]:
    """The words of a message or an exercise name that can name an exercise, stemmed."""
    return {stem(VERB_STEMS.get(w, w)) for w in words(text)} - NOT_NAME_WORDS - STOPWORDS


def best_name(text: str, names: Sequence[str]) -> str | None:
    """The name (of those given) a message most likely means; None when no word is shared."""
    said = name_words(text)
    best: tuple[int, str] | None = None
    for name in names:
        score = len(said & name_words(name))
        if score and (best is None or score > best[0]):
            best = (score, name)
    return best[1] if best else None
