"""The training plan: methodology by experience and days (docs/programs.md), phases with deloads, the weekly
pattern on the user's days within their equipment and injuries, the markdown sections, and validators
that fail on bad plans; a model's draft goes through the same finalize step as the offline one."""

from __future__ import annotations

from datetime import date

import pytest
from trainer.domain.catalog import load_catalog
from trainer.domain.equipment import missing_equipment
from trainer.programs.models import PlanDraft
from trainer.programs.plan.checks import (
    deloads_present,
    equipment_available,
    min_microcycles,
    required_sections,
    training_days_match,
    validate_plan,
)
from trainer.programs.plan.draft import PlanError, draft_plan
from trainer.programs.plan.finalize import build_plan, finalize_plan, record_modification
from trainer.programs.plan.methodology import assign_foci, choose_methodology, phase_layout
from trainer.programs.plan.render import render_plan_markdown
from trainer.programs.plan.slots import day_minutes

from tests.unit.programs.programs_fixtures import inputs


@pytest.mark.parametrize(
    ("experience", "days", "goal", "expected"),
    [
        ("beginner", 3, "strength", "full_body"),
        ("beginner", 2, "general", "full_body"),
        ("beginner", 4, "hypertrophy", "upper_lower"),
        ("beginner", 6, "general", "upper_lower"),
        ("intermediate", 3, "strength", "full_body"),
        ("intermediate", 4, "strength", "upper_lower"),
        ("intermediate", 5, "hypertrophy", "upper_lower_ppl"),
        ("intermediate", 6, "hypertrophy", "push_pull_legs"),
        ("advanced", 4, "strength", "powerlifting"),
        ("advanced", 6, "hypertrophy", "bodybuilding"),
        ("advanced", 6, "strength", "push_pull_legs"),
    ],
)
def test_methodology_follows_experience_and_days(
    experience: str, days: int, goal: str, expected: str
) -> None:
    assert choose_methodology(experience, days, goal) == expected  # type: ignore[arg-type]


def test_back_to_back_full_body_days_become_a_split() -> None:
    method, foci = assign_foci("full_body", ["Monday", "Tuesday", "Wednesday"], "beginner")
    assert method == "push_pull_legs"
    assert foci == ["Push", "Pull", "Legs"]
    spaced, foci = assign_foci("full_body", ["Monday", "Wednesday", "Friday"], "beginner")
    assert spaced == "full_body" and foci == ["Full Body A", "Full Body B", "Full Body C"]


@pytest.mark.parametrize(
    ("weeks", "layout", "deloads"),
    [
        (4, [(1, 4)], [4]),
        (6, [(1, 6)], [6]),
        (7, [(1, 4), (5, 7)], [4]),
        (12, [(1, 4), (5, 8), (9, 12)], [4, 8, 12]),
        (13, [(1, 5), (6, 9), (10, 13)], [5, 9, 13]),
        (16, [(1, 4), (5, 8), (9, 12), (13, 16)], [4, 8, 12, 16]),
    ],
)
def test_deloads_come_every_four_to_six_weeks(
    weeks: int, layout: list[tuple[int, int]], deloads: list[int]
) -> None:
    """Surveyed strength and physique athletes deload every 5.6 +/- 2.3 weeks (Rogerson et al. 2024,
    Sports Med Open 10:26): each phase of 4-6 weeks ends in one; a 7-week plan's last 3 weeks need none."""
    assert phase_layout(weeks) == layout
    plan = build_plan(inputs(weeks=weeks))
    assert plan.deload_weeks == deloads
    assert validate_plan(plan, inputs(weeks=weeks)) == []


def test_a_12_week_upper_lower_plan_for_four_days() -> None:
    given = inputs()
    plan = build_plan(given)
    assert plan.methodology == "upper_lower"
    assert len(plan.microcycles) == 3
    assert plan.deload_weeks == [4, 8, 12]
    for cycle in plan.microcycles:
        assert [d.weekday for d in cycle.weekly_pattern] == ["Monday", "Tuesday", "Thursday", "Friday"]
        assert [d.focus for d in cycle.weekly_pattern] == ["Upper A", "Lower A", "Upper B", "Lower B"]
        for day in cycle.weekly_pattern:
            assert day_minutes(day.slots) <= given.session_minutes
    main_ranges = [(s.rep_low, s.rep_high) for c in plan.microcycles for s in c.weekly_pattern[0].slots[:1]]
    assert main_ranges == [(8, 12), (6, 8), (5, 5)]
    assert validate_plan(plan, given) == []


def test_only_available_equipment_and_nothing_an_injury_rules_out() -> None:
    given = inputs(
        equipment=["dumbbell", "bench"],
        preferences=[{"type": "injury", "description": "Bad left shoulder"}],
    )
    plan = build_plan(given)
    catalog = load_catalog()
    for cycle in plan.microcycles:
        for day in cycle.weekly_pattern:
            for slot in day.slots:
                entry = catalog.get(slot.exercise)
                assert entry is not None
                assert not missing_equipment(entry.equipment, {"dumbbell", "bench"})
                assert entry.share_of("Shoulders") == 0
    assert "shoulders" in plan.philosophy
    assert validate_plan(plan, given) == []


def test_bodyweight_only_user_gets_a_plan_that_says_so() -> None:
    given = inputs(
        equipment=["bodyweight"], experience="beginner", training_days=["Monday", "Wednesday", "Friday"]
    )
    plan = build_plan(given)
    assert plan.methodology == "full_body"
    assert "bodyweight" in plan.philosophy
    assert validate_plan(plan, given) == []


