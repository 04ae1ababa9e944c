-- Loops: an agent's fresh sessions toward one goal, each iteration judged.
-- `record` is the whole LoopInfo as JSON (its iterations are bounded by its
-- cap); `state` is what queries select on.
CREATE TABLE loops (
    id         TEXT PRIMARY KEY NOT NULL,
    profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    state      TEXT NOT NULL CHECK (state IN ('active', 'complete', 'stalled', 'cancelled')),
    created_at INTEGER NOT NULL,
    record     TEXT NOT NULL
) STRICT;
CREATE INDEX loops_active ON loops(profile_id) WHERE state = 'active';
-- A loop's iterations run as tasks of its agent's queue: which loop, which
-- iteration.
ALTER TABLE tasks ADD COLUMN loop_id TEXT;
ALTER TABLE tasks ADD COLUMN loop_iteration INTEGER;
