-- The phone's health data (docs/health-data.md): samples the app reads from Apple HealthKit or Android
-- Health Connect and sends in batches (POST /health/samples), and the user's consent per type of data
-- (PUT /health/consent). Health data is a special category of personal data (GDPR article 9): nothing of
-- a type is stored without its consent, and withdrawing it deletes that type's samples.
--
-- A sample keeps what the platform measured, labelled: heart-rate variability as SDNN (HealthKit) or
-- RMSSD (Health Connect), never converted into the other; resting heart rate in beats a minute; a
-- sleep session's minutes asleep with its stages (details.stages); steps; another app's workout in
-- minutes with its activity, distance, average heart rate and energy (details). The platform's own
-- sample id is the key with the user and the platform, so a batch sent again stores nothing twice.
-- Samples are kept 400 days after they end: the hourly schedule deletes older ones (end_at index).

CREATE TABLE health_samples (
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    platform    text NOT NULL CHECK (platform IN ('healthkit', 'health_connect')),
    sample_id   text NOT NULL CHECK (char_length(sample_id) BETWEEN 1 AND 128),
    kind        text NOT NULL CHECK (kind IN ('hrv_sdnn', 'hrv_rmssd', 'resting_heart_rate',
                                              'sleep_session', 'steps', 'workout')),
    start_at    timestamptz NOT NULL,
    end_at      timestamptz NOT NULL,
    value       double precision NOT NULL CHECK (value >= 0 AND value < 'Infinity'),
    unit        text NOT NULL CHECK (unit IN ('ms', 'bpm', 'min', 'count')),
    source      text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 200),
    details     jsonb CHECK (details IS NULL OR jsonb_typeof(details) = 'object'),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, platform, sample_id),
    CHECK (end_at >= start_at)
);
-- A user's series of one kind by time (the readiness baselines, the coach's summaries).
CREATE INDEX health_samples_user_kind_idx ON health_samples (user_id, kind, end_at);
-- The retention purge's cross-user read of the oldest samples.
CREATE INDEX health_samples_end_idx ON health_samples (end_at);

CREATE TABLE health_consents (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    data_type  text NOT NULL CHECK (data_type IN ('heart_rate_variability', 'resting_heart_rate', 'sleep',
                                                  'steps', 'workouts')),
    granted    boolean NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, data_type)
);
