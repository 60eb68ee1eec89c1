-- The program pipeline's triggers (docs/programs.md): a plan build is claimed once, plans left pending are found
-- again, and the morning run reads only the plans in the zones whose local time is the morning hour.
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum 4e6818cc8318f351ac2d2cd82ee08ed782346df658d3587029cce5f4527c9f17

-- Set by the builder that claimed a pending plan; a claim older than the stale limit can be taken over.
ALTER TABLE training_plans ADD COLUMN build_claimed_at timestamptz;
-- The hourly run requests again the plans left pending (a lost event, a builder that died): few rows.
CREATE INDEX training_plans_pending_idx ON training_plans (created_at) WHERE status = 'pending';

-- The hourly morning run: active plans by zone (then plan_workouts by its unique (plan_id, date)), so a
-- run reads the users whose morning it is, never every user.
CREATE INDEX training_plans_active_timezone_idx ON training_plans (timezone) WHERE active;
