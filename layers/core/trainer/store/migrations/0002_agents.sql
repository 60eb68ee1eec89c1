-- The agent registry's tables (docs/architecture.md#one-agent-runtime): versioned prompts and one row per agent invocation.
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum b5e0b7ebf5df73e7408180b412ba16c57e1b83ac260d3a702f219495b79a401a

-- Prompts by id and version; the latest version wins. `file`: seeded from the repo's prompt file by a
-- migration (trainer_seed_prompt); `edit`: published by an operator (PromptStore.publish).
CREATE TABLE prompts (
    prompt_id   text NOT NULL CHECK (prompt_id ~ '^[a-z][a-z0-9_]{0,57}$'),
    version     integer NOT NULL CHECK (version > 0),
    body        text NOT NULL CHECK (char_length(btrim(body)) > 0),
    source      text NOT NULL DEFAULT 'edit' CHECK (source IN ('file', 'edit')),
    note        text CHECK (char_length(note) <= 500),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (prompt_id, version)
);

-- Adds the text as the next version unless it already is the latest one; returns the latest version.
CREATE FUNCTION trainer_seed_prompt(p_id text, p_body text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    latest_version integer;
    latest_body text;
BEGIN
    SELECT version, body INTO latest_version, latest_body
    FROM prompts WHERE prompt_id = p_id ORDER BY version DESC LIMIT 1;
    IF latest_body IS NOT DISTINCT FROM p_body AND latest_version IS NOT NULL THEN
        RETURN latest_version;
    END IF;
    INSERT INTO prompts (prompt_id, version, body, source)
    VALUES (p_id, coalesce(latest_version, 0) + 1, p_body, 'file');
    RETURN coalesce(latest_version, 0) + 1;
END
$$;

-- One row per agent invocation (sub-agents' rows name their parent's). prompt_version 0: the repo's
-- file, the table had no row. validation_errors: one entry per failed attempt or callback,
-- {attempt, kind: validation_error | timeout | model_error | callback | sub_agent, errors: [...]}.
CREATE TABLE agent_invocations (
    id                  uuid PRIMARY KEY,
    parent_id           uuid,
    user_id             uuid REFERENCES users (id) ON DELETE CASCADE,
    agent               text NOT NULL,
    prompt_id           text NOT NULL,
    prompt_version      integer NOT NULL CHECK (prompt_version >= 0),
    provider            text NOT NULL,
    model               text NOT NULL,
    status              text NOT NULL CHECK (status IN ('success', 'failed')),
    attempts            integer NOT NULL CHECK (attempts >= 0),
    model_calls         integer NOT NULL CHECK (model_calls >= 0),
    tool_calls          integer NOT NULL DEFAULT 0 CHECK (tool_calls >= 0),
    input_tokens        integer NOT NULL DEFAULT 0,
    output_tokens       integer NOT NULL DEFAULT 0,
    cache_read_tokens   integer NOT NULL DEFAULT 0,
    cache_write_tokens  integer NOT NULL DEFAULT 0,
    cost_cents          numeric(14, 6) NOT NULL DEFAULT 0,
    duration_ms         integer NOT NULL CHECK (duration_ms >= 0),
    validation_errors   jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(validation_errors) = 'array'),
    error               text,
    started_at          timestamptz NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_invocations_agent_idx ON agent_invocations (agent, started_at DESC);
CREATE INDEX agent_invocations_user_idx ON agent_invocations (user_id, started_at DESC) WHERE user_id IS NOT NULL;
CREATE INDEX agent_invocations_parent_idx ON agent_invocations (parent_id) WHERE parent_id IS NOT NULL;
