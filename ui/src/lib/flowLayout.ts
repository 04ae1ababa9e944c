/**
 * Where each node and edge of a diagram (or of the overview of all agents) goes, laid out by
 * dagre; the components only draw what this returns. Node sizes come from their text: the
 * widest line and the number of lines.
 */
import dagre from '@dagrejs/dagre';
import type { AgentStatus, Diagram, NodeShape, Overview } from './bindings';

export interface LaidNode {
  id: string;
  lines: string[];
  shape: NodeShape | 'agent' | 'helper';
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
  fill: string | null;
  stroke: string | null;
}

export interface LaidEdge {
  from: string;
  to: string;
  label: string | null;
  points: { x: number; y: number }[];
  /** Where its label (or its count) goes. */
  labelX: number;
  labelY: number;
}

export interface Layout {
  width: number;
  height: number;
  nodes: LaidNode[];
  edges: LaidEdge[];
}

const CHAR_WIDTH = 7;
const LINE_HEIGHT = 16;
const PAD_X = 14;
const PAD_Y = 10;

interface NodeInput {
  id: string;
  lines: string[];
  shape: LaidNode['shape'];
  fill: string | null;
  stroke: string | null;
}

interface EdgeInput {
  from: string;
  to: string;
  label: string | null;
}

function nodeSize(lines: string[], shape: LaidNode['shape']): { width: number; height: number } {
  const widest = Math.max(4, ...lines.map((l) => l.length));
  let width = widest * CHAR_WIDTH + 2 * PAD_X;
  let height = lines.length * LINE_HEIGHT + 2 * PAD_Y;
  if (shape === 'decision') {
    // A diamond holds its text in its middle half.
    width = width * 1.5;
    height = height * 1.6;
  }
  return { width: Math.round(width), height: Math.round(height) };
}

function lay(nodes: NodeInput[], edges: EdgeInput[], rankdir: 'TB' | 'LR'): Layout {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir, nodesep: 28, ranksep: 42, edgesep: 14, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, nodeSize(node.lines, node.shape));
  edges.forEach((edge, i) => {
    const label = edge.label ?? '';
    graph.setEdge(
      edge.from,
      edge.to,
      { label, width: label.length * 6.2, height: label ? 14 : 0, labelpos: 'c' },
      `e${i}`,
    );
  });
  dagre.layout(graph);
  const laidNodes = nodes.map((node): LaidNode => {
    const placed = graph.node(node.id);
    return {
      ...node,
      x: placed.x - placed.width / 2,
      y: placed.y - placed.height / 2,
      width: placed.width,
      height: placed.height,
    };
  });
  const laidEdges = edges.map((edge, i): LaidEdge => {
    const placed = graph.edge({ v: edge.from, w: edge.to, name: `e${i}` }) as {
      points?: { x: number; y: number }[];
      x?: number;
      y?: number;
    };
    const points = (placed.points ?? []).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    const middle = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
    return {
      ...edge,
      points,
      labelX: placed.x ?? middle.x,
      labelY: placed.y ?? middle.y,
    };
  });
  const label = graph.graph();
  return { width: label.width ?? 0, height: label.height ?? 0, nodes: laidNodes, edges: laidEdges };
}

/** A diagram's layout, top to bottom. */
export function layoutDiagram(diagram: Diagram, rankdir: 'TB' | 'LR' = 'TB'): Layout {
  return lay(
    diagram.nodes.map((n) => ({ id: n.id, lines: n.label.split('\n'), shape: n.shape, fill: n.fill, stroke: n.stroke })),
    diagram.edges.map((e) => ({ from: e.from, to: e.to, label: e.label })),
    rankdir,
  );
}

/** What an agent is doing, in a word. */
export function statusWords(status: AgentStatus | null, running: boolean): string {
  if (!running) return 'stopped';
  switch (status) {
    case 'working':
      return 'working';
    case 'waiting':
      return 'waiting';
    case 'attention':
      return 'needs you';
    case 'done':
      return 'done';
    case 'exited':
      return 'stopped';
    case null:
      return 'running';
  }
}

/** All agents as one graph: agents, the helpers they spawned, who works for whom. */
export function layoutOverview(overview: Overview): Layout {
  const nodes: NodeInput[] = overview.agents.map((agent) => {
    const lines = [agent.name, statusWords(agent.status, agent.running)];
    if (agent.loop_iteration !== null) lines.push(`Loop iteration ${agent.loop_iteration}`);
    else if (agent.doing) lines.push(clip(agent.doing));
    if (agent.queued > 0) lines.push(`${agent.queued} queued`);
    if (agent.needs_user > 0) lines.push(agent.needs_user === 1 ? 'a question for you' : `${agent.needs_user} questions for you`);
    return { id: agent.profile_id, lines, shape: 'agent', fill: null, stroke: null };
  });
  for (const helper of overview.helpers) {
    nodes.push({ id: helper.id, lines: [clip(helper.name), 'teammate'], shape: 'helper', fill: null, stroke: null });
  }
  const known = new Set(nodes.map((n) => n.id));
  const edges = overview.links
    .filter((link) => known.has(link.from) && known.has(link.to))
    .map((link) => ({ from: link.from, to: link.to, label: link.kind === 'delegated' ? 'delegated' : 'spawned' }));
  return lay(nodes, edges, 'TB');
}

function clip(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
