import { describe, expect, it } from 'vitest';
import type { Diagram, Overview } from './bindings';
import diagramData from '../test/diagrams.json';
import { layoutDiagram, layoutOverview } from './flowLayout';

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
    for (const edge of layout.edges) {
      expect(edge.points.length).toBeGreaterThanOrEqual(2);
      // Edges and their labels are drawn inside the picture, not cut off at its border.
      for (const p of [...edge.points, { x: edge.labelX, y: edge.labelY }]) {
        expect(Number.isFinite(p.x) && Number.isFinite(p.y), `${edge.from}>${edge.to}`).toBe(true);
        expect(p.x, `${edge.from}>${edge.to}`).toBeGreaterThanOrEqual(0);
        expect(p.y, `${edge.from}>${edge.to}`).toBeGreaterThanOrEqual(0);
        expect(p.x, `${edge.from}>${edge.to}`).toBeLessThanOrEqual(layout.width);
        expect(p.y, `${edge.from}>${edge.to}`).toBeLessThanOrEqual(layout.height);
      }
    }
  });

  it('draws a step that repeats as a loop out of its side and back', () => {
    const lifecycle = diagrams.find((d) => d.id === 'team_lifecycle')!;
    const layout = layoutDiagram(lifecycle);
    const loops = layout.edges.filter((e) => e.from === e.to);
    expect(loops.map((e) => e.from)).toEqual(['team_active', 'team_completing']);
    for (const loop of loops) {
      const node = layout.nodes.find((n) => n.id === loop.from)!;
      const right = node.x + node.width;
      const first = loop.points[0]!;
      const last = loop.points[loop.points.length - 1]!;
      expect(first.x).toBeCloseTo(right);
      expect(last.x).toBeCloseTo(right);
      expect(first.y).toBeLessThan(last.y);
      expect(Math.max(...loop.points.map((p) => p.x))).toBeGreaterThan(right + 10);
      // The label sits beyond the loop, clear of the node.
      expect(loop.labelX).toBeGreaterThan(right + 10);
    }
  });

  const tricky: Diagram = {
    id: 'loop_mode',
    title: 'Parallel edges, loops and a decision',
    about: 'test',
    source: 'test',
    nodes: [
      { id: 'a', label: 'Start', shape: 'start', spec: null, fill: null, stroke: null },
      { id: 'b', label: 'Check it\nagain?', shape: 'decision', spec: null, fill: '#7b2d8b', stroke: '#c08fd0' },
      { id: 'c', label: 'Done', shape: 'end', spec: null, fill: null, stroke: null },
    ],
    edges: [
      { from: 'a', to: 'b', label: 'go' },
      { from: 'a', to: 'b', label: 'go again' },
      { from: 'b', to: 'b', label: 'retry' },
      { from: 'b', to: 'c', label: null },
      { from: 'c', to: 'c', label: null },
    ],
  };

  it.each(['TB', 'LR'] as const)('lays out parallel edges, loops and decisions %s', (direction) => {
    const layout = layoutDiagram(tricky, { direction });
    expect(layout.edges.map((e) => `${e.from}>${e.to}`)).toEqual(['a>b', 'a>b', 'b>b', 'b>c', 'c>c']);
    const [first, second] = layout.edges;
    expect(first!.points).not.toEqual(second!.points);
    for (const edge of layout.edges) expect(edge.points.length).toBeGreaterThanOrEqual(2);
    const b = layout.nodes.find((n) => n.id === 'b')!;
    expect(b.lines).toEqual(['Check it', 'again?']);
    expect([b.fill, b.stroke]).toEqual(['#7b2d8b', '#c08fd0']);
    // Edges meet a decision on its diamond, not on the box around it.
    const onDiamond = (p: { x: number; y: number }) =>
      Math.abs(p.x - (b.x + b.width / 2)) / (b.width / 2) + Math.abs(p.y - (b.y + b.height / 2)) / (b.height / 2);
    for (const edge of layout.edges) {
      if (edge.to === 'b') expect(onDiamond(edge.points[edge.points.length - 1]!)).toBeCloseTo(1, 5);
      if (edge.from === 'b') expect(onDiamond(edge.points[0]!)).toBeCloseTo(1, 5);
    }
    const a = layout.nodes.find((n) => n.id === 'a')!;
    if (direction === 'TB') expect(b.y).toBeGreaterThan(a.y + a.height);
    else expect(b.x).toBeGreaterThan(a.x + a.width);
  });

  it('copes with a repeated node and an edge to a node that is not there', () => {
    const broken: Diagram = {
      ...tricky,
      nodes: [...tricky.nodes, { id: 'a', label: 'Again', shape: 'step', spec: null, fill: null, stroke: null }],
      edges: [...tricky.edges, { from: 'a', to: 'nowhere', label: 'lost' }],
    };
    const layout = layoutDiagram(broken);
    expect(layout.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c']);
    expect(layout.edges).toHaveLength(tricky.edges.length);
  });

  it('lays out an empty diagram', () => {
    const layout = layoutDiagram({ ...tricky, nodes: [], edges: [] });
    expect(layout.nodes).toEqual([]);
    expect(layout.width).toBeGreaterThan(0);
    expect(layout.height).toBeGreaterThan(0);
  });

  it('splits labels on line breaks and sizes nodes by their widest line', () => {
    const status = diagrams.find((d) => d.id === 'agent_status')!;
    const layout = layoutDiagram(status);
    const stop = layout.nodes.find((n) => n.id === 'stop')!;
    const start = layout.nodes.find((n) => n.id === 'session_start')!;
    expect(stop.lines).toEqual(['Turn over', '(waiting, or done)']);
    expect(stop.width).toBeGreaterThan(start.width);
    expect(stop.height).toBeGreaterThan(start.height);
  });
});

