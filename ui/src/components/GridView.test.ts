import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import type { ProfileId, TerminalGrid } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { signalScan } from '../test/records';
import { apiError } from '../lib/errors';
import { STEP_MS } from '../lib/rota';
import { DEFAULT_SETTINGS } from '../lib/settings';
import { clarification } from '../test/signals';
import type { FakeSurface } from '../test/fakeTerminal';
import { callsOf, renderApp } from '../test/render';
import { failed, question, waitsOn, working } from '../test/attention';

/** Four agents: three running with a line on their screens, the fourth not started. */
function fourAgents() {
  const backend = new FakeBackend();
  const [north, east, south, west] = ['north', 'east', 'south', 'west'].map((name) => backend.seedProfile({ name }));
  const sessions = [north, east, south].map((agent, at) => {
    const session = backend.seedSession(agent.id, { state: 'running', pid: 100 + at });
    backend.output(session.id, `${agent.name} was here\r\n`);
    return session;
  });
  return { backend, agents: { north, east, south, west }, sessions };
}

/** The grid as the engine keeps it, before the window opens (as after a restart). */
async function keptGrid(backend: FakeBackend, grid: Partial<TerminalGrid>) {
  await backend.setSettings({ ...DEFAULT_SETTINGS, terminal_grid: { shows: 'chosen', chosen: [], zoomed: null, ...grid } });
}

async function openGrid() {
  await fireEvent.click(screen.getByTestId('open-grid'));
  return screen.findByTestId('grid-view');
}

const tiles = (view: HTMLElement) => within(view).queryAllByTestId('grid-tile');
const tileNames = (view: HTMLElement) => tiles(view).map((t) => t.getAttribute('data-profile-name'));
const tile = (view: HTMLElement, name: string) => tiles(view).find((t) => t.getAttribute('data-profile-name') === name)!;
const focusedName = (view: HTMLElement) => tiles(view).find((t) => t.getAttribute('data-focused') === 'true')?.getAttribute('data-profile-name');

/** The terminals mounted now, by the name of the tile each is in (`main` outside the grid). */
function mounted(surfaces: FakeSurface[]): string[] {
  return surfaces
    .filter((s) => !s.disposed)
    .map((s) => s.container.closest('[data-testid="grid-tile"]')?.getAttribute('data-profile-name') ?? 'main');
}
const surfaceOf = (surfaces: FakeSurface[], name: string) =>
  surfaces.find((s) => !s.disposed && s.container.closest('[data-testid="grid-tile"]')?.getAttribute('data-profile-name') === name)!;

const keptSettings = async (backend: FakeBackend) => (await backend.getSettings()).terminal_grid;

const gridKey = (key: string, target: Element = document.body) =>
  fireEvent.keyDown(target, { key, code: key.length === 1 ? `Key${key.toUpperCase()}` : key, ctrlKey: true, shiftKey: true });

async function choose(view: HTMLElement, testid: 'grid-add-agent' | 'grid-add-slot', agent: ProfileId) {
  const picker = within(view).getAllByTestId(testid)[0] as HTMLSelectElement;
  await fireEvent.change(picker, { target: { value: agent } });
}

