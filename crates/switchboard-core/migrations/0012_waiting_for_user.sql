-- A task whose agent waits for the user's answer: since when (while it
-- waits), and how long it waited before; that time does not count against
-- its time limit.
ALTER TABLE tasks ADD COLUMN waiting_since INTEGER;
ALTER TABLE tasks ADD COLUMN waited_ms INTEGER NOT NULL DEFAULT 0 CHECK (waited_ms >= 0);
