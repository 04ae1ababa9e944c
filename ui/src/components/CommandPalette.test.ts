import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { signalScan } from '../test/records';
import { clarification } from '../test/signals';
import { callsOf, renderApp } from '../test/render';

const shortcut = (code: string, target: Element = document.body) =>
  fireEvent.keyDown(target, { key: code.replace('Key', '').toLowerCase(), code, ctrlKey: true, shiftKey: true });

async function twoAgents() {
  const backend = new FakeBackend();
  const amy = backend.seedProfile({ name: 'amy' });
  const amySession = backend.seedSession(amy.id, { state: 'running', pid: 11 });
  const bob = backend.seedProfile({ name: 'bob' });
  const rendered = await renderApp(backend);
  return { ...rendered, backend, amy, amySession, bob };
}

describe('the command palette', () => {
  it('opens with Ctrl+Shift+P, even from the terminal, lists shortcuts, and closes with Escape', async () => {
    await twoAgents();
    await shortcut('KeyP', screen.getByTestId('terminal'));
    const palette = await screen.findByTestId('palette');
    const labels = within(palette).getAllByTestId('palette-item').map((item) => item.textContent?.replace(/\s+/g, ' ').trim());
    expect(labels).toContain('New task for amy Ctrl+Shift+T');
    expect(labels).toContain('Start bob');
    expect(labels).toContain('Pause all queues');
    await fireEvent.keyDown(within(palette).getByTestId('palette-input'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('palette')).toBeNull());
  });

  it('opens with Ctrl+K outside a terminal, where Ctrl+K stays the agent\'s; the sidebar shows how', async () => {
    await twoAgents();
    const hint = screen.getByTestId('open-palette');
    expect(hint.textContent?.replace(/\s+/g, ' ').trim()).toBe('Commands Ctrl+K');
    const ctrlK = (target: Element) => fireEvent.keyDown(target, { key: 'k', code: 'KeyK', ctrlKey: true });
    await ctrlK(screen.getByTestId('terminal'));
    await tick();
    expect(screen.queryByTestId('palette')).toBeNull();
    await ctrlK(document.body);
    const palette = await screen.findByTestId('palette');
    // The first command, preselected, is the agent on screen's new task, not pausing every queue.
    const selected = within(palette).getAllByTestId('palette-item').find((i) => i.hasAttribute('data-selected'));
    expect(selected?.getAttribute('data-command')).toBe('new-task');
    expect(palette.textContent).toContain('Open this list with Ctrl+K, or Ctrl+Shift+P from a terminal.');
    await fireEvent.keyDown(within(palette).getByTestId('palette-input'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('palette')).toBeNull());
    await fireEvent.click(hint);
    expect(await screen.findByTestId('palette')).toBeTruthy();
  });

  it('drives a new task for another agent with the keyboard only', async () => {
    const { backend, bob } = await twoAgents();
    await shortcut('KeyP');
    const input = await screen.findByTestId('palette-input');
    await fireEvent.input(input, { target: { value: 'new task bob' } });
    await waitFor(() =>
      expect(screen.getAllByTestId('palette-item').filter((i) => i.hasAttribute('data-selected'))[0]?.getAttribute('data-command')).toBe(
        `task:${bob.id}`,
      ),
    );
    await fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(screen.queryByTestId('palette')).toBeNull());

    const form = await screen.findByTestId('task-form');
    expect(form.closest('[data-testid="task-panel"]')?.getAttribute('data-profile-id')).toBe(bob.id);
    const instruction = within(form).getByTestId('task-instruction');
    await waitFor(() => expect(document.activeElement).toBe(instruction));
    await fireEvent.input(instruction, { target: { value: 'Write the release notes' } });
    await fireEvent.keyDown(instruction, { key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(callsOf(backend, 'submit_task')).toHaveLength(1));
    expect(callsOf(backend, 'submit_task')[0]).toMatchObject({ spec: { profile_id: bob.id, instruction: 'Write the release notes' } });
  });

  it('answers the next question and goes to the dashboard by their shortcuts', async () => {
    const { backend, amySession } = await twoAgents();
    const question = backend.raiseSignal(amySession.id, signalScan(clarification()));
    await waitFor(() => expect(screen.getByTestId('sidebar').textContent).toContain('amy'));
    await shortcut('KeyA');
    expect((await screen.findByTestId('signal-dialog')).getAttribute('data-signal-id')).toBe(question.id);
    await fireEvent.keyDown(screen.getByTestId('signal-dialog'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('signal-dialog')).toBeNull());
    await shortcut('KeyD');
    expect(await screen.findByTestId('dashboard')).toBeTruthy();
  });

  it('puts the keyboard back in the terminal', async () => {
    const { terminals } = await twoAgents();
    const terminal = terminals.last();
    terminal.focused = false;
    await shortcut('KeyE');
    await waitFor(() => expect(terminal.focused).toBe(true));
  });
});
