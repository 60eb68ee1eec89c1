-- Account deletion and the settings screens (docs/api.md#account-deletion-and-data-export).
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum 929752f8f563f017a7fdda5a56e9113cf05e3fe2676894164ccf11c685234fe9

-- The tombstone of a deleted account: a SHA-256 digest of its user id (never the id itself), the time it
-- was deleted, and when everything beyond Postgres (DynamoDB, the registered erasers) was erased too.
-- The API refuses the account's tokens while a row is here, and no users row can be made for it again.
CREATE TABLE deleted_accounts (
    user_digest  bytea PRIMARY KEY CHECK (octet_length(user_digest) = 32),
    deleted_at   timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    CHECK (completed_at IS NULL OR completed_at >= deleted_at)
);

-- The digest the tombstone is keyed by (trainer.store.repositories.accounts.account_digest computes the
-- same bytes in Python).
CREATE FUNCTION trainer_account_digest(user_id uuid) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT sha256(convert_to('trainer-deleted-account:' || user_id::text, 'UTF8')) $$;

-- Every domain row references users, so refusing a deleted account's users row refuses all of its data.
-- The lock serialises this check with the deletion's transaction (which takes it first): an insert racing a
-- deletion waits for it and then sees the tombstone. SQLSTATE TR001 is `AccountDeleted` to the code.
CREATE FUNCTION trainer_refuse_deleted_account() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(1953653102, hashtext(NEW.id::text));
    IF EXISTS (SELECT 1 FROM deleted_accounts WHERE user_digest = trainer_account_digest(NEW.id)) THEN
        RAISE EXCEPTION 'the account was deleted' USING ERRCODE = 'TR001';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER users_refuse_deleted_accounts BEFORE INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION trainer_refuse_deleted_account();

-- The profile screen's training fields (the chat reads them through the same profile service).
ALTER TABLE users
    ADD COLUMN experience text CHECK (experience IN ('beginner', 'intermediate', 'advanced')),
    ADD COLUMN session_minutes integer CHECK (session_minutes BETWEEN 15 AND 180);
