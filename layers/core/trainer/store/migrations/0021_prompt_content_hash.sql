-- Every prompt version carries its content hash, and the prompt files seed the table at every migrate
-- (trainer/store/prompt_files.py): a file whose hash differs from the latest version seeded from a file
-- becomes the next version. Migrations no longer hold prompt texts.

-- The sha256 of a text's UTF-8 bytes, hex (hashlib.sha256(text.encode()).hexdigest() in Python).
-- IMMUTABLE, as a generated column needs: convert_to is only marked STABLE because its result depends on
-- the database's encoding, which never changes for a database.
CREATE FUNCTION trainer_content_hash(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT encode(sha256(convert_to(p_text, 'UTF8')), 'hex') $$;

-- Computed for the rows already there (the versions earlier migrations seeded, operators' edits) too.
ALTER TABLE prompts ADD COLUMN content_hash text NOT NULL GENERATED ALWAYS AS (trainer_content_hash(body)) STORED;

-- The per-migration seeding that prompt_files.py replaces.
DROP FUNCTION IF EXISTS trainer_seed_prompt(text, text);
