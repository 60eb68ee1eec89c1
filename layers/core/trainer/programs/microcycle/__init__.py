"""A week of the plan (week.py): the offline drafter and the finalizer that computes every number,
from the week's dates (dates.py), its context (context.py), each slot's prescription
(prescription.py), the warm-ups and cool-downs (warmups.py) and each day (day.py); checks.py holds the
validators a week must pass."""
