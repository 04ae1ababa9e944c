import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { parsePort } from '../lib/hosts';
import { answering, keyNotKnown, notAnswering } from '../test/hosts';
import { callsOf, renderApp } from '../test/render';

async function openMachines(backend: FakeBackend) {
  const app = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('open-machines'));
  await screen.findByTestId('machines-view');
  // The first check of every machine has answered.
  await waitFor(() => expect(screen.getByTestId('machines-view').getAttribute('aria-busy')).toBe('false'));
  return app;
}

const entry = (destination: string) => screen.queryAllByTestId('machine-entry').find((e) => e.dataset.destination === destination);
const entries = () => screen.queryAllByTestId('machine-entry').map((e) => [e.dataset.destination, e.dataset.state]);
const type = (testId: string, value: string) => fireEvent.input(screen.getByTestId(testId), { target: { value } });

async function add(destination: string, { port = '', program = '' } = {}) {
  await type('machine-add-destination', destination);
  if (port) await type('machine-add-port', port);
  if (program) await type('machine-add-program', program);
  await fireEvent.click(screen.getByTestId('machine-add-submit'));
}

describe('the machines view', () => {
  it('lists this computer and each machine with its state in words', async () => {
    const backend = new FakeBackend();
    backend.seedHost(answering('dev@box', 2, 'connected, Switchboard 0.1.0, 2 agents running'));
    backend.seedHost(notAnswering('ci', 'unreachable', 'ssh could not reach ci: No route to host.', { port: 2222 }));
    await openMachines(backend);

    expect(screen.getByTestId('machine-this').textContent).toContain('This computer');
    expect(entries()).toEqual([
      ['dev@box', 'connected'],
      ['ci', 'unreachable'],
    ]);
    expect(within(entry('dev@box')!).getByTestId('machine-state').textContent).toBe('connected, Switchboard 0.1.0, 2 agents running');
    expect(within(entry('ci')!).getByTestId('machine-state').textContent).toBe('ssh could not reach ci: No route to host.');
    expect(entry('ci')!.textContent).toContain('port 2222');
    expect(screen.getByTestId('open-machines').getAttribute('aria-current')).toBe('page');
    expect(screen.queryByTestId('machines-this-window')).toBeNull();
  });

  it('shows the key of a listed machine that ssh no longer knows, and trusts it only when asked', async () => {
    const backend = new FakeBackend();
    backend.seedHost(keyNotKnown('unknown-box'));
    backend.seedHost(answering('dev@box', 0, 'connected, Switchboard 0.1.0, no agent running'));
    await openMachines(backend);
    const listed = entry('unknown-box')!;
    const key = within(listed).getByTestId('machine-entry-key');
    expect(key.textContent).toContain(`ED25519 ${FakeBackend.FAKE_FINGERPRINT}`);
    // No window is offered on a machine the window cannot reach; the one that answers has one.
    expect(within(listed).queryByTestId('machine-open')).toBeNull();
    expect(within(entry('dev@box')!).getByTestId('machine-open')).toBeTruthy();
    expect(callsOf(backend, 'add_host')).toHaveLength(0);

    await fireEvent.click(within(listed).getByTestId('machine-entry-trust'));
    await waitFor(() => expect(entry('unknown-box')!.dataset.state).toBe('connected'));
    expect(callsOf(backend, 'add_host')).toEqual([
      { destination: 'unknown-box', port: null, remoteProgram: null, acceptKey: FakeBackend.FAKE_FINGERPRINT },
    ]);
    expect(within(entry('unknown-box')!).queryByTestId('machine-entry-key')).toBeNull();
  });

  it('checks every machine again on Refresh, and says it is checking meanwhile', async () => {
    const backend = new FakeBackend();
    await openMachines(backend);
    expect(screen.getByTestId('machines-empty')).toBeTruthy();
    backend.seedHost(notAnswering('dev@box', 'sign_in', 'ssh could not sign in to dev@box without asking.'));
    // The check over ssh takes its time: held until the test lets it answer.
    let answer = () => {};
    const held = new Promise<void>((resolve) => (answer = resolve));
    const list = backend.listHosts.bind(backend);
    backend.listHosts = async () => {
      await held;
      return list();
    };
    await fireEvent.click(screen.getByTestId('machines-refresh'));
    await waitFor(() => expect(screen.getByTestId('machines-refresh').textContent?.trim()).toBe('Checking…'));
    expect(screen.getByTestId('machines-refresh').hasAttribute('disabled')).toBe(true);
    answer();
    await waitFor(() => expect(entries()).toEqual([['dev@box', 'sign_in']]));
    expect(screen.getByTestId('machines-refresh').textContent?.trim()).toBe('Refresh');
    expect(callsOf(backend, 'list_hosts')).toHaveLength(2);
  });

  it('adds a machine that answers', async () => {
    const backend = new FakeBackend();
    await openMachines(backend);
    const words = 'connected, Switchboard 0.1.0, no agent running';
    backend.answerNext('add_host', answering('dev@box', 0, words, { port: 2222, remote_program: '/opt/switchboard' }));
    await add('dev@box', { port: '2222', program: '/opt/switchboard' });
    await waitFor(() => expect(entries()).toEqual([['dev@box', 'connected']]));
    expect(callsOf(backend, 'add_host')).toEqual([{ destination: 'dev@box', port: 2222, remoteProgram: '/opt/switchboard', acceptKey: null }]);
    expect(within(entry('dev@box')!).getByTestId('machine-state').textContent).toBe(words);
    expect(screen.getByTestId('machine-added').textContent).toBe('dev@box was added.');
    expect((screen.getByTestId('machine-add-destination') as HTMLInputElement).value).toBe('');
  });

  it('shows a key it does not know and adds the machine only once the user trusts that key', async () => {
    const backend = new FakeBackend();
    await openMachines(backend);
    backend.answerNext('add_host', keyNotKnown('me@unknown-box'));
    await add('me@unknown-box');
    const key = await screen.findByTestId('machine-key');
    expect(key.dataset.fingerprint).toBe('SHA256:fakefakefake');
    expect(key.textContent).toContain("This machine's key is not known yet: ED25519 SHA256:fakefakefake");
    expect(key.textContent).toContain('Trust it only if they are the same.');
    // Nothing is added, and no key was accepted, until the user says so.
    expect(entries()).toEqual([]);
    expect(callsOf(backend, 'add_host').map((c) => c.acceptKey)).toEqual([null]);

    // With the key accepted the machine answers (the fake's answer when it is not told one).
    await fireEvent.click(screen.getByTestId('machine-key-trust'));
    await waitFor(() => expect(entries()).toEqual([['me@unknown-box', 'connected']]));
    expect(callsOf(backend, 'add_host').map((c) => c.acceptKey)).toEqual([null, 'SHA256:fakefakefake']);
    expect(screen.queryByTestId('machine-key')).toBeNull();
  });

  it('forgets a key shown once the form is changed', async () => {
    const backend = new FakeBackend();
    await openMachines(backend);
    backend.answerNext('add_host', keyNotKnown('me@unknown-box'));
    await add('me@unknown-box');
    await screen.findByTestId('machine-key');
    await type('machine-add-destination', 'me@other');
    expect(screen.queryByTestId('machine-key')).toBeNull();
  });

  it('says why a machine that cannot be reached was not added', async () => {
    const backend = new FakeBackend();
    await openMachines(backend);
    backend.answerNext('add_host', notAnswering('me@down-box', 'unreachable', 'ssh could not reach me@down-box: Connection timed out.'));
    await add('me@down-box');
    const problem = await screen.findByTestId('machine-add-problem');
    expect(problem.textContent).toBe('ssh could not reach me@down-box: Connection timed out.');
    expect(entries()).toEqual([]);
    expect(screen.queryByTestId('machine-key')).toBeNull();
  });

  it('refuses a port that is not one before asking anything', async () => {
    const backend = new FakeBackend();
    await openMachines(backend);
    await add('dev@box', { port: '70000' });
    expect((await screen.findByTestId('machine-add-problem')).textContent).toContain('number from 1 to 65535');
    expect(callsOf(backend, 'add_host')).toEqual([]);
  });

  it('asks before removing a machine, saying its agents go on there, then removes it', async () => {
    const backend = new FakeBackend();
    backend.seedHost(answering('dev@box', 1, 'connected, Switchboard 0.1.0, 1 agent running'));
    await openMachines(backend);
    await fireEvent.click(within(entry('dev@box')!).getByTestId('machine-remove'));
    expect(screen.getByTestId('machine-remove-question').textContent).toContain('Its engine and agents go on there.');
    expect(callsOf(backend, 'remove_host')).toEqual([]);
    // Keep: nothing changes.
    await fireEvent.click(screen.getByTestId('machine-remove-keep'));
    expect(entries()).toEqual([['dev@box', 'connected']]);

    await fireEvent.click(within(entry('dev@box')!).getByTestId('machine-remove'));
    await fireEvent.click(screen.getByTestId('machine-remove-confirm'));
    await waitFor(() => expect(entries()).toEqual([]));
    expect(callsOf(backend, 'remove_host')).toEqual([{ destination: 'dev@box' }]);
  });

  it('opens a window on a machine', async () => {
    const backend = new FakeBackend();
    backend.seedHost(answering('dev@box', 0, 'connected, Switchboard 0.1.0, no agent running'));
    await openMachines(backend);
    await fireEvent.click(within(entry('dev@box')!).getByTestId('machine-open'));
    await waitFor(() => expect(callsOf(backend, 'open_host')).toEqual([{ destination: 'dev@box' }]));
    expect((await screen.findByTestId('machine-opened')).textContent).toBe('A window on dev@box is opening.');
  });

  it('says when this window shows another machine', async () => {
    const backend = new FakeBackend({ host: 'dev@box' });
    await openMachines(backend);
    expect(screen.getByTestId('machines-this-window').textContent).toBe('This window shows the engine on dev@box.');
  });

  it('opens from the command palette as "Machines…" and closes', async () => {
    const backend = new FakeBackend();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-palette'));
    const input = await screen.findByTestId('palette-input');
    await fireEvent.input(input, { target: { value: 'machines' } });
    await waitFor(() =>
      expect(screen.getAllByTestId('palette-item').find((i) => i.hasAttribute('data-selected'))?.textContent).toContain('Machines…'),
    );
    await fireEvent.keyDown(input, { key: 'Enter' });
    await screen.findByTestId('machines-view');
    await fireEvent.click(screen.getByTestId('machines-close'));
    await waitFor(() => expect(screen.queryByTestId('machines-view')).toBeNull());
  });
});

describe("the port field", () => {
  it('reads the port as typed', () => {
    expect(parsePort('')).toBeNull();
    expect(parsePort(' 22 ')).toBe(22);
    expect(parsePort('0')).toBeUndefined();
    expect(parsePort('22a')).toBeUndefined();
  });
});
