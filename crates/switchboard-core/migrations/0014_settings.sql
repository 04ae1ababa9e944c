-- The user's settings for the whole app, as one JSON record (every field has
-- a default, so a record from an older app reads whole). One row at most.
-- IF NOT EXISTS: this migration may be listed after one numbered before it
-- that was written at the same time; applied twice, it changes nothing.
CREATE TABLE IF NOT EXISTS settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