def test_markdown_has_every_section_a_plan_requires() -> None:
    plan = build_plan(inputs())
    markdown = render_plan_markdown(plan)
    assert markdown.startswith("# 12-Week Upper/Lower Strength Plan\n")
    assert required_sections(markdown, 3) == []
    assert markdown.count("## Microcycle") == 3
    assert markdown.count("### Weekly Pattern") == 3
    assert "## Modification History\n- 2 March 2026: Plan created" in markdown
    assert "**Rest: Wednesday, Saturday, Sunday**" in markdown
    assert "_" not in markdown.split("## Program Philosophy")[1]


def test_required_sections_fail_on_a_bad_markdown() -> None:
    bad = "## Program Philosophy\nx\n## Microcycle 1\n## Microcycle 2\n### Weekly Pattern\n"
    errors = required_sections(bad, 3)
    assert "the plan needs a title line starting with '# '" in errors
    assert "missing section '## Modification History'" in errors
    assert "needs at least 3 microcycles, has 2" in errors
    assert "every microcycle needs its '### Weekly Pattern'" in errors


def test_validators_fail_on_bad_plans() -> None:
    given = inputs()
    plan = build_plan(given)
    two_cycles = plan.model_copy(
        update={"microcycles": [plan.microcycles[0], plan.microcycles[1].model_copy(update={"end_week": 12})]}
    )
    assert min_microcycles(two_cycles, given) == ["a 12-week plan needs at least 3 microcycles, has 2"]
    no_deloads = plan.model_copy(
        update={"microcycles": [c.model_copy(update={"deload_weeks": []}) for c in plan.microcycles]}
    )
    assert deloads_present(no_deloads, given) == ["the plan has no deload week"]
    late = plan.model_copy(
        update={
            "microcycles": [
                c.model_copy(update={"deload_weeks": [12] if c.number == 3 else []}) for c in plan.microcycles
            ]
        }
    )
    assert deloads_present(late, given) == ["weeks 1-6 go more than 5 weeks without a deload"]
    other_days = inputs(training_days=["Monday", "Wednesday", "Friday", "Saturday"])
    errors = training_days_match(plan, other_days)
    assert errors[0].startswith("the plan trains on Monday, Tuesday, Thursday, Friday")
    home = inputs(equipment=["dumbbell"])
    errors = equipment_available(plan, home)
    assert any("Barbell Bench Press - Medium Grip needs barbell, bench" in e for e in errors)
    injured = inputs(preferences=[{"type": "injury", "description": "knee pain"}])
    assert any("conflicts with: knee pain" in e for e in equipment_available(plan, injured))


def test_a_models_draft_is_repaired_where_it_breaks_a_hard_rule() -> None:
    given = inputs(equipment=["dumbbell", "bench"])
    draft = draft_plan(inputs())
    data = draft.model_dump()
    data["microcycles"][0]["weekly_pattern"][0]["slots"][0]["exercise"] = "Barbell Bench Press - Medium Grip"
    data["microcycles"][0]["weekly_pattern"][0]["slots"][1]["exercise"] = "Imaginary Super Row"
    data["microcycles"][0]["weekly_pattern"][0]["slots"][0]["rep_low"] = 7
    plan = finalize_plan(PlanDraft.model_validate(data), given)
    first = plan.microcycles[0].weekly_pattern[0].slots
    assert first[0].exercise != "Barbell Bench Press - Medium Grip" and first[0].muscle == "Chest"
    assert "dumbbell" in first[0].equipment
    assert first[1].exercise in {e.name for e in load_catalog().entries} and first[1].muscle == "Back"
    assert (first[0].rep_low, first[0].rep_high) == (6, 8)
    assert equipment_available(plan, given) == []


def test_a_draft_on_the_wrong_days_fails_validation() -> None:
    given = inputs()
    data = draft_plan(given).model_dump()
    data["microcycles"][1]["weekly_pattern"][0]["weekday"] = "Sunday"
    plan = finalize_plan(PlanDraft.model_validate(data), given)
    assert training_days_match(plan, given) == [
        "microcycle 2's weekly pattern trains on Sunday, Tuesday, Thursday, Friday; it must be Monday, "
        "Tuesday, Thursday, Friday"
    ]


def test_goal_weights_shape_the_plan() -> None:
    glutes = build_plan(inputs(muscle_goals={"Glutes": 70.0, "Chest": 30.0}))
    lower = next(d for d in glutes.microcycles[0].weekly_pattern if d.focus == "Lower A")
    assert "Glutes" in [s.muscle for s in lower.slots]
    endurance = build_plan(inputs(category_goals={"Endurance": 70.0, "Strength": 30.0}, session_minutes=75))
    assert any(
        s.role == "conditioning" and s.kind == "duration"
        for d in endurance.microcycles[0].weekly_pattern
        for s in d.slots
    )


def test_short_sessions_keep_the_main_lifts() -> None:
    given = inputs(session_minutes=25)
    plan = build_plan(given)
    for day in plan.microcycles[0].weekly_pattern:
        assert day.slots[0].role == "main"
        assert day_minutes(day.slots) <= 25 * 1.1
    assert validate_plan(plan, given) == []


def test_no_exercise_at_all_is_a_plan_error() -> None:
    everything = (
        "chest back shoulders biceps triceps abs lower back quads hamstrings glutes calves traps "
        "abductors adductors forearms neck"
    )
    given = inputs(preferences=[{"type": "injury", "description": everything}], equipment=["bodyweight"])
    with pytest.raises(PlanError, match="No exercise fits"):
        build_plan(given)


def test_modifications_are_recorded_in_the_history() -> None:
    plan = record_modification(build_plan(inputs()), date(2026, 3, 9), "Week 2 rebuilt for a hotel gym.")
    markdown = render_plan_markdown(plan)
    assert markdown.rstrip().endswith("- 9 March 2026: Week 2 rebuilt for a hotel gym.")
    assert len(plan.modification_history) == 2
