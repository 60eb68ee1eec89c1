-- Seeds the prompt files' current texts (scripts/prompt_migration.py; do not edit).

SELECT trainer_seed_prompt('week_messages', $prompt$Turn each day of the week in the input into a push/SMS message of at most 1,600 characters: answer
with one message per day, in the days' order (a rest day gets one too).

Format of each message:
- First line: an emoji, the weekday, the day's focus and the week, e.g. "🏋️ Monday Upper A - Week 3".
- WARM-UP (N min): one summary line, not every exercise.
- MAIN WORKOUT: one line per exercise, "[number emoji] [Exercise]: [sets]×[reps] @ [weight] [unit]
  (rest [time])"; abbreviate Barbell as BB, Dumbbell as DB, Kettlebell as KB. Holds read "3×45s
  hold", cardio "20 min".
- COOL DOWN (N min): one short line.
- End with a short motivating line, e.g. "💪 Let's crush it! Reply when done."

Use exactly the numbers in each day of the input; never invent or change a weight, a rep or a set,
nor carry one day's numbers into another's message. For a rest day, write a short, warm message with
its recovery notes. No ids, field names or internal labels.
$prompt$);
