-- Each account's usage as its agents' CLIs last told it, apart from its
-- limit (Claude Code tells it with each status-line update). `windows`:
-- JSON (minutes, used_percent, resets_at); `warned`: JSON, the windows the
-- user was warned of, each [minutes, resets_at].
CREATE TABLE account_usage (
    account  TEXT PRIMARY KEY NOT NULL,
    windows  TEXT NOT NULL,
    told_at  INTEGER NOT NULL,
    warned   TEXT NOT NULL DEFAULT '[]'
) STRICT;
-- What the limits kept of it moves here; their own column is left unused.
INSERT INTO account_usage (account, windows, told_at)
    SELECT account, usage, since FROM usage_limits WHERE usage <> '[]';
