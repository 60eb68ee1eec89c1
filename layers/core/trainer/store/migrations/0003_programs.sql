-- Training programs (docs/programs.md): a plan (markdown and structured JSON, with a status the app
-- polls), its weeks (one row per built week: the idempotency key of a week's build), and the planned
-- days (a structured workout or recovery notes, with the cached text message).
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum ea835fa92a0eb3994100894baf3e446aa5cfe6c8e742d6836014a2b993085a8b

CREATE TABLE training_plans (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
    error            text CHECK (char_length(error) <= 2000),
    title            text CHECK (char_length(btrim(title)) BETWEEN 1 AND 120),
    weeks            integer NOT NULL CHECK (weeks BETWEEN 4 AND 16),
    days_per_week    integer NOT NULL CHECK (days_per_week BETWEEN 1 AND 7),
    session_minutes  integer NOT NULL CHECK (session_minutes BETWEEN 15 AND 180),
    training_days    text[] NOT NULL CHECK (
        training_days <@ ARRAY['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
        AND cardinality(training_days) = days_per_week
    ),
    start_date       date NOT NULL,
    timezone         text NOT NULL DEFAULT 'UTC' CHECK (char_length(timezone) BETWEEN 1 AND 64),
    request          jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(request) = 'object'),
    markdown         text CHECK (char_length(markdown) <= 100000),
    plan             jsonb CHECK (plan IS NULL OR jsonb_typeof(plan) = 'object'),
    active           boolean NOT NULL DEFAULT false,
    next_week        integer CHECK (next_week BETWEEN 1 AND 17),
    next_week_due_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK (status <> 'ready' OR (markdown IS NOT NULL AND plan IS NOT NULL AND title IS NOT NULL)),
    CHECK (NOT active OR status = 'ready'),
    UNIQUE (id, user_id)
);
CREATE UNIQUE INDEX training_plans_one_active_uq ON training_plans (user_id) WHERE active;
CREATE INDEX training_plans_user_created_idx ON training_plans (user_id, created_at DESC);
-- The hourly scheduler reads only the plans whose next week is due: O(users due), not O(users).
CREATE INDEX training_plans_next_week_due_idx ON training_plans (next_week_due_at)
    WHERE active AND next_week_due_at IS NOT NULL;

CREATE TABLE plan_weeks (
    plan_id     uuid NOT NULL,
    user_id     uuid NOT NULL,
    week_number integer NOT NULL CHECK (week_number BETWEEN 1 AND 16),
    status      text NOT NULL DEFAULT 'building' CHECK (status IN ('building', 'ready', 'failed')),
    deload      boolean NOT NULL DEFAULT false,
    start_date  date NOT NULL,
    error       text CHECK (char_length(error) <= 2000),
    attempts    integer NOT NULL DEFAULT 1 CHECK (attempts >= 1),
    claimed_at  timestamptz NOT NULL DEFAULT now(),
    built_at    timestamptz,
    PRIMARY KEY (plan_id, week_number),
    FOREIGN KEY (plan_id, user_id) REFERENCES training_plans (id, user_id) ON DELETE CASCADE,
    CHECK ((status = 'ready') = (built_at IS NOT NULL))
);

CREATE TABLE plan_workouts (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    plan_id        uuid NOT NULL,
    week_number    integer NOT NULL,
    date           date NOT NULL,
    weekday        text NOT NULL CHECK (
        weekday IN ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday')
    ),
    kind           text NOT NULL CHECK (kind IN ('training', 'rest')),
    focus          text CHECK (char_length(focus) <= 60),
    workout        jsonb CHECK (workout IS NULL OR jsonb_typeof(workout) = 'object'),
    notes          jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(notes) = 'array'),
    recovery_notes text CHECK (char_length(recovery_notes) <= 2000),
    message        text CHECK (char_length(message) <= 1600),
    published_at   timestamptz,
    status         text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'completed', 'skipped')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (plan_id, date),
    CHECK ((kind = 'training') = (workout IS NOT NULL)),
    FOREIGN KEY (plan_id, week_number) REFERENCES plan_weeks (plan_id, week_number) ON DELETE CASCADE,
    FOREIGN KEY (plan_id, user_id) REFERENCES training_plans (id, user_id) ON DELETE CASCADE
);
CREATE INDEX plan_workouts_user_date_idx ON plan_workouts (user_id, date);
