/**
 * Where each node and edge of a diagram (or of the overview of all agents) goes, laid out by
 * dagre; the components only draw what this returns. Node sizes come from their text: the
 * widest line and the number of lines. The whole drawing, edges and their labels included,
 * fits inside the returned width and height.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { Diagram, NodeShape } from './bindings';
import { attentionLabel, needWords, type ShownOverview } from './attention';
import { resetWords } from './model';

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

export type DiagramLayout = Layout;

export type Direction = 'TB' | 'LR';

const CHAR_WIDTH = 7;
const LINE_HEIGHT = 16;
const PAD_X = 14;
const PAD_Y = 10;
const MARGIN = 12;
/** Edge labels are drawn at 11 px. */
const LABEL_CHAR_WIDTH = 6.2;
const LABEL_HEIGHT = 14;
/** Room kept under an edge's label for its count ("×12"). */
const COUNT_WIDTH = 30;
const COUNT_DROP = 13;
/** How far a loop from a node back to itself reaches out of the node. */
const LOOP_REACH = 18;

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

function labelWidth(label: string | null): number {
  return label ? label.length * LABEL_CHAR_WIDTH : 0;
}

function finite(n: number | undefined): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** The room dagre keeps beside a node for a loop back to itself, its label and its count. */
function loopRoom(label: string | null, direction: Direction): { width: number; height: number } {
  const textWidth = Math.max(labelWidth(label), COUNT_WIDTH);
  const textHeight = LABEL_HEIGHT + COUNT_DROP;
  return direction === 'TB'
    ? { width: LOOP_REACH + 4 + textWidth, height: textHeight }
    : { width: textWidth, height: LOOP_REACH + 4 + textHeight };
}

/**
 * A loop from a node back to itself: out of the node's side (its right in a top-to-bottom
 * diagram, its bottom in a left-to-right one), round, and back in, with its label just beyond
 * it, in the room dagre kept free next to the node.
 */
function selfLoop(node: LaidNode, label: string | null, direction: Direction): Pick<LaidEdge, 'points' | 'labelX' | 'labelY'> {
  const cx = node.x + node.width / 2;
  const cy = node.y + node.height / 2;
  if (direction === 'TB') {
    const spread = Math.min(node.height / 4, 12);
    // A diamond's side slopes in: the loop starts and ends on it.
    const inset = node.shape === 'decision' ? (spread / (node.height / 2)) * (node.width / 2) : 0;
    const side = node.x + node.width - inset;
    const out = node.x + node.width + LOOP_REACH;
    return {
      points: [
        { x: side, y: cy - spread },
        { x: out, y: cy - spread },
        { x: out, y: cy + spread },
        { x: side, y: cy + spread },
      ],
      labelX: out + 6 + Math.max(labelWidth(label), COUNT_WIDTH) / 2,
      labelY: cy - COUNT_DROP / 2,
    };
  }
  const spread = Math.min(node.width / 4, 12);
  const inset = node.shape === 'decision' ? (spread / (node.width / 2)) * (node.height / 2) : 0;
  const side = node.y + node.height - inset;
  const out = node.y + node.height + LOOP_REACH;
  return {
    points: [
      { x: cx + spread, y: side },
      { x: cx + spread, y: out },
      { x: cx - spread, y: out },
      { x: cx - spread, y: side },
    ],
    labelX: cx,
    labelY: out + 4 + LABEL_HEIGHT / 2,
  };
}

/**
 * Where a line from a diamond's middle towards `toward` leaves the diamond, so that edges
 * start and end on a decision's outline rather than on the box around it.
 */
function diamondEdge(node: LaidNode, toward: { x: number; y: number }): { x: number; y: number } {
  const cx = node.x + node.width / 2;
  const cy = node.y + node.height / 2;
  const dx = toward.x - cx;
  const dy = toward.y - cy;
  const reach = Math.abs(dx) / (node.width / 2) + Math.abs(dy) / (node.height / 2);
  if (reach <= 1) return toward;
  return { x: cx + dx / reach, y: cy + dy / reach };
}

/** Moves everything so that the drawing starts at the margin, and measures it. */
function fit(nodes: LaidNode[], edges: LaidEdge[]): Layout {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const take = (x: number, y: number) => {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  };
  for (const node of nodes) {
    take(node.x, node.y);
    take(node.x + node.width, node.y + node.height);
  }
  for (const edge of edges) {
    for (const p of edge.points) take(p.x, p.y);
    const half = Math.max(labelWidth(edge.label), COUNT_WIDTH) / 2;
    take(edge.labelX - half, edge.labelY - LABEL_HEIGHT / 2);
    take(edge.labelX + half, edge.labelY + LABEL_HEIGHT / 2 + (edge.label ? COUNT_DROP : 0));
  }
  if (!Number.isFinite(minX)) return { width: 2 * MARGIN, height: 2 * MARGIN, nodes, edges };
  const dx = MARGIN - minX;
  const dy = MARGIN - minY;
  return {
    width: maxX - minX + 2 * MARGIN,
    height: maxY - minY + 2 * MARGIN,
    nodes: nodes.map((n) => ({ ...n, x: n.x + dx, y: n.y + dy })),
    edges: edges.map((e) => ({
      ...e,
      points: e.points.map((p) => ({ x: p.x + dx, y: p.y + dy })),
      labelX: e.labelX + dx,
      labelY: e.labelY + dy,
    })),
  };
}

