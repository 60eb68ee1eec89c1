-- Readiness check-ins: how the user slept and feels before training. Every field
-- but the time is optional (a check-in may say only "slept 5 hours"); scales: sleep quality and energy
-- 1 (worst) - 5 (best), stress 1 (calm) - 5 (very stressed), soreness 0-5 per canonical muscle, the
-- last session's RPE 1-10. The newest entry of the day adjusts that day's workout (trainer.domain.readiness).
-- Locations keep their plates, bar and dumbbells as equipment items with weights (user_locations.equipment).
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum 4b38d7fe3a7ae020b6aa2c331bb17e3556b0598a0016cb4700d0c56109f915b0

CREATE TABLE readiness_entries (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    recorded_at      timestamptz NOT NULL DEFAULT now(),
    sleep_hours      numeric(4, 2) CHECK (sleep_hours BETWEEN 0 AND 24),
    sleep_quality    smallint CHECK (sleep_quality BETWEEN 1 AND 5),
    energy           smallint CHECK (energy BETWEEN 1 AND 5),
    stress           smallint CHECK (stress BETWEEN 1 AND 5),
    soreness         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(soreness) = 'object'),
    last_session_rpe numeric(3, 1) CHECK (last_session_rpe BETWEEN 1 AND 10),
    notes            text CHECK (char_length(notes) <= 500),
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX readiness_entries_user_idx ON readiness_entries (user_id, recorded_at DESC);
