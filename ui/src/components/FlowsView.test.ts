import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { DiagramState, FlowTarget } from '../lib/bindings';
import { BEAT_MS } from '../lib/beat';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

function diagramState(diagram: DiagramState['diagram'], current: string[], litBy: [string, number[]][] = []): DiagramState {
  return {
    diagram,
    current,
    path: [],
    edges: [],
    lit_by: litBy.map(([node, seqs]) => ({ node, count: seqs.length, seqs })),
    gate: null,
    silent: null,
  };
}

/** An agent asked a question: its flows say so. */
async function asking() {
  const backend = new FakeBackend();
  const agent = backend.seedProfile({ name: 'asker' });
  const session = backend.seedSession(agent.id, { state: 'running', pid: 4242 });
  const target: FlowTarget = { of: 'agent', profile_id: agent.id };
  backend.logEvent(session.id, null, { kind: 'session_started', pid: 4242 });
  backend.logEvent(session.id, null, { kind: 'hook', event: 'pre_tool_use', payload: { tool_name: '<b>Bash</b>' } });
  const raised = backend.logEvent(session.id, null, {
    kind: 'signal_raised',
    signal_id: 'sig-1',
    signal_kind: 'clarification',
    malformed: false,
  });
  backend.setFlowView(target, [
    diagramState('agent_status', ['permission'], [['permission', [raised.seq]]]),
    diagramState('clarification', ['ask'], [['ask', [raised.seq]]]),
  ]);
  await renderApp(backend);
  await fireEvent.click(await screen.findByTestId('open-flows'));
  const view = await screen.findByTestId('flows-view');
  return { backend, agent, session, target, raised, view };
}

