"""The prompt budget of user data (trainer.sources.budget): each source within its limit, a turn's
sources within theirs together, the most relevant entries kept and a note for the rest; the
`<user_data>` block's locations too. Pure functions over rows, no I/O."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from trainer.sources import budget
from trainer.sources import formatters as fmt
from trainer.sources.user_data import render_user_data

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
KG = {"weight_unit": "kg", "distance_unit": "km", "timezone": "UTC", "preferred_days": []}


def preferences(count: int) -> list[dict[str, object]]:
    """`count` preferences of the longest text allowed, oldest first; every tenth an injury."""
    return [
        {
            "id": uuid.UUID(int=i),
            "type": "injury" if i % 10 == 0 else "exercise",
            "description": f"preference {i:02d} " + "d" * 985,
            "guidance": "g" * 2000,
            "expires_at": None,
            "delete_after_use": False,
            "created_at": NOW - timedelta(days=count - i),
        }
        for i in range(count)
    ]


def largest_location() -> dict[str, object]:
    weights = [round(1 + 0.25 * k, 2) for k in range(200)]
    return {
        "id": uuid.UUID(int=7),
        "name": "G" * 100,
        "description": "D" * 1000,
        "is_current": True,
        "equipment": [
            {"name": f"Item {n:03d} " + "n" * 90, "type": "t" * 50, "weights": weights, "unit": "kg"}
            for n in range(200)
        ],
    }


def test_a_source_within_its_limit_is_kept_whole() -> None:
    text = fmt.format_preferences(preferences(3))
    fitted = budget.fit_source(text, 2_000)
    assert (fitted.text, fitted.left_out, fitted.tokens) == (text, 0, fitted.full_tokens)


def test_preferences_at_the_cap_keep_injuries_first_and_say_how_many_were_left_out() -> None:
    text = fmt.format_preferences(preferences(50))
    fitted = budget.fit_source(text, budget.source_limit("active_preferences"))

    assert fitted.full_tokens > 10_000 and fitted.tokens <= fitted.limit == 3_000
    lines = fitted.text.split("\n")
    assert lines[0] == "<preferences>" and lines[-1] == "</preferences>"
    kept = lines[1:-2]
    kinds = [line.split(":")[0] for line in kept]
    assert kinds[:5] == ["  - injury"] * 5 and set(kinds[5:]) == {"  - exercise"}
    assert "preference 40 " in kept[0] and "preference 49 " in kept[5], "each group newest first"
    assert all(len(line) < 900 and line.count("…") == 2 for line in kept), "each text shortened"
    assert lines[-2] == (
        f"  [{50 - len(kept)} more entries left out to keep the prompt small; ask the user if one matters]"
    )
    assert fitted.left_out == 50 - len(kept)


def test_a_first_entry_longer_than_the_limit_is_cut_rather_than_lost() -> None:
    kept, left_out = budget.fit_lines(["x" * 10_000, "y"], 100)
    assert kept[0].startswith("xxx") and kept[0].endswith("…") and len(kept[0]) < 400
    assert left_out == 1 and "1 more lines left out" in kept[1]


def test_a_turns_sources_share_its_budget_the_largest_giving_way() -> None:
    sizes = [("user_profile", 200), ("active_preferences", 30_000), ("workout_history", 9_000)]
    limits = budget.turn_limits(sizes, total=3_000)
    assert limits[0] == 200
    assert limits[1] == limits[2] == 1_400
    assert budget.turn_limits([("user_profile", 200), ("workout_history", 900)]) == [1_500, 2_000]


def test_fitting_a_turn_keeps_every_source_within_the_turns_budget() -> None:
    sources = [
        ("active_preferences", fmt.format_preferences(preferences(50))),
        ("current_location", fmt.format_current_location(largest_location())),
        ("all_locations", fmt.format_all_locations([largest_location()] * 3)),
        ("user_settings", fmt.format_user_settings(KG)),
        (
            "workout_history",
            "<workout_history>\n" + "\n".join(["  entry " + "h" * 80] * 400) + "\n</workout_history>",
        ),
    ]
    fitted = budget.fit_turn(sources)
    assert sum(f.tokens for f in fitted) <= budget.TURN_TOKENS
    assert fitted[3].left_out == 0 and fitted[3].text == sources[3][1]
    assert all(f.tokens <= f.limit for f in fitted)


@pytest.mark.parametrize(
    ("weights", "text"),
    [
        ([5, 10, 15, 20], "5, 10, 15, 20kg"),
        ([2.5 * k for k in range(1, 25)], "2.5-60kg in steps of 2.5 (24 loads)"),
        ([1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377], "1-377kg (13 loads)"),
    ],
)
def test_a_long_weight_rack_is_written_as_its_range(weights: list[float], text: str) -> None:
    assert fmt.weights_text(weights, "kg") == text


def test_the_user_data_block_keeps_the_largest_location_within_its_budget() -> None:
    others = [{**largest_location(), "id": uuid.UUID(int=100 + i), "name": f"Gym {i}", "is_current": False}
              for i in range(40)]  # fmt: skip
    text = render_user_data(None, KG, [largest_location(), *others], date(2026, 12, 7))
    current = text[text.index("<current_location>") : text.index("</current_location>")]
    listed = text[text.index("<other_locations>") : text.index("</other_locations>")]

    assert budget.tokens_of(current) <= budget.CURRENT_LOCATION_TOKENS + 10
    assert budget.tokens_of(listed) <= budget.OTHER_LOCATIONS_TOKENS + 10
    assert f"Location id: {uuid.UUID(int=7)}" in current
    assert "1-50.75kg in steps of 0.25 (200 loads)" in current
    assert "more lines left out" in current and "more locations left out" in listed
