-- What completes an agent's task: its summary file, its completion report,
-- or both (which must then agree).
ALTER TABLE profiles ADD COLUMN completion TEXT NOT NULL DEFAULT 'summary'
    CHECK (completion IN ('summary', 'report', 'both'));
