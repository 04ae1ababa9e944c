/**
 * A task's history in words: each entry of the event log its timeline shows (and the flows'
 * event list), what the user did with its worktree, and the output an entry carries. The
 * engine logs; this only says what it logged.
 */
import type { LogEntry, ReviewStep } from './bindings';
import { signalHandledText, signalRaisedText, signalSetAsideText } from './signals';
import { firstLine, formatDuration, stateWord } from './tasks';

/** One timeline entry in words. */
export function timelineText(entry: LogEntry): string {
  switch (entry.kind) {
    case 'task_queued':
      return entry.priority === 'urgent' ? 'Queued as urgent' : 'Queued';
    case 'task_started':
      return 'Taken from the queue';
    case 'task_typed':
      return 'Typed into the agent';
    case 'task_moved':
      return entry.priority === 'urgent'
        ? `Moved to place ${entry.to_index + 1} in the queue, among the urgent tasks`
        : `Moved to place ${entry.to_index + 1} in the queue`;
    case 'task_edited':
      return entry.instruction ? (entry.title ? 'Renamed, and given another instruction' : 'Given another instruction') : 'Renamed';
    case 'task_requeued':
      return entry.app_stopped
        ? 'Put back in the queue: Switchboard stopped before the task reached the agent'
        : 'Put back in the queue';
    case 'budget_near':
      return `Has used ${entry.used_percent} % of its budget of ${entry.budget}: at all of it, it ends over budget`;
    case 'task_quiet':
      return entry.quiet
        ? `No output and no hook event for ${formatDuration(entry.alert_secs)} while it should be working: the agent may be stuck`
        : 'The agent shows life again';
    case 'task_waiting':
      return entry.waiting ? 'Waiting for your answer: its time limit is paused' : 'Going on: its time limit runs again';
    case 'task_refused':
      return `Its agent's model refused the turn: waiting for ${entry.why ?? 'it to take work again'}; its time limit is paused`;
    case 'task_resumed':
      return 'Asked to go on (typed “continue”): its time limit runs again';
    case 'deliverable_rejected':
      return `Deliverable ${entry.path} rejected: ${entry.reason}`;
    case 'task_ended':
      return entry.reason ? `Ended ${stateWord(entry.state)}: ${entry.reason}` : `Ended ${stateWord(entry.state)}`;
    case 'session_started':
      return 'The agent started';
    case 'session_exited':
      return entry.signal ? `The agent ended (${entry.signal})` : `The agent exited with code ${entry.exit_code}`;
    case 'session_killed':
      return 'The agent was stopped';
    case 'session_interrupted':
      return 'The app stopped while the agent ran';
    case 'signal_raised':
      return signalRaisedText(entry.signal_kind, entry.malformed);
    case 'signal_handled':
      return signalHandledText(entry.response);
    case 'signal_set_aside':
      return signalSetAsideText(entry.signal_kind);
    case 'delegation':
      switch (entry.state.state) {
        case 'working':
          return 'Started for delegated work';
        case 'reported':
          return `Reported “${entry.state.status}” on its delegated work`;
        case 'failed':
          return `Ended before reporting on its delegated work: ${entry.state.how}`;
      }
      break;
    case 'hook':
      return hookWords(entry.event, entry.payload);
    case 'loop':
      switch (entry.step.step) {
        case 'started':
          return `Loop started, at most ${entry.step.max_iterations} iterations`;
        case 'iteration':
          return `Iteration ${entry.step.number} began`;
        case 'judged':
          return `Iteration ${entry.step.number} judged: ${verdictWords(entry.step.verdict.verdict)}`;
        case 'resumed':
          return 'Loop resumed';
        case 'cancelled':
          return 'Loop cancelled';
        case 'failed_start':
          return `Iteration ${entry.step.number} failed to start (${entry.step.attempt} in a row)`;
        case 'failed_to_start':
          return `Loop failed to start, after ${entry.step.attempts} attempts`;
        case 'workspace_gone':
          return "Loop stopped: its agent's folder is gone";
        case 'anchor_rewritten':
          return 'The loop’s goal file was missing and was written again';
      }
      break;
    case 'worktree_made':
      return `Its worktree was made: branch ${entry.branch}, from ${entry.base}, in ${entry.path}`;
    case 'worktree_setup':
      if (entry.succeeded) return `Its worktree's setup command ran: ${entry.command}`;
      return entry.exit === null
        ? `Its worktree's setup command failed: ${entry.command}`
        : `Its worktree's setup command failed with code ${entry.exit}: ${entry.command}`;
    case 'worktree_reviewed':
      return reviewStepWords(entry.step);
    default:
      // A kind from a newer engine.
      return (entry as { kind: string }).kind.replaceAll('_', ' ');
  }
  return (entry as { kind: string }).kind.replaceAll('_', ' ');
}

