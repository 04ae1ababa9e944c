import { describe, expect, it } from 'vitest';
import type { Diagram, Overview } from './bindings';
import diagramData from '../test/diagrams.json';
import { layoutDiagram, layoutOverview, statusWords } from './flowLayout';

const diagrams = diagramData as Diagram[];

function overlap(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('diagram layout', () => {
  it.each(diagrams.map((d) => [d.id, d] as const))('%s: every node placed inside, none overlapping, every edge routed', (_, diagram) => {
    const layout = layoutDiagram(diagram);
    expect(layout.nodes).toHaveLength(diagram.nodes.length);
    for (const node of layout.nodes) {
      expect(Number.isFinite(node.x) && Number.isFinite(node.y)).toBe(true);
      expect(node.x).toBeGreaterThanOrEqual(0);
      expect(node.y).toBeGreaterThanOrEqual(0);
      expect(node.x + node.width).toBeLessThanOrEqual(layout.width + 0.5);
      expect(node.y + node.height).toBeLessThanOrEqual(layout.height + 0.5);
    }
    for (const [i, a] of layout.nodes.entries()) {
      for (const b of layout.nodes.slice(i + 1)) expect(overlap(a, b), `${a.id} and ${b.id}`).toBe(false);
    }
    expect(layout.edges).toHaveLength(diagram.edges.length);
    for (const edge of layout.edges) expect(edge.points.length).toBeGreaterThanOrEqual(2);
  });

  it('splits labels on line breaks and sizes nodes by their widest line', () => {
    const status = diagrams.find((d) => d.id === 'agent_status')!;
    const layout = layoutDiagram(status);
    const stop = layout.nodes.find((n) => n.id === 'stop')!;
    const start = layout.nodes.find((n) => n.id === 'session_start')!;
    expect(stop.lines).toEqual(['Stop Event', 'Status: Waiting (if loop: Continue)', 'Status: Done (if complete)']);
    expect(stop.width).toBeGreaterThan(start.width);
    expect(stop.height).toBeGreaterThan(start.height);
  });
});

describe('overview layout', () => {
  const overview: Overview = {
    agents: [
      { profile_id: 'lead', name: 'lead', session_id: 's1', status: 'attention', running: true, doing: 'Plan the parser work', loop_iteration: null, queued: 2, needs_user: 1 },
      { profile_id: 'helper', name: 'helper', session_id: 's2', status: 'working', running: true, doing: null, loop_iteration: 3, queued: 0, needs_user: 0 },
      { profile_id: 'idle', name: 'idle', session_id: null, status: null, running: false, doing: null, loop_iteration: null, queued: 0, needs_user: 0 },
    ],
    helpers: [{ id: 's1:worker1', lead: 'lead', name: 'worker1' }],
    links: [
      { from: 'lead', to: 'helper', kind: 'delegated' },
      { from: 'lead', to: 's1:worker1', kind: 'spawned' },
      { from: 'lead', to: 'gone', kind: 'delegated' },
    ],
  };

  it('draws each agent with its status, work, queue and questions, and who works for whom', () => {
    const layout = layoutOverview(overview);
    const lines = Object.fromEntries(layout.nodes.map((n) => [n.id, n.lines]));
    expect(lines.lead).toEqual(['lead', 'needs you', 'Plan the parser work', '2 queued', 'a question for you']);
    expect(lines.helper).toEqual(['helper', 'working', 'Loop iteration 3']);
    expect(lines.idle).toEqual(['idle', 'stopped']);
    expect(lines['s1:worker1']).toEqual(['worker1', 'teammate']);
    // A link to an agent not shown is left out.
    expect(layout.edges.map((e) => `${e.from}>${e.to}:${e.label}`)).toEqual(['lead>helper:delegated', 'lead>s1:worker1:spawned']);
    const lead = layout.nodes.find((n) => n.id === 'lead')!;
    const helper = layout.nodes.find((n) => n.id === 'helper')!;
    expect(helper.y).toBeGreaterThan(lead.y);
  });

  it('names statuses in words', () => {
    expect(statusWords('attention', true)).toBe('needs you');
    expect(statusWords(null, true)).toBe('running');
    expect(statusWords('working', false)).toBe('stopped');
  });
});
