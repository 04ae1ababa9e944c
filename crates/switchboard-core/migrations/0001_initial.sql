-- Agent profiles: what to run and where. args and env are JSON.
CREATE TABLE profiles (
    id              TEXT PRIMARY KEY NOT NULL,
    name            TEXT NOT NULL UNIQUE,
    command         TEXT NOT NULL,
    args            TEXT NOT NULL DEFAULT '[]',
    env             TEXT NOT NULL DEFAULT '{}',
    cwd             TEXT NOT NULL,
    kind            TEXT NOT NULL,
    start_on_launch INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL
) STRICT;

-- One row per run of a profile. pid and pid_start_time identify the process
-- so that a restart can tell whether a recorded PID still names our agent.
CREATE TABLE sessions (
    id             TEXT PRIMARY KEY NOT NULL,
    profile_id     TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    state          TEXT NOT NULL CHECK (state IN ('running', 'exited', 'killed', 'interrupted')),
    pid            INTEGER,
    pid_start_time INTEGER,
    rows           INTEGER NOT NULL,
    cols           INTEGER NOT NULL,
    exit_code      INTEGER,
    signal         TEXT,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER
) STRICT;
CREATE INDEX sessions_by_profile ON sessions(profile_id, started_at);
CREATE INDEX sessions_running ON sessions(state) WHERE state = 'running';

-- The append-only event log. No foreign keys: history outlives what it
-- describes. The triggers make "append-only" a property of the file, not a
-- convention of the code.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    session_id TEXT,
    kind       TEXT NOT NULL,
    data       TEXT NOT NULL
) STRICT;
CREATE INDEX events_by_session ON events(session_id, seq);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;

-- Small facts about this data directory (for example, that the demo
-- workspace was already made once).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT;
