-- The account an agent's CLI works under, for usage limits (none: the CLI's
-- own folder).
ALTER TABLE profiles ADD COLUMN account TEXT;

-- Accounts at their usage limit, until it lifts. `until`: the reset their
-- agent named (none: unknown); `retry_at`: when the app tries again;
-- `passed`: resets in a row that passed with the agent still refused;
-- `delay_secs`: the wait before the next try when the reset is unknown;
-- `asks_user`: the app stopped trying and waits for the user's word.
CREATE TABLE usage_limits (
    account     TEXT PRIMARY KEY NOT NULL,
    since       INTEGER NOT NULL,
    until       INTEGER,
    retry_at    INTEGER NOT NULL,
    passed      INTEGER NOT NULL DEFAULT 0,
    delay_secs  INTEGER NOT NULL,
    asks_user   INTEGER NOT NULL DEFAULT 0 CHECK (asks_user IN (0, 1))
) STRICT;
-- The account's usage windows as its CLI last told them (JSON: minutes,
-- used_percent, resets_at).
ALTER TABLE usage_limits ADD COLUMN usage TEXT NOT NULL DEFAULT '[]';