describe('the flows view', () => {
  it('lights where the agent stands and lists the events that lit a node', async () => {
    const { backend, target, view } = await asking();
    expect(callsOf(backend, 'flow_view').at(-1)).toEqual({ target, untilSeq: null });
    const node = await within(view).findByTestId('flow-node-agent_status-permission');
    expect(node.getAttribute('data-lit')).toBe('true');
    expect(within(view).getByTestId('flows-diagram-agent_status').textContent).toContain('Asks your permission');
    expect(within(view).getByTestId('flows-diagram-loop_mode').textContent).toContain('not reached');

    await fireEvent.click(node);
    expect(within(view).getByTestId('flows-node-events').textContent).toContain('The agent asked for clarification');

    await fireEvent.click(within(view).getByTestId('flows-diagram-clarification'));
    expect((await within(view).findByTestId('flow-node-clarification-ask')).getAttribute('data-lit')).toBe('true');
  });

  it("speaks the user's words for a plain agent, and says which diagrams it can never light", async () => {
    const backend = new FakeBackend();
    const plain = backend.seedProfile({ name: 'shell', kind: 'generic' });
    backend.seedSession(plain.id, { state: 'running', pid: 77 });
    // The engine says what a generic agent (no hooks) can never light.
    const noHooks = (['team_lead', 'team_lifecycle', 'completion_decision'] as const).map((d) => ({ ...diagramState(d, []), silent: 'no_hooks' as const }));
    backend.setFlowView({ of: 'agent', profile_id: plain.id }, [diagramState('agent_status', []), diagramState('task_queue', []), ...noHooks]);
    await renderApp(backend);
    await fireEvent.click(await screen.findByTestId('open-flows'));
    const view = await screen.findByTestId('flows-view');
    await within(view).findByTestId('flow-node-agent_status-tool_use');
    // No spec section, field name or event name as the diagram's words; the spec's are its tooltip.
    const shown = [...view.querySelectorAll('svg text, .diagram-choice, [data-testid="flows-about"]')].map((e) => e.textContent).join(' ');
    expect(shown).toContain('Working');
    expect(shown).not.toMatch(/§|is_executing|ToolUse Event|activeTeam/);
    expect(within(view).getByTestId('flows-about').textContent).toBe(
      'Whether the agent waits, works, asks your permission or has finished, as its hooks report it.',
    );
    expect(within(view).getByTestId('flow-node-agent_status-tool_use').querySelector('title')?.textContent).toBe(
      'In the design: ToolUse Event Status: Working',
    );
    expect(within(view).getByTestId('flows-diagram-team_lead').textContent).toContain('nothing to show');
    expect(within(view).getByTestId('flows-diagram-task_queue').textContent).toContain('not reached');
    expect(within(view).queryByTestId('flows-silent')).toBeNull();
    await fireEvent.click(within(view).getByTestId('flows-diagram-team_lead'));
    expect((await within(view).findByTestId('flows-silent')).textContent).toContain('only Claude Code and Codex send');
  });

  it('follows the log live: a new entry asks the engine again', async () => {
    const { backend, agent, session, target, view } = await asking();
    // The window is sent this agent's log entries while the view is open.
    expect(callsOf(backend, 'follow_log')).toEqual([{ followed: { of: 'agent', profile_id: agent.id } }]);
    backend.setFlowView(target, [diagramState('agent_status', ['tool_use'])]);
    backend.logEvent(session.id, null, { kind: 'signal_handled', signal_id: 'sig-1', response: { action: 'answer', answers: ['Both'] } });
    await waitFor(() => expect(within(view).getByTestId('flow-node-agent_status-tool_use').getAttribute('data-lit')).toBe('true'));
    expect(within(view).getByTestId('flow-node-agent_status-permission').getAttribute('data-lit')).toBe('false');
    expect(within(view).getByTestId('flows-events').textContent).toContain('Signal handled');
  });

  it('lists the log oldest first and keeps its newest entry in sight until the user scrolls back', async () => {
    const { backend, session, view } = await asking();
    const log = within(view).getByTestId('flows-log');
    await waitFor(() => expect(log.querySelectorAll('li')).toHaveLength(3));
    expect(log.firstElementChild?.textContent).toContain('The agent started');
    // The layout jsdom has none of: the log is taller than its box.
    let height = 400;
    let top = 0;
    Object.defineProperty(log, 'scrollHeight', { configurable: true, get: () => height });
    Object.defineProperty(log, 'clientHeight', { configurable: true, get: () => 100 });
    Object.defineProperty(log, 'scrollTop', { configurable: true, get: () => top, set: (value: number) => (top = value) });
    const tool = (name: string) => backend.logEvent(session.id, null, { kind: 'hook', event: 'pre_tool_use', payload: { tool_name: name } });

    tool('Read');
    await waitFor(() => expect(log.querySelectorAll('li')).toHaveLength(4));
    expect(log.lastElementChild?.textContent).toContain('Calls a tool: Read');
    await waitFor(() => expect(top).toBe(400));

    // Scrolled back to read: the next entry leaves the log where the user put it.
    top = 120;
    await fireEvent.scroll(log);
    height = 420;
    tool('Edit');
    await waitFor(() => expect(log.querySelectorAll('li')).toHaveLength(5));
    expect(log.lastElementChild?.textContent).toContain('Calls a tool: Edit');
    expect(top).toBe(120);

    // Back at the end, it follows again.
    top = 320;
    await fireEvent.scroll(log);
    height = 440;
    tool('Write');
    await waitFor(() => expect(top).toBe(440));
  });

  it('keeps the replayed moment in sight in the log', async () => {
    const { view } = await asking();
    const log = within(view).getByTestId('flows-log');
    await waitFor(() => expect(log.querySelectorAll('li')).toHaveLength(3));
    const shown: Element[] = [];
    const scroll = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = function (this: Element) {
      shown.push(this);
    };
    try {
      await fireEvent.click(within(view).getByLabelText('Replay from the first event'));
      await waitFor(() => expect(shown).toContain(log.firstElementChild));
      expect(log.firstElementChild?.classList.contains('current')).toBe(true);
    } finally {
      Element.prototype.scrollIntoView = scroll;
    }
  });

  it('replays from the first event and back to live', async () => {
    const { backend, target, view } = await asking();
    await waitFor(() => expect(within(view).getByTestId('flows-events').textContent).toContain('The agent asked for clarification'));
    await fireEvent.click(within(view).getByLabelText('Replay from the first event'));
    await waitFor(() => expect(within(view).getByTestId('flows-moment').textContent).toMatch(/Event 1 of 3.*The agent started/));
    const first = callsOf(backend, 'flow_view').at(-1);
    expect(first).toEqual({ target, untilSeq: 1 });
    await fireEvent.click(within(view).getByLabelText('One event on'));
    await waitFor(() => expect(callsOf(backend, 'flow_view').at(-1)).toEqual({ target, untilSeq: 2 }));
    await fireEvent.click(within(view).getByTestId('flows-live'));
    await waitFor(() => expect(within(view).getByTestId('flows-moment').textContent).toMatch(/^\s*Live/));
    expect(callsOf(backend, 'flow_view').at(-1)).toEqual({ target, untilSeq: null });
  });

  it('filters the log by kind, keeps agent text as text, and exports it', async () => {
    const { view } = await asking();
    const log = within(view).getByTestId('flows-events');
    await waitFor(() => expect(log.textContent).toContain('Calls a tool: <b>Bash</b>'));
    expect(log.querySelector('b')).toBeNull();
    await fireEvent.click(within(view).getByLabelText('Hook events'));
    expect(log.textContent).not.toContain('Calls a tool');
    expect(log.textContent).toContain('The agent asked for clarification');
    await fireEvent.click(within(view).getByTestId('flows-export'));
    expect((await within(view).findByTestId('flows-exported')).textContent).toContain('/data/exports/agent-events.jsonl');
  });

  it('closes with Escape, and opens the overview of all agents', async () => {
    const { backend, agent } = await asking();
    await fireEvent.click(screen.getByTestId('flows-open-overview'));
    const overview = await screen.findByTestId('overview');
    const node = await within(overview).findByTestId(`overview-agent-${agent.id}`);
    expect(node.textContent).toContain('asker');
    expect(node.textContent).toContain('idle');
    await fireEvent.keyDown(node, { key: 'Enter' });
    expect(await screen.findByTestId('flows-view')).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('flows-view')).toBeNull());
    expect(callsOf(backend, 'follow_log').at(-1)).toEqual({ followed: null });
  });

  it('the overview follows the agents, asking again at most one request at a time', async () => {
    const { backend, agent, session } = await asking();
    await fireEvent.click(screen.getByTestId('flows-open-overview'));
    await screen.findByTestId(`overview-agent-${agent.id}`);
    const before = callsOf(backend, 'flow_overview').length;
    for (let i = 0; i < 50; i++) {
      backend.setAgentStatus({ session_id: session.id, status: i % 2 ? 'working' : 'waiting', last_event_at: i, team: null, agent_name: null, agent_type: null });
    }
    // Fifty changes at once make no request of their own: the overview is asked at the window's
    // beat (once a second), so the requests follow the beats, not the changes.
    const started = Date.now();
    await waitFor(() => expect(callsOf(backend, 'flow_overview').length - before).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const beats = Math.ceil((Date.now() - started) / BEAT_MS) + 1;
    expect(callsOf(backend, 'flow_overview').length - before).toBeLessThanOrEqual(beats);
  });
});
