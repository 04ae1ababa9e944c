-- A loop's iterations as rows: each save of an iteration writes its own row,
-- and a loop is read as its most recent iterations and their counts, however
-- long its history (a record of every iteration, rewritten at each save, grew
-- without bound). `seq` is the iteration's place in the history (1 for the
-- first); `outcome` is what counts and queries select on; `record` is the
-- iteration as JSON. A loop may also end as failed to start.
ALTER TABLE loops RENAME TO loops_before_0015;
DROP INDEX loops_active;
CREATE TABLE loops (
    id         TEXT PRIMARY KEY NOT NULL,
    profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    state      TEXT NOT NULL
               CHECK (state IN ('active', 'complete', 'stalled', 'cancelled', 'failed_to_start')),
    created_at INTEGER NOT NULL,
    record     TEXT NOT NULL
) STRICT;
INSERT INTO loops (id, profile_id, state, created_at, record)
    SELECT id, profile_id, state, created_at, json_remove(record, '$.iterations') FROM loops_before_0015;
CREATE TABLE loop_iterations (
    loop_id TEXT NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    number  INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('running', 'ended', 'interrupted', 'failed_start')),
    record  TEXT NOT NULL,
    PRIMARY KEY (loop_id, seq)
) STRICT;
INSERT INTO loop_iterations (loop_id, seq, number, outcome, record)
    SELECT old.id, CAST(each.key AS INTEGER) + 1, json_extract(each.value, '$.number'),
           json_extract(each.value, '$.outcome.outcome'), each.value
    FROM loops_before_0015 AS old, json_each(old.record, '$.iterations') AS each;
DROP TABLE loops_before_0015;
CREATE INDEX loops_active ON loops(profile_id) WHERE state = 'active';
-- Counts by outcome (iterations run, failed starts) read from the index alone.
CREATE INDEX loop_iterations_by_outcome ON loop_iterations(loop_id, outcome, seq);
