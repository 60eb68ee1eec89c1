-- Issue 18 items 6 and 8.
-- Effort per set: the RPE of each set as logged (a set given as reps in reserve is stored as 10 - RIR);
-- `rpe` stays the top (hardest) set's, for readers that use one value per entry.
ALTER TABLE workout_history
    ADD COLUMN rpe_each numeric[]
        CHECK (rpe_each IS NULL OR (cardinality(rpe_each) BETWEEN 1 AND 100
                                    AND 1 <= ALL (rpe_each) AND 10 >= ALL (rpe_each)));

-- Milestones keep every number of their target: "5 km under 30 minutes" (a time limit on a distance),
-- "bench 100 kg for 5 reps" (reps at a load).
ALTER TABLE milestone_goals
    ADD COLUMN time_limit_min numeric CHECK (time_limit_min > 0 AND time_limit_min <= 100000),
    ADD COLUMN target_reps integer CHECK (target_reps BETWEEN 1 AND 10000);
