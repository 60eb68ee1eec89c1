-- Domain tables (docs/architecture.md). Every row belongs to one user; every child table cascades on user delete.
-- Units: loads and distances are stored exactly as logged, with their unit (load_unit, distance_unit);
-- statistics convert in code. Body weight and height are canonical (kg, cm) and converted for display.
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum ab978aea4107826414c39b03062d9045395cac7cb0496bcd19c5bb9f746585ea

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    display_name  text CHECK (char_length(display_name) BETWEEN 1 AND 120),
    sex           text CHECK (sex IN ('male', 'female', 'other')),
    birth_date    date CHECK (birth_date > DATE '1900-01-01'),
    height_cm     numeric(5, 1) CHECK (height_cm > 0 AND height_cm < 300),
    weight_kg     numeric(5, 1) CHECK (weight_kg > 0 AND weight_kg < 700),
    body_fat_pct  numeric(4, 1) CHECK (body_fat_pct >= 0 AND body_fat_pct < 100),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE user_settings (
    user_id        uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    weight_unit    text NOT NULL DEFAULT 'kg' CHECK (weight_unit IN ('kg', 'lbs')),
    distance_unit  text NOT NULL DEFAULT 'km' CHECK (distance_unit IN ('km', 'mi')),
    timezone       text NOT NULL DEFAULT 'UTC' CHECK (char_length(timezone) BETWEEN 1 AND 64),
    preferred_days text[] NOT NULL DEFAULT '{}' CHECK (
        preferred_days <@ ARRAY['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
    ),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE user_locations (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        text NOT NULL CHECK (char_length(btrim(name)) BETWEEN 1 AND 100),
    description text CHECK (char_length(description) <= 1000),
    equipment   jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(equipment) = 'array'),
    is_current  boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_locations_name_uq ON user_locations (user_id, lower(name));
CREATE UNIQUE INDEX user_locations_one_current_uq ON user_locations (user_id) WHERE is_current;

CREATE TABLE category_goals (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    category    text NOT NULL CHECK (char_length(btrim(category)) BETWEEN 1 AND 80),
    description text CHECK (char_length(description) <= 500),
    weight      numeric(6, 5) NOT NULL CHECK (weight >= 0 AND weight <= 1),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX category_goals_name_uq ON category_goals (user_id, lower(category));

CREATE TABLE muscle_goals (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    muscle     text NOT NULL CHECK (muscle IN (
        'Chest', 'Back', 'Shoulders', 'Biceps', 'Triceps', 'Abs', 'Lower Back', 'Quadriceps',
        'Hamstrings', 'Glutes', 'Calves', 'Trapezius', 'Abductors', 'Adductors', 'Forearms', 'Neck'
    )),
    weight     numeric(6, 5) NOT NULL CHECK (weight >= 0 AND weight <= 1),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, muscle)
);

CREATE TABLE preferences (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type             text NOT NULL CHECK (type IN (
        'workout', 'injury', 'time', 'equipment', 'intensity', 'muscle_group', 'exercise', 'goal',
        'recovery', 'other'
    )),
    description      text NOT NULL CHECK (char_length(btrim(description)) BETWEEN 1 AND 1000),
    guidance         text NOT NULL DEFAULT '' CHECK (char_length(guidance) <= 2000),
    expires_at       timestamptz,
    delete_after_use boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX preferences_user_idx ON preferences (user_id, created_at);

CREATE TABLE workout_history (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    performed_at  timestamptz NOT NULL DEFAULT now(),
    exercise_name text NOT NULL CHECK (char_length(btrim(exercise_name)) BETWEEN 1 AND 120),
    exercise_type text NOT NULL CHECK (exercise_type IN ('reps', 'hold', 'duration', 'intervals')),
    sets          integer CHECK (sets BETWEEN 1 AND 100),
    reps          integer[] CHECK (0 < ALL (reps)),
    load_each     numeric[] CHECK (0 <= ALL (load_each)),
    load_unit     text CHECK (load_unit IN ('kg', 'lbs')),
    hold_sec      integer[] CHECK (0 < ALL (hold_sec)),
    duration_min  numeric CHECK (duration_min > 0 AND duration_min <= 1440),
    distance      numeric CHECK (distance > 0),
    distance_unit text CHECK (distance_unit IN ('km', 'mi')),
    rounds        integer CHECK (rounds BETWEEN 1 AND 1000),
    work_sec      integer CHECK (work_sec > 0),
    rest_sec      integer CHECK (rest_sec >= 0),
    rpe           numeric(3, 1) CHECK (rpe BETWEEN 1 AND 10),
    muscles       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(muscles) = 'array'),
    goals         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(goals) = 'array'),
    session_id    text,
    workout_id    text,
    notes         text CHECK (char_length(notes) <= 2000),
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (load_each IS NULL OR load_unit IS NOT NULL),
    CHECK (distance IS NULL OR distance_unit IS NOT NULL)
);
CREATE INDEX workout_history_user_time_idx ON workout_history (user_id, performed_at DESC);

-- Running totals of muscle/goal shares so distribution debt is O(1): updated in the same transaction
-- as every history insert and delete. Names keep the first spelling seen; matching is case-insensitive.
CREATE TABLE exercise_distribution_tracking (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    dimension  text NOT NULL CHECK (dimension IN ('category', 'muscle')),
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    total      numeric NOT NULL CHECK (total >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX exercise_distribution_tracking_uq
    ON exercise_distribution_tracking (user_id, dimension, lower(name));

CREATE TABLE exercise_distribution_totals (
    user_id        uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    logged_count   bigint NOT NULL DEFAULT 0 CHECK (logged_count >= 0),
    category_total numeric NOT NULL DEFAULT 0 CHECK (category_total >= 0),
    muscle_total   numeric NOT NULL DEFAULT 0 CHECK (muscle_total >= 0),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workout_plans (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id           uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    plan_name         text NOT NULL CHECK (char_length(btrim(plan_name)) BETWEEN 1 AND 200),
    goal_description  text CHECK (char_length(goal_description) <= 2000),
    start_date        date NOT NULL,
    end_date          date NOT NULL,
    duration_weeks    integer NOT NULL CHECK (duration_weeks BETWEEN 1 AND 104),
    workouts_per_week integer CHECK (workouts_per_week BETWEEN 1 AND 14),
    preferred_days    text[] NOT NULL DEFAULT '{}' CHECK (
        preferred_days <@ ARRAY['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
    ),
    workout_types     text[] NOT NULL DEFAULT '{}',
    status            text NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'completed', 'paused', 'cancelled')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK (end_date >= start_date),
    UNIQUE (id, user_id)
);
CREATE INDEX workout_plans_user_status_idx ON workout_plans (user_id, status, start_date);

CREATE TABLE scheduled_workouts (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scheduled_date   timestamptz NOT NULL,
    workout_type     text NOT NULL CHECK (char_length(btrim(workout_type)) BETWEEN 1 AND 100),
    duration_minutes integer CHECK (duration_minutes BETWEEN 1 AND 600),
    notes            text CHECK (char_length(notes) <= 2000),
    exercises        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(exercises) = 'array'),
    status           text NOT NULL DEFAULT 'scheduled'
        CHECK (status IN ('scheduled', 'completed', 'skipped', 'cancelled')),
    plan_id          uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (plan_id, user_id) REFERENCES workout_plans (id, user_id) ON DELETE SET NULL (plan_id)
);
CREATE INDEX scheduled_workouts_user_date_idx ON scheduled_workouts (user_id, scheduled_date);

CREATE TABLE milestone_goals (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    goal_name     text NOT NULL CHECK (char_length(btrim(goal_name)) BETWEEN 1 AND 200),
    goal_type     text NOT NULL DEFAULT 'other'
        CHECK (goal_type IN ('distance', 'weight', 'reps', 'time', 'event', 'other')),
    target_value  numeric CHECK (target_value >= 0),
    target_unit   text CHECK (char_length(target_unit) <= 50),
    target_date   date,
    current_value numeric CHECK (current_value >= 0),
    status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'achieved', 'abandoned')),
    plan_id       uuid,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    achieved_at   timestamptz,
    CHECK ((status = 'achieved') = (achieved_at IS NOT NULL)),
    FOREIGN KEY (plan_id, user_id) REFERENCES workout_plans (id, user_id) ON DELETE SET NULL (plan_id)
);
CREATE INDEX milestone_goals_user_status_idx ON milestone_goals (user_id, status, created_at);
