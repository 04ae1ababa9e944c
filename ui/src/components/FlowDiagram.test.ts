import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { Diagram, DiagramState } from '../lib/bindings';
import diagramData from '../test/diagrams.json';
import FlowDiagram from './FlowDiagram.svelte';

const diagrams = diagramData as Diagram[];
const clarification = diagrams.find((d) => d.id === 'clarification')!;

const state: DiagramState = {
  diagram: 'clarification',
  current: ['ask'],
  path: [],
  edges: [{ from: 'parse', to: 'ask', count: 3 }],
  lit_by: ['ambiguity', 'checkpoint', 'signal', 'parse', 'ask'].map((node) => ({ node, count: 1, seqs: [1] })),
  gate: null,
  silent: null,
};

describe('a diagram drawn', () => {
  it('lights the current node, marks the visited, counts crossed edges', () => {
    render(FlowDiagram, { props: { diagram: clarification, progress: state, onselect: () => {} } });
    const ask = screen.getByTestId('flow-node-clarification-ask');
    expect(ask.getAttribute('data-lit')).toBe('true');
    expect(ask.getAttribute('aria-label')).toBe('Waiting for your answer, lit now');
    expect(screen.getByTestId('flow-node-clarification-parse').getAttribute('data-visited')).toBe('true');
    expect(screen.getByTestId('flow-node-clarification-answer').getAttribute('data-visited')).toBe('false');
    const edge = screen.getByTestId('flow-edge-clarification-parse-ask');
    expect(edge.getAttribute('data-count')).toBe('3');
    expect(edge.textContent).toContain('×3');
    expect(screen.getByTestId('flow-edge-clarification-ask-answer').getAttribute('data-count')).toBe('0');
  });

  it('selects a node by click, Enter or Space', async () => {
    const onselect = vi.fn();
    render(FlowDiagram, { props: { diagram: clarification, progress: null, onselect } });
    const node = screen.getByTestId('flow-node-clarification-resume');
    expect(node.getAttribute('tabindex')).toBe('0');
    await fireEvent.click(node);
    await fireEvent.keyDown(node, { key: 'Enter' });
    await fireEvent.keyDown(node, { key: ' ' });
    expect(onselect.mock.calls).toEqual([['resume'], ['resume'], ['resume']]);
  });

  it('is a scalable picture named after the diagram, with markers of its own', () => {
    const first = render(FlowDiagram, { props: { diagram: clarification, progress: null, onselect: () => {} } });
    const second = render(FlowDiagram, { props: { diagram: clarification, progress: null, onselect: () => {} } });
    const pictures = screen.getAllByRole('group', { name: clarification.title });
    expect(pictures).toHaveLength(2);
    expect(pictures[0]!.getAttribute('viewBox')).toMatch(/^0 0 \d+(\.\d+)? \d+(\.\d+)?$/);
    const ids = (c: HTMLElement) => [...c.querySelectorAll('marker')].map((m) => m.id);
    expect(ids(first.container).length).toBeGreaterThan(0);
    expect(ids(first.container).filter((id) => ids(second.container).includes(id))).toEqual([]);
  });

  it('marks the selected node, dims nodes never reached and nothing is lit before anything happened', () => {
    const { container } = render(FlowDiagram, { props: { diagram: clarification, progress: null, selected: 'ask', onselect: () => {} } });
    expect(screen.getByTestId('flow-node-clarification-ask').getAttribute('class')).toContain('selected');
    expect(container.querySelectorAll('[data-lit="true"]')).toHaveLength(0);
    expect(container.querySelectorAll('[data-visited="true"]')).toHaveLength(0);
    expect(container.querySelectorAll('[data-count]:not([data-count="0"])')).toHaveLength(0);
  });

  it('draws every node and edge of every diagram, loops back to the same step included', () => {
    for (const diagram of diagrams) {
      const { container, unmount } = render(FlowDiagram, { props: { diagram, progress: null, onselect: () => {} } });
      expect(container.querySelectorAll('[data-testid^="flow-node-"]')).toHaveLength(diagram.nodes.length);
      expect(container.querySelectorAll('[data-testid^="flow-edge-"] path')).toHaveLength(diagram.edges.length);
      unmount();
    }
    const lifecycle = diagrams.find((d) => d.id === 'team_lifecycle')!;
    const progress: DiagramState = { ...state, diagram: 'team_lifecycle', current: ['team_active'], edges: [{ from: 'team_active', to: 'team_active', count: 4 }], lit_by: [] };
    render(FlowDiagram, { props: { diagram: lifecycle, progress, onselect: () => {} } });
    const loop = screen.getByTestId('flow-edge-team_lifecycle-team_active-team_active');
    expect(loop.getAttribute('data-count')).toBe('4');
    expect(loop.textContent).toContain('another teammate');
    expect(loop.textContent).toContain('×4');
  });

  it('draws labels as text, never markup, split at their line breaks', () => {
    const odd: Diagram = {
      id: 'stop_event',
      title: 'Odd <b>title</b>',
      about: 'test',
    source: 'test',
      nodes: [
        { id: 'a', label: '<img src=x onerror=alert(1)>\nsecond line', shape: 'start', spec: null, fill: '#334455', stroke: '#8899aa' },
        { id: 'b', label: 'Which way?', shape: 'decision', spec: null, fill: null, stroke: null },
      ],
      edges: [{ from: 'a', to: 'b', label: '<i>go</i>' }],
    };
    const { container } = render(FlowDiagram, { props: { diagram: odd, progress: null, onselect: () => {} } });
    expect(container.querySelector('img, b, i')).toBeNull();
    const a = screen.getByTestId('flow-node-stop_event-a');
    expect([...a.querySelectorAll('tspan')].map((t) => t.textContent)).toEqual(['<img src=x onerror=alert(1)>', 'second line']);
    expect(a.getAttribute('aria-label')).toBe('<img src=x onerror=alert(1)> second line');
    expect(screen.getByTestId('flow-node-stop_event-b').querySelector('polygon')).not.toBeNull();
    expect(screen.getByTestId('flow-edge-stop_event-a-b').textContent).toContain('<i>go</i>');
  });
});
