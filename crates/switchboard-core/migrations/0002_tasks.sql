-- When a profile's agent is ready for a task, and how long a task may take.
ALTER TABLE profiles ADD COLUMN ready_pattern TEXT;
ALTER TABLE profiles ADD COLUMN ready_quiet_ms INTEGER NOT NULL DEFAULT 800;
ALTER TABLE profiles ADD COLUMN task_time_limit_secs INTEGER NOT NULL DEFAULT 1800;
-- A paused queue starts no task until it is resumed, across restarts.
ALTER TABLE profiles ADD COLUMN queue_paused INTEGER NOT NULL DEFAULT 0;

-- Tasks: the durable per-agent queue and the history of what ran. `ord`
-- orders a queue within a priority; `result` is the TaskResult as JSON.
CREATE TABLE tasks (
    id               TEXT PRIMARY KEY NOT NULL,
    profile_id       TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    instruction      TEXT NOT NULL,
    context          TEXT,
    specs            TEXT,
    instructions     TEXT,
    priority         TEXT NOT NULL CHECK (priority IN ('urgent', 'normal')),
    time_limit_secs  INTEGER NOT NULL,
    success_criteria TEXT,
    state            TEXT NOT NULL CHECK (state IN
                       ('queued', 'running', 'completed', 'failed', 'timed_out', 'cancelled', 'interrupted')),
    ord              INTEGER NOT NULL,
    session_id       TEXT,
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,
    typed_at         INTEGER,
    ended_at         INTEGER,
    progress         TEXT,
    reason           TEXT,
    result           TEXT
) STRICT;
CREATE INDEX tasks_active ON tasks(profile_id, state) WHERE state IN ('queued', 'running');
CREATE INDEX tasks_by_end ON tasks(ended_at) WHERE ended_at IS NOT NULL;

-- Task history in the event log.
ALTER TABLE events ADD COLUMN task_id TEXT;
CREATE INDEX events_by_task ON events(task_id, seq) WHERE task_id IS NOT NULL;
