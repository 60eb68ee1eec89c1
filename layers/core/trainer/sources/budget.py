"""The prompt budget of user data (docs/architecture.md#the-prompt-budget): how much of a request the
user's own data may take, whatever they stored.

Sizes are estimated as the context builder estimates them, a token for every `CHARS_PER_TOKEN`
characters. Every data source the initializer loads has its own limit (`SOURCE_TOKENS`, else
`DEFAULT_SOURCE_TOKENS`), and the sources one turn loads share `TURN_TOKENS`: when together they are
larger, the largest are cut first, each keeping at least an equal share. The `<user_data>` block that
every request carries keeps its location sections within `CURRENT_LOCATION_TOKENS` and
`OTHER_LOCATIONS_TOKENS`.

A source is cut by lines: the formatters (trainer.sources.formatters) write one entry a line, the most
relevant first (the newest history, the soonest session, injuries before other preferences, the
current location first), so the lines kept are the top ones, and a last line tells the model how many
were left out. Its first line (the opening tag) and last line (the closing tag) are always kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

CHARS_PER_TOKEN = 4
DEFAULT_SOURCE_TOKENS = 1_500
SOURCE_TOKENS: Mapping[str, int] = {
    "active_preferences": 3_000,
    "workout_history": 2_000,
    "scheduled_workouts": 2_000,
}
TURN_TOKENS = 6_000
"""What the sources one turn loads may add to the context together."""
CURRENT_LOCATION_TOKENS = 1_200
OTHER_LOCATIONS_TOKENS = 250
NOTE_CHARS = 160
"""Room kept for the note that says what was left out."""


@dataclass(frozen=True)
class Fitted:
    """A text within its limit, and what fitting it cost."""

    text: str
    tokens: int
    """The size of `text` (estimated tokens)."""
    limit: int
    full_tokens: int
    """The size before fitting."""
    left_out: int
    """Lines left out (0: the text fitted whole)."""

    def as_json(self) -> dict[str, int]:
        return {
            "tokens": self.tokens,
            "limit": self.limit,
            "full_tokens": self.full_tokens,
            "left_out": self.left_out,
        }


def tokens_of(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def source_limit(source: str) -> int:
    return SOURCE_TOKENS.get(source, DEFAULT_SOURCE_TOKENS)


def fit_lines(lines: Sequence[str], limit_tokens: int, *, what: str = "lines") -> tuple[list[str], int]:
    """The first of `lines` that fit `limit_tokens` (counting a line break after each), and the number
    left out; when some are, the last line kept says so. A first line longer than the whole limit is
    cut short rather than lost."""
    limit = limit_tokens * CHARS_PER_TOKEN
    if sum(len(line) + 1 for line in lines) <= limit:
        return list(lines), 0
    room = max(limit - NOTE_CHARS, 0)
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    left_out = len(lines) - len(kept)
    if not kept and room > 1:
        kept.append(lines[0][: room - 2] + "…")
        left_out -= 1
    if left_out:
        indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
        kept.append(
            f"{indent}[{left_out} more {what} left out to keep the prompt small; ask the user if one matters]"
        )
    return kept, left_out


def fit_source(text: str, limit_tokens: int) -> Fitted:
    """A formatted source within `limit_tokens`: its entries cut from the bottom (see the module)."""
    full = tokens_of(text)
    if full <= limit_tokens:
        return Fitted(text, full, limit_tokens, full, 0)
    lines = text.split("\n")
    head, body, tail = (lines[0], lines[1:-1], [lines[-1]]) if len(lines) >= 3 else ("", lines, [])
    frame = len(head) + 1 + sum(len(line) + 1 for line in tail) if head else 0
    room = max(limit_tokens - -(-frame // CHARS_PER_TOKEN), 0)
    kept, left_out = fit_lines(body, room, what="entries")
    fitted = "\n".join([*([head] if head else []), *kept, *tail])
    return Fitted(fitted, tokens_of(fitted), limit_tokens, full, left_out)


def turn_limits(sizes: Sequence[tuple[str, int]], total: int = TURN_TOKENS) -> list[int]:
    """Each source's limit for one turn: its own (`source_limit`), lowered when together they would
    exceed `total` so that the largest give way first (water-filling: every source keeps at least an
    equal share of `total`)."""
    wanted = [min(size, source_limit(name)) for name, size in sizes]
    if sum(wanted) <= total:
        return [source_limit(name) for name, _ in sizes]
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    limits = [0] * len(wanted)
    left, count = total, len(wanted)
    for position, index in enumerate(order):
        share = left // (count - position)
        limits[index] = min(wanted[index], share)
        left -= limits[index]
    return limits


def fit_turn(sources: Sequence[tuple[str, str]], total: int = TURN_TOKENS) -> list[Fitted]:
    """One turn's formatted sources (name, text), each within its limit for the turn (`turn_limits`)."""
    limits = turn_limits([(name, tokens_of(text)) for name, text in sources], total)
    return [fit_source(text, limit) for (_, text), limit in zip(sources, limits, strict=True)]
