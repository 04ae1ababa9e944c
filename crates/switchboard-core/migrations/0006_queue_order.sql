-- A queue in pick order (priority, then order, then arrival), for queued tasks
-- only: its length, a task's place in it, its next task and its ends are read
-- from this index instead of from the tasks, so a long queue stays quick.
CREATE INDEX tasks_queue_order ON tasks(profile_id, priority, ord, created_at) WHERE state = 'queued';