function lay(allNodes: NodeInput[], allEdges: EdgeInput[], direction: Direction): Layout {
  // Each node is drawn once, and only edges between drawn nodes are drawn.
  const ids = new Set<string>();
  const nodes = allNodes.filter((n) => !ids.has(n.id) && ids.add(n.id));
  const edges = allEdges.filter((e) => ids.has(e.from) && ids.has(e.to));
  const graph = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  graph.setGraph({ rankdir: direction, nodesep: 28, ranksep: 42, edgesep: 14, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, nodeSize(node.lines, node.shape));
  edges.forEach((edge, i) => {
    const room =
      edge.from === edge.to
        ? loopRoom(edge.label, direction)
        : { width: labelWidth(edge.label), height: edge.label ? LABEL_HEIGHT : 0 };
    graph.setEdge(edge.from, edge.to, { ...room, labelpos: 'c' }, `e${i}`);
  });
  dagre.layout(graph);
  const laidNodes = nodes.map((node): LaidNode => {
    const placed = graph.node(node.id);
    return {
      ...node,
      x: placed.x! - placed.width / 2,
      y: placed.y! - placed.height / 2,
      width: placed.width,
      height: placed.height,
    };
  });
  const byId = new Map(laidNodes.map((n) => [n.id, n]));
  const laidEdges = edges.map((edge, i): LaidEdge => {
    const placed: EdgeLabel = graph.edge({ v: edge.from, w: edge.to, name: `e${i}` }) ?? {};
    const from = byId.get(edge.from)!;
    const to = byId.get(edge.to)!;
    if (from === to) return { ...edge, ...selfLoop(from, edge.label, direction) };
    const points = (placed.points ?? []).filter((p) => finite(p.x) && finite(p.y));
    if (points.length < 2) {
      // Never expected from dagre; a straight line between the two nodes keeps the edge visible.
      points.splice(0, points.length, { x: from.x + from.width / 2, y: from.y + from.height / 2 }, { x: to.x + to.width / 2, y: to.y + to.height / 2 });
    }
    const [second, beforeLast] = [points[1]!, points[points.length - 2]!];
    if (from.shape === 'decision') points[0] = diamondEdge(from, second);
    if (to.shape === 'decision') points[points.length - 1] = diamondEdge(to, beforeLast);
    const middle = points[Math.floor(points.length / 2)]!;
    return {
      ...edge,
      points,
      labelX: finite(placed.x) ? placed.x : middle.x,
      labelY: finite(placed.y) ? placed.y : middle.y,
    };
  });
  return fit(laidNodes, laidEdges);
}

/** A diagram's layout, top to bottom unless asked otherwise. */
export function layoutDiagram(diagram: Diagram, opts: { direction?: Direction } = {}): Layout {
  return lay(
    diagram.nodes.map((n) => ({ id: n.id, lines: n.label.split('\n'), shape: n.shape, fill: n.fill, stroke: n.stroke })),
    diagram.edges.map((e) => ({ from: e.from, to: e.to, label: e.label })),
    opts.direction ?? 'TB',
  );
}

/** All agents as one graph: agents, the helpers they spawned, who works for whom. */
export function layoutOverview(overview: ShownOverview): Layout {
  const nodes: NodeInput[] = overview.agents.map((agent) => {
    const lines = [clip(agent.name), attentionLabel(agent.attention)];
    if (agent.loop_iteration !== null) lines.push(`Loop iteration ${agent.loop_iteration}`);
    else if (agent.doing) lines.push(clip(agent.doing));
    if (agent.queued > 0) lines.push(`${agent.queued} queued`);
    if (agent.attention.state === 'needs_you') lines.push(clip(needWords(agent.attention.need)));
    // An unknown reset: its badge says "usage limit"; when the app tries again is said here.
    if (agent.attention.state === 'limited' && agent.attention.until === null) {
      lines.push(`tries again at ${resetWords(agent.attention.retry_at, Date.now())}`);
    }
    return { id: agent.profile_id, lines, shape: 'agent', fill: null, stroke: null };
  });
  for (const helper of overview.helpers) {
    nodes.push({ id: helper.id, lines: [clip(helper.name), 'teammate'], shape: 'helper', fill: null, stroke: null });
  }
  // A link to an agent or helper not shown is left out.
  const edges = overview.links.map((link) => ({ from: link.from, to: link.to, label: link.kind === 'delegated' ? 'delegated' : 'spawned' }));
  return lay(nodes, edges, 'TB');
}

/** Long names and long descriptions are cut to one readable line. */
function clip(text: string, max = 40): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
