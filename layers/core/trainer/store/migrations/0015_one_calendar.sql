-- One calendar: the active training plan's days and the workouts scheduled on the
-- calendar are read as one set of entries with one set of ids (`calendar_entries`); a plan day keeps its
-- `plan_workouts` id wherever it is moved, a calendar workout its `scheduled_workouts` id (both are
-- gen_random_uuid(), so an id names one entry). Writes go to the table the id belongs to
-- (trainer.services.schedule).
--
-- Missed sessions (item 2): a planned training day that passed with nothing logged becomes `missed`
-- (the daily run), once; what was changed for it is written in the notes of the days it changed.
--
-- Moving a plan day onto another day of its plan exchanges the two rows' dates in one statement: the
-- (plan_id, date) uniqueness is checked at the end of that statement, not row by row.
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum 0809d3567f905bc4090543ee7227da0c6c524e4e236713faeecda5a9e97b809d

ALTER TABLE plan_workouts DROP CONSTRAINT plan_workouts_status_check;
ALTER TABLE plan_workouts ADD CONSTRAINT plan_workouts_status_check
    CHECK (status IN ('scheduled', 'completed', 'skipped', 'missed'));

ALTER TABLE plan_workouts DROP CONSTRAINT plan_workouts_plan_id_date_key;
ALTER TABLE plan_workouts ADD CONSTRAINT plan_workouts_plan_id_date_key
    UNIQUE (plan_id, date) DEFERRABLE INITIALLY IMMEDIATE;

-- The daily run's cross-user read of training days still scheduled (the ones that may have passed).
CREATE INDEX plan_workouts_scheduled_training_idx ON plan_workouts (date, user_id)
    WHERE status = 'scheduled' AND kind = 'training';

CREATE VIEW calendar_entries AS
SELECT
    w.id,
    w.user_id,
    'plan'::text AS source,
    w.plan_id,
    w.week_number,
    w.date,
    (w.date::timestamp AT TIME ZONE p.timezone) AS scheduled_date,
    w.kind,
    coalesce(w.focus, w.workout ->> 'title', CASE WHEN w.kind = 'rest' THEN 'Rest day' ELSE 'Workout' END)
        AS workout_type,
    CASE WHEN jsonb_typeof(w.workout -> 'summary' -> 'estimated_duration_min') = 'number'
        THEN round((w.workout -> 'summary' ->> 'estimated_duration_min')::numeric)::integer END
        AS duration_minutes,
    CASE WHEN jsonb_array_length(w.notes) > 0 THEN array_to_string(ARRAY(
        SELECT jsonb_array_elements_text(w.notes)), ' ') END AS notes,
    coalesce(w.workout -> 'exercises', '[]'::jsonb) AS exercises,
    w.status,
    w.created_at,
    w.updated_at
FROM plan_workouts w
JOIN training_plans p ON p.id = w.plan_id AND p.user_id = w.user_id AND p.active
UNION ALL
SELECT
    s.id,
    s.user_id,
    'calendar'::text AS source,
    s.plan_id,
    NULL::integer AS week_number,
    (s.scheduled_date AT TIME ZONE coalesce(u.timezone, 'UTC'))::date AS date,
    s.scheduled_date,
    'training'::text AS kind,
    s.workout_type,
    s.duration_minutes,
    s.notes,
    s.exercises,
    s.status,
    s.created_at,
    s.updated_at
FROM scheduled_workouts s
LEFT JOIN user_settings u ON u.user_id = s.user_id;
