"""Timer phases for exercises and workouts (the timer format: docs/architecture.md#tools).

Rep-based sets are timed by estimate: SECONDS_PER_REP per rep. Every timer starts with a short
'get ready' transition, and there is never a rest after the last set or round. Grouped exercises
(circuits, supersets, ...) become one timer: each round goes through the members in order, with a
short transition between members and `rest_between_rounds_sec` between rounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from trainer.domain.workout import Exercise, _num

PhaseType = Literal["work", "rest", "hold", "transition"]

SECONDS_PER_REP = 3
SETUP_SEC = 10
TRANSITION_SEC = 5


@dataclass(frozen=True, slots=True)
class TimerPhase:
    phase_type: PhaseType
    duration_sec: int
    cue: str
    detail: str
    countdown: bool
    set_number: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "phase_type": self.phase_type,
            "duration_sec": self.duration_sec,
            "cue": self.cue,
            "detail": self.detail,
            "countdown": self.countdown,
        }
        if self.set_number is not None:
            data["set_number"] = self.set_number
        return data


@dataclass(frozen=True, slots=True)
class Timer:
    exercise_name: str
    exercise_type: str
    phases: tuple[TimerPhase, ...] = field(default_factory=tuple)

    @property
    def total_duration_sec(self) -> int:
        return sum(p.duration_sec for p in self.phases)

    def to_dict(self) -> dict[str, Any]:
        return {
            "exercise_name": self.exercise_name,
            "exercise_type": self.exercise_type,
            "total_duration_sec": self.total_duration_sec,
            "phases": [p.to_dict() for p in self.phases],
        }


@dataclass(frozen=True, slots=True)
class _Spec:
    """What a timer needs from an exercise, from a validated Exercise or a loose dict."""

    name: str
    kind: str
    sets: int = 1
    reps: tuple[int, ...] = ()
    holds: tuple[int, ...] = ()
    loads: tuple[float, ...] = ()
    load_unit: str | None = None
    rest_sec: int = 0
    duration_sec: int = 0
    distance: str = ""
    rounds: int = 1
    work_sec: int = 0

    def per_set(self, values: tuple[int, ...], index: int) -> int:
        return values[min(index, len(values) - 1)]


def _positive_int(data: Mapping[str, Any], *keys: str, default: int | None = None, minimum: int = 1) -> int:
    for key in keys:
        value = data.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
                raise ValueError(f"'{key}' must be a number >= {minimum}")
            return round(value)
    if default is None:
        raise ValueError(f"'{keys[0]}' is required for a timer")
    return default


def _int_list(data: Mapping[str, Any], key: str, sets: int) -> tuple[int, ...]:
    value = data.get(key)
    if value is None:
        raise ValueError(f"'{key}' is required for a timer")
    values = [value] * sets if isinstance(value, int | float) else list(value)
    if not values or any(isinstance(v, bool) or not isinstance(v, int | float) or v <= 0 for v in values):
        raise ValueError(f"'{key}' must be positive numbers")
    return tuple(round(v) for v in values)


def _spec(exercise: Exercise | Mapping[str, Any]) -> _Spec:
    data: Mapping[str, Any] = exercise.model_dump() if isinstance(exercise, Exercise) else exercise
    name = str(data.get("exercise_name") or data.get("name") or "").strip()
    if not name:
        raise ValueError("a timer needs an exercise name")
    kind = data.get("exercise_type") or data.get("type")
    if kind not in ("reps", "hold", "duration", "intervals"):
        raise ValueError(f"exercise_type must be reps, hold, duration or intervals, got {kind!r}")
    rest = _positive_int(data, "rest_sec", "rest_seconds", default=0, minimum=0)
    if kind in ("reps", "hold"):
        sets = _positive_int(data, "sets", default=None if kind == "reps" and data.get("reps") is None else 0)
        values = _int_list(data, "reps" if kind == "reps" else "hold_sec", max(sets, 1))
        sets = sets or len(values)
        loads = tuple(float(v) for v in data.get("load_each") or ([data["load"]] if data.get("load") else []))
        return _Spec(
            name=name,
            kind=kind,
            sets=sets,
            reps=values if kind == "reps" else (),
            holds=values if kind == "hold" else (),
            loads=loads,
            load_unit=data.get("load_unit"),
            rest_sec=rest,
        )
    if kind == "duration":
        minutes = data.get("duration_min")
        if minutes is None and data.get("work_duration_seconds"):
            minutes = float(data["work_duration_seconds"]) / 60
        if not isinstance(minutes, int | float) or isinstance(minutes, bool) or minutes <= 0:
            raise ValueError("'duration_min' must be a positive number")
        distance = (
            f"{_num(data['distance'])} {data.get('distance_unit') or ''}".strip()
            if data.get("distance")
            else ""
        )
        pace = f" @ {data['target_pace']}" if data.get("target_pace") else ""
        return _Spec(
            name=name, kind=kind, duration_sec=max(1, round(float(minutes) * 60)), distance=distance + pace
        )
    rounds = _positive_int(data, "rounds")
    work = _positive_int(data, "work_sec", "work_duration_seconds")
    return _Spec(name=name, kind=kind, rounds=rounds, work_sec=work, rest_sec=rest)


def _load_text(spec: _Spec, index: int) -> str:
    if not spec.loads:
        return ""
    load = spec.loads[min(index, len(spec.loads) - 1)]
    return f" at {_num(load)}{spec.load_unit or ''}" if load > 0 else ""


def _set_phase(spec: _Spec, index: int, label: str) -> TimerPhase:
    """The work (or hold) phase of set `index` (0-based)."""
    if spec.kind == "reps":
        reps = spec.per_set(spec.reps, index)
        return TimerPhase(
            "work",
            max(1, reps * SECONDS_PER_REP),
            f"{spec.name} - {label}",
            f"{reps} reps{_load_text(spec, index)}",
            False,
            index + 1,
        )
    hold = spec.per_set(spec.holds, index)
    return TimerPhase("hold", hold, f"{spec.name} - {label}", f"Hold {hold}s", True, index + 1)


def _rounds_phases(spec: _Spec) -> list[TimerPhase]:
    phases: list[TimerPhase] = []
    for i in range(spec.rounds):
        phases.append(
            TimerPhase(
                "work",
                spec.work_sec,
                f"{spec.name} - Round {i + 1} of {spec.rounds}",
                f"Work {spec.work_sec}s",
                True,
                i + 1,
            )
        )
        if i < spec.rounds - 1 and spec.rest_sec > 0:
            phases.append(
                TimerPhase(
                    "rest", spec.rest_sec, "Rest", f"Next: round {i + 2} of {spec.rounds}", True, i + 1
                )
            )
    return phases


def _duration_phase(spec: _Spec) -> TimerPhase:
    minutes = _num(round(spec.duration_sec / 60, 2))
    detail = f"{minutes} min" + (f", {spec.distance}" if spec.distance else "")
    return TimerPhase("work", spec.duration_sec, spec.name, detail, True)


def _setup(name: str, detail: str) -> TimerPhase:
    return TimerPhase("transition", SETUP_SEC, f"Get ready: {name}", detail, True)


def _overview(spec: _Spec) -> str:
    match spec.kind:
        case "reps":
            reps = sorted(set(spec.reps))
            shown = str(reps[0]) if len(reps) == 1 else f"{reps[0]}-{reps[-1]}"
            return f"{spec.sets} sets of {shown} reps"
        case "hold":
            return f"{spec.sets} holds"
        case "intervals":
            return f"{spec.rounds} rounds of {spec.work_sec}s on / {spec.rest_sec}s off"
    return f"{_num(round(spec.duration_sec / 60, 2))} min"


def exercise_timer(exercise: Exercise | Mapping[str, Any]) -> Timer:
    """Timer for one exercise on its own (its group, if any, is ignored). Raises ValueError with
    a readable message when a loose dict lacks what the timer needs."""
    spec = _spec(exercise)
    phases = [_setup(spec.name, _overview(spec))]
    if spec.kind in ("reps", "hold"):
        for i in range(spec.sets):
            phases.append(_set_phase(spec, i, f"Set {i + 1}"))
            if i < spec.sets - 1 and spec.rest_sec > 0:
                phases.append(
                    TimerPhase(
                        "rest", spec.rest_sec, "Rest", f"Next: set {i + 2} of {spec.sets}", True, i + 1
                    )
                )
    elif spec.kind == "intervals":
        phases.extend(_rounds_phases(spec))
    else:
        phases.append(_duration_phase(spec))
    return Timer(spec.name, spec.kind, tuple(phases))


def _group_timer(members: Sequence[Exercise]) -> Timer:
    first = members[0]
    assert first.group is not None
    specs = [_spec(m) for m in members]
    set_counts = [s.sets for s in specs if s.kind in ("reps", "hold")]
    rounds = first.group.rounds or max(set_counts, default=1)
    between = first.group.rest_between_rounds_sec
    if between is None:
        between = max((s.rest_sec for s in specs), default=0)
    name = first.group.name or " + ".join(s.name for s in specs)
    phases = [
        _setup(name, f"{first.group.type.replace('_', ' ')}: {rounds} round{'s' if rounds != 1 else ''}")
    ]
    for r in range(rounds):
        for j, spec in enumerate(specs):
            if j > 0:
                phases.append(
                    TimerPhase(
                        "transition",
                        TRANSITION_SEC,
                        f"Next: {spec.name}",
                        "Move to the next exercise",
                        True,
                        r + 1,
                    )
                )
            label = f"Round {r + 1} of {rounds}"
            if spec.kind in ("reps", "hold"):
                phases.append(_set_phase(spec, min(r, spec.sets - 1), label))
            elif spec.kind == "intervals":
                phases.extend(_rounds_phases(spec))
            else:
                phases.append(_duration_phase(spec))
        if r < rounds - 1 and between > 0:
            phases.append(
                TimerPhase("rest", between, "Rest", f"Next: round {r + 2} of {rounds}", True, r + 1)
            )
    return Timer(name, first.group.type, tuple(phases))


def workout_timers(exercises: Iterable[Exercise | Mapping[str, Any]]) -> list[Timer]:
    """One timer per ungrouped exercise and one per group, in workout order."""
    items = list(exercises)
    if any(not isinstance(e, Exercise) for e in items):
        grouped = [e for e in items if isinstance(e, Mapping) and e.get("group")]
        if grouped:
            items = [Exercise.model_validate(e) if isinstance(e, Mapping) else e for e in items]
    ordered = sorted(items, key=lambda e: e.order if isinstance(e, Exercise) else int(e.get("order") or 0))
    timers: list[Timer] = []
    seen_groups: set[str] = set()
    for ex in ordered:
        if isinstance(ex, Exercise) and ex.group is not None:
            if ex.group.id in seen_groups:
                continue
            seen_groups.add(ex.group.id)
            members = sorted(
                (m for m in ordered if isinstance(m, Exercise) and m.group and m.group.id == ex.group.id),
                key=lambda m: m.group.position if m.group else 0,
            )
            timers.append(_group_timer(members))
        else:
            timers.append(exercise_timer(ex))
    return timers


def total_seconds(timers: Iterable[Timer]) -> int:
    return sum(t.total_duration_sec for t in timers)
