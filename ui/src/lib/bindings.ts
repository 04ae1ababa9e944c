// Generated from the Rust types in switchboard-api and switchboard-protocol.
// Do not edit: run `SWITCHBOARD_BLESS=1 cargo test -p switchboard-core bindings` instead.

export type ProfileId = string;

export type SessionId = string;

export type TaskId = string;

export type SignalId = string;

export type AgentKind = "generic" | "claude-code" | "codex";

export type Priority = "urgent" | "normal";

export type TermSize = { rows: number, cols: number, };

export type CompletionRule = "summary" | "report" | "both" | "prompt";

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
start_on_launch: boolean, 
/**
 * When the agent is ready for a task: a regular expression the line
 * under the cursor must match (none: any line) ...
 */
ready_pattern: string | null, 
/**
 * ... and how long its output must have been quiet, in milliseconds.
 */
ready_quiet_ms: number, 
/**
 * A task's time limit when its submission names none, in seconds.
 */
task_time_limit_secs: number, 
/**
 * What completes a task of this agent.
 */
completion: CompletionRule, 
/**
 * Teach the agent the signal protocols (through its own instruction
 * channel where it has one, and a protocol file each task points to).
 */
signal_protocols: boolean, 
/**
 * Seconds a task's agent may show no output and no hook event while it
 * should be working before the task is flagged as possibly stuck; 0: never.
 */
quiet_alert_secs: number, 
/**
 * Where its tasks work: its folder, or each task in a git worktree of
 * its own (the folder must then be inside a git repository).
 */
isolation: Isolation, 
/**
 * The account its CLI works under, for usage limits: agents of one
 * account are limited together. None: the CLI's own folder (Claude
 * Code's `CLAUDE_CONFIG_DIR` or `~/.claude`, Codex's `CODEX_HOME` or
 * `~/.codex`); an agent of another kind is an account of its own.
 */
account: string | null, 
/**
 * Give a Claude Code or Codex agent taught the signal protocols
 * Switchboard's tools for them (the MCP server `switchboard-mcp`, which
 * its CLI starts); off: it prints the blocks only.
 */
switchboard_tools: boolean, 
/**
 * What the agent may use a day (in this machine's time zone): past 80 %
 * the user is told; once used up, its task at work ends over budget and
 * it takes no new task until the next day or a larger budget.
 */
daily_budget?: Budget | null, };

export type Profile = { id: ProfileId, created_at: number, 
/**
 * The machine it runs on, as a window that shows several machines'
 * engines names it (`switchboard host`); none: the engine's own machine
 * (an engine never names itself).
 */
host?: string | null, name: string, 
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
start_on_launch: boolean, 
/**
 * When the agent is ready for a task: a regular expression the line
 * under the cursor must match (none: any line) ...
 */
ready_pattern: string | null, 
/**
 * ... and how long its output must have been quiet, in milliseconds.
 */
ready_quiet_ms: number, 
/**
 * A task's time limit when its submission names none, in seconds.
 */
task_time_limit_secs: number, 
/**
 * What completes a task of this agent.
 */
completion: CompletionRule, 
/**
 * Teach the agent the signal protocols (through its own instruction
 * channel where it has one, and a protocol file each task points to).
 */
signal_protocols: boolean, 
/**
 * Seconds a task's agent may show no output and no hook event while it
 * should be working before the task is flagged as possibly stuck; 0: never.
 */
quiet_alert_secs: number, 
/**
 * Where its tasks work: its folder, or each task in a git worktree of
 * its own (the folder must then be inside a git repository).
 */
isolation: Isolation, 
/**
 * The account its CLI works under, for usage limits: agents of one
 * account are limited together. None: the CLI's own folder (Claude
 * Code's `CLAUDE_CONFIG_DIR` or `~/.claude`, Codex's `CODEX_HOME` or
 * `~/.codex`); an agent of another kind is an account of its own.
 */
account: string | null, 
/**
 * Give a Claude Code or Codex agent taught the signal protocols
 * Switchboard's tools for them (the MCP server `switchboard-mcp`, which
 * its CLI starts); off: it prints the blocks only.
 */
switchboard_tools: boolean, 
/**
 * What the agent may use a day (in this machine's time zone): past 80 %
 * the user is told; once used up, its task at work ends over budget and
 * it takes no new task until the next day or a larger budget.
 */
daily_budget?: Budget | null, };

export type ProfileField = "name" | "command" | "args" | "env" | "cwd" | "kind" | "ready_pattern" | "ready_quiet_ms" | "task_time_limit_secs" | "quiet_alert_secs" | "isolation" | "account" | "daily_budget";

export type ProfileProblem = { field: ProfileField, message: string, };

export type AgentPreset = { kind: AgentKind, 
/**
 * The kind as people call it ("Claude Code").
 */
label: string, 
/**
 * The program, looked up on `PATH`.
 */
command: string, args: Array<string>, ready_pattern: string | null, ready_quiet_ms: number, 
/**
 * Why each setting is what it is, one sentence each (the arguments,
 * readiness, and what the app connects by itself: hooks).
 */
notes: Array<string>, 
/**
 * The command that installs the CLI, said where it is missing.
 */
install: string, };

export type SessionState = { "state": "running", pid: number, } | { "state": "exited", exit_code: number, signal: string | null, ended_at: number, } | { "state": "killed", exit_code: number, signal: string | null, ended_at: number, } | { "state": "interrupted", ended_at: number, };

export type SessionInfo = { id: SessionId, profile_id: ProfileId, started_at: number, size: TermSize, 
/**
 * The agent's own id for its conversation (Claude Code's
 * `--session-id`), which a later session can resume.
 */
agent_session_id: string | null, 
/**
 * The folder it works in when not its agent's (a task's worktree).
 */
workspace?: string | null, } & ({ "state": "running", pid: number, } | { "state": "exited", exit_code: number, signal: string | null, ended_at: number, } | { "state": "killed", exit_code: number, signal: string | null, ended_at: number, } | { "state": "interrupted", ended_at: number, });

export type ScreenSnapshot = { size: TermSize, 
/**
 * The visible rows, trailing blanks trimmed, joined by `\n`.
 */
screen: string, 
/**
 * Up to the requested number of most recent lines, scrollback included.
 */
recent_lines: Array<string>, cursor_row: number, cursor_col: number, 
/**
 * The screen's last line with text, and a ready pattern that matches
 * it (the agent form's "Fill from the screen"); none on a blank screen.
 */
prompt: ScreenPrompt | null, };

export type ScreenPrompt = { 
/**
 * The line, its surrounding blanks trimmed.
 */
line: string, 
/**
 * The line escaped as a regular expression and anchored at both ends
 * (blanks around it allowed), so it matches that prompt and nothing
 * typed after it.
 */
ready_pattern: string, };

export type DetectedAgent = { preset: AgentPreset, found: CliFound, };

export type CliFound = { "state": "installed", path: string, version: string | null, } | { "state": "missing" };

export type TaskSpec = { profile_id: ProfileId, 
/**
 * What to do; typed into the agent with the completion protocol.
 */
instruction: string, 
/**
 * The user's name for the task; none: its instruction's first line.
 */
title?: string | null, 
/**
 * Written to CONTEXT.md in the workspace before the task is typed.
 */
context: string | null, 
/**
 * Written to SPECS.md.
 */
specs: string | null, 
/**
 * Written to INSTRUCTIONS.md.
 */
instructions: string | null, priority: Priority, 
/**
 * Seconds; none means the profile's default.
 */
time_limit_secs: number | null, 
/**
 * What counts as success; named in the typed task and shown beside
 * the agent's completion report.
 */
success_criteria: string | null, 
/**
 * What the work is for; named in the typed task.
 */
goals: string | null, 
/**
 * The loop iteration this task runs (made by the loop, never submitted).
 */
loop_iteration: LoopIteration | null, 
/**
 * Runs in the worktree made for that task (or loop): a review's
 * follow-up, a loop's later iteration. None: an agent that works apart
 * gets a new worktree for it.
 */
worktree?: string | null, 
/**
 * The branch its new worktree is made from (an agent that works
 * apart); none: the branch checked out in the agent's folder.
 */
base?: string | null, 
/**
 * What the task may use, in tokens or dollars: at 80 % the user is
 * told, at all of it the task ends over budget. A loop's iteration has
 * its loop's instead.
 */
budget?: Budget | null, };

export type TaskState = "queued" | "running" | "completed" | "failed" | "timed_out" | "cancelled" | "interrupted" | "over_budget";

export type SummaryStatus = "completed" | "partial" | "failed";

export type TestCounts = { passed: number | null, failed: number | null, };

export type Summary = { objective: string, accomplishments: Array<string>, 
/**
 * Paths listed as `` `path` `` items under Key Deliverables, in order,
 * exactly as written (not yet checked against the workspace).
 */
deliverables: Array<string>, test_results: string, tests: TestCounts | null, notes: Array<string>, 
/**
 * `None` when the Status section names none of the three.
 */
status: SummaryStatus | null, };

export type Artifact = { 
/**
 * Relative to the workspace.
 */
path: string, 
/**
 * The file's text (invalid UTF-8 replaced), cut at the artifact cap.
 */
content: string, size: number, truncated: boolean, };

export type RejectedPath = { path: string, reason: string, };

export type TaskResult = { summary: Summary, 
/**
 * True when the agent wrote no summary and the app built one from the
 * screen and the files the task changed.
 */
fallback: boolean, 
/**
 * At most five: the summary, then up to four deliverables.
 */
artifacts: Array<Artifact>, rejected: Array<RejectedPath>, 
/**
 * RESULTS.json as the agent wrote it, if it did.
 */
results_json: string | null, 
/**
 * ERRORS.md, if the agent wrote it.
 */
errors: string | null, };

export type WaitingFor = { "cause": "queue_paused", reason: string | null, } | { "cause": "task_ahead" } | { "cause": "agent_output" } | { "cause": "hooks", until: number, } | { "cause": "agent_busy" } | { "cause": "prompt", last_line: string, pattern: string, } | { "cause": "user", since: number, } | { "cause": "teammates", working: number, } | { "cause": "worktree_making" } | { "cause": "worktree_setup", command: string, } | { "cause": "usage_limit", account: string, until: number | null, retry_at: number, } | { "cause": "overloaded", retry_at: number, } | { "cause": "account", why: string, } | { "cause": "daily_budget", budget: string, until: number, };

export type TaskAction = "cancel" | "move" | "edit_instruction" | "requeue" | "rerun";

export type TaskInfo = { id: TaskId, state: TaskState, 
/**
 * Queue order within a priority: lower runs first.
 */
order: number, session_id: SessionId | null, created_at: number, 
/**
 * When the queue took it.
 */
started_at: number | null, 
/**
 * When it was typed into the agent; the time limit counts from here.
 */
typed_at: number | null, ended_at: number | null, 
/**
 * The latest STATUS.txt while it runs.
 */
progress: string | null, 
/**
 * Since when its agent has shown no output and no hook event while it
 * runs, once that is longer than the agent's quiet alert: it may be stuck.
 */
quiet_since: number | null, 
/**
 * Since when its agent has waited for the user's answer, while it runs;
 * its time limit is paused meanwhile.
 */
waiting_since: number | null, 
/**
 * How long it waited for the user before (not counted against its limit).
 */
waited_ms: number, 
/**
 * Why it failed, was cancelled or interrupted.
 */
reason: string | null, result: TaskResult | null, 
/**
 * What it waits for while it does not go on by itself (live: not stored).
 */
waiting_for: WaitingFor | null, 
/**
 * What the user may do to it now, as the engine decides it
 * ([`task_actions`](super::task_actions)); the window offers these.
 */
actions: Array<TaskAction>, 
/**
 * Where it stands in its agent's queue while it is queued
 * ([`pick_key`](super::pick_key)): the window lists a queue by it.
 */
pick: [number, number] | null, profile_id: ProfileId, 
/**
 * What to do; typed into the agent with the completion protocol.
 */
instruction: string, 
/**
 * The user's name for the task; none: its instruction's first line.
 */
title?: string | null, 
/**
 * Written to CONTEXT.md in the workspace before the task is typed.
 */
context: string | null, 
/**
 * Written to SPECS.md.
 */
specs: string | null, 
/**
 * Written to INSTRUCTIONS.md.
 */
instructions: string | null, priority: Priority, 
/**
 * Seconds; none means the profile's default.
 */
time_limit_secs: number | null, 
/**
 * What counts as success; named in the typed task and shown beside
 * the agent's completion report.
 */
success_criteria: string | null, 
/**
 * What the work is for; named in the typed task.
 */
goals: string | null, 
/**
 * The loop iteration this task runs (made by the loop, never submitted).
 */
loop_iteration: LoopIteration | null, 
/**
 * Runs in the worktree made for that task (or loop): a review's
 * follow-up, a loop's later iteration. None: an agent that works apart
 * gets a new worktree for it.
 */
worktree?: string | null, 
/**
 * The branch its new worktree is made from (an agent that works
 * apart); none: the branch checked out in the agent's folder.
 */
base?: string | null, 
/**
 * What the task may use, in tokens or dollars: at 80 % the user is
 * told, at all of it the task ends over budget. A loop's iteration has
 * its loop's instead.
 */
budget?: Budget | null, tokens: TokenTotals, 
/**
 * None when a model it used has no price.
 */
cost_usd: Usd | null, 
/**
 * Its team's tokens, where it led one that used any.
 */
team_tokens?: TokenTotals | null, team_cost_usd?: Usd | null, 
/**
 * Its costs are what its tokens would cost at list prices: its account
 * pays by subscription.
 */
list_price: boolean, 
/**
 * How much of its budget it used (its own and its team's together),
 * where it has one.
 */
budget_used?: BudgetUse | null, };

