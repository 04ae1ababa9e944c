-- Whether an agent's CLI is given Switchboard's tools (the MCP server
-- `switchboard-mcp`) for the signal protocols; on unless the user turns it off.
ALTER TABLE profiles ADD COLUMN switchboard_tools INTEGER NOT NULL DEFAULT 1;
