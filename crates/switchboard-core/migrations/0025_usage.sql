-- What work cost. Each agent file followed for token usage (a session's
-- conversation file or a teammate's or sub-agent's): where reading got to
-- and what its earlier lines said (`reading`, JSON), so reading resumes
-- after a restart; `team` files count to the lead's task as its team's.
CREATE TABLE usage_sources (
    path       TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('claude_code', 'codex')),
    team       INTEGER NOT NULL CHECK (team IN (0, 1)),
    offset     INTEGER NOT NULL DEFAULT 0 CHECK (offset >= 0),
    reading    TEXT NOT NULL DEFAULT '{}',
    -- Read to its end after its session ended: not followed again.
    done       INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    -- What went wrong reading it last, in words.
    problem    TEXT
) STRICT;
CREATE INDEX usage_sources_followed ON usage_sources(session_id) WHERE done = 0;

-- Each model answer read, once (by its file and its key: an answer written
-- again replaces itself), with the task it counts to and its cost at the
-- prices of the time it was read (NULL: its model has no price).
CREATE TABLE usage (
    path           TEXT NOT NULL,
    key            TEXT NOT NULL,
    session_id     TEXT NOT NULL,
    profile_id     TEXT NOT NULL,
    task_id        TEXT,
    team           INTEGER NOT NULL CHECK (team IN (0, 1)),
    model          TEXT NOT NULL,
    at             INTEGER NOT NULL,
    input          INTEGER NOT NULL CHECK (input >= 0),
    output         INTEGER NOT NULL CHECK (output >= 0),
    cache_read     INTEGER NOT NULL CHECK (cache_read >= 0),
    cache_write_5m INTEGER NOT NULL CHECK (cache_write_5m >= 0),
    cache_write_1h INTEGER NOT NULL CHECK (cache_write_1h >= 0),
    cost_nanos     INTEGER,
    list_price     INTEGER NOT NULL DEFAULT 0 CHECK (list_price IN (0, 1)),
    PRIMARY KEY (path, key)
) STRICT;
CREATE INDEX usage_by_task ON usage(task_id) WHERE task_id IS NOT NULL;
CREATE INDEX usage_by_profile ON usage(profile_id, at);
CREATE INDEX usage_by_at ON usage(at);

-- A task's budget (JSON: {"tokens": n} or {"usd": x}), a new state for the
-- task that used it up, and the same for loops. SQLite cannot change a
-- CHECK in place: both tables are made again with every row.
CREATE TABLE tasks_new (
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
                       ('queued', 'running', 'completed', 'failed', 'timed_out', 'cancelled', 'interrupted',
                        'over_budget')),
    ord              INTEGER NOT NULL,
    session_id       TEXT,
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,
    typed_at         INTEGER,
    ended_at         INTEGER,
    progress         TEXT,
    reason           TEXT,
    result           TEXT,
    goals            TEXT,
    loop_id          TEXT,
    loop_iteration   INTEGER,
    quiet_since      INTEGER,
    waiting_since    INTEGER,
    waited_ms        INTEGER NOT NULL DEFAULT 0 CHECK (waited_ms >= 0),
    title            TEXT,
    worktree         TEXT,
    base             TEXT,
    budget           TEXT
) STRICT;
INSERT INTO tasks_new (id, profile_id, instruction, context, specs, instructions, priority, time_limit_secs,
    success_criteria, state, ord, session_id, created_at, started_at, typed_at, ended_at, progress, reason, result,
    goals, loop_id, loop_iteration, quiet_since, waiting_since, waited_ms, title, worktree, base)
  SELECT id, profile_id, instruction, context, specs, instructions, priority, time_limit_secs,
    success_criteria, state, ord, session_id, created_at, started_at, typed_at, ended_at, progress, reason, result,
    goals, loop_id, loop_iteration, quiet_since, waiting_since, waited_ms, title, worktree, base FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_new RENAME TO tasks;
CREATE INDEX tasks_active ON tasks(profile_id, state) WHERE state IN ('queued', 'running');
CREATE INDEX tasks_by_end ON tasks(ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX tasks_queue_order ON tasks(profile_id, priority, ord, created_at) WHERE state = 'queued';
CREATE INDEX tasks_by_loop ON tasks(loop_id) WHERE loop_id IS NOT NULL;
CREATE INDEX tasks_by_session ON tasks(session_id) WHERE session_id IS NOT NULL;
CREATE INDEX tasks_by_profile ON tasks(profile_id);

-- Loops: their iterations are kept aside while the loops' table is made
-- again (dropping it would delete them, by its foreign key), then put back.
CREATE TABLE loop_iterations_kept AS SELECT loop_id, seq, number, outcome, record FROM loop_iterations;
DROP TABLE loop_iterations;
CREATE TABLE loops_new (
    id         TEXT PRIMARY KEY NOT NULL,
    profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    state      TEXT NOT NULL
               CHECK (state IN ('active', 'complete', 'stalled', 'cancelled', 'failed_to_start', 'over_budget')),
    created_at INTEGER NOT NULL,
    record     TEXT NOT NULL,
    budget     TEXT
) STRICT;
INSERT INTO loops_new (id, profile_id, state, created_at, record)
  SELECT id, profile_id, state, created_at, record FROM loops;
DROP TABLE loops;
ALTER TABLE loops_new RENAME TO loops;
CREATE INDEX loops_active ON loops(profile_id) WHERE state = 'active';
CREATE TABLE loop_iterations (
    loop_id TEXT NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    number  INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('running', 'ended', 'interrupted', 'failed_start', 'over_budget')),
    record  TEXT NOT NULL,
    PRIMARY KEY (loop_id, seq)
) STRICT;
INSERT INTO loop_iterations (loop_id, seq, number, outcome, record)
  SELECT loop_id, seq, number, outcome, record FROM loop_iterations_kept;
DROP TABLE loop_iterations_kept;
CREATE INDEX loop_iterations_by_outcome ON loop_iterations(loop_id, outcome, seq);

-- What an agent may use a day (JSON, as a task's budget), and the day it
-- was raised for, if the user raised it past what was used.
ALTER TABLE profiles ADD COLUMN daily_budget TEXT;
