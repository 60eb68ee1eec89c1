-- Onboarding (docs/api.md#onboarding-and-profile): what the coach captures in conversation beside the body stats.
-- goal_statement: the user's goals in their own words (the category goals keep the percentages).
-- stated_age / stated_age_on: an age said in the chat ("I'm 34") and the day it was said, for users who
-- give no birth date (the profile's age counts the whole years since).
-- no_limitations: the user said they have no injuries or limitations (injuries themselves are `injury`
-- preferences), so the coach stops asking.
-- Reworded comments only; a database that applied the earlier text accepts this one:
-- replaces checksum 046b6fdae91d34cb30a4f22632041f777051504a0349ab7816528b24a68b088a

ALTER TABLE users
    ADD COLUMN goal_statement text CHECK (char_length(goal_statement) BETWEEN 1 AND 500),
    ADD COLUMN stated_age     smallint CHECK (stated_age BETWEEN 13 AND 110),
    ADD COLUMN stated_age_on  date,
    ADD COLUMN no_limitations boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT users_stated_age_dated CHECK ((stated_age IS NULL) = (stated_age_on IS NULL));
