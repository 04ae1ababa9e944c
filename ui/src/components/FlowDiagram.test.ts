import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { Diagram, DiagramState } from '../lib/bindings';
import diagramData from '../test/diagrams.json';
import FlowDiagram from './FlowDiagram.svelte';
import FlowOverview from './FlowOverview.svelte';

const clarification = (diagramData as Diagram[]).find((d) => d.id === 'clarification')!;

const state: DiagramState = {
  diagram: 'clarification',
  current: ['ask'],
  path: [],
  edges: [{ from: 'parse', to: 'ask', count: 3 }],
  lit_by: ['ambiguity', 'checkpoint', 'signal', 'parse', 'ask'].map((node) => ({ node, count: 1, seqs: [1] })),
  gate: null,
};

describe('a diagram drawn', () => {
  it('lights the current node, marks the visited, counts crossed edges', () => {
    render(FlowDiagram, { props: { diagram: clarification, progress: state, onselect: () => {} } });
    const ask = screen.getByTestId('flow-node-clarification-ask');
    expect(ask.getAttribute('data-lit')).toBe('true');
    expect(ask.getAttribute('aria-label')).toBe('AskUserQuestion Waiting for the user, lit now');
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
});

describe('the overview drawn', () => {
  it('draws agent names as text, never markup, and opens an agent by keyboard', async () => {
    const onopen = vi.fn();
    const { container } = render(FlowOverview, {
      props: {
        overview: {
          agents: [
            { profile_id: 'p1', name: '<img src=x onerror=alert(1)>', session_id: null, status: null, running: false, doing: null, loop_iteration: null, queued: 0, needs_user: 0 },
          ],
          helpers: [],
          links: [],
        },
        onopen,
      },
    });
    expect(container.querySelector('img')).toBeNull();
    const node = screen.getByTestId('overview-agent-p1');
    expect(node.textContent).toContain('<img src=x onerror=alert(1)>');
    await fireEvent.keyDown(node, { key: 'Enter' });
    expect(onopen).toHaveBeenCalledWith('p1');
  });

  it('says when there are no agents', () => {
    render(FlowOverview, { props: { overview: { agents: [], helpers: [], links: [] }, onopen: () => {} } });
    expect(screen.getByText('No agents yet.')).toBeTruthy();
  });
});
