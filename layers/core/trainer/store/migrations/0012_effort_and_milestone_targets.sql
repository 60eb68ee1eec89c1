-- Effort per logged set and targets on milestones.
-- Effort per set: the RPE of each set as logged (a set given as reps in reserve is stored as 10 - RIR);
-- `rpe` stays the top (hardest) set's, for readers that use one value per entry.
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum ab7511164e291ae5990ff87207f45d8a27049ba9a08fd1480e6a940e096bd816
ALTER TABLE workout_history
    ADD COLUMN rpe_each numeric[]
        CHECK (rpe_each IS NULL OR (cardinality(rpe_each) BETWEEN 1 AND 100
                                    AND 1 <= ALL (rpe_each) AND 10 >= ALL (rpe_each)));

-- Milestones keep every number of their target: "5 km under 30 minutes" (a time limit on a distance),
-- "bench 100 kg for 5 reps" (reps at a load).
ALTER TABLE milestone_goals
    ADD COLUMN time_limit_min numeric CHECK (time_limit_min > 0 AND time_limit_min <= 100000),
    ADD COLUMN target_reps integer CHECK (target_reps BETWEEN 1 AND 10000);
