-- Automations: a trigger and an action (`spec`, JSON), where it stands
-- (`state`, JSON), when its schedule was last judged against the wall clock
-- (runs after that and before now were not made: missed, when the engine
-- was down), when it runs next, and for a branch trigger the commit the
-- branch was last seen at.
CREATE TABLE automations (
    id         TEXT PRIMARY KEY NOT NULL,
    profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    spec       TEXT NOT NULL,
    state      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    judged_at  INTEGER NOT NULL,
    next_run   INTEGER,
    seen       TEXT
) STRICT;

-- Each run: when, why, and the task or loop it made (none: it was skipped,
-- and `skipped` says why).
CREATE TABLE automation_runs (
    automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    fired_at      INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    task_id       TEXT,
    loop_id       TEXT,
    skipped       TEXT,
    PRIMARY KEY (automation_id, seq),
    CHECK ((task_id IS NOT NULL) + (loop_id IS NOT NULL) + (skipped IS NOT NULL) = 1)
) STRICT;
CREATE INDEX automation_runs_by_task ON automation_runs(task_id) WHERE task_id IS NOT NULL;
CREATE INDEX automation_runs_by_loop ON automation_runs(loop_id) WHERE loop_id IS NOT NULL;
CREATE INDEX automation_runs_by_time ON automation_runs(automation_id, fired_at);
