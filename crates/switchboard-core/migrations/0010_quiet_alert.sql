-- The quiet alert: a task whose agent shows no output and no hook event for
-- this many seconds while it should be working is flagged (0: never).
ALTER TABLE profiles ADD COLUMN quiet_alert_secs INTEGER NOT NULL DEFAULT 600 CHECK (quiet_alert_secs >= 0);
-- Since when a running task's agent has been quiet past its alert.
ALTER TABLE tasks ADD COLUMN quiet_since INTEGER;
