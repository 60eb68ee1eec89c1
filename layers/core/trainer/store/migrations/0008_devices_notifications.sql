-- Delivery to the phone (docs/delivery.md): the devices a user registered for push (one row per push token,
-- which belongs to the user who registered it last), the user's notification settings, one delivery
-- record per (user, local day) — the key that makes the Notifier send at most once a day however often
-- WorkoutReady arrives — and the workout generated once for a day the user has nothing planned
-- (GET /today).
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum 5e525ea77e417fe14d89fe0ef7c3d33056376bafffa59dc00cc45854e0542294

CREATE TABLE devices (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id            uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    platform           text NOT NULL CHECK (platform IN ('apns', 'apns_sandbox', 'fcm')),
    token              text NOT NULL CHECK (char_length(token) BETWEEN 1 AND 4096),
    app_version        text CHECK (char_length(app_version) BETWEEN 1 AND 40),
    locale             text CHECK (char_length(locale) BETWEEN 1 AND 35),
    timezone           text CHECK (char_length(timezone) BETWEEN 1 AND 64),
    -- The SNS platform endpoint of the token, created by the Notifier on first use; synced_at is when
    -- it was last made to match the registration (token set, enabled).
    endpoint_arn       text CHECK (char_length(endpoint_arn) BETWEEN 1 AND 1024),
    endpoint_synced_at timestamptz,
    registered_at      timestamptz NOT NULL DEFAULT now(),
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform, token)
);
CREATE INDEX devices_user_idx ON devices (user_id, registered_at DESC);

CREATE TABLE notification_settings (
    user_id           uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    push_enabled      boolean NOT NULL DEFAULT true,
    -- The local hour the day's workout goes out; null: the deployment's (TRAINER_MORNING_HOUR).
    morning_hour      integer CHECK (morning_hour BETWEEN 0 AND 23),
    -- No push (nor SMS) from quiet_start until quiet_end, local time; the period may span midnight.
    quiet_start       time(0),
    quiet_end         time(0),
    sms_enabled       boolean NOT NULL DEFAULT false,
    -- E.164, taken only from a verified phone number claim of the user's token.
    phone_number      text CHECK (phone_number ~ '^\+[1-9][0-9]{6,14}$'),
    phone_verified_at timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((quiet_start IS NULL) = (quiet_end IS NULL)),
    CHECK (quiet_start IS NULL OR quiet_start <> quiet_end),
    CHECK ((phone_number IS NULL) = (phone_verified_at IS NULL)),
    CHECK (NOT sms_enabled OR phone_number IS NOT NULL)
);

CREATE TABLE notification_deliveries (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day         date NOT NULL,
    -- The planned day announced (plan_workouts.id); no foreign key: the record outlives a rebuilt plan.
    workout_id  uuid,
    status      text NOT NULL CHECK (status IN ('deferred', 'sending', 'sent', 'failed', 'skipped')),
    reason      text CHECK (char_length(reason) <= 200),
    title       text CHECK (char_length(title) <= 200),
    message     text CHECK (char_length(message) <= 1600),
    deep_link   text CHECK (char_length(deep_link) <= 300),
    -- One entry per channel tried: {channel: push|sms, device_id?, platform?, status, reason?, message_id?}.
    channels    jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(channels) = 'array'),
    -- The WorkoutReady detail, published again by the hourly run once not_before has come.
    detail      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(detail) = 'object'),
    not_before  timestamptz,
    attempts    integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    claimed_at  timestamptz,
    sent_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, day),
    CHECK ((status = 'deferred') = (not_before IS NOT NULL))
);
-- GET /notifications pages a user's records newest day first (the unique index serves it); the hourly
-- run reads only the deferred records that are due and the claims whose sender died.
CREATE INDEX notification_deliveries_deferred_idx ON notification_deliveries (not_before)
    WHERE status = 'deferred';
CREATE INDEX notification_deliveries_sending_idx ON notification_deliveries (claimed_at)
    WHERE status = 'sending';

CREATE TABLE daily_workouts (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day        date NOT NULL,
    id         uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    title      text CHECK (char_length(title) <= 200),
    workout    jsonb NOT NULL CHECK (jsonb_typeof(workout) = 'object'),
    message    text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 1600),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, day)
);
