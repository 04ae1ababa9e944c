-- The user's name for a task (none: its instruction's first line).
ALTER TABLE tasks ADD COLUMN title TEXT;