describe('the terminal grid', () => {
  it("writes the focused tile's output as it comes, and the others' each at its own turn", async () => {
    const { backend, agents, sessions } = fourAgents();
    await keptGrid(backend, { chosen: [agents.north.id, agents.east.id, agents.south.id] });
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(surfaceOf(terminals.surfaces, 'south').text()).toContain('south was here'));
    expect(focusedName(view)).toBe('north');
    const [east, south] = [surfaceOf(terminals.surfaces, 'east'), surfaceOf(terminals.surfaces, 'south')];
    const [eastBefore, southBefore] = [east.written.length, south.written.length];

    backend.output(sessions[0].id, 'north goes on\r\n');
    backend.output(sessions[1].id, 'east goes on\r\n');
    backend.output(sessions[2].id, 'south goes on\r\n');
    await tick();
    expect(surfaceOf(terminals.surfaces, 'north').text()).toContain('north goes on');
    expect(east.text()).not.toContain('east goes on');
    expect(south.text()).not.toContain('south goes on');
    await waitFor(() => expect(east.text() + south.text()).toMatch(/east goes on[^]*south goes on/));
    // Not in the same task, so not in the same frame: a step apart at least.
    const [eastAt, southAt] = [east.writtenAt[eastBefore], south.writtenAt[southBefore]];
    expect(Math.abs(southAt - eastAt)).toBeGreaterThanOrEqual(STEP_MS - 2);
  });

  it('opens from the sidebar empty; agents chosen in it take their places, live, and the choice is kept', async () => {
    const { backend, agents, sessions } = fourAgents();
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    expect(within(view).getByTestId('grid-empty').textContent).toContain('No agents in the grid yet');
    expect(screen.getByTestId('open-grid').getAttribute('aria-current')).toBe('page');
    // The session view that was open went: no terminal outside the grid.
    await waitFor(() => expect(mounted(terminals.surfaces)).toEqual([]));

    await choose(view, 'grid-add-slot', agents.east.id);
    for (const agent of [agents.north, agents.west]) await choose(view, 'grid-add-agent', agent.id);

    await waitFor(() => expect(tileNames(view)).toEqual(['east', 'north', 'west']));
    // Three in a 2×2: the free place offers the next one.
    expect(within(view).getByTestId('grid-free-cell')).toBeTruthy();
    await choose(view, 'grid-add-slot', agents.south.id);
    await waitFor(() => expect(tileNames(view)).toEqual(['east', 'north', 'west', 'south']));
    expect(within(view).queryByTestId('grid-free-cell')).toBeNull();
    expect(view.getAttribute('data-rows')).toBe('2');
    expect(view.getAttribute('data-cols')).toBe('2');
    expect(tiles(view).map((t) => t.getAttribute('data-place'))).toEqual(['1', '2', '3', '4']);
    expect(await keptSettings(backend)).toEqual({ shows: 'chosen', chosen: [agents.east.id, agents.north.id, agents.west.id, agents.south.id], zoomed: null });
    // Each running agent's terminal, attached once, with what it printed; the one not started offers Start.
    expect(mounted(terminals.surfaces).sort()).toEqual(['east', 'north', 'south']);
    for (const session of sessions) expect(backend.subscriberCount(session.id)).toBe(1);
    expect(surfaceOf(terminals.surfaces, 'south').text()).toContain('south was here');
    expect(within(tile(view, 'west')).getByTestId('grid-tile-not-running').textContent).toContain('Not running');
    // Its frame: its name, its state in the attention's words.
    expect(within(tile(view, 'east')).getByTestId('grid-tile-name').textContent).toBe('east');
    expect(within(tile(view, 'east')).getByTestId('grid-tile-state').textContent).toBe('idle');
    // Every agent is in: nothing left to add.
    expect((within(view).getByTestId('grid-add-agent') as HTMLSelectElement).disabled).toBe(true);
  });

  it('starts an agent in its tile without leaving the grid, at the size new sessions start at', async () => {
    const { backend, agents } = fourAgents();
    await keptGrid(backend, { chosen: [agents.north.id, agents.west.id] });
    // The session view fits 24×80 (the sessions' own size); a tile, 12×50.
    const sizeOf = (container: HTMLElement) => (container.closest('[data-testid="grid-tile"]') ? { rows: 12, cols: 50 } : { rows: 24, cols: 80 });
    const { terminals } = await renderApp(backend, { sizeOf });
    // The window opened on a running session: its view's size is the one new sessions take.
    expect(mounted(terminals.surfaces)).toEqual(['main']);
    const view = await openGrid();
    await waitFor(() => expect(mounted(terminals.surfaces)).toEqual(['north']));
    const northSession = backend.calls.filter((c) => c.command === 'resize').at(-1)?.args.sessionId;
    // The tile fitted the agent's terminal to itself.
    expect(callsOf(backend, 'resize').at(-1)).toEqual({ sessionId: northSession, size: { rows: 12, cols: 50 } });

    await fireEvent.click(within(tile(view, 'west')).getByTestId('grid-tile-start'));
    await waitFor(() => expect(mounted(terminals.surfaces).sort()).toEqual(['north', 'west']));
    // Not at the tile's small size: the tile never became the size new sessions start at.
    expect(callsOf(backend, 'start_session')).toEqual([{ profileId: agents.west.id, size: { rows: 24, cols: 80 } }]);
    expect(screen.getByTestId('grid-view')).toBe(view);
    const westSession = (await backend.listSessions()).find((s) => s.profile_id === agents.west.id)!.id;
    expect(callsOf(backend, 'resize')).toContainEqual({ sessionId: westSession, size: { rows: 12, cols: 50 } });

    // Back to north's own view: its terminal is fitted back to the view, though the view's size
    // is the one the session started with (the tile had made it smaller since).
    const resizes = callsOf(backend, 'resize').length;
    const entry = screen.getAllByTestId('session-entry').find((e) => e.getAttribute('data-session-id') === northSession)!;
    await fireEvent.click(entry);
    await waitFor(() => expect(mounted(terminals.surfaces)).toEqual(['main']));
    expect(callsOf(backend, 'resize').slice(resizes)).toEqual([{ sessionId: northSession, size: { rows: 24, cols: 80 } }]);
  });

  it('sends what is typed in a tile to its agent alone; a click or the keys move the keyboard', async () => {
    const { backend, agents, sessions } = fourAgents();
    await keptGrid(backend, { chosen: [agents.north.id, agents.east.id, agents.south.id, agents.west.id] });
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(tiles(view)).toHaveLength(4));
    // The first tile has the keyboard.
    expect(focusedName(view)).toBe('north');
    expect(surfaceOf(terminals.surfaces, 'north').focused).toBe(true);
    expect(surfaceOf(terminals.surfaces, 'east').focused).toBe(false);

    await fireEvent.pointerDown(tile(view, 'east'));
    expect(focusedName(view)).toBe('east');
    const east = surfaceOf(terminals.surfaces, 'east');
    expect(east.focused).toBe(true);
    east.type('hello east\r');
    await waitFor(() => expect(callsOf(backend, 'write_input')).toEqual([{ sessionId: sessions[1].id, data: 'hello east\r' }]));
    expect(east.text()).toContain('echo: hello east');
    for (const other of ['north', 'south']) expect(surfaceOf(terminals.surfaces, other).text()).not.toContain('hello east');

    // 2×2: right goes on in reading order, down to the row below, round to the top.
    await gridKey('ArrowRight');
    expect(focusedName(view)).toBe('south');
    expect(surfaceOf(terminals.surfaces, 'south').focused).toBe(true);
    await gridKey('ArrowDown', document.activeElement ?? document.body);
    expect(focusedName(view)).toBe('north');
    await gridKey('ArrowLeft');
    expect(focusedName(view)).toBe('west');
    // The tile not running gives the keyboard to its Start button.
    expect(document.activeElement).toBe(within(tile(view, 'west')).getByTestId('grid-tile-start'));
    // From a field outside the grid the keys are the field's.
    await gridKey('ArrowRight', screen.getByTestId('sidebar-search'));
    expect(focusedName(view)).toBe('west');

    // The palette's "this agent" is the focused tile's.
    await fireEvent.pointerDown(tile(view, 'south'));
    await gridKey('p');
    const palette = await screen.findByTestId('palette');
    const labels = within(palette).getAllByTestId('palette-item').map((item) => item.textContent?.replace(/\s+/g, ' ').trim());
    expect(labels).toContain('New task for south Ctrl+Shift+T');
  });

  it('zooms a tile to the whole grid, mounting its terminal alone, and back; the zoom is kept', async () => {
    const { backend, agents } = fourAgents();
    const chosen = [agents.north.id, agents.east.id, agents.south.id];
    await keptGrid(backend, { chosen });
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(mounted(terminals.surfaces).sort()).toEqual(['east', 'north', 'south']));

    await fireEvent.click(within(tile(view, 'east')).getByTestId('grid-tile-zoom'));
    await waitFor(() => expect(tileNames(view)).toEqual(['east']));
    expect(view.getAttribute('data-zoomed')).toBe(agents.east.id);
    expect([view.getAttribute('data-rows'), view.getAttribute('data-cols')]).toEqual(['1', '1']);
    expect(mounted(terminals.surfaces)).toEqual(['east']);
    expect(await keptSettings(backend)).toEqual({ shows: 'chosen', chosen, zoomed: agents.east.id });
    expect(within(tile(view, 'east')).getByTestId('grid-tile-zoom').getAttribute('aria-pressed')).toBe('true');

    // Zoomed, the moves show the next agent zoomed.
    await gridKey('ArrowRight');
    await waitFor(() => expect(tileNames(view)).toEqual(['south']));
    expect((await keptSettings(backend)).zoomed).toBe(agents.south.id);

    // Back, with the keys: every tile mounts again, and replays what its agent printed.
    await gridKey('z');
    await waitFor(() => expect(tileNames(view)).toEqual(['north', 'east', 'south']));
    expect(mounted(terminals.surfaces).sort()).toEqual(['east', 'north', 'south']);
    // A tile without the keyboard writes at the background tick.
    await waitFor(() => expect(surfaceOf(terminals.surfaces, 'north').text()).toContain('north was here'));
    expect(focusedName(view)).toBe('south');
    expect(await keptSettings(backend)).toEqual({ shows: 'chosen', chosen, zoomed: null });
  });

  it('opens as it was kept: the same agents in the same places, zoomed as it was', async () => {
    const { backend, agents } = fourAgents();
    await keptGrid(backend, { chosen: [agents.south.id, agents.north.id, agents.east.id], zoomed: agents.north.id });
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(tileNames(view)).toEqual(['north']));
    expect(mounted(terminals.surfaces)).toEqual(['north']);
    await fireEvent.click(within(tile(view, 'north')).getByTestId('grid-tile-zoom'));
    await waitFor(() => expect(tileNames(view)).toEqual(['south', 'north', 'east']));
  });

  it('removes an agent from the grid, its zoom with it; the agent goes on', async () => {
    const { backend, agents, sessions } = fourAgents();
    await keptGrid(backend, { chosen: [agents.north.id, agents.east.id], zoomed: agents.east.id });
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(tileNames(view)).toEqual(['east']));
    await fireEvent.click(within(tile(view, 'east')).getByTestId('grid-tile-remove'));
    await waitFor(() => expect(tileNames(view)).toEqual(['north']));
    expect(await keptSettings(backend)).toEqual({ shows: 'chosen', chosen: [agents.north.id], zoomed: null });
    expect(mounted(terminals.surfaces)).toEqual(['north']);
    expect(backend.subscriberCount(sessions[1].id)).toBe(0);
    expect((await backend.listSessions()).find((s) => s.id === sessions[1].id)?.state).toBe('running');
    // It can be added again.
    const picker = within(view).getByTestId('grid-add-agent') as HTMLSelectElement;
    expect(picker.disabled).toBe(false);
    expect([...picker.options].map((o) => o.textContent)).toEqual(['Add agent…', 'east', 'south', 'west']);
  });

  it('ends the zoom of an agent that leaves the grid by itself (deleted)', async () => {
    const { backend, agents } = fourAgents();
    await keptGrid(backend, { chosen: [agents.north.id, agents.west.id], zoomed: agents.west.id });
    await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(tileNames(view)).toEqual(['west']));
    await backend.deleteProfile(agents.west.id);
    await waitFor(() => expect(tileNames(view)).toEqual(['north']));
    await waitFor(async () => expect((await keptSettings(backend)).zoomed).toBeNull());
  });

  it('shows every agent that needs the user, or every agent at work, and keeps the choice meanwhile', async () => {
    const backend = new FakeBackend();
    const now = Date.now();
    const [asker, worker, failer, idler] = ['asker', 'worker', 'failer', 'idler'].map((name) => backend.seedProfile({ name }));
    const askerSession = backend.seedSession(asker.id, { state: 'running', pid: 1 });
    const asked = backend.raiseSignal(askerSession.id, signalScan(clarification(['OAuth2 or JWT?'])));
    const workerSession = backend.seedSession(worker.id, { state: 'running', pid: 2 });
    const porting = backend.seedTask({ profile_id: worker.id, instruction: 'Port the parser', state: 'running', session_id: workerSession.id, started_at: now, typed_at: now });
    const broken = backend.seedTask({ profile_id: failer.id, instruction: 'Fix the build', state: 'failed', ended_at: now - 60_000, reason: 'exit 1' });
    backend.seedSession(idler.id, { state: 'running', pid: 3 });
    backend.setAttention(asker.id, waitsOn(asked, question('OAuth2 or JWT?')));
    backend.setAttention(worker.id, working(porting));
    backend.setAttention(failer.id, failed(broken));
    await keptGrid(backend, { chosen: [idler.id] });
    const { terminals } = await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(tileNames(view)).toEqual(['idler']));

    const mode = (shows: string) => within(view).getAllByTestId('grid-shows-option').find((b) => b.getAttribute('data-shows') === shows)!;
    await fireEvent.click(mode('needs_you'));
    // The failure is older than the question: it waited longest.
    await waitFor(() => expect(tileNames(view)).toEqual(['failer', 'asker']));
    expect(mode('needs_you').getAttribute('aria-pressed')).toBe('true');
    expect(within(tile(view, 'asker')).getByTestId('grid-tile-state').textContent).toBe('needs you');
    expect(within(tile(view, 'failer')).getByTestId('grid-tile-state').textContent).toBe('task failed');
    // Not the user's choice: nothing to add or remove here.
    expect(within(view).queryByTestId('grid-add-agent')).toBeNull();
    expect(within(view).queryAllByTestId('grid-tile-remove')).toHaveLength(0);
    expect(await keptSettings(backend)).toEqual({ shows: 'needs_you', chosen: [idler.id], zoomed: null });

    await fireEvent.click(mode('working'));
    await waitFor(() => expect(tileNames(view)).toEqual(['worker']));
    expect(within(tile(view, 'worker')).getByTestId('grid-tile-task').textContent).toBe('Port the parser');
    // What its task spent so far, in a few characters beside it, once the engine counted any.
    expect(within(tile(view, 'worker')).queryByTestId('grid-tile-spent')).toBeNull();
    backend.setTaskSpent(porting.id, { tokens: { input: 12_000, output: 340, cache_read: 0, cache_write: 0, by_model: [] }, cost_usd: null });
    await waitFor(() => expect(within(tile(view, 'worker')).getByTestId('grid-tile-spent').textContent).toBe('12.3k tokens'));
    backend.setTaskSpent(porting.id, { cost_usd: 0.42 });
    await waitFor(() => expect(within(tile(view, 'worker')).getByTestId('grid-tile-spent').textContent).toBe('$0.42'));
    expect(mounted(terminals.surfaces)).toEqual(['worker']);

    await fireEvent.click(mode('chosen'));
    await waitFor(() => expect(tileNames(view)).toEqual(['idler']));
    expect(await keptSettings(backend)).toEqual({ shows: 'chosen', chosen: [idler.id], zoomed: null });
  });

  it('says so when the engine refuses the change, and shows the grid as it was', async () => {
    const { backend, agents } = fourAgents();
    await keptGrid(backend, { chosen: [agents.north.id] });
    await renderApp(backend);
    const view = await openGrid();
    await waitFor(() => expect(tileNames(view)).toEqual(['north']));
    backend.failNext('set_settings', apiError('invalid_input', 'The grid shows 9 terminals at most.', 'terminal_grid'));
    await choose(view, 'grid-add-agent', agents.east.id);
    expect((await within(view).findByTestId('grid-error')).textContent).toContain('The grid shows 9 terminals at most.');
    await waitFor(() => expect(tileNames(view)).toEqual(['north']));
  });

  it('opens from the palette and with Ctrl+Shift+G, and goes when an agent is opened', async () => {
    const { backend, sessions } = fourAgents();
    const { terminals } = await renderApp(backend);
    await gridKey('g');
    const view = await screen.findByTestId('grid-view');
    await fireEvent.click(screen.getAllByTestId('session-entry').find((e) => e.getAttribute('data-session-id') === sessions[0].id)!);
    await waitFor(() => expect(screen.queryByTestId('grid-view')).toBeNull());
    expect(view.isConnected).toBe(false);
    expect(mounted(terminals.surfaces)).toEqual(['main']);

    await fireEvent.click(screen.getByTestId('open-palette'));
    const palette = await screen.findByTestId('palette');
    const item = within(palette).getAllByTestId('palette-item').find((i) => i.textContent?.includes('Terminal grid'))!;
    expect(item.textContent).toContain('Ctrl+Shift+G');
    await fireEvent.click(item);
    await screen.findByTestId('grid-view');
    await tick();
    // The grid shows no one agent: the engine is told the window looks at none.
    expect(backend.viewing.profile_id).toBeNull();
  });
});
