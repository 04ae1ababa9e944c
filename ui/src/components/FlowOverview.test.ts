import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { Overview, OverviewAgent } from '../lib/bindings';
import FlowOverview from './FlowOverview.svelte';
import { formatTime } from '../lib/model';

function agent(profile_id: string, extra: Partial<OverviewAgent> = {}): OverviewAgent {
  return { profile_id, name: profile_id, session_id: null, status: null, since: null, running: true, task_id: null, doing: null, loop_iteration: null, queued: 0, needs_user: 0, attention: { state: 'idle', since: null }, ...extra };
}

const team: Overview = {
  agents: [
    agent('lead', {
      status: 'attention',
      doing: 'Plan the parser work',
      queued: 2,
      needs_user: 1,
      attention: { state: 'needs_you', need: { kind: 'permission', tool: 'Bash' }, since: 1, task_id: null, task: null, signal_id: null, waiting: 1 },
    }),
    agent('coder', { status: 'working', loop_iteration: 4, attention: { state: 'working', task_id: null, task: null, since: 1 } }),
    agent('tester', { status: 'done' }),
    // Its hooks last said working; the engine says its task may be stuck.
    agent('stuck', { status: 'working', attention: { state: 'stalled', stall: { kind: 'quiet', task_id: 't', task: 'Port' }, since: 1 } }),
    agent('broke', { running: false, attention: { state: 'failed', count: 1, task_id: 't2', task: 'Docs', reason: null, since: 1 } }),
    agent('old', { running: false, attention: { state: 'stopped', since: 1, ended: { how: 'stopped' }, failed: 0 } }),
  ],
  helpers: [{ id: 's1:worker1', lead: 'lead', name: 'worker1' }],
  links: [
    { from: 'lead', to: 'coder', kind: 'delegated' },
    { from: 'lead', to: 's1:worker1', kind: 'spawned' },
  ],
};

describe('the overview of all agents', () => {
  it('draws each agent with its status, work, queue and questions, and who works for whom', () => {
    render(FlowOverview, { props: { overview: team, onopen: () => {} } });
    const lead = screen.getByTestId('overview-agent-lead');
    expect(lead.textContent).toContain('needs you');
    expect(lead.textContent).toContain('Plan the parser work');
    expect(lead.textContent).toContain('2 queued');
    expect(lead.textContent).toContain('Asks permission to use Bash');
    expect(screen.getByTestId('overview-agent-stuck').textContent).toContain('may be stuck');
    expect(screen.getByTestId('overview-agent-stuck').textContent).not.toContain('working');
    expect(screen.getByTestId('overview-agent-coder').textContent).toContain('Loop iteration 4');
    expect(screen.getByTestId('overview-link-lead-coder').textContent).toContain('delegated');
    expect(screen.getByTestId('overview-link-lead-s1:worker1').textContent).toContain('spawned');
    expect(screen.getByTestId('overview-helper').textContent).toContain('worker1');
    expect(screen.getByRole('group', { name: 'All agents' }).getAttribute('viewBox')).toMatch(/^0 0 \d/);
  });

  it('colours each agent by its attention', () => {
    render(FlowOverview, { props: { overview: team, onopen: () => {} } });
    const tone = (id: string) => screen.getByTestId(`overview-agent-${id}`).getAttribute('class');
    expect(tone('lead')).toContain('needs-you');
    expect(tone('coder')).toContain('working');
    expect(tone('tester')).toContain('idle');
    expect(tone('stuck')).toContain('stalled');
    expect(tone('broke')).toContain('failed');
    expect(tone('old')).toContain('stopped');
  });

  it('draws an agent at its usage limit in its own tone, with when it goes on', () => {
    const reset = new Date(2026, 10, 26, 14, 5).getTime();
    const limited = (until: number | null): OverviewAgent['attention'] => ({ state: 'limited', account: '/home/ann/.claude', until, retry_at: reset, since: 1, task_id: null, task: null });
    const overview: Overview = {
      agents: [agent('known', { attention: limited(reset) }), agent('unknown', { doing: 'Port the parser', attention: limited(null) })],
      helpers: [],
      links: [],
    };
    render(FlowOverview, { props: { overview, onopen: () => {} } });
    const at = formatTime(reset, new Date());
    const known = screen.getByTestId('overview-agent-known');
    expect(known.getAttribute('class')).toContain('limited');
    expect(known.textContent).toContain(`limited until ${at}`);
    const unknown = screen.getByTestId('overview-agent-unknown');
    expect(unknown.textContent).toContain('usage limit');
    expect(unknown.textContent).toContain(`tries again at ${at}`);
    expect(unknown.textContent).toContain('Port the parser');
    expect(unknown.textContent).not.toContain('.claude');
  });

  it('opens an agent by click, Enter or Space; helpers open nothing', async () => {
    const onopen = vi.fn();
    render(FlowOverview, { props: { overview: team, onopen } });
    const coder = screen.getByTestId('overview-agent-coder');
    expect(coder.getAttribute('role')).toBe('button');
    expect(coder.getAttribute('tabindex')).toBe('0');
    await fireEvent.click(coder);
    await fireEvent.keyDown(coder, { key: 'Enter' });
    await fireEvent.keyDown(coder, { key: ' ' });
    await fireEvent.keyDown(coder, { key: 'a' });
    const helper = screen.getByTestId('overview-helper');
    expect(helper.getAttribute('role')).toBeNull();
    await fireEvent.click(helper);
    expect(onopen.mock.calls).toEqual([['coder'], ['coder'], ['coder']]);
  });

  it('draws agent names as text, never markup', async () => {
    const onopen = vi.fn();
    const name = '<img src=x onerror=alert(1)>';
    const { container } = render(FlowOverview, {
      props: { overview: { agents: [agent('p1', { name, doing: '<b>bold</b>' })], helpers: [{ id: 'h', lead: 'p1', name: '<script>x()</script>' }], links: [] }, onopen },
    });
    expect(container.querySelector('img, b, script')).toBeNull();
    const node = screen.getByTestId('overview-agent-p1');
    expect(node.textContent).toContain(name);
    expect(node.textContent).toContain('<b>bold</b>');
    expect(node.getAttribute('aria-label')).toContain(name);
    await fireEvent.keyDown(node, { key: 'Enter' });
    expect(onopen).toHaveBeenCalledWith('p1');
  });

  it('says when there are no agents', () => {
    const { container } = render(FlowOverview, { props: { overview: { agents: [], helpers: [], links: [] }, onopen: () => {} } });
    expect(screen.getByText('No agents yet.').tagName).toBe('P');
    expect(container.querySelector('svg')).toBeNull();
  });
});