/** What the user did with a task's worktree, as its timeline says it. */
export function reviewStepWords(step: ReviewStep): string {
  switch (step.review) {
    case 'committed':
      return 'What the agent left uncommitted in its worktree was committed';
    case 'merged':
      return step.fast_forward ? `Merged into ${step.base} (moved it forward)` : `Merged into ${step.base} with a merge commit`;
    case 'merge_conflict':
      return `Not merged: ${listOfFiles(step.files)} conflict${step.files.length === 1 ? 's' : ''}; nothing was changed`;
    case 'rebased':
      return 'Rebased onto the latest of its base';
    case 'rebase_conflict':
      return `Not rebased: ${listOfFiles(step.files)} conflict${step.files.length === 1 ? 's' : ''}; the work is as it was`;
    case 'discarded':
      return step.patch === null ? 'Its worktree was discarded' : `Its worktree was discarded; its work was kept as ${step.patch}`;
    case 'comments_sent':
      return step.comments === 1 ? 'Your review (1 comment) went to the agent' : `Your review (${step.comments} comments) went to the agent`;
  }
}

/** Files in a sentence: "a.ts", "a.ts and b.ts", "a.ts, b.ts and 3 more". */
export function listOfFiles(files: readonly string[], shown = 3): string {
  if (files.length === 0) return 'no files';
  if (files.length === 1) return files[0];
  if (files.length <= shown) return `${files.slice(0, -1).join(', ')} and ${files[files.length - 1]}`;
  return `${files.slice(0, shown).join(', ')} and ${files.length - shown} more`;
}

/**
 * The output a timeline entry carries (a worktree setup command's), shown as text under it:
 * a failed one's always, a successful one's when it printed something; null otherwise.
 */
export function timelineOutput(entry: LogEntry): { text: string; failed: boolean } | null {
  if (entry.kind !== 'worktree_setup') return null;
  if (!entry.succeeded) return { text: entry.output === '' ? '(it printed nothing)' : entry.output, failed: true };
  return entry.output.trim() === '' ? null : { text: entry.output, failed: false };
}

/** A text field of a hook payload, if it is one. */
function payloadText(payload: unknown, key: string): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const value = (payload as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function hookWords(event: string, payload: unknown): string {
  const tool = payloadText(payload, 'tool_name');
  switch (event) {
    case 'session_start':
      return 'The agent reported its start';
    case 'user_prompt_submit':
      return 'A prompt was submitted';
    case 'pre_tool_use':
      return tool ? `Calls a tool: ${tool}` : 'Calls a tool';
    case 'post_tool_use':
      return tool ? `Tool finished: ${tool}` : 'A tool finished';
    case 'permission_request':
      return tool ? `Asks permission for ${tool}` : 'Asks permission';
    case 'notification': {
      const message = payloadText(payload, 'message');
      return message ? `Notification: ${firstLine(message)}` : 'A notification';
    }
    case 'subagent_start':
      return 'A subagent started';
    case 'subagent_stop':
      return 'A subagent stopped';
    case 'teammate_idle': {
      const name = payloadText(payload, 'teammate_name');
      return name ? `Teammate ${name} is idle` : 'A teammate is idle';
    }
    case 'stop':
      return 'Its turn ended';
    case 'stop_failure':
      return 'Its turn ended in an error';
    case 'session_end':
      return 'The agent reported its end';
    default:
      return event === '' || event === 'unrecognised' ? 'An event it did not name' : `Event: ${event}`;
  }
}

function verdictWords(verdict: string): string {
  return { complete: 'complete', stalled: 'stalled', continue: 'go on', cancelled: 'cancelled' }[verdict] ?? verdict;
}
