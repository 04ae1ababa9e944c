-- A loop's steps in the event log name their loop, so a loop's history
-- (its steps, its iterations' tasks and sessions) is read by index.
ALTER TABLE events ADD COLUMN loop_id TEXT;
CREATE INDEX events_by_loop ON events(loop_id, seq) WHERE loop_id IS NOT NULL;
CREATE INDEX tasks_by_loop ON tasks(loop_id) WHERE loop_id IS NOT NULL;
CREATE INDEX tasks_by_session ON tasks(session_id) WHERE session_id IS NOT NULL;
CREATE INDEX tasks_by_profile ON tasks(profile_id);
