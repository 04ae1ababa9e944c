import { fireEvent, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { renderApp } from '../test/render';

describe('storage banner', () => {
  it('appears when the data cannot be written and goes once it can', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'claude' });
    await renderApp(backend);
    expect(screen.queryByTestId('storage-banner')).toBeNull();

    backend.setStorageProblem({ kind: 'full' });
    await tick();
    const banner = screen.getByTestId('storage-banner');
    expect(banner.getAttribute('data-problem')).toBe('full');
    expect(banner.textContent).toContain('Switchboard cannot record its work');
    // What is wrong, where, and what to do.
    expect(banner.textContent).toContain("The disk holding Switchboard's data ((in memory)) is full.");
    expect(banner.textContent).toContain('Free some space on it; Switchboard notices by itself within a second.');
    expect(banner.textContent).toContain('what their hooks report may be lost until then');
    expect(screen.getAllByTestId('profile-entry')).toHaveLength(1);

    backend.setStorageProblem(null);
    await tick();
    expect(screen.queryByTestId('storage-banner')).toBeNull();
  });

  it('notes hook events set aside at start, until dismissed', async () => {
    const backend = new FakeBackend({ hookEventsSetAside: 3 });
    await renderApp(backend);
    const note = screen.getByTestId('set-aside-note');
    expect(note.textContent).toContain('3 hook events saved while Switchboard was closed could not be read');
    expect(note.textContent).toContain('hook-spool.rejected.jsonl');
    await fireEvent.click(within(note).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('set-aside-note')).toBeNull();
  });

  it('explains an engine that could not start, instead of a wall of errors', async () => {
    const backend = new FakeBackend({ startupProblem: { kind: 'read_only' } });
    await renderApp(backend);
    const banner = screen.getByTestId('storage-banner');
    expect(banner.textContent).toContain('Switchboard could not open its data');
    expect(banner.textContent).toContain('then restart Switchboard');
    expect(screen.queryByText(/the engine has shut down/)).toBeNull();
    // Nothing can be created until it is restarted on data it can open.
    expect(screen.getByTestId('new-agent').hasAttribute('disabled')).toBe(true);
    expect(screen.getByTestId('agents-unavailable').textContent).toContain('once Switchboard can open its data');
  });
});
