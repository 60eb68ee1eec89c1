"""The chat turn's budget is the shared usage limits (trainer.services.usage_limits)."""

from trainer.services.usage_limits import BudgetExceeded, Reservation, UsageLimits

__all__ = ["BudgetExceeded", "Reservation", "UsageLimits"]
