"""When fatigue calls for a deload before the plan's calendar does (docs/training-model.md#deloads):
athletes deload on a schedule and also when performance stalls or soreness and aches build up
(Rogerson et al. 2024, Sports Med Open 10:26), so a week becomes a deload when

- POOR_CHECK_INS readiness check-ins of the last week point to less than a full day's training
  (trainer.domain.readiness.assess: "reduce" or worse), or
- STALLED_LIFTS of the lifts trained lately, and at least a third of them, missed their range two
  sessions in a row (the progression's own deload rule, trainer.domain.progression).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trainer.domain.readiness import CheckIn, assess

POOR_CHECK_INS = 2
STALLED_LIFTS = 2


def fatigue_reason(
    check_ins: Iterable[Mapping[str, Any]], stalled: Sequence[str], trained: int
) -> str | None:
    """Why this week should be a deload, in words a user reads; None when nothing says so."""
    poor = [a for a in (assess(CheckIn.from_row(c)) for c in check_ins) if a.level != "ready"]
    if len(poor) >= POOR_CHECK_INS:
        signs = sorted({r for a in poor for r in a.reasons})[:3]
        said = f" ({', '.join(signs)})" if signs else ""
        return f"{len(poor)} of your check-ins this past week said you're run down{said}"
    if len(stalled) >= STALLED_LIFTS and 3 * len(stalled) >= trained:
        names = ", ".join(stalled[:3])
        return f"reps fell short two sessions running on {len(stalled)} lifts ({names})"
    return None