export type QueueStatus = { profile_id: ProfileId, paused: boolean, 
/**
 * Who paused it and why, while it is paused (none for a pause recorded
 * before the app kept its reason).
 */
pause?: QueuePause | null, executing: boolean, current_task: TaskId | null, queued: number, 
/**
 * The agent's current session, which the window shows for it: the one
 * its task at work runs in, else its newest running one; none when
 * none runs (an agent keeps one live session; one whose worktree task
 * ended lives on only for a short grace).
 */
current_session?: SessionId | null, };

export type QueuePause = { "by": "user", at: number, } | { "by": "all_queues", at: number, } | { "by": "agent_stopped", at: number, task_id: TaskId, } | { "by": "restart", at: number, task_id: TaskId, } | { "by": "task_not_started", at: number, task_id: TaskId, reason: string, } | { "by": "unknown" };

export type RestartTask = { "choice": "requeue" } | { "choice": "finish_first" } | { "choice": "cancel", pause_queue: boolean, };

export type Restarted = { "restart": "now", session: SessionInfo, } | { "restart": "after_task", task_id: TaskId, };

export type Submitted = { task: TaskInfo, 
/**
 * 1-based place in the queue; none when it started at once.
 */
position: number | null, 
/**
 * The task the agent is busy with, if any.
 */
waiting_for: TaskId | null, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type SignalKind = "clarification" | "stop_work" | "delegate" | "completion";

export type Independence = "can_proceed_parallel" | "blocks_current_work" | { "other": string };

export type SignalBody = { "kind": "clarification", blocked_at: string, questions: Array<string>, current_state: string, 
/**
 * The choices offered with each question, in the questions' order
 * (a question offering none has an empty list); empty when no
 * question offers any.
 */
options?: Array<Array<string>>, } | { "kind": "stop_work", blocker_type: string, details: string, state_snapshot: string, blocked_work: string, stop_reason: string, resume_requirements: string, } | { "kind": "delegate", new_task_description: string, independence: Independence, coordination: string, } | { "kind": "completion", status: string, deliverables: Array<string>, metrics_achieved: string, recommendations: Array<string>, };

export type Signal = { agent_id: string | null, timestamp: string | null, 
/**
 * Fields the protocol does not name, as the agent wrote them.
 */
extra: { [key in string]: JsonValue }, 
/**
 * The block's text between its markers.
 */
raw: string, } & ({ "kind": "clarification", blocked_at: string, questions: Array<string>, current_state: string, 
/**
 * The choices offered with each question, in the questions' order
 * (a question offering none has an empty list); empty when no
 * question offers any.
 */
options?: Array<Array<string>>, } | { "kind": "stop_work", blocker_type: string, details: string, state_snapshot: string, blocked_work: string, stop_reason: string, resume_requirements: string, } | { "kind": "delegate", new_task_description: string, independence: Independence, coordination: string, } | { "kind": "completion", status: string, deliverables: Array<string>, metrics_achieved: string, recommendations: Array<string>, });

export type ScanEvent = { "type": "signal", signal: Signal, } | { "type": "malformed", kind: SignalKind, reason: string, raw: string, };

export type SignalChannel = "pty" | "hook" | "tool";

export type ToolCall = { "type": "hello", 
/**
 * The CLI, as it named itself to the server.
 */
client: string | null, } | { "type": "call", tool: string, arguments: unknown, };

export type ToolAnswer = { 
/**
 * What happens next, in a sentence (or what the tool looked up).
 */
text: string, 
/**
 * The same as data, for a tool that looks something up.
 */
data: unknown, };

export type SignalState = "pending" | "handled" | "dismissed";

export type SignalResponse = { "action": "answer", answers: Array<string>, } | { "action": "resolve", resolution: string, } | { "action": "retry", fix: string, } | { "action": "skip" } | { "action": "delegate_blocked", profile_id: ProfileId, } | { "action": "approve", profile_id: ProfileId, } | { "action": "deny", reason: string, } | { "action": "acknowledge" } | { "action": "dismiss" };

export type SignalAction = "answer" | "resolve" | "retry" | "skip" | "delegate_blocked" | "approve" | "deny" | "acknowledge" | "dismiss";

export type DeliverableCheck = { path: string, 
/**
 * None when it exists inside the workspace; else why it does not count.
 */
problem: string | null, };

export type MalformedLine = { 
/**
 * 1-based.
 */
line: number, reason: string, };

export type MemberResult = { session_id: SessionId, profile_id: ProfileId, 
/**
 * True for the agent that asked for the others.
 */
requester: boolean, status: string, deliverables: Array<DeliverableCheck>, metrics_achieved: string, recommendations: Array<string>, };

export type MergedResult = { members: Array<MemberResult>, findings: Array<JsonValue>, malformed_findings: Array<MalformedLine>, merged_at: number, };

export type SignalInfo = { id: SignalId, session_id: SessionId, profile_id: ProfileId, 
/**
 * The task the agent was working on, if any.
 */
task_id: TaskId | null, channel: SignalChannel, 
/**
 * The signal as read, or why it could not be.
 */
scan: ScanEvent, state: SignalState, created_at: number, handled_at: number | null, response: SignalResponse | null, 
/**
 * The prompt typed into the agent in reply.
 */
reply_prompt: string | null, 
/**
 * The session that took delegated work.
 */
delegate_session: SessionId | null, 
/**
 * Completion reports: each deliverable checked.
 */
deliverables: Array<DeliverableCheck>, 
/**
 * Completion reports: the task's success criteria, to set beside
 * `metrics_achieved`.
 */
success_criteria: string | null, 
/**
 * On the requester's completion report, once it and every agent it
 * had working in parallel have reported: their results together.
 */
merged: MergedResult | null, 
/**
 * The responses it takes now (none once handled), as the engine
 * decides them; the window offers these.
 */
actions: Array<SignalAction>, };

export type LoopId = string;

export type AutomationId = string;

export type LoopSettings = { 
/**
 * What the loop works toward (written into its anchor).
 */
goal: string, 
/**
 * Written on a line of its own in `progress.md`, it ends the loop.
 */
stop_word: string, 
/**
 * `<promise>TEXT</promise>` in the agent's last message ends the loop.
 */
promise: string | null, 
/**
 * The loop ends when this many iterations have run.
 */
max_iterations: number, 
/**
 * This many identical stop reasons in a row stall the loop.
 */
stall_after: number, 
/**
 * Seconds an iteration may run; none: no limit.
 */
iteration_time_limit_secs: number | null, 
/**
 * What the whole loop may use: once used up, the iteration at work
 * ends over budget, and the loop with it.
 */
budget?: Budget | null, };

export type Completion = { "by": "stop_word", word: string, } | { "by": "promise", text: string, } | { "by": "max_iterations", max: number, };

export type Verdict = { "verdict": "complete", why: Completion, } | { "verdict": "stalled", repeated: number, reason: string, } | { "verdict": "continue" } | { "verdict": "cancelled" };

export type LoopIteration = { loop_id: LoopId, number: number, };

export type IterationOutcome = { "outcome": "running" } | { "outcome": "ended", at: number, stop_reason: string, verdict: Verdict, } | { "outcome": "interrupted", at: number, } | { "outcome": "failed_start", at: number, exit: string, said: string, };

export type Iteration = { 
/**
 * Its place in the loop's history, 1 for the first recorded (pages of
 * older iterations are asked for before it).
 */
seq: number, 
/**
 * 1 for the first; an iteration run again after an interruption keeps
 * its number, and the interrupted one does not count.
 */
number: number, task_id: TaskId | null, session_id: SessionId | null, started_at: number, outcome: IterationOutcome, 
/**
 * What it used and cost (live: summed by the engine from its task).
 */
spent: Spent, };

export type LoopState = { "state": "active" } | { "state": "complete", at: number, why: Completion, } | { "state": "stalled", at: number, repeated: number, reason: string, } | { "state": "cancelled", at: number, } | { "state": "failed_to_start", at: number, attempts: number, exit: string, said: string, } | { "state": "workspace_gone", at: number, path: string, } | { "state": "over_budget", at: number, budget: string, };

export type LoopInfo = { id: LoopId, profile_id: ProfileId, settings: LoopSettings, created_at: number, state: LoopState, 
/**
 * Its most recent iterations, oldest first: at most
 * [`LOOP_ITERATIONS_SHOWN`]; older ones are read with `loop_iterations`.
 * An iteration the app stopped during is kept, marked, and run again
 * under the same number.
 */
iterations: Array<Iteration>, 
/**
 * Every iteration recorded (interrupted ones and failed starts too).
 */
iteration_count: number, 
/**
 * Iterations that count toward the cap: the ended ones.
 */
iterations_run: number, 
/**
 * What all its iterations used and cost (live: summed by the engine).
 */
spent: Spent, 
/**
 * How much of its budget it used, where it has one.
 */
budget_used?: BudgetUse | null, };

export type LoopFiles = { 
/**
 * Its goal and rules, written by the app (the user may edit them).
 */
anchor: string | null, 
/**
 * The agent's running notes, read by the judge.
 */
progress: string | null, 
/**
 * Warnings learned from repeated failures (the user may edit them).
 */
guardrails: string | null, };

export type LoopFile = "anchor" | "guardrails";

export type DelegationState = { "state": "working" } | { "state": "reported", at: number, status: string, } | { "state": "failed", at: number, how: string, };

export type Delegation = { 
/**
 * The session doing the work.
 */
delegate_session: SessionId, delegate_profile: ProfileId, 
/**
 * The signal whose approval started it (a delegation request, or a
 * blocker whose blocked part was handed over).
 */
request: SignalId, 
/**
 * The session that asked, and its agent.
 */
requester_session: SessionId, requester_profile: ProfileId, 
/**
 * The work, as typed into the delegate.
 */
work: string, 
/**
 * Whether the requester waits for the outcome (it asked with
 * `blocks_current_work`); otherwise it went on and is not woken.
 */
blocks: boolean, 
/**
 * The user keeps the delegate running after it reports.
 */
keep: boolean, started_at: number, state: DelegationState, 
/**
 * Since when its delegate has shown no output and no hook event, once
 * that is longer than its agent's quiet alert, while it works: it may be
 * stuck. (Past its agent's time limit it ends, failed.)
 */
quiet_since: number | null, 
/**
 * What its delegate used and cost (live: summed by the engine; it
 * counts to the requester's task as its team's too).
 */
spent: Spent, };

export type AgentStatus = "waiting" | "working" | "attention" | "done" | "exited";

export type TeamInfo = { 
/**
 * The agent's own name for it (`CLAUDE_CODE_TEAM_NAME`, or the name its
 * events give).
 */
name: string, 
/**
 * Teammates still at work (its own and those the app started for it).
 */
active: number, };

export type AgentStatusInfo = { session_id: SessionId, status: AgentStatus, 
/**
 * When the last hook event arrived; none if hooks never reported.
 */
last_event_at: number | null, 
/**
 * The team it leads, once it has formed one: the gate's inputs.
 */
team: TeamInfo | null, 
/**
 * Who the agent's own environment says it is (`CLAUDE_CODE_AGENT_NAME`
 * and `CLAUDE_CODE_AGENT_TYPE`, as its hooks forward them).
 */
agent_name: string | null, agent_type: string | null, };

export type BackgroundTask = { id: string, type: string, status: string, };

export type HookEnvelope = { 
/**
 * The app session the agent runs in (`SWITCHBOARD_SESSION_ID`), if set.
 */
session_id: string | null, 
/**
 * The forwarded environment variables that were set.
 */
env: { [key in string]: string }, 
/**
 * Milliseconds since the epoch, when the hook ran.
 */
at: number, 
/**
 * The event JSON as the agent wrote it.
 */
payload: JsonValue, 
/**
 * The session's secret (`SWITCHBOARD_SESSION_SECRET`): without it the
 * event is not taken for the session it names. Never logged.
 */
secret?: string, };

export type PermissionRequest = { id: number, session_id: SessionId, tool_name: string, tool_input: JsonValue, asked_at: number, 
/**
 * After this the agent's own prompt decides.
 */
expires_at: number, 
/**
 * The machine that asked, when the window names another machine's
 * engine (`switchboard host`); none: the engine's own machine. The
 * answer goes there, and only there: a request's number is its
 * engine's own.
 */
host?: string | null, };

export type PermissionDecision = { allow: boolean, message: string | null, };

export type NotifyChoices = { 
/**
 * A task finished (its summary may say it is only partly done).
 */
task_completed: boolean, 
/**
 * A task failed or ran out of time.
 */
task_failed: boolean, 
/**
 * An agent waits for the user: a question, a blocker, a delegation to
 * approve, a completion report.
 */
needs_answer: boolean, 
/**
 * A loop finished, stopped at its cap, or stalled.
 */
loop_ended: boolean, 
/**
 * An agent showed no sign of life past its alert while at work.
 */
agent_quiet: boolean, 
/**
 * An account used most of a usage window (past the warning), agents
 * reached its usage limit, and went on after it reset.
 */
usage_limit: boolean, };

export type QuietHours = { "mode": "off" } | { "mode": "daily", from: string, to: string, };

export type Theme = "system" | "dark" | "light";

export type TerminalGrid = { shows: GridShows, 
/**
 * The agents the user chose, in their places (at most
 * [`MAX_GRID_TERMINALS`]); kept while the grid shows another set.
 */
chosen: Array<ProfileId>, 
/**
 * The agent shown at the grid's full size (none: all side by side).
 */
zoomed: ProfileId | null, };

export type GridShows = "chosen" | "needs_you" | "working";

export type Settings = { 
/**
 * The time limit a new agent's tasks get unless its form says otherwise,
 * in seconds.
 */
default_task_time_limit_secs: number, 
/**
 * How long a new agent may show no sign of life while it works before
 * its task is flagged as possibly stuck, in seconds; 0: never.
 */
default_quiet_alert_secs: number, 
/**
 * An agent with neither a ready pattern nor hooks is done with what was
 * typed (a loop's iteration is over) once its output has been quiet this
 * many seconds after it answered; 0: never by quiet alone (loops then
 * need a ready pattern or hooks).
 */
turn_quiet_secs: number, 
/**
 * How long after an account's usage limit resets its agents are asked
 * to go on, in seconds (the reset a CLI names is seldom to the second).
 */
limit_margin_secs: number, 
/**
 * When a CLI does not say when its usage limit resets: the first wait
 * before trying again, in seconds; each try that is still refused
 * doubles it, up to 30 minutes.
 */
limit_retry_secs: number, 
/**
 * How much of a usage window an account may use before the user is
 * told, once per window, in percent; 0: never.
 */
usage_warn_percent: number, 
/**
 * Which kinds of events show a desktop notification.
 */
notify: NotifyChoices, 
/**
 * When notifications are held back.
 */
quiet_hours: QuietHours, theme: Theme, 
/**
 * The grid of live terminals, as the user left it.
 */
terminal_grid: TerminalGrid, 
/**
 * What each model's tokens cost: the shipped table until the user edits it.
 */
prices: PriceTable, };

export type Usd = number;

export type Budget = { "tokens": number } | { "usd": Usd };

export type Rates = { input: Usd, output: Usd, cache_write_5m: Usd, cache_write_1h: Usd, cache_read: Usd, };

export type LongPrompt = { above_tokens: number, input: Usd, output: Usd, cache_write_5m: Usd, cache_write_1h: Usd, cache_read: Usd, };

export type ModelPrice = { model: string, 
/**
 * The rates of an answer whose prompt (its input, cache reads and cache
 * writes) is longer than `above_tokens`, for every token of it, where
 * the model has such a tier.
 */
long_prompt?: LongPrompt | null, input: Usd, output: Usd, cache_write_5m: Usd, cache_write_1h: Usd, cache_read: Usd, };

export type PriceTable = { source: string, 
/**
 * The day the prices were read from their source (`YYYY-MM-DD`).
 */
taken: string, models: Array<ModelPrice>, };

export type ModelTokens = { model: string, input: number, output: number, cache_read: number, cache_write: number, cost_usd: Usd | null, };

export type TokenTotals = { input: number, output: number, cache_read: number, cache_write: number, by_model: Array<ModelTokens>, };

export type Spent = { tokens: TokenTotals, 
/**
 * None when a model it used has no price.
 */
cost_usd: Usd | null, 
/**
 * The cost is what the tokens would cost at list prices: the account
 * pays by subscription.
 */
list_price: boolean, };

export type TaskSpent = { tokens: TokenTotals, 
/**
 * None when a model it used has no price.
 */
cost_usd: Usd | null, 
/**
 * Its team's tokens, where it led one that used any.
 */
team_tokens?: TokenTotals | null, team_cost_usd?: Usd | null, 
/**
 * Its costs are what its tokens would cost at list prices: its account
 * pays by subscription.
 */
list_price: boolean, 
/**
 * How much of its budget it used (its own and its team's together),
 * where it has one.
 */
budget_used?: BudgetUse | null, };

export type BudgetMark = "under" | "near" | "spent";

export type BudgetUse = { 
/**
 * Whole percent used, rounded down; none for a dollar budget while a
 * model the work used has no price.
 */
used_percent: number | null, mark: BudgetMark, };

export type CostGrouping = "agent" | "day" | "task";

export type CostSince = { "from": "today" } | { "from": "at", at: number, };

export type CostRow = { 
/**
 * The agent's or task's id, or the day.
 */
key: string, 
/**
 * What a person calls it: the agent's name, the day, the task's title
 * (work done outside any task: "outside tasks").
 */
name: string, 
/**
 * An agent's row of a report of today: how much of its day's budget it
 * used, where it has one.
 */
day_budget?: BudgetUse | null, tokens: TokenTotals, 
/**
 * None when a model it used has no price.
 */
cost_usd: Usd | null, 
/**
 * The cost is what the tokens would cost at list prices: the account
 * pays by subscription.
 */
list_price: boolean, };

export type CostReport = { 
/**
 * When it counts from (Unix ms): for today, when the engine's day
 * began.
 */
since: number, by: CostGrouping, rows: Array<CostRow>, total: Spent, };

export type Trigger = { "on": "every", every: string, } | { "on": "rule", rrule: string, } | { "on": "task_ended", profile_id: ProfileId, ended: TaskEnd, } | { "on": "files_changed", dir: string, globs: Array<string>, } | { "on": "branch_moved", repo: string, branch: string, };

export type TaskEnd = "completed" | "failed" | "any";

export type AutomationAction = { "does": "task", instruction: string, title?: string | null, budget?: Budget | null, 
/**
 * Seconds; none: the agent's.
 */
time_limit_secs?: number | null, } | { "does": "loop", settings: LoopSettings, };

export type Overlap = "skip" | "queue";

export type CatchUp = "once" | "skip";

export type AutomationSpec = { 
/**
 * The agent whose work it starts.
 */
profile_id: ProfileId, trigger: Trigger, action: AutomationAction, 
/**
 * An IANA time zone a schedule is in; none: the engine machine's.
 */
zone?: string | null, overlap: Overlap, catch_up: CatchUp, 
/**
 * The most runs it makes in an hour; more are held back, said so.
 */
max_runs_per_hour: number, };

export type PauseReason = { "by": "user" } | { "by": "failing", failures: number, last: string, };

export type AutomationState = { "state": "active" } | { "state": "paused", at: number, why: PauseReason, };

export type RunOutcome = { "outcome": "task", task_id: TaskId, state: TaskState, cost_usd?: Usd | null, } | { "outcome": "loop", loop_id: LoopId, state: string, } | { "outcome": "skipped", why: string, };

export type AutomationRun = { seq: number, fired_at: number, 
/**
 * Why it fired, in words: "its schedule (weekdays 09:00)", "coder's
 * task “Port the parser” completed", "run now", "caught up once: 3 runs
 * were missed while the engine did not run".
 */
reason: string, outcome: RunOutcome, };

export type Automation = { id: AutomationId, created_at: number, state: AutomationState, 
/**
 * When its schedule runs it next (Unix ms); none for a chain, or while
 * paused.
 */
next_run?: number | null, 
/**
 * A branch trigger's: the commit its branch was last seen at. A move
 * from it runs the automation, unless Switchboard's own merge made it.
 */
branch_at?: string | null, 
/**
 * Its latest runs, oldest first (at most [`AUTOMATION_RUNS_SHOWN`]).
 */
runs: Array<AutomationRun>, 
/**
 * The machine it runs on, as a window that shows several names it
 * (none: the engine's own machine).
 */
host?: string | null, 
/**
 * The agent whose work it starts.
 */
profile_id: ProfileId, trigger: Trigger, action: AutomationAction, 
/**
 * An IANA time zone a schedule is in; none: the engine machine's.
 */
zone?: string | null, overlap: Overlap, catch_up: CatchUp, 
/**
 * The most runs it makes in an hour; more are held back, said so.
 */
max_runs_per_hour: number, };

export type StorageProblem = { "kind": "full" } | { "kind": "read_only" } | { "kind": "failing", detail: string, };

export type StorageStatus = { data_dir: string, problem: StorageProblem | null, 
/**
 * Hook events spooled while no app ran that could not be read at this
 * start; they are kept, byte for byte, in `set_aside_file`.
 */
hook_events_set_aside: number, set_aside_file: string, };

export type Command = { "type": "list_profiles", } | { "type": "create_profile", spec: ProfileSpec, } | { "type": "update_profile", profile_id: ProfileId, spec: ProfileSpec, } | { "type": "delete_profile", profile_id: ProfileId, } | { "type": "check_profile", profile_id: ProfileId | null, spec: ProfileSpec, } | { "type": "agent_presets", } | { "type": "detected_agents", } | { "type": "list_sessions", } | { "type": "start_session", profile_id: ProfileId, size: TermSize, } | { "type": "stop_session", session_id: SessionId, } | { "type": "restart_session", session_id: SessionId, size: TermSize, running_task: RestartTask | null, } | { "type": "resume_session", session_id: SessionId, size: TermSize, } | { "type": "write_input", session_id: SessionId, data: string, } | { "type": "resize", session_id: SessionId, size: TermSize, } | { "type": "set_output_paused", session_id: SessionId, paused: boolean, } | { "type": "screen_snapshot", session_id: SessionId, recent_lines: number, } | { "type": "list_events", session_id: SessionId | null, } | { "type": "submit_task", spec: TaskSpec, } | { "type": "list_tasks", profile_id: ProfileId | null, } | { "type": "get_task", task_id: TaskId, } | { "type": "cancel_task", task_id: TaskId, } | { "type": "move_task", task_id: TaskId, to_index: number, } | { "type": "requeue_task", task_id: TaskId, } | { "type": "type_task_now", task_id: TaskId, } | { "type": "edit_task", task_id: TaskId, title: string | null, instruction: string | null, } | { "type": "artifact_path", task_id: TaskId, path: string, } | { "type": "rerun_task", task_id: TaskId, } | { "type": "set_queue_paused", profile_id: ProfileId | null, paused: boolean, } | { "type": "list_queues", } | { "type": "storage_status", } | { "type": "get_settings", } | { "type": "set_settings", settings: Settings, } | { "type": "cost_report", since: CostSince, by: CostGrouping, } | { "type": "task_timeline", task_id: TaskId, } | { "type": "list_signals", } | { "type": "respond_to_signal", signal_id: SignalId, response: SignalResponse, } | { "type": "list_delegations", } | { "type": "keep_delegate", session_id: SessionId, keep: boolean, } | { "type": "start_loop", profile_id: ProfileId, settings: LoopSettings, } | { "type": "list_loops", } | { "type": "create_automation", spec: AutomationSpec, } | { "type": "update_automation", automation_id: AutomationId, spec: AutomationSpec, } | { "type": "list_automations", } | { "type": "get_automation", automation_id: AutomationId, } | { "type": "pause_automation", automation_id: AutomationId, } | { "type": "resume_automation", automation_id: AutomationId, } | { "type": "run_automation_now", automation_id: AutomationId, } | { "type": "remove_automation", automation_id: AutomationId, } | { "type": "get_loop", loop_id: LoopId, } | { "type": "loop_iterations", loop_id: LoopId, before: number, limit: number, } | { "type": "cancel_loop", loop_id: LoopId, } | { "type": "resume_loop", loop_id: LoopId, } | { "type": "loop_files", loop_id: LoopId, } | { "type": "save_loop_file", loop_id: LoopId, file: LoopFile, text: string, } | { "type": "agent_text", session_id: SessionId, text: string, } | { "type": "session_tool", session_id: SessionId, secret: string, call: ToolCall, } | { "type": "hook_event", envelope: HookEnvelope, } | { "type": "flow_diagrams", } | { "type": "flow_view", target: FlowTarget, until_seq: number | null, } | { "type": "flow_events", target: FlowTarget, since_at: number | null, limit: number, } | { "type": "export_flow_events", target: FlowTarget, } | { "type": "flow_overview", } | { "type": "search", query: string, } | { "type": "list_agent_status", } | { "type": "list_attention", } | { "type": "list_limits", } | { "type": "list_usage", } | { "type": "resume_agent", profile_id: ProfileId, } | { "type": "set_viewing", viewing: Viewing, } | { "type": "list_permission_requests", } | { "type": "decide_permission", request_id: number, allow: boolean, message: string | null, } | { "type": "folder_repository", folder: string, } | { "type": "list_folder", path: string, } | { "type": "set_repository_setup", repository: string, setup_command: string | null, } | { "type": "list_worktrees", } | { "type": "worktree_diff", worktree: string, } | { "type": "commit_worktree", worktree: string, } | { "type": "merge_worktree", worktree: string, } | { "type": "discard_worktree", worktree: string, force: boolean, } | { "type": "rebase_worktree", worktree: string, } | { "type": "review_worktree", worktree: string, comments: Array<ReviewComment>, } | { "type": "web_status", } | { "type": "set_web", settings: WebSettings, } | { "type": "pair_device", read_only: boolean, name: string | null, } | { "type": "list_devices", } | { "type": "this_device", } | { "type": "revoke_device", device_id: string, } | { "type": "resolve_worktree", worktree: string, };

export type Reply = { "type": "unit" } | { "type": "profiles", "value": Array<Profile> } | { "type": "profile", "value": Profile } | { "type": "problems", "value": Array<ProfileProblem> } | { "type": "presets", "value": Array<AgentPreset> } | { "type": "detected_agents", "value": Array<DetectedAgent> } | { "type": "sessions", "value": Array<SessionInfo> } | { "type": "session", "value": SessionInfo } | { "type": "snapshot", "value": ScreenSnapshot } | { "type": "events", "value": Array<LogEntry> } | { "type": "submitted", "value": Submitted } | { "type": "tasks", "value": Array<TaskInfo> } | { "type": "task", "value": TaskInfo } | { "type": "queues", "value": Array<QueueStatus> } | { "type": "signals", "value": Array<SignalInfo> } | { "type": "signal", "value": SignalInfo } | { "type": "agent_status", "value": Array<AgentStatusInfo> } | { "type": "permission", "value": PermissionDecision | null } | { "type": "permission_requests", "value": Array<PermissionRequest> } | { "type": "storage", "value": StorageStatus } | { "type": "settings", "value": Settings } | { "type": "delegations", "value": Array<Delegation> } | { "type": "delegation", "value": Delegation } | { "type": "loops", "value": Array<LoopInfo> } | { "type": "loop", "value": LoopInfo } | { "type": "iterations", "value": Array<Iteration> } | { "type": "loop_files", "value": LoopFiles } | { "type": "diagrams", "value": Array<Diagram> } | { "type": "flow_view", "value": FlowView } | { "type": "flow_events", "value": FlowEvents } | { "type": "overview", "value": Overview } | { "type": "search_hits", "value": Array<SearchHit> } | { "type": "text", "value": string } | { "type": "restarted", "value": Restarted } | { "type": "attention", "value": Array<AgentAttention> } | { "type": "limits", "value": Array<AccountLimit> } | { "type": "usage", "value": Array<AccountUsage> } | { "type": "folder_repository", "value": FolderRepository } | { "type": "folder_listing", "value": FolderListing } | { "type": "worktrees", "value": Array<WorktreeInfo> } | { "type": "commit", "value": CommitOutcome } | { "type": "worktree_diff", "value": WorktreeDiff } | { "type": "merge", "value": MergeOutcome } | { "type": "discard", "value": DiscardOutcome } | { "type": "rebase", "value": RebaseOutcome } | { "type": "web", "value": WebStatus } | { "type": "pairing", "value": PairingCode } | { "type": "devices", "value": Array<Device> } | { "type": "device", "value": Device | null } | { "type": "tool", "value": ToolAnswer } | { "type": "cost", "value": CostReport } | { "type": "automations", "value": Array<Automation> } | { "type": "automation", "value": Automation };

export type EngineEvent = { "type": "profile_saved", profile: Profile, } | { "type": "profile_deleted", profile_id: ProfileId, } | { "type": "session_changed", session: SessionInfo, } | { "type": "task_changed", task: TaskInfo, } | { "type": "queue_changed", queue: QueueStatus, } | { "type": "signal_changed", signal: SignalInfo, } | { "type": "loop_changed", info: LoopInfo, } | { "type": "automation_changed", automation: Automation, } | { "type": "automation_removed", automation_id: AutomationId, } | { "type": "delegation_changed", delegation: Delegation, } | { "type": "agent_status_changed", status: AgentStatusInfo, } | { "type": "permission_requested", request: PermissionRequest, } | { "type": "permission_closed", request_id: number, 
/**
 * The session that asked: a request's number is its engine's own,
 * and a window showing several machines tells them apart by it.
 */
session_id: SessionId, decision: PermissionDecision | null, } | { "type": "storage_changed", problem: StorageProblem | null, } | { "type": "signals_flooding", session_id: SessionId, profile_id: ProfileId, limit: number, 
/**
 * The signal that has waited longest, to start with.
 */
oldest_pending: SignalId | null, } | { "type": "settings_changed", settings: Settings, } | { "type": "web_changed", status: WebStatus, } | { "type": "devices_changed", devices: Array<Device>, } | { "type": "attention_changed", profile_id: ProfileId, attention: Attention, } | { "type": "worktree_changed", worktree: WorktreeInfo, } | { "type": "limit_changed", limit: AccountLimit, } | { "type": "usage_changed", usage: AccountUsage, } | { "type": "usage_warning", account: string, profiles: Array<ProfileId>, window: UsageWindow, } | { "type": "limit_lifted", account: string, profiles: Array<ProfileId>, by_user: boolean, 
/**
 * Lifted at a reset the app knew, rather than by a try made
 * without knowing it (or the user's word).
 */
at_reset: boolean, } | { "type": "logged", entry: LogEntry, profile_id: ProfileId | null, };

export type LogKind = { "kind": "session_started", pid: number, } | { "kind": "session_exited", exit_code: number, signal: string | null, } | { "kind": "session_killed", exit_code: number, signal: string | null, } | { "kind": "session_interrupted", reaped: boolean, } | { "kind": "task_queued", priority: Priority, } | { "kind": "task_started" } | { "kind": "task_typed", bracketed: boolean, } | { "kind": "task_moved", to_index: number, priority: Priority, } | { "kind": "task_edited", title: boolean, instruction: boolean, } | { "kind": "task_requeued", 
/**
 * Put back by the app itself: it stopped (quit or crashed) before
 * the task was typed to its agent.
 */
app_stopped: boolean, } | { "kind": "task_quiet", quiet: boolean, alert_secs: number, } | { "kind": "budget_near", budget: string, used_percent: number, } | { "kind": "automation_paused", name: string, why: string, } | { "kind": "task_waiting", waiting: boolean, } | { "kind": "task_refused", why: string | null, } | { "kind": "task_resumed" } | { "kind": "deliverable_rejected", path: string, reason: string, } | { "kind": "task_ended", state: TaskState, reason: string | null, } | { "kind": "signal_raised", signal_id: SignalId, signal_kind: SignalKind, malformed: boolean, } | { "kind": "signal_handled", signal_id: SignalId, response: SignalResponse, } | { "kind": "signal_set_aside", signal_kind: SignalKind, } | { "kind": "delegation", requester_session: SessionId, state: DelegationState, } | { "kind": "hook", event: string, payload: JsonValue, 
/**
 * The agent's identity variables the hook forwarded (its team's
 * name, say); absent in entries from before they were kept.
 */
env?: { [key in string]: string }, } | { "kind": "worktree_made", branch: string, base: string, path: string, } | { "kind": "worktree_setup", command: string, succeeded: boolean, exit: number | null, output: string, } | { "kind": "worktree_reviewed", step: ReviewStep, } | { "kind": "loop", loop_id: LoopId, step: LoopStep, };

export type LoopStep = { "step": "started", max_iterations: number, } | { "step": "iteration", number: number, } | { "step": "judged", number: number, verdict: Verdict, } | { "step": "resumed" } | { "step": "cancelled" } | { "step": "failed_start", number: number, attempt: number, } | { "step": "failed_to_start", attempts: number, } | { "step": "workspace_gone" } | { "step": "anchor_rewritten" };

export type LogEntry = { seq: number, at: number, session_id: SessionId | null, task_id: TaskId | null, } & ({ "kind": "session_started", pid: number, } | { "kind": "session_exited", exit_code: number, signal: string | null, } | { "kind": "session_killed", exit_code: number, signal: string | null, } | { "kind": "session_interrupted", reaped: boolean, } | { "kind": "task_queued", priority: Priority, } | { "kind": "task_started" } | { "kind": "task_typed", bracketed: boolean, } | { "kind": "task_moved", to_index: number, priority: Priority, } | { "kind": "task_edited", title: boolean, instruction: boolean, } | { "kind": "task_requeued", 
/**
 * Put back by the app itself: it stopped (quit or crashed) before
 * the task was typed to its agent.
 */
app_stopped: boolean, } | { "kind": "task_quiet", quiet: boolean, alert_secs: number, } | { "kind": "budget_near", budget: string, used_percent: number, } | { "kind": "automation_paused", name: string, why: string, } | { "kind": "task_waiting", waiting: boolean, } | { "kind": "task_refused", why: string | null, } | { "kind": "task_resumed" } | { "kind": "deliverable_rejected", path: string, reason: string, } | { "kind": "task_ended", state: TaskState, reason: string | null, } | { "kind": "signal_raised", signal_id: SignalId, signal_kind: SignalKind, malformed: boolean, } | { "kind": "signal_handled", signal_id: SignalId, response: SignalResponse, } | { "kind": "signal_set_aside", signal_kind: SignalKind, } | { "kind": "delegation", requester_session: SessionId, state: DelegationState, } | { "kind": "hook", event: string, payload: JsonValue, 
/**
 * The agent's identity variables the hook forwarded (its team's
 * name, say); absent in entries from before they were kept.
 */
env?: { [key in string]: string }, } | { "kind": "worktree_made", branch: string, base: string, path: string, } | { "kind": "worktree_setup", command: string, succeeded: boolean, exit: number | null, output: string, } | { "kind": "worktree_reviewed", step: ReviewStep, } | { "kind": "loop", loop_id: LoopId, step: LoopStep, });

export type DiagramId = "agent_status" | "loop_mode" | "stop_event" | "team_lead" | "team_lifecycle" | "completion_decision" | "clarification" | "stop_work" | "delegate_work" | "completion_report" | "checkpoint_resume" | "task_queue";

export type NodeShape = "start" | "step" | "decision" | "end";

export type FlowNode = { 
/**
 * Stable within its diagram.
 */
id: string, 
/**
 * What the step is, in the user's words, one line per `\n`.
 */
label: string, 
/**
 * The spec's own label, where it differs (one line per `\n`).
 */
spec: string | null, shape: NodeShape, 
/**
 * The spec's colours where it gives them (`#rrggbb`).
 */
fill: string | null, stroke: string | null, };

export type FlowEdge = { from: string, to: string, label: string | null, };

export type Diagram = { id: DiagramId, 
/**
 * What it shows, in a few words.
 */
title: string, 
/**
 * What it shows, in one sentence.
 */
about: string, 
/**
 * The spec document and section it is drawn from (a detail for the
 * curious, never the diagram's name).
 */
source: string, nodes: Array<FlowNode>, edges: Array<FlowEdge>, };

export type FlowTarget = { "of": "agent", profile_id: ProfileId, } | { "of": "session", session_id: SessionId, } | { "of": "task", task_id: TaskId, } | { "of": "loop", loop_id: LoopId, };

export type FollowedLog = { "of": "agent", profile_id: ProfileId, } | { "of": "everything" };

export type PathStep = { node: string, seq: number, at: number, };

export type EdgeCount = { from: string, to: string, count: number, };

export type NodeEvents = { node: string, 
/**
 * How often it was lit.
 */
count: number, 
/**
 * The events that lit it, the most recent [`MAX_NODE_EVENTS`].
 */
seqs: Array<number>, };

export type GateInputs = { team_name: string | null, active: number, teammates: Array<string>, };

export type DiagramState = { diagram: DiagramId, 
/**
 * The node or nodes lit now (several when work runs in parallel, or
 * several signals wait at once); empty before anything happened.
 */
current: Array<string>, 
/**
 * The nodes visited, oldest first (the most recent [`MAX_PATH_STEPS`]).
 */
path: Array<PathStep>, 
/**
 * Every edge crossed, with how often.
 */
edges: Array<EdgeCount>, 
/**
 * For each node lit at least once, the events that lit it.
 */
lit_by: Array<NodeEvents>, 
/**
 * The gate's inputs, for the team diagrams.
 */
gate: GateInputs | null, 
/**
 * Why this diagram can show nothing for the target's agent (none: it can).
 */
silent: DiagramSilence | null, };

export type DiagramSilence = "no_hooks" | "no_signal_protocols";

export type FlowView = { target: FlowTarget, 
/**
 * The last event folded (none: there were none).
 */
until_seq: number | null, until_at: number | null, 
/**
 * How many events were folded.
 */
events: number, 
/**
 * Every diagram, in [`DiagramId::ALL`] order.
 */
diagrams: Array<DiagramState>, };

export type FlowEvents = { entries: Array<LogEntry>, 
/**
 * Older events left out (past the limit asked for).
 */
omitted: number, };

export type Need = { "kind": "question", questions: number, first: string, } | { "kind": "permission", tool: string, } | { "kind": "blocker", blocker: string, } | { "kind": "delegation" } | { "kind": "report" } | { "kind": "unreadable" } | { "kind": "asks" } | { "kind": "account", why: string, } | { "kind": "limit_persists", account: string, resets: number, };

export type Stall = { "kind": "loop", loop_id: LoopId, goal: string, reason: string, } | { "kind": "quiet", task_id: TaskId, task: string, };

export type Ending = { "how": "exited", code: number, signal: string | null, } | { "how": "stopped" } | { "how": "interrupted" };

export type Attention = { "state": "needs_you", need: Need, 
/**
 * Since when the oldest of its waits has waited.
 */
since: number, 
/**
 * The task it came from, where one did.
 */
task_id: TaskId | null, 
/**
 * That task's first line.
 */
task: string | null, 
/**
 * The signal that opens it (the oldest), where the wait is one.
 */
signal_id: SignalId | null, 
/**
 * How many of its things wait for the user (signals and
 * permission requests), at least one.
 */
waiting: number, } | { "state": "stalled", stall: Stall, since: number, } | { "state": "failed", count: number, 
/**
 * The latest of them.
 */
task_id: TaskId, task: string, 
/**
 * Why it failed, as the engine or the agent put it.
 */
reason: string | null, 
/**
 * When the latest ended.
 */
since: number, } | { "state": "limited", account: string, until: number | null, retry_at: number, since: number, 
/**
 * Its task that waits, where one does.
 */
task_id: TaskId | null, task: string | null, } | { "state": "working", task_id: TaskId | null, task: string | null, since: number | null, } | { "state": "idle", since: number | null, } | { "state": "stopped", since: number | null, ended: Ending | null, failed: number, };

export type AgentAttention = { profile_id: ProfileId, attention: Attention, };

export type Isolation = "none" | "worktree";

export type FolderRepository = { "kind": "repository", 
/**
 * The repository's top folder.
 */
root: string, 
/**
 * The branch checked out there; none when detached.
 */
branch: string | null, 
/**
 * The command run in each new worktree of this repository (say,
 * installing dependencies), in the repository's settings.
 */
setup_command: string | null, } | { "kind": "not_a_repository", why: string, };

export type WorktreeState = "working" | "ready_to_merge" | "conflicting" | "task_failed" | "task_stopped" | "conflicts_with_base" | "behind" | "merged" | "folder_missing" | "tampered" | "branch_gone" | "refused" | "discarded";

export type WorktreeOverlap = { 
/**
 * The other worktree (its task or loop).
 */
with: string, 
/**
 * Its task's name.
 */
with_title: string, files: Array<string>, 
/**
 * Regions of the shared files this one changes that meet the other's.
 */
meeting_hunks: number, 
/**
 * Merge this one first (it has fewer overlapping changes).
 */
merge_first: boolean, };

export type AccountLimit = { 
/**
 * The account, as the agents' profiles name it (or their CLI's folder).
 */
account: string, 
/**
 * The agents that work under it.
 */
profiles: Array<ProfileId>, 
/**
 * Since when it has been limited.
 */
since: number, 
/**
 * When it resets, as its agent said; none when it did not say.
 */
until: number | null, 
/**
 * When the app tries again (the reset and a margin, or the next try of
 * an unknown reset).
 */
retry_at: number, 
/**
 * Resets that passed with the agent still refused, in a row.
 */
passed: number, phase: LimitPhase, };

export type WebSettings = { serving: boolean, 
/**
 * The address and port it listens on (`ADDR:PORT`); none: 127.0.0.1 on
 * the port it chose the first time, kept since. Any address but
 * loopback is served over HTTPS only.
 */
listen: string | null, 
/**
 * The certificate and its key (PEM files) the user gave; none: one the
 * engine made and keeps, for an address other than loopback.
 */
tls_cert: string | null, tls_key: string | null, 
/**
 * Names a browser may reach it by besides loopback's and the address
 * bound (a tailnet name, say), as a `Host` header gives them.
 */
names: Array<string>, };

export type WebStatus = { settings: WebSettings, 
/**
 * The address a browser opens (none while not serving).
 */
url: string | null, 
/**
 * The SHA-256 fingerprint of the certificate served, for HTTPS.
 */
fingerprint: string | null, 
/**
 * Why it does not serve although it should (the port is taken, say).
 */
problem: string | null, };

export type PairingCode = { code: string, 
/**
 * Opening it is the whole pairing.
 */
url: string, expires_at: number, read_only: boolean, 
/**
 * The name the device gets (none: named after its browser).
 */
name: string | null, 
/**
 * The certificate's fingerprint, to compare with what the browser shows.
 */
fingerprint: string | null, 
/**
 * The QR code of `url`: one string a row, `#` a dark module.
 */
qr: Array<string>, };

export type Device = { id: string, name: string, 
/**
 * It sends only commands that read.
 */
read_only: boolean, paired_at: number, last_seen_at: number, 
/**
 * The address it was last seen from.
 */
last_from: string, 
/**
 * Its pages and sockets open now.
 */
connected: boolean, };

export type PageNotice = { "type": "show", 
/**
 * Where it shows: one place per agent, one for tasks that ended,
 * one for the app's own.
 */
place: string, tone: NoticeTone, title: string, body: string, 
/**
 * What tapping it opens (none: just the page).
 */
opens: OpenTarget | null, 
/**
 * It stays until what it tells is handled (then a `close` comes);
 * otherwise it goes by itself.
 */
stays: boolean, } | { "type": "close", place: string, };

export type NoticeTone = "asks" | "stalled" | "failed" | "done";

export type AccountUsage = { 
/**
 * The account, as the agents' profiles name it (or their CLI's folder).
 */
account: string, 
/**
 * The agents that work under it.
 */
profiles: Array<ProfileId>, 
/**
 * Its windows: the 5-hour one first, then the week.
 */
windows: Array<UsageWindow>, 
/**
 * When a CLI last told it.
 */
told_at: number, };

export type UsageLevel = "ok" | "warn" | "full";

export type FolderListing = { 
/**
 * The folder, its whole path (links resolved).
 */
path: string, 
/**
 * The folder above it; none at the root.
 */
parent: string | null, 
/**
 * Its subfolders' names: hidden ones (a leading dot) last, each group
 * by name.
 */
folders: Array<string>, 
/**
 * More subfolders than are listed.
 */
truncated: boolean, };

export type LimitPhase = { "phase": "waiting" } | { "phase": "resuming", profile_id: ProfileId, } | { "phase": "asks_user" };

export type UsageWindow = { 
/**
 * Its length in minutes (300: 5 hours; 10080: a week).
 */
minutes: number, 
/**
 * How much of it is used, in whole percent (0 to 100).
 */
used_percent: number, 
/**
 * When it resets, when the CLI said.
 */
resets_at: number | null, 
/**
 * How it stands against the user's warning (worked out by the engine
 * as it tells the usage: the engine's `limits::level_of`).
 */
level: UsageLevel, };

export type WorktreeInfo = { 
/**
 * The task it was made for, or the loop (for all its iterations).
 */
task: string, 
/**
 * The task's name, or the loop's goal.
 */
title: string, loop_id: LoopId | null, profile_id: ProfileId, 
/**
 * The agent's name.
 */
agent: string, repository: string, branch: string, 
/**
 * The branch it was made from, which a merge lands on.
 */
base: string, path: string, created_at: number, state: WorktreeState, 
/**
 * The state in words, the same in every client (the engine's).
 */
state_text: string, 
/**
 * The files a merge into its base would conflict in now.
 */
base_conflict: Array<string>, 
/**
 * Commits on its base since its branch left it.
 */
behind: number, 
/**
 * Files changed against the base (none known for a merged, discarded
 * or missing one).
 */
files_changed: number, 
/**
 * The worktrees that change a file this one changes.
 */
conflicts_with: Array<string>, overlaps: Array<WorktreeOverlap>, 
/**
 * The files a merge met a conflict in (until the next merge or rebase).
 */
merge_conflict: Array<string>, 
/**
 * Where its work was kept as a patch when it was discarded.
 */
patch: string | null, 
/**
 * The task at work in it now, if any.
 */
task_at_work: TaskId | null, };

export type FileStatus = "added" | "modified" | "deleted" | "renamed";

export type DiffContent = { "kind": "text", before: string, after: string, unified: string, } | { "kind": "binary" } | { "kind": "too_large", bytes: number, };

export type FileDiff = { path: string, 
/**
 * Where a renamed file was.
 */
from: string | null, status: FileStatus, content: DiffContent, };

export type WorktreeDiff = { worktree: WorktreeInfo, files: Array<FileDiff>, 
/**
 * Files left out past the most a diff shows.
 */
files_left_out: number, 
/**
 * The latest summary of a task in it.
 */
summary: string | null, };

export type CommitOutcome = { 
/**
 * False: everything in it was committed already.
 */
committed: boolean, worktree: WorktreeInfo, };

export type MergeOutcome = { "outcome": "merged", base: string, commit: string, fast_forward: boolean, } | { "outcome": "conflict", files: Array<string>, } | { "outcome": "in_the_way", why: string, };

export type DiscardOutcome = { "outcome": "discarded", patch: string | null, } | { "outcome": "would_lose_work", files_changed: number, };

export type RebaseOutcome = { "outcome": "rebased" } | { "outcome": "conflict", files: Array<string>, };

export type ReviewComment = { path: string, 
/**
 * 1-based, in the file as it is now (or as it was, for a deleted line).
 */
line: number, text: string, };

export type ReviewStep = { "review": "committed" } | { "review": "merged", base: string, fast_forward: boolean, } | { "review": "merge_conflict", files: Array<string>, } | { "review": "rebased" } | { "review": "rebase_conflict", files: Array<string>, } | { "review": "discarded", patch: string | null, } | { "review": "comments_sent", comments: number, };

export type Viewing = { profile_id: ProfileId | null, task_id: TaskId | null, focused: boolean, };

export type OverviewAgent = { profile_id: ProfileId, name: string, 
/**
 * Its running session, if one runs.
 */
session_id: SessionId | null, 
/**
 * What its hooks and the app say; none for an agent that runs without
 * hooks and is not at a task.
 */
status: AgentStatus | null, 
/**
 * Since when it has been in that state (running or not); none for an
 * agent that never ran.
 */
since: number | null, running: boolean, 
/**
 * Its task at work.
 */
task_id: TaskId | null, 
/**
 * What it is at: its task's first line, or its loop's iteration.
 */
doing: string | null, loop_iteration: number | null, queued: number, 
/**
 * Questions or decisions of its waiting for the user.
 */
needs_user: number, 
/**
 * What it asks of the user's attention: the one state every place
 * shows for it.
 */
attention: Attention, };

export type OverviewHelper = { 
/**
 * Stable within the overview: the lead's session and the helper's name.
 */
id: string, lead: ProfileId, name: string, };

export type LinkKind = "delegated" | "spawned";

export type OverviewLink = { 
/**
 * An agent (its profile id) or a helper (its id).
 */
from: string, to: string, kind: LinkKind, };

export type Overview = { agents: Array<OverviewAgent>, 
/**
 * Helpers an agent runs inside its own process: Claude Code teammates
 * and background agents.
 */
helpers: Array<OverviewHelper>, links: Array<OverviewLink>, };

export type Found = { "in": "task", task_id: TaskId, title: string, state: TaskState, } | { "in": "summary", task_id: TaskId, title: string, state: TaskState, } | { "in": "signal", signal_id: SignalId, kind: SignalKind, pending: boolean, };

export type SearchHit = { profile_id: ProfileId, 
/**
 * When it was made: the task submitted or ended, the signal raised.
 */
at: number, 
/**
 * The text around the first word found, whitespace collapsed.
 */
snippet: string, found: Found, };

export type ErrorCode = "invalid_input" | "invalid_profile" | "command_not_found" | "directory_missing" | "duplicate_name" | "profile_not_found" | "session_not_found" | "session_not_running" | "profile_busy" | "spawn_failed" | "task_not_found" | "task_state" | "signal_not_found" | "signal_state" | "too_many_agents" | "already_running" | "loop_busy" | "storage" | "disk_full" | "permission_denied" | "not_found" | "io" | "not_allowed" | "engine_stopped" | "worktree_not_found" | "git" | "nothing_to_resume" | "internal";

export type ApiError = { code: ErrorCode, message: string, field: string | null, problems?: Array<ProfileProblem>, };

export type AppInfo = { data_dir: string, socket_path: string, 
/**
 * The machine whose engine the window shows, when not this one (an
 * SSH destination: `switchboard --host`).
 */
host: string | null, version: string, 
/**
 * Why the engine could not start on its data (the window opens to say
 * so; nothing else works until the app is restarted).
 */
startup_problem: StorageProblem | null, };

export type OpenTarget = { "kind": "task", "id": TaskId } | { "kind": "signal", "id": SignalId } | { "kind": "loop", "id": LoopId } | { "kind": "agent", "id": ProfileId };

export type EngineLink = { "state": "connecting" } | { "state": "connected", engine_version: string, 
/**
 * The engine is another build than this window (an update was
 * installed while it ran): restarting it takes the new one.
 */
outdated: boolean, 
/**
 * Agents running when the window connected.
 */
agents_running: number, 
/**
 * The machine the engine runs on, when not this one (an SSH
 * destination): its engine is neither started nor stopped from here.
 */
host: string | null, 
/**
 * Which of the link's connections this is (1 for the first): a
 * window that loaded what it shows from another connection loads
 * it again, whichever way the new one came about.
 */
connection: number, 
/**
 * The window started this engine again by itself, because the one
 * before it died (killed, crashed: not stopped by the user).
 */
restarted: boolean, 
/**
 * The user's login service runs this engine: it starts at each
 * login, so automations fire with no window open. Where none does,
 * they fire only while the engine runs.
 */
starts_at_login: boolean, } | { "state": "lost", reason: string, host: string | null, } | { "state": "refused", reason: string, host: string | null, };

export type HostState = { 
/**
 * As ssh takes it: `user@host`, or an alias of the user's ssh config.
 */
destination: string, port: number | null, 
/**
 * The `switchboard` program there, when not on its PATH.
 */
remote_program: string | null, state: HostCondition, 
/**
 * The version of Switchboard that answers there.
 */
version: string | null, agents_running: number | null, 
/**
 * What stands in the way, in words.
 */
problem: string | null, 
/**
 * Its state as the window and the command line say it: "connected,
 * Switchboard 0.1.0, 2 agents running", or what stands in the way.
 */
words: string, 
/**
 * The key the host presents, when ssh does not know it yet: shown to
 * the user, who accepts it by its fingerprint.
 */
unknown_key: HostKeyShown | null, };

export type HostLink = { 
/**
 * The machine as the user wrote it for ssh (`switchboard host add`).
 */
destination: string, link: EngineLink, };

export type EventPace = "live" | "calm";

export type HostCondition = "connected" | "unknown_host_key" | "changed_host_key" | "sign_in" | "unreachable" | "not_installed" | "incompatible" | "failed";

export type HostKeyShown = { 
/**
 * `ED25519`, `RSA`, ….
 */
key_type: string, 
/**
 * `SHA256:…`.
 */
fingerprint: string, };

export type SubscriptionId = number;

/** The engine's commands the window may send, as typed calls (one per command of the engine's list). */
export interface EngineCommands {
  listProfiles(): Promise<Array<Profile>>;
  createProfile(spec: ProfileSpec): Promise<Profile>;
  updateProfile(profileId: ProfileId, spec: ProfileSpec): Promise<Profile>;
  deleteProfile(profileId: ProfileId): Promise<void>;
  /** Every problem `create_profile` (no `profile_id`) or `update_profile` would find with the spec, without saving anything; none: it would be saved. */
  checkProfile(profileId: ProfileId | null, spec: ProfileSpec): Promise<Array<ProfileProblem>>;
  /** Settings that work for each agent CLI the app knows (Claude Code, Codex). */
  agentPresets(): Promise<Array<AgentPreset>>;
  /** Each preset's CLI as found on `PATH`, with its version (run with a time limit), or missing: what the window offers as one-click agents. */
  detectedAgents(): Promise<Array<DetectedAgent>>;
  /** Oldest first. */
  listSessions(): Promise<Array<SessionInfo>>;
  startSession(profileId: ProfileId, size: TermSize): Promise<SessionInfo>;
  /** Stops the session's whole process tree; answers once it is gone, with its final state. */
  stopSession(sessionId: SessionId): Promise<SessionInfo>;
  /** Stops the session if it runs, then starts a new one of its profile. A task at work in it goes as `running_task` says (refused without one while a task runs): back at the head of its queue, finished first (the session then restarts after it), or cancelled. */
  restartSession(sessionId: SessionId, size: TermSize, runningTask: RestartTask | null): Promise<Restarted>;
  /** Starts a new session of an ended session's profile that continues the agent's conversation (Claude Code: `--resume`). */
  resumeSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo>;
  writeInput(sessionId: SessionId, data: string): Promise<void>;
  resize(sessionId: SessionId, size: TermSize): Promise<void>;
  /** Flow control from a view: while paused the engine stops reading the agent's PTY, so a flooding agent blocks instead of the view. */
  setOutputPaused(sessionId: SessionId, paused: boolean): Promise<void>;
  /** The screen as text and this many recent lines (the dashboard's previews). */
  screenSnapshot(sessionId: SessionId, recentLines: number): Promise<ScreenSnapshot>;
  /** Queues a task for its agent; it starts at once when the agent is idle and its queue runs. */
  submitTask(spec: TaskSpec): Promise<Submitted>;
  /** Queued and running tasks, and the most recent finished ones; of one agent, or of all. */
  listTasks(profileId: ProfileId | null): Promise<Array<TaskInfo>>;
  getTask(taskId: TaskId): Promise<TaskInfo>;
  /** A queued task leaves the queue; a running one is interrupted. Both end cancelled. */
  cancelTask(taskId: TaskId): Promise<TaskInfo>;
  /** Moves a queued task to this 0-based place in its agent's queue (as listed: urgent first). Landing among the other priority's tasks takes that priority. */
  moveTask(taskId: TaskId, toIndex: number): Promise<void>;
  /** Puts an interrupted, failed, timed-out or cancelled task back at the front of its agent's queue. */
  requeueTask(taskId: TaskId): Promise<TaskInfo>;
  /** Types a task its agent took from the queue but is not ready for now, whatever its readiness says (the user sees its prompt where its ready pattern does not). */
  typeTaskNow(taskId: TaskId): Promise<TaskInfo>;
  /** Renames a task (an empty title gives it its instruction's first line back) and, while it waits in its queue, changes its instruction. */
  editTask(taskId: TaskId, title: string | null, instruction: string | null): Promise<TaskInfo>;
  /** Where a file a task returned is now (absolute), checked again: still inside its agent's workspace, symlinks resolved, a regular file. The window's "Open" and "Show in folder" ask it (through the shell, which opens it). */
  artifactPath(taskId: TaskId, path: string): Promise<string>;
  /** Runs a finished task again, as a new task at the end of its agent's queue. */
  rerunTask(taskId: TaskId): Promise<Submitted>;
  /** Pauses or resumes one agent's queue, or every queue. */
  setQueuePaused(profileId: ProfileId | null, paused: boolean): Promise<void>;
  listQueues(): Promise<Array<QueueStatus>>;
  /** Where the data lives and whether it can be written now. */
  storageStatus(): Promise<StorageStatus>;
  /** The app's settings (their defaults where the user set none). */
  getSettings(): Promise<Settings>;
  /** Checks and keeps the app's settings; answers with them as kept (times tidied). */
  setSettings(settings: Settings): Promise<Settings>;
  /** What was spent since `since`, grouped by agent, day or task. */
  costReport(since: CostSince, by: CostGrouping): Promise<CostReport>;
  /** A task's history from the event log, oldest first. */
  taskTimeline(taskId: TaskId): Promise<Array<LogEntry>>;
  /** Pending signals and the most recent handled ones. */
  listSignals(): Promise<Array<SignalInfo>>;
  /** Answers, decides or dismisses a pending signal; answers with the settled record. */
  respondToSignal(signalId: SignalId, response: SignalResponse): Promise<SignalInfo>;
  /** Delegated agents: those at work, and those that reported or ended. */
  listDelegations(): Promise<Array<Delegation>>;
  /** Whether a delegated agent keeps running after it reports (by default it ends, freeing its place among the agents running at once). */
  keepDelegate(sessionId: SessionId, keep: boolean): Promise<Delegation>;
  /** Starts a loop on an agent: fresh sessions toward `settings.goal` until it is done, stalled or cancelled; its first iteration queues behind the agent's tasks. */
  startLoop(profileId: ProfileId, settings: LoopSettings): Promise<LoopInfo>;
  /** Active and stalled loops, and the most recent finished ones. */
  listLoops(): Promise<Array<LoopInfo>>;
  /** Makes an automation; refused with a sentence, before anything is saved, where its schedule cannot run, its agent is unknown, or a chain would lead back to itself. */
  createAutomation(spec: AutomationSpec): Promise<Automation>;
  /** Changes an automation (its history is kept). */
  updateAutomation(automationId: AutomationId, spec: AutomationSpec): Promise<Automation>;
  listAutomations(): Promise<Array<Automation>>;
  getAutomation(automationId: AutomationId): Promise<Automation>;
  pauseAutomation(automationId: AutomationId): Promise<Automation>;
  resumeAutomation(automationId: AutomationId): Promise<Automation>;
  /** Runs it now, as its trigger would (overlap and hourly cap included). */
  runAutomationNow(automationId: AutomationId): Promise<Automation>;
  /** Removes it and its history; the work it made is kept. */
  removeAutomation(automationId: AutomationId): Promise<void>;
  getLoop(loopId: LoopId): Promise<LoopInfo>;
  /** Older iterations of a loop, a page at a time: the `limit` (at most 200) recorded before the one at `before` (an iteration's `seq`), oldest first. A loop's info carries only its latest iterations. */
  loopIterations(loopId: LoopId, before: number, limit: number): Promise<Array<Iteration>>;
  /** Cancels an active or stalled loop, and its iteration waiting or at work. */
  cancelLoop(loopId: LoopId): Promise<LoopInfo>;
  /** Resumes a stalled loop: its next iteration goes first in the queue. */
  resumeLoop(loopId: LoopId): Promise<LoopInfo>;
  /** The loop's files in its agent's workspace as they are now: anchor, progress, guardrails. */
  loopFiles(loopId: LoopId): Promise<LoopFiles>;
  /** Replaces the loop's anchor or guardrails (the user's corrections, say before resuming a stalled loop); answers with the files as they are then. */
  saveLoopFile(loopId: LoopId, file: LoopFile, text: string): Promise<LoopFiles>;
  /** The spec's diagrams, as the flows view draws them. */
  flowDiagrams(): Promise<Array<Diagram>>;
  /** Where a target (an agent, session, task or loop) stands in each diagram, as its events up to `until_seq` light them (none: all so far). */
  flowView(target: FlowTarget, untilSeq: number | null): Promise<FlowView>;
  /** A target's event log from `since_at` (milliseconds since the epoch), the most recent `limit`. */
  flowEvents(target: FlowTarget, sinceAt: number | null, limit: number): Promise<FlowEvents>;
  /** Writes a target's event log as JSON lines (one entry per line, oldest first) into the data folder's `exports/`; answers the file's path. */
  exportFlowEvents(target: FlowTarget): Promise<string>;
  /** All agents as one graph: status, what each does, queue, and who works for whom. */
  flowOverview(): Promise<Overview>;
  /** Tasks (by name and instruction), their summaries and the signals agents raised that hold every word of `query`, newest first. */
  search(query: string): Promise<Array<SearchHit>>;
  /** Each session's agent status, for sessions whose hooks have reported. */
  listAgentStatus(): Promise<Array<AgentStatusInfo>>;
  /** What each agent asks of the user's attention (the one state the tray, sidebar, dashboard, graph and palette show). */
  listAttention(): Promise<Array<AgentAttention>>;
  /** The accounts at their usage limit, with their agents and when each goes on. */
  listLimits(): Promise<Array<AccountLimit>>;
  /** Each account's usage, as its agents' CLIs last told it (none told: not listed). */
  listUsage(): Promise<Array<AccountUsage>>;
  /** Has the agent's account go on now, whatever its usage limit said (the user knows better): its agents go on one at a time, this one first. */
  resumeAgent(profileId: ProfileId): Promise<void>;
  /** What the window shows now and whether it has the focus: the agent on screen in a focused window has its failures seen. */
  setViewing(viewing: Viewing): Promise<void>;
  /** Permission requests waiting for the user. */
  listPermissionRequests(): Promise<Array<PermissionRequest>>;
  /** The user's answer to an agent's permission request. */
  decidePermission(requestId: number, allow: boolean, message: string | null): Promise<void>;
  /** The git repository a folder is in (the agent form offers worktrees only then), with its setup command; or why it is not one. */
  folderRepository(folder: string): Promise<FolderRepository>;
  /** A folder of the engine's machine and its subfolders (`~` or empty: the home folder), for picking an agent's folder where the engine runs. */
  listFolder(path: string): Promise<FolderListing>;
  /** The command run in each new worktree of the repository (none: nothing runs). */
  setRepositorySetup(repository: string, setupCommand: string | null): Promise<void>;
  /** Every worktree the app made that is not merged or discarded, then the recent ones that are, with what each changed and which others change the same files. */
  listWorktrees(): Promise<Array<WorktreeInfo>>;
  /** What a worktree (named by its task or loop, or a task at work in it) changed against its base, file by file, with its task's summary. */
  worktreeDiff(worktree: string): Promise<WorktreeDiff>;
  /** Commits what the agent left uncommitted in the worktree (never the app's files), with its task's name as the message. */
  commitWorktree(worktree: string): Promise<CommitOutcome>;
  /** Commits what is left uncommitted, then lands the worktree's branch on its base (forward, or a merge commit) and removes the worktree; a conflict, or the user's own changes in the way, changes nothing. */
  mergeWorktree(worktree: string): Promise<MergeOutcome>;
  /** Removes the worktree and its branch. Refused without `force` when it holds work that is not merged; with it, that work is kept as a patch file first. */
  discardWorktree(worktree: string, force: boolean): Promise<DiscardOutcome>;
  /** Moves the worktree's work onto its base's latest commit; a conflict undoes it. */
  rebaseWorktree(worktree: string): Promise<RebaseOutcome>;
  /** Types the user's line comments into the worktree's agent as one review, a new task in the same worktree. */
  reviewWorktree(worktree: string, comments: Array<ReviewComment>): Promise<Submitted>;
  /** Whether and where the engine serves the window to browsers now. */
  webStatus(): Promise<WebStatus>;
  /** Serves the window to paired browsers (or stops), as set; kept, so a restarted engine serves again. Stopping closes every browser's connection. */
  setWeb(settings: WebSettings): Promise<WebStatus>;
  /** A one-time code that pairs a browser: valid for 5 minutes, used once. Only while serving. */
  pairDevice(readOnly: boolean, name: string | null): Promise<PairingCode>;
  /** The browsers paired, most recently seen first. */
  listDevices(): Promise<Array<Device>>;
  /** The paired browser that sends this (none: the window, the command line): what a page asks to know whether it may change anything. */
  thisDevice(): Promise<Device | null>;
  /** Unpairs a browser: its open pages and sockets close at once. */
  revokeDevice(deviceId: string): Promise<void>;
  /** Asks the worktree's agent, in the conversation that did its work, to bring its base in and resolve the conflicts a merge would meet now: a new task in the same worktree, after which the merge is offered again. Refused when it merges cleanly. */
  resolveWorktree(worktree: string): Promise<Submitted>;
}

/** The window's commands over `send`, which carries one `Command` to the engine and resolves with its `Reply`. */
export function engineCommands(send: (command: Command) => Promise<Reply>): EngineCommands {
  return {
    listProfiles: async () => replyValue(await send({ type: "list_profiles" }), "profiles"),
    createProfile: async (spec) => replyValue(await send({ type: "create_profile", spec: spec }), "profile"),
    updateProfile: async (profileId, spec) => replyValue(await send({ type: "update_profile", profile_id: profileId, spec: spec }), "profile"),
    deleteProfile: async (profileId) => replyValue(await send({ type: "delete_profile", profile_id: profileId }), "unit"),
    checkProfile: async (profileId, spec) => replyValue(await send({ type: "check_profile", profile_id: profileId, spec: spec }), "problems"),
    agentPresets: async () => replyValue(await send({ type: "agent_presets" }), "presets"),
    detectedAgents: async () => replyValue(await send({ type: "detected_agents" }), "detected_agents"),
    listSessions: async () => replyValue(await send({ type: "list_sessions" }), "sessions"),
    startSession: async (profileId, size) => replyValue(await send({ type: "start_session", profile_id: profileId, size: size }), "session"),
    stopSession: async (sessionId) => replyValue(await send({ type: "stop_session", session_id: sessionId }), "session"),
    restartSession: async (sessionId, size, runningTask) => replyValue(await send({ type: "restart_session", session_id: sessionId, size: size, running_task: runningTask }), "restarted"),
    resumeSession: async (sessionId, size) => replyValue(await send({ type: "resume_session", session_id: sessionId, size: size }), "session"),
    writeInput: async (sessionId, data) => replyValue(await send({ type: "write_input", session_id: sessionId, data: data }), "unit"),
    resize: async (sessionId, size) => replyValue(await send({ type: "resize", session_id: sessionId, size: size }), "unit"),
    setOutputPaused: async (sessionId, paused) => replyValue(await send({ type: "set_output_paused", session_id: sessionId, paused: paused }), "unit"),
    screenSnapshot: async (sessionId, recentLines) => replyValue(await send({ type: "screen_snapshot", session_id: sessionId, recent_lines: recentLines }), "snapshot"),
    submitTask: async (spec) => replyValue(await send({ type: "submit_task", spec: spec }), "submitted"),
    listTasks: async (profileId) => replyValue(await send({ type: "list_tasks", profile_id: profileId }), "tasks"),
    getTask: async (taskId) => replyValue(await send({ type: "get_task", task_id: taskId }), "task"),
    cancelTask: async (taskId) => replyValue(await send({ type: "cancel_task", task_id: taskId }), "task"),
    moveTask: async (taskId, toIndex) => replyValue(await send({ type: "move_task", task_id: taskId, to_index: toIndex }), "unit"),
    requeueTask: async (taskId) => replyValue(await send({ type: "requeue_task", task_id: taskId }), "task"),
    typeTaskNow: async (taskId) => replyValue(await send({ type: "type_task_now", task_id: taskId }), "task"),
    editTask: async (taskId, title, instruction) => replyValue(await send({ type: "edit_task", task_id: taskId, title: title, instruction: instruction }), "task"),
    artifactPath: async (taskId, path) => replyValue(await send({ type: "artifact_path", task_id: taskId, path: path }), "text"),
    rerunTask: async (taskId) => replyValue(await send({ type: "rerun_task", task_id: taskId }), "submitted"),
    setQueuePaused: async (profileId, paused) => replyValue(await send({ type: "set_queue_paused", profile_id: profileId, paused: paused }), "unit"),
    listQueues: async () => replyValue(await send({ type: "list_queues" }), "queues"),
    storageStatus: async () => replyValue(await send({ type: "storage_status" }), "storage"),
    getSettings: async () => replyValue(await send({ type: "get_settings" }), "settings"),
    setSettings: async (settings) => replyValue(await send({ type: "set_settings", settings: settings }), "settings"),
    costReport: async (since, by) => replyValue(await send({ type: "cost_report", since: since, by: by }), "cost"),
    taskTimeline: async (taskId) => replyValue(await send({ type: "task_timeline", task_id: taskId }), "events"),
    listSignals: async () => replyValue(await send({ type: "list_signals" }), "signals"),
    respondToSignal: async (signalId, response) => replyValue(await send({ type: "respond_to_signal", signal_id: signalId, response: response }), "signal"),
    listDelegations: async () => replyValue(await send({ type: "list_delegations" }), "delegations"),
    keepDelegate: async (sessionId, keep) => replyValue(await send({ type: "keep_delegate", session_id: sessionId, keep: keep }), "delegation"),
    startLoop: async (profileId, settings) => replyValue(await send({ type: "start_loop", profile_id: profileId, settings: settings }), "loop"),
    listLoops: async () => replyValue(await send({ type: "list_loops" }), "loops"),
    createAutomation: async (spec) => replyValue(await send({ type: "create_automation", spec: spec }), "automation"),
    updateAutomation: async (automationId, spec) => replyValue(await send({ type: "update_automation", automation_id: automationId, spec: spec }), "automation"),
    listAutomations: async () => replyValue(await send({ type: "list_automations" }), "automations"),
    getAutomation: async (automationId) => replyValue(await send({ type: "get_automation", automation_id: automationId }), "automation"),
    pauseAutomation: async (automationId) => replyValue(await send({ type: "pause_automation", automation_id: automationId }), "automation"),
    resumeAutomation: async (automationId) => replyValue(await send({ type: "resume_automation", automation_id: automationId }), "automation"),
    runAutomationNow: async (automationId) => replyValue(await send({ type: "run_automation_now", automation_id: automationId }), "automation"),
    removeAutomation: async (automationId) => replyValue(await send({ type: "remove_automation", automation_id: automationId }), "unit"),
    getLoop: async (loopId) => replyValue(await send({ type: "get_loop", loop_id: loopId }), "loop"),
    loopIterations: async (loopId, before, limit) => replyValue(await send({ type: "loop_iterations", loop_id: loopId, before: before, limit: limit }), "iterations"),
    cancelLoop: async (loopId) => replyValue(await send({ type: "cancel_loop", loop_id: loopId }), "loop"),
    resumeLoop: async (loopId) => replyValue(await send({ type: "resume_loop", loop_id: loopId }), "loop"),
    loopFiles: async (loopId) => replyValue(await send({ type: "loop_files", loop_id: loopId }), "loop_files"),
    saveLoopFile: async (loopId, file, text) => replyValue(await send({ type: "save_loop_file", loop_id: loopId, file: file, text: text }), "loop_files"),
    flowDiagrams: async () => replyValue(await send({ type: "flow_diagrams" }), "diagrams"),
    flowView: async (target, untilSeq) => replyValue(await send({ type: "flow_view", target: target, until_seq: untilSeq }), "flow_view"),
    flowEvents: async (target, sinceAt, limit) => replyValue(await send({ type: "flow_events", target: target, since_at: sinceAt, limit: limit }), "flow_events"),
    exportFlowEvents: async (target) => replyValue(await send({ type: "export_flow_events", target: target }), "text"),
    flowOverview: async () => replyValue(await send({ type: "flow_overview" }), "overview"),
    search: async (query) => replyValue(await send({ type: "search", query: query }), "search_hits"),
    listAgentStatus: async () => replyValue(await send({ type: "list_agent_status" }), "agent_status"),
    listAttention: async () => replyValue(await send({ type: "list_attention" }), "attention"),
    listLimits: async () => replyValue(await send({ type: "list_limits" }), "limits"),
    listUsage: async () => replyValue(await send({ type: "list_usage" }), "usage"),
    resumeAgent: async (profileId) => replyValue(await send({ type: "resume_agent", profile_id: profileId }), "unit"),
    setViewing: async (viewing) => replyValue(await send({ type: "set_viewing", viewing: viewing }), "unit"),
    listPermissionRequests: async () => replyValue(await send({ type: "list_permission_requests" }), "permission_requests"),
    decidePermission: async (requestId, allow, message) => replyValue(await send({ type: "decide_permission", request_id: requestId, allow: allow, message: message }), "unit"),
    folderRepository: async (folder) => replyValue(await send({ type: "folder_repository", folder: folder }), "folder_repository"),
    listFolder: async (path) => replyValue(await send({ type: "list_folder", path: path }), "folder_listing"),
    setRepositorySetup: async (repository, setupCommand) => replyValue(await send({ type: "set_repository_setup", repository: repository, setup_command: setupCommand }), "unit"),
    listWorktrees: async () => replyValue(await send({ type: "list_worktrees" }), "worktrees"),
    worktreeDiff: async (worktree) => replyValue(await send({ type: "worktree_diff", worktree: worktree }), "worktree_diff"),
    commitWorktree: async (worktree) => replyValue(await send({ type: "commit_worktree", worktree: worktree }), "commit"),
    mergeWorktree: async (worktree) => replyValue(await send({ type: "merge_worktree", worktree: worktree }), "merge"),
    discardWorktree: async (worktree, force) => replyValue(await send({ type: "discard_worktree", worktree: worktree, force: force }), "discard"),
    rebaseWorktree: async (worktree) => replyValue(await send({ type: "rebase_worktree", worktree: worktree }), "rebase"),
    reviewWorktree: async (worktree, comments) => replyValue(await send({ type: "review_worktree", worktree: worktree, comments: comments }), "submitted"),
    webStatus: async () => replyValue(await send({ type: "web_status" }), "web"),
    setWeb: async (settings) => replyValue(await send({ type: "set_web", settings: settings }), "web"),
    pairDevice: async (readOnly, name) => replyValue(await send({ type: "pair_device", read_only: readOnly, name: name }), "pairing"),
    listDevices: async () => replyValue(await send({ type: "list_devices" }), "devices"),
    thisDevice: async () => replyValue(await send({ type: "this_device" }), "device"),
    revokeDevice: async (deviceId) => replyValue(await send({ type: "revoke_device", device_id: deviceId }), "unit"),
    resolveWorktree: async (worktree) => replyValue(await send({ type: "resolve_worktree", worktree: worktree }), "submitted"),
  };
}

/** Carries a window command to a backend's method of the same name, answering as the engine would. */
export async function dispatchCommand(target: EngineCommands, command: Command): Promise<Reply> {
  switch (command.type) {
    case "list_profiles":
      return { type: "profiles", value: await target.listProfiles() };
    case "create_profile":
      return { type: "profile", value: await target.createProfile(command.spec) };
    case "update_profile":
      return { type: "profile", value: await target.updateProfile(command.profile_id, command.spec) };
    case "delete_profile":
      await target.deleteProfile(command.profile_id);
      return { type: "unit" };
    case "check_profile":
      return { type: "problems", value: await target.checkProfile(command.profile_id, command.spec) };
    case "agent_presets":
      return { type: "presets", value: await target.agentPresets() };
    case "detected_agents":
      return { type: "detected_agents", value: await target.detectedAgents() };
    case "list_sessions":
      return { type: "sessions", value: await target.listSessions() };
    case "start_session":
      return { type: "session", value: await target.startSession(command.profile_id, command.size) };
    case "stop_session":
      return { type: "session", value: await target.stopSession(command.session_id) };
    case "restart_session":
      return { type: "restarted", value: await target.restartSession(command.session_id, command.size, command.running_task) };
    case "resume_session":
      return { type: "session", value: await target.resumeSession(command.session_id, command.size) };
    case "write_input":
      await target.writeInput(command.session_id, command.data);
      return { type: "unit" };
    case "resize":
      await target.resize(command.session_id, command.size);
      return { type: "unit" };
    case "set_output_paused":
      await target.setOutputPaused(command.session_id, command.paused);
      return { type: "unit" };
    case "screen_snapshot":
      return { type: "snapshot", value: await target.screenSnapshot(command.session_id, command.recent_lines) };
    case "submit_task":
      return { type: "submitted", value: await target.submitTask(command.spec) };
    case "list_tasks":
      return { type: "tasks", value: await target.listTasks(command.profile_id) };
    case "get_task":
      return { type: "task", value: await target.getTask(command.task_id) };
    case "cancel_task":
      return { type: "task", value: await target.cancelTask(command.task_id) };
    case "move_task":
      await target.moveTask(command.task_id, command.to_index);
      return { type: "unit" };
    case "requeue_task":
      return { type: "task", value: await target.requeueTask(command.task_id) };
    case "type_task_now":
      return { type: "task", value: await target.typeTaskNow(command.task_id) };
    case "edit_task":
      return { type: "task", value: await target.editTask(command.task_id, command.title, command.instruction) };
    case "artifact_path":
      return { type: "text", value: await target.artifactPath(command.task_id, command.path) };
    case "rerun_task":
      return { type: "submitted", value: await target.rerunTask(command.task_id) };
    case "set_queue_paused":
      await target.setQueuePaused(command.profile_id, command.paused);
      return { type: "unit" };
    case "list_queues":
      return { type: "queues", value: await target.listQueues() };
    case "storage_status":
      return { type: "storage", value: await target.storageStatus() };
    case "get_settings":
      return { type: "settings", value: await target.getSettings() };
    case "set_settings":
      return { type: "settings", value: await target.setSettings(command.settings) };
    case "cost_report":
      return { type: "cost", value: await target.costReport(command.since, command.by) };
    case "task_timeline":
      return { type: "events", value: await target.taskTimeline(command.task_id) };
    case "list_signals":
      return { type: "signals", value: await target.listSignals() };
    case "respond_to_signal":
      return { type: "signal", value: await target.respondToSignal(command.signal_id, command.response) };
    case "list_delegations":
      return { type: "delegations", value: await target.listDelegations() };
    case "keep_delegate":
      return { type: "delegation", value: await target.keepDelegate(command.session_id, command.keep) };
    case "start_loop":
      return { type: "loop", value: await target.startLoop(command.profile_id, command.settings) };
    case "list_loops":
      return { type: "loops", value: await target.listLoops() };
    case "create_automation":
      return { type: "automation", value: await target.createAutomation(command.spec) };
    case "update_automation":
      return { type: "automation", value: await target.updateAutomation(command.automation_id, command.spec) };
    case "list_automations":
      return { type: "automations", value: await target.listAutomations() };
    case "get_automation":
      return { type: "automation", value: await target.getAutomation(command.automation_id) };
    case "pause_automation":
      return { type: "automation", value: await target.pauseAutomation(command.automation_id) };
    case "resume_automation":
      return { type: "automation", value: await target.resumeAutomation(command.automation_id) };
    case "run_automation_now":
      return { type: "automation", value: await target.runAutomationNow(command.automation_id) };
    case "remove_automation":
      await target.removeAutomation(command.automation_id);
      return { type: "unit" };
    case "get_loop":
      return { type: "loop", value: await target.getLoop(command.loop_id) };
    case "loop_iterations":
      return { type: "iterations", value: await target.loopIterations(command.loop_id, command.before, command.limit) };
    case "cancel_loop":
      return { type: "loop", value: await target.cancelLoop(command.loop_id) };
    case "resume_loop":
      return { type: "loop", value: await target.resumeLoop(command.loop_id) };
    case "loop_files":
      return { type: "loop_files", value: await target.loopFiles(command.loop_id) };
    case "save_loop_file":
      return { type: "loop_files", value: await target.saveLoopFile(command.loop_id, command.file, command.text) };
    case "flow_diagrams":
      return { type: "diagrams", value: await target.flowDiagrams() };
    case "flow_view":
      return { type: "flow_view", value: await target.flowView(command.target, command.until_seq) };
    case "flow_events":
      return { type: "flow_events", value: await target.flowEvents(command.target, command.since_at, command.limit) };
    case "export_flow_events":
      return { type: "text", value: await target.exportFlowEvents(command.target) };
    case "flow_overview":
      return { type: "overview", value: await target.flowOverview() };
    case "search":
      return { type: "search_hits", value: await target.search(command.query) };
    case "list_agent_status":
      return { type: "agent_status", value: await target.listAgentStatus() };
    case "list_attention":
      return { type: "attention", value: await target.listAttention() };
    case "list_limits":
      return { type: "limits", value: await target.listLimits() };
    case "list_usage":
      return { type: "usage", value: await target.listUsage() };
    case "resume_agent":
      await target.resumeAgent(command.profile_id);
      return { type: "unit" };
    case "set_viewing":
      await target.setViewing(command.viewing);
      return { type: "unit" };
    case "list_permission_requests":
      return { type: "permission_requests", value: await target.listPermissionRequests() };
    case "decide_permission":
      await target.decidePermission(command.request_id, command.allow, command.message);
      return { type: "unit" };
    case "folder_repository":
      return { type: "folder_repository", value: await target.folderRepository(command.folder) };
    case "list_folder":
      return { type: "folder_listing", value: await target.listFolder(command.path) };
    case "set_repository_setup":
      await target.setRepositorySetup(command.repository, command.setup_command);
      return { type: "unit" };
    case "list_worktrees":
      return { type: "worktrees", value: await target.listWorktrees() };
    case "worktree_diff":
      return { type: "worktree_diff", value: await target.worktreeDiff(command.worktree) };
    case "commit_worktree":
      return { type: "commit", value: await target.commitWorktree(command.worktree) };
    case "merge_worktree":
      return { type: "merge", value: await target.mergeWorktree(command.worktree) };
    case "discard_worktree":
      return { type: "discard", value: await target.discardWorktree(command.worktree, command.force) };
    case "rebase_worktree":
      return { type: "rebase", value: await target.rebaseWorktree(command.worktree) };
    case "review_worktree":
      return { type: "submitted", value: await target.reviewWorktree(command.worktree, command.comments) };
    case "web_status":
      return { type: "web", value: await target.webStatus() };
    case "set_web":
      return { type: "web", value: await target.setWeb(command.settings) };
    case "pair_device":
      return { type: "pairing", value: await target.pairDevice(command.read_only, command.name) };
    case "list_devices":
      return { type: "devices", value: await target.listDevices() };
    case "this_device":
      return { type: "device", value: await target.thisDevice() };
    case "revoke_device":
      await target.revokeDevice(command.device_id);
      return { type: "unit" };
    case "resolve_worktree":
      return { type: "submitted", value: await target.resolveWorktree(command.worktree) };
    default:
      throw { code: "invalid_input", message: `\`${command.type}\` is not a command of the window`, field: "command" } as ApiError;
  }
}

type ReplyValue<K extends Reply["type"]> = Extract<Reply, { type: K }> extends { value: infer V } ? V : void;

function replyValue<K extends Reply["type"]>(reply: Reply, kind: K): ReplyValue<K> {
  if (reply.type !== kind) {
    throw { code: "internal", message: `the engine answered ${reply.type} where ${kind} was expected`, field: null } as ApiError;
  }
  return ("value" in reply ? reply.value : undefined) as ReplyValue<K>;
}
