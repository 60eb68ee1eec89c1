"""The training plan: methodology.py lays it out (methodology, day foci and slots, phases ending in a
deload), slots.py sets each slot's numbers, draft.py is the offline drafter (what a model would
answer), finalize.py turns any draft into the plan, render.py writes it as markdown and checks.py
holds the validators a plan must pass."""
