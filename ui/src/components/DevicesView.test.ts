import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { Device, WebSettings } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { formatTime } from '../lib/model';
import { callsOf, renderApp } from '../test/render';

const URL = 'http://127.0.0.1:7780';
const settings = (serving: boolean, names: string[] = []): WebSettings => ({ serving, listen: null, tls_cert: null, tls_key: null, names });

/** The engine serves browsers, as it tells a window that asks. */
function serving(backend: FakeBackend, names: string[] = []) {
  backend.answerNext('web_status', { settings: settings(true, names), url: URL });
}

const phone = (over: Partial<Device> = {}): Device => ({
  id: 'dev-1',
  name: 'Chrome on Android',
  read_only: false,
  paired_at: Date.now() - 3_600_000,
  last_seen_at: Date.now(),
  last_from: '127.0.0.1',
  connected: true,
  ...over,
});

async function openDevices(backend: FakeBackend) {
  const app = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('open-devices'));
  await screen.findByTestId('devices-view');
  // The engine has said whether it serves and which browsers are paired.
  await waitFor(() => expect(screen.getByTestId('devices-view').getAttribute('aria-busy')).toBe('false'));
  return app;
}

const entries = () => screen.queryAllByTestId('device-entry');
const entry = (name: string) => entries().find((e) => e.dataset.name === name);