describe('overview layout', () => {
  const overview: Overview = {
    agents: [
      { profile_id: 'lead', name: 'lead', session_id: 's1', status: 'attention', since: null, running: true, task_id: null, doing: 'Plan the parser work', loop_iteration: null, queued: 2, needs_user: 1, attention: { state: 'needs_you', need: { kind: 'question', questions: 1, first: 'Which parser?' }, since: 1, task_id: null, task: null, signal_id: 'q1', waiting: 1 } },
      { profile_id: 'helper', name: 'helper', session_id: 's2', status: 'working', since: null, running: true, task_id: null, doing: null, loop_iteration: 3, queued: 0, needs_user: 0, attention: { state: 'working', task_id: null, task: null, since: null } },
      { profile_id: 'idle', name: 'idle', session_id: null, status: null, since: null, running: false, task_id: null, doing: null, loop_iteration: null, queued: 0, needs_user: 0, attention: { state: 'stopped', since: 5, ended: { how: 'stopped' }, failed: 0 } },
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
    expect(lines.lead).toEqual(['lead', 'needs you', 'Plan the parser work', '2 queued', 'Asks: Which parser?']);
    expect(lines.helper).toEqual(['helper', 'working', 'Loop iteration 3']);
    expect(lines.idle).toEqual(['idle', 'stopped']);
    // The graph says what the engine says, not what the hooks say: a stalled agent is not "working".
    const stuck = layoutOverview({ ...overview, agents: [{ ...overview.agents[1], attention: { state: 'stalled', stall: { kind: 'quiet', task_id: 't', task: 'Port' }, since: 1 } }] });
    expect(stuck.nodes[0].lines).toEqual(['helper', 'may be stuck', 'Loop iteration 3']);
    expect(lines['s1:worker1']).toEqual(['worker1', 'teammate']);
    // A link to an agent not shown is left out.
    expect(layout.edges.map((e) => `${e.from}>${e.to}:${e.label}`)).toEqual(['lead>helper:delegated', 'lead>s1:worker1:spawned']);
    const lead = layout.nodes.find((n) => n.id === 'lead')!;
    const helper = layout.nodes.find((n) => n.id === 'helper')!;
    expect(helper.y).toBeGreaterThan(lead.y);
  });

  it('places every agent and helper apart, inside the picture', () => {
    const layout = layoutOverview(overview);
    expect(layout.nodes.map((n) => [n.id, n.shape])).toEqual([
      ['lead', 'agent'],
      ['helper', 'agent'],
      ['idle', 'agent'],
      ['s1:worker1', 'helper'],
    ]);
    for (const [i, a] of layout.nodes.entries()) {
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.nodes.slice(i + 1)) expect(overlap(a, b), `${a.id} and ${b.id}`).toBe(false);
    }
  });

  it('cuts a long name or task to one line', () => {
    const long: Overview = {
      agents: [{ ...overview.agents[0]!, name: 'n'.repeat(80), doing: 'Read the\nwhole spec and then ' + 'x'.repeat(80) }],
      helpers: [],
      links: [],
    };
    const [agent] = layoutOverview(long).nodes;
    expect(agent!.lines[0]).toHaveLength(40);
    expect(agent!.lines[0]!.endsWith('…')).toBe(true);
    expect(agent!.lines[2]!.startsWith('Read the whole spec')).toBe(true);
    expect(agent!.lines[2]).toHaveLength(40);
  });
});
