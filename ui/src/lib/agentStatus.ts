/**
 * Each session's agent status, as its hooks report it (waiting, working, attention, done,
 * exited), folded from `list_agent_status` and `agent_status_changed` events. Sessions whose
 * agent has no hooks have no entry: the session state alone tells about them.
 */
import type { AgentStatus, AgentStatusInfo, EngineEvent, SessionId } from './bindings';

export type AgentStatusMap = Readonly<Record<SessionId, AgentStatusInfo>>;

export function statusMapOf(list: readonly AgentStatusInfo[]): AgentStatusMap {
  return Object.fromEntries(list.map((status) => [status.session_id, status]));
}

/** The map after `event`; the same object when the event is about something else. */
export function applyStatusEvent(map: AgentStatusMap, event: EngineEvent): AgentStatusMap {
  if (event.type !== 'agent_status_changed') return map;
  return { ...map, [event.status.session_id]: event.status };
}

const LABELS: Record<AgentStatus, string> = {
  waiting: 'waiting',
  working: 'working',
  attention: 'needs you',
  done: 'done',
  exited: 'exited',
};

export function statusLabel(status: AgentStatus): string {
  return LABELS[status];
}

/** The hooks badge's tooltip: whether events arrive, and the last one's time. */
export function hooksTitle(info: AgentStatusInfo | undefined, formatTime: (at: number) => string): string {
  if (!info || info.last_event_at === null) {
    return 'No hook events from this agent yet, so its status is unknown (for Codex, trust the hooks it shows for review)';
  }
  const lines = [`Hook events arrive (last at ${formatTime(info.last_event_at)})`];
  const who = [info.agent_name, info.agent_type].filter(Boolean).join(', ');
  if (who) lines.push(`It calls itself ${who}`);
  if (info.team) {
    const { name, active } = info.team;
    const at = active === 0 ? 'no teammate at work' : active === 1 ? '1 teammate at work' : `${active} teammates at work`;
    lines.push(`Leads the team ${name}: ${at}${active > 0 ? '; its task completes once they are done' : ''}`);
  }
  return lines.join('\n');
}
