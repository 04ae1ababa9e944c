-- Each session's secret, given to its agent in its environment: a hook event
-- or agent text is taken for a session only with it. Sessions recorded before
-- have none, and no event is taken for them.
ALTER TABLE sessions ADD COLUMN secret TEXT;
