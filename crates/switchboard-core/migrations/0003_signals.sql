-- Protocol signals agents raised, and what the user decided. `record` is the
-- whole SignalInfo as JSON; the other columns are what queries select on.
CREATE TABLE signals (
    id         TEXT PRIMARY KEY NOT NULL,
    profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('pending', 'handled', 'dismissed')),
    created_at INTEGER NOT NULL,
    record     TEXT NOT NULL
) STRICT;
CREATE INDEX signals_pending ON signals(state) WHERE state = 'pending';
CREATE INDEX signals_by_time ON signals(created_at);
