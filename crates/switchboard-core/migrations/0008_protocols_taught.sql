-- Whether the agent is taught the signal protocols (clarification, stop,
-- delegation, completion report); on for every agent unless turned off.
ALTER TABLE profiles ADD COLUMN signal_protocols INTEGER NOT NULL DEFAULT 1 CHECK (signal_protocols IN (0, 1));
-- A task's goals (Phase 1: context, goals, success metrics), named in the
-- typed task beside its success criteria.
ALTER TABLE tasks ADD COLUMN goals TEXT;
