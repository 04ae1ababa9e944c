-- The agent's own id for its conversation (Claude Code's --session-id), so an
-- ended session can be resumed (--resume) after a restart.
ALTER TABLE sessions ADD COLUMN agent_session_id TEXT;
