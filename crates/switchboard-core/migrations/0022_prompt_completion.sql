-- A task can be done when its agent's prompt comes back ('prompt': a shell,
-- or any program that writes no summary). SQLite cannot change a column's
-- CHECK in place: the rule moves to a column that allows it, under the
-- same name.
ALTER TABLE profiles ADD COLUMN completion_rule TEXT NOT NULL DEFAULT 'summary'
    CHECK (completion_rule IN ('summary', 'report', 'both', 'prompt'));
UPDATE profiles SET completion_rule = completion;
ALTER TABLE profiles DROP COLUMN completion;
ALTER TABLE profiles RENAME COLUMN completion_rule TO completion;
