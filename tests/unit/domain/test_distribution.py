import pytest
from hypothesis import given
from hypothesis import strategies as st
from trainer.domain.distribution import (
    add_shares,
    distribution_report,
    exercise_increments,
    normalise_weights,
    remove_shares,
)


def test_debt_is_target_minus_actual_sorted_descending() -> None:
    rows = distribution_report(
        {"Strength": 60, "Cardio": 40}, {"Strength": 9.0, "Cardio": 1.0, "Mobility": 2.0}
    )
    by_name = {r.name: r for r in rows}
    assert by_name["Strength"].target == pytest.approx(0.6)
    assert by_name["Strength"].actual == pytest.approx(0.75)
    assert by_name["Strength"].debt == pytest.approx(-0.15)
    assert by_name["Cardio"].debt == pytest.approx(0.4 - 1 / 12)
    assert by_name["Mobility"].target == 0 and by_name["Mobility"].debt == pytest.approx(-1 / 6)
    assert [r.name for r in rows] == ["Cardio", "Strength", "Mobility"]


def test_no_history_means_debt_equals_target() -> None:
    rows = distribution_report({"Chest": 1, "Back": 3}, {})
    assert [(r.name, r.debt) for r in rows] == [("Back", 0.75), ("Chest", 0.25)]


def test_add_then_remove_restores_totals_and_never_goes_negative() -> None:
    muscles, goals = exercise_increments(
        {
            "muscles": [{"muscle": "Chest", "share": 0.7}, {"muscle": "Triceps", "share": 0.3}],
            "goals": [{"goal": "Strength", "share": 1.0}],
        }
    )
    totals = add_shares({"Chest": 1.0}, muscles)
    assert totals == pytest.approx({"Chest": 1.7, "Triceps": 0.3})
    assert remove_shares(totals, muscles) == pytest.approx({"Chest": 1.0})
    assert remove_shares({}, goals) == {}


@given(
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.floats(0.01, 100), min_size=1),
    st.dictionaries(st.sampled_from(["a", "b", "c", "e"]), st.floats(0.01, 100)),
)
def test_targets_and_actuals_are_fractions_and_debts_sum_to_zero(
    targets: dict[str, float], totals: dict[str, float]
) -> None:
    rows = distribution_report(targets, totals)
    assert sum(r.target for r in rows) == pytest.approx(1.0)
    if totals:
        assert sum(r.actual for r in rows) == pytest.approx(1.0)
        assert sum(r.debt for r in rows) == pytest.approx(0.0, abs=1e-9)
    assert [r.debt for r in rows] == sorted((r.debt for r in rows), reverse=True)


def test_normalise_drops_non_positive() -> None:
    assert normalise_weights({"a": 0, "b": -1, "c": 2}) == {"c": 1.0}