describe('the Devices pane', () => {
  it('turns serving on, keeping the other settings, and shows the address to open', async () => {
    const backend = new FakeBackend();
    backend.answerNext('web_status', { settings: settings(false, ['desktop.tail1.ts.net']) });
    await openDevices(backend);
    const serve = screen.getByTestId('devices-serve');
    expect(serve.getAttribute('aria-checked')).toBe('false');
    expect(screen.getByTestId('devices-serving-state').textContent).toContain('Off');
    // Off, it says what turning it on does, and how to reach it from elsewhere.
    const off = screen.getByTestId('devices-serving-off').textContent!;
    expect(off).toContain('serves this window to the browsers you pair');
    expect(off).toContain('ssh -L');
    expect(off).toContain('Your agents from a browser or a phone');
    expect(screen.queryByTestId('devices-url')).toBeNull();
    expect((screen.getByTestId('devices-pair-full') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('devices-pair-needs-serving').textContent).toBe('Turn serving on to pair a browser.');

    await fireEvent.click(serve);
    await waitFor(() => expect(screen.getByTestId('devices-url').textContent).toBe(URL));
    expect(callsOf(backend, 'set_web')).toEqual([{ settings: settings(true, ['desktop.tail1.ts.net']) }]);
    expect(serve.getAttribute('aria-checked')).toBe('true');
    expect(screen.getByTestId('devices-reach').textContent).toContain('this computer only');
    expect(screen.queryByTestId('devices-serving-off')).toBeNull();
    expect((screen.getByTestId('devices-pair-full') as HTMLButtonElement).disabled).toBe(false);

    await fireEvent.click(serve);
    await waitFor(() => expect(screen.queryByTestId('devices-url')).toBeNull());
    expect(callsOf(backend, 'set_web')[1]).toEqual({ settings: settings(false, ['desktop.tail1.ts.net']) });
    expect(screen.getByTestId('devices-serving-off')).toBeTruthy();
  });

  it('follows serving as another window or the command line turns it on', async () => {
    const backend = new FakeBackend();
    await openDevices(backend);
    expect(screen.getByTestId('devices-serving-state').textContent).toContain('Off');
    backend.emit({ type: 'web_changed', status: { settings: settings(true), url: URL, fingerprint: null, problem: null } });
    await waitFor(() => expect(screen.getByTestId('devices-url').textContent).toBe(URL));
  });

  it('says that other machines reach it when it serves another address, with the certificate to compare', async () => {
    const backend = new FakeBackend();
    const fingerprint = 'AB:CD:EF:01';
    backend.answerNext('web_status', { settings: { ...settings(true), listen: '100.64.0.2:7780' }, url: 'https://100.64.0.2:7780', fingerprint });
    await openDevices(backend);
    expect(screen.getByTestId('devices-url').textContent).toBe('https://100.64.0.2:7780');
    expect(screen.getByTestId('devices-reach').textContent).toContain('Other machines that reach this address can open it, over HTTPS');
    expect(screen.getByTestId('devices-serving').textContent).toContain(fingerprint);
  });

  it('says in words why the engine cannot serve', async () => {
    const backend = new FakeBackend();
    backend.answerNext('web_status', { settings: settings(true), url: null, problem: 'another program already listens on 127.0.0.1:7780' });
    await openDevices(backend);
    expect(screen.getByTestId('devices-serving-state').textContent).toBe('Switchboard cannot serve browsers: Another program already listens on 127.0.0.1:7780.');
    expect(screen.getByTestId('devices-serve').getAttribute('aria-checked')).toBe('true');
    expect((screen.getByTestId('devices-pair-full') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows a pairing code as a drawn QR code, in letters and as an address, counts down, and offers a new one once expired', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const backend = new FakeBackend();
    serving(backend);
    await openDevices(backend);
    await fireEvent.input(screen.getByTestId('devices-pair-name'), { target: { value: ' Hall tablet ' } });
    // Between two ticks of the pane's clock: the code is still valid for the whole 5 minutes.
    await vi.advanceTimersByTimeAsync(600);
    await fireEvent.click(screen.getByTestId('devices-pair-look'));
    const shown = await screen.findByTestId('devices-code');
    expect(callsOf(backend, 'pair_device')).toEqual([{ read_only: true, name: 'Hall tablet' }]);

    // The engine's QR code, every dark module drawn and nothing else: rects in an SVG. (The
    // fake draws the same code each time: asked again here, to compare.)
    const code = await backend.pairDevice(true, 'Hall tablet');
    const qr = within(shown).getByTestId('devices-qr');
    // Light all round: the engine's quiet zone widened by two modules each side.
    expect(qr.getAttribute('viewBox')).toBe(`-2 -2 ${code.qr.length + 4} ${code.qr.length + 4}`);
    const dark = [...qr.querySelectorAll('rect')].filter((rect) => rect.getAttribute('fill') === '#000');
    const drawn = new Set(dark.flatMap((rect) => Array.from({ length: Number(rect.getAttribute('width')) }, (_, i) => `${Number(rect.getAttribute('x')) + i},${rect.getAttribute('y')}`)));
    const modules = new Set(code.qr.flatMap((row, y) => [...row].flatMap((c, x) => (c === '#' ? [`${x},${y}`] : []))));
    expect(drawn).toEqual(modules);
    expect(within(shown).getByTestId('devices-code-letters').textContent).toBe('K7M2Q-9XTR4');
    expect(within(shown).getByTestId('devices-code-url').textContent).toBe(`${URL}/pair?code=K7M2Q9XTR4`);
    expect(shown.textContent).toContain('It will look only, named Hall tablet.');
    expect(within(shown).getByTestId('devices-code-clock').textContent).toBe('valid for 5:00');
    await vi.advanceTimersByTimeAsync(400);
    expect(within(shown).getByTestId('devices-code-clock').textContent).toBe('valid for 5:00');

    await vi.advanceTimersByTimeAsync(28_000);
    expect(within(shown).getByTestId('devices-code-clock').textContent).toBe('valid for 4:32');
    await vi.advanceTimersByTimeAsync(4 * 60_000 + 31_000);
    expect(within(shown).getByTestId('devices-code-clock').textContent).toBe('valid for 0:01');

    await vi.advanceTimersByTimeAsync(1_000);
    expect(screen.getByTestId('devices-code').dataset.state).toBe('expired');
    expect(screen.getByTestId('devices-code-expired').textContent).toBe('This code has expired.');
    // An expired code is not shown to be scanned.
    expect(screen.queryByTestId('devices-qr')).toBeNull();
    expect(screen.queryByTestId('devices-code-letters')).toBeNull();

    await fireEvent.click(screen.getByTestId('devices-code-again'));
    await vi.waitFor(() => expect(screen.getByTestId('devices-code').dataset.state).toBe('valid'));
    // The same kind of code again: to look only, with the name given.
    expect(callsOf(backend, 'pair_device')[2]).toEqual({ read_only: true, name: 'Hall tablet' });
    expect(screen.getByTestId('devices-code-clock').textContent).toBe('valid for 5:00');
  });

  it('forgets the code when the pane closes, and when serving stops', async () => {
    const backend = new FakeBackend();
    serving(backend);
    await openDevices(backend);
    await fireEvent.click(screen.getByTestId('devices-pair-full'));
    await screen.findByTestId('devices-code');
    expect(callsOf(backend, 'pair_device')).toEqual([{ read_only: false, name: null }]);

    await fireEvent.click(screen.getByTestId('devices-close'));
    expect(screen.queryByTestId('devices-view')).toBeNull();
    await fireEvent.click(screen.getByTestId('open-devices'));
    await screen.findByTestId('devices-view');
    expect(screen.queryByTestId('devices-code')).toBeNull();

    await fireEvent.click(screen.getByTestId('devices-pair-full'));
    await screen.findByTestId('devices-code');
    backend.emit({ type: 'web_changed', status: { settings: settings(false), url: null, fingerprint: null, problem: null } });
    await waitFor(() => expect(screen.queryByTestId('devices-code')).toBeNull());
  });

  it('says which browser the code paired, once it comes, and shows the code no more', async () => {
    const backend = new FakeBackend();
    serving(backend);
    backend.addDevice(phone());
    await openDevices(backend);
    await fireEvent.click(screen.getByTestId('devices-pair-full'));
    await screen.findByTestId('devices-qr');
    // The phone scanned it.
    backend.pairedBrowser(phone({ id: 'dev-2', name: 'Safari on iPhone' }));
    expect((await screen.findByTestId('devices-code-paired')).textContent).toBe('Safari on iPhone is paired: the code is used up.');
    expect(screen.queryByTestId('devices-qr')).toBeNull();
    expect(screen.queryByTestId('devices-code-letters')).toBeNull();
    expect(entry('Safari on iPhone')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('devices-code-done'));
    expect(screen.queryByTestId('devices-code')).toBeNull();
  });

  it('keeps a change heard while the list was on its way, rather than the older list', async () => {
    const backend = new FakeBackend();
    backend.addDevice(phone());
    // The list answers only once the test lets it, with the devices as they were when asked.
    let answer = () => {};
    const held = new Promise<void>((resolve) => (answer = resolve));
    const list = backend.listDevices.bind(backend);
    backend.listDevices = async () => {
      const listed = await list();
      await held;
      return listed;
    };
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-devices'));
    await screen.findByTestId('devices-view');
    backend.emit({ type: 'devices_changed', devices: [] });
    await screen.findByTestId('devices-none');
    answer();
    await waitFor(() => expect(screen.getByTestId('devices-view').getAttribute('aria-busy')).toBe('false'));
    expect(entries()).toHaveLength(0);
    expect(screen.getByTestId('devices-none')).toBeTruthy();
  });

  it('closes on Escape', async () => {
    const backend = new FakeBackend();
    await openDevices(backend);
    await fireEvent.keyDown(screen.getByTestId('devices-serve'), { key: 'Escape' });
    expect(screen.queryByTestId('devices-view')).toBeNull();
    expect(screen.getByTestId('open-devices').getAttribute('aria-current')).toBeNull();
  });

  it('lists the paired browsers, and follows each change the engine tells', async () => {
    const backend = new FakeBackend();
    serving(backend);
    backend.addDevice(phone());
    await openDevices(backend);
    expect(entries()).toHaveLength(1);
    const first = entry('Chrome on Android')!;
    expect(within(first).getByTestId('device-access').textContent).toBe('full access');
    expect(within(first).getByTestId('device-seen').textContent!.trim()).toBe('connected');
    // No id is shown.
    expect(first.textContent).not.toContain('dev-1');

    const seen = Date.now() - 2 * 3_600_000;
    backend.pairedBrowser(phone({ id: 'dev-2', name: 'Hall tablet', read_only: true, connected: false, last_seen_at: seen, last_from: '100.64.0.2' }));
    await waitFor(() => expect(entries()).toHaveLength(2));
    const tablet = entry('Hall tablet')!;
    expect(within(tablet).getByTestId('device-access').textContent).toBe('looks only');
    expect(within(tablet).getByTestId('device-seen').textContent!.trim()).toBe(`last seen ${formatTime(seen, new Date())} from 100.64.0.2`);

    // The phone closed its page.
    backend.emit({ type: 'devices_changed', devices: [phone({ connected: false, last_seen_at: seen })] });
    await waitFor(() => expect(entries()).toHaveLength(1));
    expect(within(entry('Chrome on Android')!).getByTestId('device-seen').textContent!.trim()).toBe(`last seen ${formatTime(seen, new Date())} from 127.0.0.1`);
    backend.emit({ type: 'devices_changed', devices: [] });
    await screen.findByTestId('devices-none');
  });

  it('asks before unpairing a browser, then has the engine unpair it', async () => {
    const backend = new FakeBackend();
    backend.addDevice(phone());
    backend.addDevice(phone({ id: 'dev-2', name: 'Firefox on Linux' }));
    await openDevices(backend);
    await fireEvent.click(within(entry('Chrome on Android')!).getByTestId('device-unpair'));
    expect(screen.getByTestId('device-unpair-question').textContent).toContain('Unpair Chrome on Android? Its open pages close at once.');
    expect(callsOf(backend, 'revoke_device')).toEqual([]);

    await fireEvent.click(screen.getByTestId('device-unpair-keep'));
    expect(screen.queryByTestId('device-unpair-question')).toBeNull();
    expect(callsOf(backend, 'revoke_device')).toEqual([]);

    await fireEvent.click(within(entry('Chrome on Android')!).getByTestId('device-unpair'));
    await fireEvent.click(screen.getByTestId('device-unpair-confirm'));
    await waitFor(() => expect(entry('Chrome on Android')).toBeUndefined());
    expect(callsOf(backend, 'revoke_device')).toEqual([{ device_id: 'dev-1' }]);
    expect(entry('Firefox on Linux')).toBeTruthy();
  });

  it('says the engine\'s refusals in the user\'s words', async () => {
    const backend = new FakeBackend();
    serving(backend);
    backend.addDevice(phone());
    await openDevices(backend);

    // Serving stopped from the command line before the window heard it.
    backend.failNext('pair_device', {
      code: 'invalid_input',
      message: 'web: Switchboard is not serving browsers: turn it on first (`switchboard web`, or Devices in the window)',
      field: 'web',
    });
    await fireEvent.click(screen.getByTestId('devices-pair-full'));
    expect((await screen.findByTestId('devices-pair-error')).textContent).toBe('Switchboard does not serve browsers now: turn serving on first.');
    expect(screen.queryByTestId('devices-code')).toBeNull();

    // Unpaired from the command line meanwhile.
    backend.failNext('revoke_device', { code: 'not_found', message: 'no paired browser is dev-1 (`switchboard web devices` lists them)', field: null });
    await fireEvent.click(screen.getByTestId('device-unpair'));
    await fireEvent.click(screen.getByTestId('device-unpair-confirm'));
    expect((await screen.findByTestId('device-unpair-error')).textContent).toBe('Chrome on Android is no longer paired.');

    backend.failNext('set_web', { code: 'engine_stopped', message: 'the engine has shut down', field: null });
    await fireEvent.click(screen.getByTestId('devices-serve'));
    expect((await screen.findByTestId('devices-serve-error')).textContent).toBe('Switchboard’s engine has stopped: start it again, then try again.');
    expect(screen.getByTestId('devices-serve').getAttribute('aria-checked')).toBe('true');
  });

  it('is offered from the sidebar and the palette in the desktop window', async () => {
    const desktop = new FakeBackend();
    await renderApp(desktop);
    await screen.findByTestId('open-devices');
    expect(callsOf(desktop, 'this_device')).toHaveLength(1);
    await fireEvent.click(screen.getByTestId('open-palette'));
    await fireEvent.click(await screen.findByRole('option', { name: /Devices…/ }));
    await screen.findByTestId('devices-view');
    expect(screen.getByTestId('open-devices').getAttribute('aria-current')).toBe('page');
  });

  it('is not offered in a page the engine served a paired browser: pairing is done at the computer', async () => {
    const browser = new FakeBackend();
    browser.answerNext('this_device', phone());
    await renderApp(browser);
    await waitFor(() => expect(callsOf(browser, 'this_device')).toHaveLength(1));
    expect(screen.queryByTestId('open-devices')).toBeNull();
    await fireEvent.click(screen.getByTestId('open-palette'));
    await screen.findAllByRole('option');
    expect(screen.queryByRole('option', { name: /Devices…/ })).toBeNull();
    expect(callsOf(browser, 'web_status')).toEqual([]);
  });
});
