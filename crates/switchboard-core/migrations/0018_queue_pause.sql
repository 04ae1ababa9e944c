-- Who paused an agent's queue and why (JSON of `QueuePause`), kept while it
-- is paused; none for a queue paused before the app kept the reason.
ALTER TABLE profiles ADD COLUMN queue_pause TEXT;
