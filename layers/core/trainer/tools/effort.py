"""How hard the sets of a logged exercise felt: RPE (1-10) or reps in reserve, for the hardest set or
per set, as the logging tools take them and history stores them (RPE = 10 - RIR)."""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import BaseModel, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from trainer.domain.workout import STRICT_NUMBERS

Rpe = Annotated[float, Field(ge=1, le=10)]
Rir = Annotated[float, Field(ge=0, le=9)]
RPE_HELP = "Effort of the hardest set, RPE 1-10"
RPE_EACH_HELP = "RPE of each set (one value: every set)"


def effort_fields(
    rpe: float | None = None,
    rpe_each: list[float] | None = None,
    rir: float | None = None,
    rir_each: list[float] | None = None,
) -> dict[str, Any]:
    """{rpe, rpe_each} from an effort given as RPE or reps in reserve (RPE = 10 - RIR), overall or per
    set; the entry's `rpe` is the hardest set's unless given. ValueError when both forms are given."""
    if rpe is not None and rir is not None:
        raise ValueError("give rpe or rir, not both")
    if rpe_each and rir_each:
        raise ValueError("give rpe_each or rir_each, not both")
    each = list(rpe_each) if rpe_each else [10 - v for v in rir_each] if rir_each else None
    top = rpe if rpe is not None else (10 - rir if rir is not None else None)
    if each is not None and top is not None and top != max(each):
        raise ValueError("the overall effort is the hardest set's: it must equal the highest per-set RPE")
    if top is None and each:
        top = max(each)
    return {"rpe": top, "rpe_each": each}


class EffortIn(BaseModel):
    """How hard the sets felt: RPE or reps in reserve, for the hardest set or per set."""

    model_config = STRICT_NUMBERS
    rpe: float | None = Field(default=None, ge=1, le=10, description=RPE_HELP)
    rpe_each: list[Rpe] | None = Field(default=None, min_length=1, max_length=20, description=RPE_EACH_HELP)
    rir: SkipJsonSchema[float | None] = Field(default=None, ge=0, le=9)
    """Reps in reserve of the hardest set, instead of rpe. Accepted, but not in the schema the model is
    sent: the system prompt states RPE = 10 - RIR once, for every logging tool."""
    rir_each: SkipJsonSchema[list[Rir] | None] = Field(default=None, min_length=1, max_length=20)
    """Reps in reserve of each set, instead of rpe_each (accepted, not in the model's schema)."""

    @model_validator(mode="after")
    def _one_effort_form(self) -> Self:
        effort_fields(self.rpe, self.rpe_each, self.rir, self.rir_each)
        return self

    def effort(self) -> dict[str, Any]:
        return effort_fields(self.rpe, self.rpe_each, self.rir, self.rir_each)


EFFORT_FIELDS = {"rpe", "rpe_each", "rir", "rir_each"}
