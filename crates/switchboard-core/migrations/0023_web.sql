-- Serving the window to browsers: the user's settings for it (one row), the
-- port chosen the first time (kept, so a browser's bookmark keeps working),
-- and the browsers paired, each with only a hash of its secret.
CREATE TABLE web (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    settings TEXT NOT NULL,
    port INTEGER
);

CREATE TABLE devices (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    read_only INTEGER NOT NULL,
    paired_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    last_from TEXT NOT NULL
);
