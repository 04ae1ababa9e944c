// Generated from the Rust types in switchboard-core and switchboard-protocol.
// Do not edit: run `SWITCHBOARD_BLESS=1 cargo test -p switchboard-core bindings` instead.

export type ProfileId = string;

export type SessionId = string;

export type AgentKind = "generic" | "claude-code" | "codex";

export type TermSize = { rows: number, cols: number, };

export type ProfileSpec = { name: string, 
/**
 * A program name looked up on `PATH`, or a path to an executable.
 */
command: string, args: Array<string>, 
/**
 * Extra environment for the agent, on top of the app's own environment.
 */
env: { [key in string]: string }, 
/**
 * The agent's working directory (its workspace). Must exist.
 */
cwd: string, kind: AgentKind, 
/**
 * Start a session of this profile whenever the app starts.
 */
start_on_launch: boolean, };

export type Profile = { id: ProfileId, created_at: number, name: string, 
/**
 * A program name looked up on `PATH`, or a path to an executable.
 */
command: string, args: Array<string>, 
/**
 * Extra environment for the agent, on top of the app's own environment.
 */
env: { [key in string]: string }, 
/**
 * The agent's working directory (its workspace). Must exist.
 */
cwd: string, kind: AgentKind, 
/**
 * Start a session of this profile whenever the app starts.
 */
start_on_launch: boolean, };

export type SessionState = { "state": "running", pid: number, } | { "state": "exited", exit_code: number, signal: string | null, ended_at: number, } | { "state": "killed", exit_code: number, signal: string | null, ended_at: number, } | { "state": "interrupted", ended_at: number, };

export type SessionInfo = { id: SessionId, profile_id: ProfileId, started_at: number, size: TermSize, } & ({ "state": "running", pid: number, } | { "state": "exited", exit_code: number, signal: string | null, ended_at: number, } | { "state": "killed", exit_code: number, signal: string | null, ended_at: number, } | { "state": "interrupted", ended_at: number, });

export type ScreenSnapshot = { size: TermSize, 
/**
 * The visible rows, trailing blanks trimmed, joined by `\n`.
 */
screen: string, 
/**
 * Up to the requested number of most recent lines, scrollback included.
 */
recent_lines: Array<string>, cursor_row: number, cursor_col: number, };

export type Command = { "type": "list_profiles" } | { "type": "create_profile", spec: ProfileSpec, } | { "type": "update_profile", profile_id: ProfileId, spec: ProfileSpec, } | { "type": "delete_profile", profile_id: ProfileId, } | { "type": "list_sessions" } | { "type": "start_session", profile_id: ProfileId, size: TermSize, } | { "type": "stop_session", session_id: SessionId, } | { "type": "restart_session", session_id: SessionId, size: TermSize, } | { "type": "write_input", session_id: SessionId, data: string, } | { "type": "resize", session_id: SessionId, size: TermSize, } | { "type": "set_output_paused", session_id: SessionId, paused: boolean, } | { "type": "screen_snapshot", session_id: SessionId, recent_lines: number, } | { "type": "list_events", session_id: SessionId | null, };

export type Reply = { "type": "unit" } | { "type": "profiles", "value": Array<Profile> } | { "type": "profile", "value": Profile } | { "type": "sessions", "value": Array<SessionInfo> } | { "type": "session", "value": SessionInfo } | { "type": "snapshot", "value": ScreenSnapshot } | { "type": "events", "value": Array<LogEntry> };

export type EngineEvent = { "type": "profile_saved", profile: Profile, } | { "type": "profile_deleted", profile_id: ProfileId, } | { "type": "session_changed", session: SessionInfo, };

export type LogKind = { "kind": "session_started", pid: number, } | { "kind": "session_exited", exit_code: number, signal: string | null, } | { "kind": "session_killed", exit_code: number, signal: string | null, } | { "kind": "session_interrupted", reaped: boolean, };

export type LogEntry = { seq: number, at: number, session_id: SessionId | null, } & ({ "kind": "session_started", pid: number, } | { "kind": "session_exited", exit_code: number, signal: string | null, } | { "kind": "session_killed", exit_code: number, signal: string | null, } | { "kind": "session_interrupted", reaped: boolean, });

export type ErrorCode = "invalid_input" | "command_not_found" | "directory_missing" | "duplicate_name" | "profile_not_found" | "session_not_found" | "session_not_running" | "profile_busy" | "spawn_failed" | "already_running" | "storage" | "engine_stopped" | "internal";

export type ApiError = { code: ErrorCode, message: string, field: string | null, };

export type AppInfo = { data_dir: string, socket_path: string, version: string, };

export type SubscriptionId = number;
